"""A digest is posted as a thread exactly once, resuming where a crash stopped it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.chat.posting import DigestPoster, Posted
from bot.core.day_window import day_window
from bot.core.models import (
    ChangeType,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    SummarySections,
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

    class Service:  # the day is rebuilt from the store: the same digest
        async def digest(self, repo, window):
            assert (repo, window) == (digest.repo, digest.window)
            return digest

    assert await resume_unfinished(Service(), DigestPoster(store, transport)) == 1
    assert transport.replies() == [5, 4, 3, 2, 1]
    assert await resume_unfinished(Service(), DigestPoster(store, transport)) == 0
