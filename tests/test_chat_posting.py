"""A digest is posted as a thread exactly once, resuming where a crash stopped it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.chat.posting import DigestPoster, Posted
from bot.core.day_window import day_window
from bot.core.models import (
    ChangeType,
    Digest,
    DigestEntry,
    PostRecord,
    PRSummary,
    PullRequest,
    RelatedPR,
    RelationKind,
    SummarySections,
    TrivialStyle,
)
from bot.store.store import Store


class Crash(Exception):
    pass


class MemoryTransport:
    """Our own port, faked: a channel that keeps messages and can fail on the Nth send."""

    platform = "memory"

    def __init__(self):
        self.messages: list[dict] = []
        self.crash_at: int | None = None
        self.crash_after_send = False
        self.crash_on_edit = False
        self.edits: list[tuple[str, dict[int, str]]] = []  # (parent id, links it was given)

    def _send(self, **message) -> Posted:
        if self.crash_at is not None and len(self.messages) == self.crash_at:
            if self.crash_after_send:  # the platform has it, our record does not
                self.messages.append(message)
            raise Crash
        self.messages.append(message)
        return Posted(str(len(self.messages)), message.get("thread"))

    async def send_parent(self, channel, digest):
        posted = self._send(kind="parent", channel=channel)
        return Posted(posted.message_id, posted.message_id)

    async def send_reply(self, channel, thread_id, digest, entry, index):
        return self._send(kind="pr", pr=entry.pr.number, thread=thread_id)

    async def send_empty(self, channel, digest):
        return self._send(kind="empty", channel=channel)

    async def find_parent(self, channel, digest):
        for i, m in enumerate(self.messages, start=1):
            if m["kind"] in ("parent", "empty"):
                return Posted(str(i), str(i))
        return None

    async def find_reply(self, channel, thread_id, digest, pr_number):
        for i, m in enumerate(self.messages, start=1):
            if m.get("pr") == pr_number:
                return Posted(str(i), thread_id)
        return None

    async def send_group(self, channel, thread_id, digest):
        numbers = [e.pr.number for e in digest.grouped_entries]
        return self._send(kind="group", prs=numbers, thread=thread_id)

    async def find_group(self, channel, thread_id, digest):
        for i, m in enumerate(self.messages, start=1):
            if m["kind"] == "group":
                return Posted(str(i), thread_id)
        return None

    async def edit_parent(self, channel, posted, digest):
        if self.crash_on_edit:
            self.crash_on_edit = False
            raise Crash
        self.edits.append((posted.message_id, dict(digest.links)))

    def link(self, channel, posted):
        return f"memory://{channel}/{posted.message_id}"

    def replies(self) -> list[int]:
        return [m["pr"] for m in self.messages if m["kind"] == "pr"]


def make_digest(store: Store, count: int) -> Digest:
    window = day_window(date(2026, 2, 23), "America/Los_Angeles")
    entries = []
    for n in range(count, 0, -1):
        pr = PullRequest(
            repo="o/r", number=n, title=f"PR {n}", url=f"https://github.com/o/r/pull/{n}",
            author="a", state="merged", merged_by="m",
            merged_at=datetime(2026, 2, 23, 12, tzinfo=UTC) + timedelta(minutes=n),
            merge_commit_sha=f"sha{n}",
        )  # fmt: skip
        summary = store.save_summary(
            PRSummary(
                repo="o/r", number=n, revision_sha=f"sha{n}", prompt_version="1", model="m",
                change_type=ChangeType.SUBSTANTIAL,
                sections=SummarySections("a", "b", "c", "d"), files_covered=1, files_total=1,
            )
        )  # fmt: skip
        entries.append(DigestEntry(pr, summary))
    return Digest("o/r", "r", window, tuple(entries))


@pytest.fixture
def store():
    return Store(":memory:")


async def test_a_digest_is_one_parent_and_one_reply_per_pr_in_order(store):
    transport = MemoryTransport()
    outcome = await DigestPoster(store, transport).post("C1", make_digest(store, 5))
    assert outcome.status == "posted" and outcome.replies_sent == 5
    assert transport.messages[0]["kind"] == "parent"
    assert transport.replies() == [5, 4, 3, 2, 1]
    assert all(m["thread"] == "1" for m in transport.messages[1:])


async def test_posting_the_same_day_again_links_to_the_existing_thread(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    digest = make_digest(store, 3)
    await poster.post("C1", digest)
    again = await poster.post("C1", digest)
    assert again.status == "already" and again.link == "memory://C1/1"
    assert len(transport.messages) == 4
    assert poster.is_complete("C1", digest)


async def test_another_channel_gets_its_own_thread(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    digest = make_digest(store, 2)
    await poster.post("C1", digest)
    outcome = await poster.post("C2", digest)
    assert outcome.status == "posted" and len(transport.messages) == 6


@pytest.mark.parametrize("after_send", [False, True])
@pytest.mark.parametrize("crash_at", [0, 1, 3, 5])
async def test_a_crash_anywhere_resumes_with_no_duplicate_and_no_gap(store, crash_at, after_send):
    transport = MemoryTransport()
    digest = make_digest(store, 5)
    transport.crash_at, transport.crash_after_send = crash_at, after_send
    with pytest.raises(Crash):
        await DigestPoster(store, transport).post("C1", digest)
    transport.crash_at = None
    outcome = await DigestPoster(store, transport).post("C1", digest)  # a fresh process
    assert outcome.status in ("posted", "resumed")
    assert [m["kind"] for m in transport.messages].count("parent") == 1
    assert transport.replies() == [5, 4, 3, 2, 1]


async def test_an_empty_day_posts_one_short_message_once(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    empty = make_digest(store, 0)
    assert (await poster.post("C1", empty)).status == "posted"
    assert (await poster.post("C1", empty)).status == "already"
    assert [m["kind"] for m in transport.messages] == ["empty"]


async def test_a_restart_finishes_half_posted_digests_by_itself(store):
    from datetime import date as date_

    from bot.chat.posting import resume_unfinished

    transport = MemoryTransport()
    digest = make_digest(store, 5)
    digest = Digest(
        digest.repo,
        digest.display_name,
        day_window(date_.today(), "America/Los_Angeles"),
        digest.entries,
    )
    transport.crash_at = 3
    with pytest.raises(Crash):
        await DigestPoster(store, transport).post("C1", digest)
    transport.crash_at = None

    class Service:  # the day is rebuilt from the store, at a glance: the same digest
        async def build(self, scope, bots=frozenset(), glance=True):
            assert (scope.repo, scope.window, glance) == (digest.repo, digest.window, True)
            assert scope.is_whole_day
            return digest

    assert await resume_unfinished(Service(), DigestPoster(store, transport)) == 1
    assert transport.replies() == [5, 4, 3, 2, 1]
    assert await resume_unfinished(Service(), DigestPoster(store, transport)) == 0


# -- the day at a glance: the parent's edit and the grouped reply -------------------------------


async def test_the_parent_is_edited_once_its_replies_exist_to_link_each_of_them(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    await poster.post("C1", make_digest(store, 3))
    assert transport.edits == [("1", {3: "memory://C1/2", 2: "memory://C1/3", 1: "memory://C1/4"})]
    await poster.post("C1", make_digest(store, 3))
    assert len(transport.edits) == 1  # a complete day is neither posted nor edited again


async def test_a_crash_between_the_parent_and_its_edit_resumes_with_the_edit_only(store):
    from bot.chat.posting import resume_unfinished

    transport = MemoryTransport()
    digest = make_digest(store, 3)
    digest = Digest(digest.repo, "r", day_window(date.today(), "UTC"), digest.entries)
    transport.crash_on_edit = True
    with pytest.raises(Crash):
        await DigestPoster(store, transport).post("C1", digest)
    assert not DigestPoster(store, transport).is_complete("C1", digest)

    class Service:
        async def build(self, scope, bots=frozenset()):
            return digest

    assert await resume_unfinished(Service(), DigestPoster(store, transport)) == 1
    assert [m["kind"] for m in transport.messages] == ["parent", "pr", "pr", "pr"]
    assert len(transport.edits) == 1
    assert DigestPoster(store, transport).is_complete("C1", digest)


def grouped_digest(store: Store, count: int) -> Digest:
    """Every even PR trivial: with the grouped style they share one compact reply."""
    digest = make_digest(store, count)
    entries = tuple(
        replace(e, summary=replace(e.summary, change_type=ChangeType.TRIVIAL))
        if e.pr.number % 2 == 0
        else e
        for e in digest.entries
    )
    return replace(digest, entries=entries).styled(trivial_style=TrivialStyle.GROUPED)


async def test_grouped_prs_share_one_reply_after_the_others_and_count_as_posted(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    digest = grouped_digest(store, 5)
    outcome = await poster.post("C1", digest)
    assert outcome.replies_sent == 4
    assert [(m["kind"], m.get("pr") or m.get("prs")) for m in transport.messages] == [
        ("parent", None), ("pr", 5), ("pr", 3), ("pr", 1), ("group", [4, 2]),
    ]  # fmt: skip
    assert transport.edits[0][1][4] == transport.edits[0][1][2] == "memory://C1/5"
    assert poster.is_complete("C1", digest)
    assert (await poster.post("C1", digest)).status == "already"


@pytest.mark.parametrize("after_send", [False, True])
async def test_a_crash_while_posting_the_grouped_reply_resumes_without_a_duplicate(
    store, after_send
):
    transport = MemoryTransport()
    digest = grouped_digest(store, 5)
    transport.crash_at, transport.crash_after_send = 4, after_send
    with pytest.raises(Crash):
        await DigestPoster(store, transport).post("C1", digest)
    transport.crash_at = None
    outcome = await DigestPoster(store, transport).post("C1", digest)
    assert outcome.status == "resumed"
    assert [m["kind"] for m in transport.messages].count("group") == 1
    assert len(transport.edits) == 1


async def test_a_day_posted_before_the_parent_was_edited_is_not_posted_or_edited_again(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    digest = make_digest(store, 2)
    # What an earlier release left: the parent and its replies, and no edit step.
    for kind, number, message_id in (("parent", 0, "1"), ("pr", 2, "2"), ("pr", 1, "3")):
        record = store.begin_post(
            PostRecord(platform="memory", channel="C1", repo="o/r", day="2026-02-23",
                       pr_number=number, message_id="", thread_id="1", tz_name="UTC"),
            kind,
        )  # fmt: skip
        store.complete_post(record.id, message_id, "1")
    assert poster.finished_link("C1", "o/r", "2026-02-23", [2, 1]) == "memory://C1/1"
    assert (await poster.post("C1", digest)).status == "already"
    assert transport.messages == [] and transport.edits == []


async def test_a_reply_links_the_earlier_digest_message_of_the_pr_it_reverts(store):
    transport = MemoryTransport()
    poster = DigestPoster(store, transport)
    await poster.post("C1", make_digest(store, 2))  # 2026-02-23: PRs 2 and 1
    later = make_digest(store, 1)
    revert = RelatedPR(RelationKind.REVERTS, 2, "PR 2", "https://github.com/o/r/pull/2",
                       merged_day="2026-02-23")  # fmt: skip
    entry = replace(later.entries[0], pr=replace(later.entries[0].pr, number=9), related=(revert,))
    later = replace(later, window=day_window(date(2026, 2, 24), "America/Los_Angeles"),
                    entries=(entry,))  # fmt: skip
    seen: list[dict[int, str]] = []
    send_reply = transport.send_reply

    async def recording(channel, thread_id, digest, entry, index):
        seen.append(dict(digest.links))
        return await send_reply(channel, thread_id, digest, entry, index)

    transport.send_reply = recording
    await poster.post("C1", later)
    assert seen == [{2: "memory://C1/2"}]
