"""Flag reactions on Discord: record, acknowledge once, remove, and ignore everything else."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.core.settings import Settings
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, post_digest, running_bot

DAY = "2026-02-23"
ALICE, BOB = "4000000000000000001", "4000000000000000002"


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    store = Store(settings.db_path)
    yield store
    store.close()


def summary_id(store: Store, number: int) -> int:
    summary = store.latest_summary(REPO, number)
    assert summary is not None and summary.id is not None
    return summary.id


def thanks_in(fake: FakeDiscord, channel: str) -> list[dict]:
    return [m for m in fake.channel_messages(channel) if m["content"].startswith("Thanks <@")]


async def settle(fake: FakeDiscord) -> None:
    """Reactions get no answer to wait for: a /prsummary round trip flushes the gateway."""
    probe = fake.slash("prsummary", {"pr": "not-a-number"})
    await fake.wait_for(lambda: probe.finished, what="the probe")


async def test_a_flag_reaction_records_a_flag_and_thanks_once(fake, settings, github, store):
    async with running_bot(fake, settings):
        parent, replies = await post_digest(fake, github)
        thread = parent["id"]
        top = replies[0]  # the newest merge: #2
        fake.react(thread, top["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: thanks_in(fake, thread), what="the thanks")
        fake.react(thread, top["id"], "❌", user_id=BOB)
        fake.react(thread, top["id"], "❌", user_id=BOB)  # a repeat is one flag
        await fake.wait_for(lambda: len(store.active_flags(summary_id(store, 2))) == 2)
        await settle(fake)

    flags = store.active_flags(summary_id(store, 2))
    assert sorted(f.user for f in flags) == [ALICE, BOB]
    assert {(f.repo, f.number, f.emoji, f.message_id) for f in flags} == {
        (REPO, 2, "❌", top["id"])
    }
    thanks = thanks_in(fake, thread)  # the re-check's own reply is not counted here
    assert len(thanks) == 1  # once per summary, however many people flag it
    assert thanks[0]["content"].startswith(f"Thanks <@{ALICE}>: the summary of #2 is flagged")
    assert thanks[0]["allowed_mentions"] == {"parse": []}  # named, not pinged


async def test_removing_the_reaction_removes_the_flag(fake, settings, github, store):
    async with running_bot(fake, settings):
        parent, replies = await post_digest(fake, github)
        fake.react(parent["id"], replies[1]["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: len(store.active_flags(summary_id(store, 1))) == 1)
        fake.unreact(parent["id"], replies[1]["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: store.active_flags(summary_id(store, 1)) == [])


async def test_other_emoji_other_messages_and_the_bots_own_reactions_are_ignored(
    fake, settings, github, store
):
    async with running_bot(fake, settings):
        parent, replies = await post_digest(fake, github)
        fake.react(parent["id"], replies[0]["id"], "👍", user_id=ALICE)
        fake.react(fake.channel_id, parent["id"], "❌", user_id=ALICE)  # the parent is no summary
        fake.react(parent["id"], replies[0]["id"], "❌", user_id=fake.bot_user_id)
        stranger = fake.add_message(fake.channel_id, content="hi", author=fake.user(BOB, "bob"))
        fake.react(fake.channel_id, stranger["id"], "❌", user_id=ALICE)
        await settle(fake)
    assert store.active_flags(summary_id(store, 2)) == []
    assert store.active_flags(summary_id(store, 1)) == []
    assert len(fake.channel_messages(parent["id"])) == 2  # no thanks for anything


async def test_configured_slack_style_names_match_discords_characters(
    fake, settings, github, store, monkeypatch
):
    monkeypatch.setenv("PRDIGEST_FLAG_EMOJI", "warning,:triangular_flag_on_post:")
    async with running_bot(fake, Settings.from_env(dotenv=False)):
        parent, replies = await post_digest(fake, github)
        assert "React with ⚠️" in fake.channel_messages(fake.channel_id)[0]["content"]
        fake.react(parent["id"], replies[0]["id"], "⚠\ufe0f", user_id=ALICE)
        fake.react(parent["id"], replies[1]["id"], "🚩", user_id=ALICE)
        fake.react(parent["id"], replies[1]["id"], "❌", user_id=BOB)  # not configured now
        await fake.wait_for(lambda: store.active_flags(summary_id(store, 1)))
        await settle(fake)
    assert [f.user for f in store.active_flags(summary_id(store, 2))] == [ALICE]
    assert [f.user for f in store.active_flags(summary_id(store, 1))] == [ALICE]


async def test_a_prsummary_answer_can_be_flagged_too(fake, settings, github, store):
    github.add_pr(REPO, make_pr(11, f"{DAY} 10:00:00"))
    async with running_bot(fake, settings):
        interaction = fake.slash("prsummary", {"pr": "11"})
        await fake.wait_for(lambda: interaction.finished)
        answer = interaction.messages[0]
        fake.react(fake.channel_id, answer["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: thanks_in(fake, fake.channel_id), what="the thanks")
    (flag,) = store.active_flags(summary_id(store, 11))
    assert (flag.user, flag.message_id, flag.channel) == (ALICE, answer["id"], fake.channel_id)


async def test_a_flag_in_a_thread_the_bot_has_not_cached_is_still_found(
    fake, settings, github, store
):
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        # As after a restart: the thread is not in discord.py's cache, so it is fetched.
        bot._connection._get_guild(int(fake.guild_id))._threads.clear()
        fake.react(parent["id"], replies[0]["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: store.active_flags(summary_id(store, 2)))
    assert fake.requests(rf"^/channels/{parent['id']}$", "GET")
