"""A flag reaction on a PR summary is recorded against the exact summary version it judged."""

from __future__ import annotations

import pytest

from bot.chat.flags.emoji import FlagEmojis, normalize_emoji
from bot.chat.flags.record import FlagOutcome, FlagRecords
from bot.core.models import ChangeType, Flag, PostRecord, PRSummary, SummarySections
from bot.ports.chat import Reaction
from bot.store.store import Store


@pytest.fixture
def store():
    return Store(":memory:")


def post_summary(store: Store, message_id: str, number: int = 7, kind: str = "pr") -> int:
    summary = store.save_summary(
        PRSummary(
            repo="o/r", number=number, revision_sha="abc", prompt_version="1", model="m",
            change_type=ChangeType.TRIVIAL, sections=SummarySections("a", "b", "c", "d"),
            files_covered=1, files_total=1,
        )
    )  # fmt: skip
    record = store.begin_post(
        PostRecord("slack", "C1", "o/r", "2026-02-23", number, "", "T1", summary.id), kind
    )
    store.complete_post(record.id, message_id, "T1")
    return summary.id


class Flags:
    """The flag path's own steps, as the flag loop takes them for one reaction: the emoji
    matched (at the adapter's edge), the message's record read, the flag recorded."""

    def __init__(self, store: Store, emojis: tuple[str, ...]):
        self.emojis = FlagEmojis(emojis)
        self.records = FlagRecords(store)

    def reaction(self, channel: str, message_id: str, user: str, emoji: str, added: bool):
        flag = self.emojis.match(emoji)
        return Reaction("slack", channel, message_id, user, flag, added) if flag else None

    def added(self, channel, message_id, user, emoji) -> FlagOutcome | None:
        reaction = self.reaction(channel, message_id, user, emoji, True)
        return reaction and self.records.added(reaction, self.records.post_of(reaction))

    def removed(self, channel, message_id, user, emoji) -> Flag | None:
        reaction = self.reaction(channel, message_id, user, emoji, False)
        return reaction and self.records.removed(reaction)


def test_emoji_names_and_characters_are_the_same_flag():
    assert normalize_emoji("x") == normalize_emoji(":x:") == normalize_emoji("❌")
    assert normalize_emoji("-1::skin-tone-3") == normalize_emoji("👎")


def test_flag_is_recorded_with_user_message_pr_and_summary_version(store):
    summary_id = post_summary(store, "111.1")
    outcome = Flags(store, ("x",)).added("C1", "111.1", "U1", "x")
    assert outcome and outcome.new and outcome.acknowledge
    flag = outcome.flag
    assert (flag.user, flag.message_id, flag.number, flag.summary_id) == (
        "U1",
        "111.1",
        7,
        summary_id,
    )
    assert [f.user for f in store.active_flags(summary_id)] == ["U1"]


def test_the_bot_thanks_once_per_summary_however_many_flag_it(store):
    post_summary(store, "111.1")
    flags = Flags(store, ("x",))
    first = flags.added("C1", "111.1", "U1", "x")
    second = flags.added("C1", "111.1", "U2", "x")
    again = flags.added("C1", "111.1", "U1", "x")
    assert first.acknowledge and not second.acknowledge
    assert second.new and not again.new


def test_removing_the_reaction_removes_that_users_flag_only(store):
    summary_id = post_summary(store, "111.1")
    flags = Flags(store, ("x", "-1"))
    flags.added("C1", "111.1", "U1", "x")
    flags.added("C1", "111.1", "U2", "-1")
    removed = flags.removed("C1", "111.1", "U1", "x")
    assert removed and removed.user == "U1"
    assert [f.user for f in store.active_flags(summary_id)] == ["U2"]


def test_other_emoji_and_other_messages_are_ignored(store):
    post_summary(store, "111.1")
    parent = store.begin_post(PostRecord("slack", "C1", "o/r", "2026-02-23", 0, ""), "parent")
    store.complete_post(parent.id, "100.0", "100.0")
    flags = Flags(store, ("x",))
    assert flags.added("C1", "111.1", "U1", "tada") is None
    assert flags.added("C1", "100.0", "U1", "x") is None  # the parent message
    assert flags.added("C1", "999.9", "U1", "x") is None  # not ours
    assert flags.added("C2", "111.1", "U1", "x") is None  # same ts, other channel


def test_prsummary_answers_can_be_flagged_too(store):
    post_summary(store, "222.2", number=9, kind="prsummary")
    outcome = Flags(store, ("x",)).added("C1", "222.2", "U1", "x")
    assert outcome and outcome.flag.number == 9
