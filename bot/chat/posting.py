"""Posting a digest as a thread, exactly once, whatever the chat platform.

The store's `posts` table is the single truth: a row is written before each message is sent
and completed with the message id after. A restart resumes at the first incomplete row; a row
left pending by a crash *between* sending and recording is reconciled by asking the platform
whether that message exists (`Transport.find_*`), so nothing is posted twice or skipped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo

from bot.chat.styles import DigestStyles
from bot.core.day_window import zone
from bot.core.metrics import DIGESTS_POSTED
from bot.core.models import (
    Digest,
    DigestEntry,
    PostKind,
    PostRecord,
    PostStatus,
)
from bot.core.scope import DigestScope, post_key_of
from bot.ports.chat import Posted, Transport
from bot.store.base import iso
from bot.store.posts import FailedReply
from bot.store.store import Store

__all__ = ["DigestPoster", "PostOutcome", "Posted", "Transport", "is_transient", "post_zone"]

log = logging.getLogger(__name__)

# A send that fails with a gateway-type error (429, 502, 503, 504) or a dropped connection is
# tried again after these pauses, within the same run, so one bad answer in a 52-reply thread
# does not stop the digest. Before each new try the platform is asked whether the failed send
# got through after all (`find`), so a retry never posts a message twice. A 500 is left to the
# resume path (the next run reconciles the slot the same way), as are all other errors.
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})


# The message id recorded for a quiet day that was skipped: nothing was sent.
SKIPPED_MESSAGE = "-"


@dataclass(frozen=True)
class PostOutcome:
    status: PostStatus
    link: str
    replies_sent: int = 0


class DigestPoster:
    def __init__(self, store: Store, transport: Transport):
        self.store = store
        self.transport = transport
        self.platform = transport.platform
        # One digest post per (channel, repo, day) at a time within this process.
        self._locks: dict[tuple[str, str, str], asyncio.Lock] = {}

    async def identified(self) -> None:
        """Let the transport learn who it is, once, before a link is built: Slack's links are
        on the workspace's own host, which only auth.test tells."""
        identify = getattr(self.transport, "identify", None)
        if identify is not None:
            await identify()

    def existing(self, channel: str, repo: str, day: str) -> PostRecord | None:
        """The recorded parent (or empty-day) message of a digest, if it was fully posted."""
        for kind in (PostKind.PARENT, PostKind.EMPTY):
            record = self.store.digest_post(self.platform, channel, repo, day, kind)
            if record and record.message_id:
                return record
        return None

    def fully_posted(
        self, channel: str, repo: str, day: str, numbers: list[int] | None
    ) -> PostRecord | None:
        """The one "is this day fully posted here" check, from the posts table alone: the
        parent (or empty-day) record when the parent, a reply (or a grouped line) for each of
        `numbers` (the day's PRs, None when not known yet) and the parent's edit went out;
        else None. A day posted before the parent was edited has no edit step to wait for."""
        records = self.store.digest_posts(self.platform, channel, repo, day)
        sent = [r for r in records if r.message_id]
        if not any(r.kind in (PostKind.PARENT, PostKind.EMPTY) for r in sent):
            return None
        edits = [r for r in records if r.kind == PostKind.PARENT_EDIT]
        if any(not r.message_id for r in edits):
            return None
        if not DigestScope.from_post_key(repo, day, "UTC").is_whole_day:
            # A filtered or weekly digest's PRs are not the day's list; its edit step, the
            # last one, is done after every reply (and a quiet day is its one record).
            return self.existing(channel, repo, day)
        if numbers is None:
            return None
        done = {r.pr_number for r in sent if r.kind == PostKind.PR}
        done.update(n for r in sent if r.kind == PostKind.GROUP for n in r.numbers)
        if not set(numbers) <= done and numbers:
            return None
        return self.existing(channel, repo, day)

    def is_complete(self, channel: str, digest: Digest) -> bool:
        numbers = [e.pr.number for e in digest.entries]
        day = post_key_of(digest)
        return self.fully_posted(channel, digest.repo, day, numbers) is not None

    def finished_link(
        self, channel: str, repo: str, day: str, numbers: list[int] | None
    ) -> str | None:
        """A link to the thread when a day known to hold `numbers` is fully posted here, so a
        repeated /digest can answer without building anything."""
        parent = self.fully_posted(channel, repo, day, numbers)
        return self.transport.link(channel, _posted(parent)) if parent else None

    # -- single messages: /prsummary answers and revisions ------------------------------------

    async def send_recorded(
        self,
        kind: PostKind,
        send: Callable[[], Awaitable[Posted]],
        *,
        channel: str,
        repo: str,
        pr_number: int,
        summary_id: int | None,
        day: str = "",
        thread_id: str | None = None,
        tz_name: str | None = None,
    ) -> Posted:
        """Send one message that can be flagged, recorded before (so a crash leaves a trace)
        and completed after with its id; the send's error is raised, the record left open."""
        record = await self.store.aio.begin_post(
            PostRecord(
                platform=self.platform, channel=channel, repo=repo, day=day,
                pr_number=pr_number, message_id="", thread_id=thread_id,
                summary_id=summary_id, tz_name=tz_name,
            ),
            kind,
        )  # fmt: skip
        posted = await send()
        assert record.id is not None  # begin_post returns the stored row
        await self.store.aio.complete_post(record.id, posted.message_id, posted.thread_id)
        return posted

    async def record_sent(
        self, kind: PostKind, posted: Posted, *, channel: str, repo: str, pr_number: int,
        summary_id: int | None,
    ) -> PostRecord:  # fmt: skip
        """Record a summary message sent by other means (an interaction's answer, a Slack
        response_url), so a flag reaction on it counts like one on a digest reply."""
        record = await self.store.aio.begin_post(
            PostRecord(
                platform=self.platform, channel=channel, repo=repo, day="",
                pr_number=pr_number, message_id="", summary_id=summary_id,
            ),
            kind,
        )  # fmt: skip
        assert record.id is not None
        return await self.store.aio.complete_post(record.id, posted.message_id, posted.thread_id)

    # -- digests ----------------------------------------------------------------------------

    async def post(self, channel: str, digest: Digest, *, quiet: str = "post") -> PostOutcome:
        """Post `digest` in `channel` as a thread, or finish posting it. A day with no PR is
        one short message, or nothing at all with `quiet="skip"`: recorded either way, so
        a catch-up never tries the day again."""
        key = (channel, digest.repo, post_key_of(digest))
        lock = self._locks.setdefault(key, asyncio.Lock())
        await self.identified()  # an "already posted" answer sends nothing, yet links
        async with lock:
            outcome = await self._post(channel, digest, quiet)
        if outcome.status in (PostStatus.POSTED, PostStatus.RESUMED):  # out in full, just now
            DIGESTS_POSTED.labels(platform=str(self.platform)).inc()
        return outcome

    async def _post(self, channel: str, digest: Digest, quiet: str = "post") -> PostOutcome:
        was_complete = await self.store.aio.read(self.is_complete, channel, digest)
        if not digest.entries:
            if quiet == "skip":
                return await self._skip(channel, digest)
            return await self._post_empty(channel, digest)
        digest = await self._linked(channel, digest)
        edit = await self._plan_edit(channel, digest)
        parent, parent_fresh = await self._ensure(
            channel, digest, PostKind.PARENT, 0, lambda: self.transport.send_parent(channel, digest),
            lambda: self.transport.find_parent(channel, digest),
        )  # fmt: skip
        thread_id = parent.thread_id or parent.message_id
        sent = await self._send_replies(channel, digest, thread_id)
        sent += await self._send_groups(channel, digest, thread_id)
        if edit is not None and not edit.message_id:
            await self._edit_parent(channel, digest, parent, edit)
        if was_complete:
            status = PostStatus.ALREADY
        elif parent_fresh:
            status = PostStatus.POSTED
        else:
            status = PostStatus.RESUMED
        log.info(
            "digest %s %s in %s:%s: %s (%d replies sent)",
            digest.repo, post_key_of(digest), self.platform, channel, status, sent,
        )  # fmt: skip
        return PostOutcome(status, self.transport.link(channel, _posted(parent)), sent)

    async def _post_empty(self, channel: str, digest: Digest) -> PostOutcome:
        """A day with no PR: its one short message."""
        record, fresh = await self._ensure(
            channel, digest, PostKind.EMPTY, 0, lambda: self.transport.send_empty(channel, digest),
            lambda: self.transport.find_parent(channel, digest),
        )  # fmt: skip
        status = PostStatus.POSTED if fresh else PostStatus.ALREADY
        return PostOutcome(status, self.transport.link(channel, _posted(record)), int(fresh))

    async def _linked(self, channel: str, digest: Digest) -> Digest:
        """Replies link the earlier digest's message about a PR they revert or follow up; a
        week's parent links each day's thread in this channel."""
        digest = digest.with_links(await self.store.aio.read(self._earlier_links, channel, digest))
        if digest.week is not None:
            digest = replace(
                digest, day_links=await self.store.aio.read(self._day_links, channel, digest)
            )
        return digest

    async def _send_replies(self, channel: str, digest: Digest, thread_id: str) -> int:
        """One reply per PR of the thread, in order; returns how many were sent now. A reply
        without a summary is recorded as such, for healing once a summary exists."""
        sent = 0
        # A weekly rollup's replies are its areas, one line per PR: no reply per PR.
        singles = digest.thread_entries if digest.week is None else ()
        for index, entry in enumerate(singles, start=1):
            number = entry.pr.number

            def send(entry: DigestEntry = entry, index: int = index):
                return self.transport.send_reply(channel, thread_id, digest, entry, index)

            def find(number: int = number):
                return self.transport.find_reply(channel, thread_id, digest, number)

            _, fresh = await self._ensure(
                channel, digest, PostKind.PR, number, send, find,
                summary_id=entry.summary.id if entry.summary else None, thread_id=thread_id,
                unsummarized=entry.summary is None and entry.error is not None,
            )  # fmt: skip
            sent += int(fresh)
        return sent

    async def _send_groups(self, channel: str, digest: Digest, thread_id: str) -> int:
        """The grouped replies: the day's one is slot 0; a week's area replies are 1, 2, ..."""
        sent = 0
        for slot, group in enumerate(groups(digest)):

            def send_group(group: Digest = group):
                return self.transport.send_group(channel, thread_id, group)

            def find_group(group: Digest = group):
                return self.transport.find_group(channel, thread_id, group)

            _, fresh = await self._ensure(
                channel, digest, PostKind.GROUP, slot + int(digest.week is not None),
                send_group, find_group, thread_id=thread_id,
                numbers=tuple(e.pr.number for e in group.grouped_entries),
            )  # fmt: skip
            sent += int(fresh)
        return sent

    async def _skip(self, channel: str, digest: Digest) -> PostOutcome:
        """A quiet day that posts nothing, recorded as its empty-day message."""
        record = await self.store.aio.begin_post(self._record(channel, digest, 0), PostKind.EMPTY)
        if record.message_id:
            return PostOutcome(PostStatus.ALREADY, "")
        assert record.id is not None
        await self.store.aio.complete_post(record.id, SKIPPED_MESSAGE)
        log.info("digest %s %s in %s:%s: quiet day skipped", digest.repo, post_key_of(digest),
                 self.platform, channel)  # fmt: skip
        return PostOutcome(PostStatus.SKIPPED, "")

    async def _plan_edit(self, channel: str, digest: Digest) -> PostRecord | None:
        """The parent's edit step, begun before the parent itself is sent so that a crash at
        any point leaves it pending, for the resume to finish. A day whose parent went out
        before edits existed has none, and is never edited or posted again."""
        day = post_key_of(digest)
        parent = await self.store.aio.digest_post(
            self.platform, channel, digest.repo, day, PostKind.PARENT
        )
        if parent is None:
            return await self.store.aio.begin_post(
                self._record(channel, digest, 0), PostKind.PARENT_EDIT
            )
        return await self.store.aio.digest_post(
            self.platform, channel, digest.repo, day, PostKind.PARENT_EDIT
        )

    async def _edit_parent(
        self, channel: str, digest: Digest, parent: PostRecord, edit: PostRecord
    ) -> None:
        """The parent again, now linking each highlight and area to its reply. Editing is
        idempotent, so a crash before the step is recorded just edits once more."""
        links = await self.store.aio.read(self._reply_links, channel, digest)
        await self.transport.edit_parent(channel, _posted(parent), digest.with_links(links))
        assert edit.id is not None
        await self.store.aio.complete_post(edit.id, parent.message_id)

    # -- healing: a reply posted without a summary, replaced in place once one exists -----

    async def heal(self, channel: str, digest: Digest) -> int:
        """Edit in place each reply of this posted digest that went out as "Summary
        unavailable" and whose PR `digest` now has a summary for, then the parent, so its
        counts agree; returns how many replies were healed. Each edit is a recorded step,
        planned before any is made: a crash mid-heal is finished by the next call."""
        key = (channel, digest.repo, post_key_of(digest))
        async with self._locks.setdefault(key, asyncio.Lock()):
            if not await self.store.aio.read(self.is_complete, channel, digest):
                return 0  # the thread is still being posted: its resume comes first
            await self.identified()  # links to the replies are built as the first post's were
            summaries = {
                e.pr.number: e.summary.id
                for e in digest.thread_entries
                if e.summary is not None and e.summary.id is not None
            }
            day = post_key_of(digest)
            await self.store.aio.write(
                self.store.plan_heal, self.platform, channel, digest.repo, day, summaries
            )
            return await self._heal_planned(channel, digest)

    async def _heal_planned(self, channel: str, digest: Digest) -> int:
        """Do the pending healing steps in order: every reply's edit, then the parent's."""
        day = post_key_of(digest)
        records = await self.store.aio.digest_posts_of(
            self.platform, channel, digest.repo, day, PostKind.PR
        )
        replies = {r.pr_number: r for r in records}
        steps = await self.store.aio.read(self._pending_heals, channel, digest.repo, day)
        healed = 0
        for step in steps:
            if step.kind == PostKind.REPLY_HEAL and step.pr_number in replies:
                healed += await self._heal_reply(channel, digest, replies[step.pr_number], step)
        parent_steps = [s for s in steps if s.kind == PostKind.PARENT_HEAL]
        if parent_steps:
            await self._heal_parent(channel, digest, parent_steps)
        if healed:
            log.info(
                "healed %d replies of the %s digest of %s in %s:%s",
                healed, day, digest.repo, self.platform, channel,
            )  # fmt: skip
        return healed

    def _pending_heals(self, channel: str, repo: str, day: str) -> list[PostRecord]:
        steps = []
        for kind in (PostKind.REPLY_HEAL, PostKind.PARENT_HEAL):
            steps += self.store.digest_posts_of(self.platform, channel, repo, day, kind)
        return sorted((s for s in steps if not s.message_id), key=lambda s: s.id or 0)

    async def _heal_reply(
        self, channel: str, digest: Digest, reply: PostRecord, step: PostRecord
    ) -> int:
        """One reply edited to show its PR's summary, exactly once: a step attempted before a
        crash asks the platform whether the edit got there before making it."""
        index, entry = digest.reply_index(reply.pr_number)
        if entry.summary is None or entry.summary.id is None or step.id is None:
            return 0  # a summary the digest does not show: left for a later heal
        posted = _posted(reply)
        attempted = await self.store.aio.post_attempted(step.id)
        if not (
            attempted and await self.transport.shows_reply(channel, posted, digest, entry, index)
        ):
            await self.store.aio.mark_attempt(step.id)
            await self.transport.edit_reply(channel, posted, digest, entry, index)
        assert reply.id is not None
        await self.store.aio.complete_heal(step.id, reply.id, reply.message_id, entry.summary.id)
        return 1

    async def _heal_parent(self, channel: str, digest: Digest, steps: list[PostRecord]) -> None:
        """The parent rendered again, with the healed replies counted as summarized: one edit
        for every pending step (a crash may have left an earlier heal's)."""
        parent = await self.store.aio.digest_post(
            self.platform, channel, digest.repo, post_key_of(digest), PostKind.PARENT
        )
        assert parent is not None
        links = await self.store.aio.read(self._reply_links, channel, digest)
        shown = digest.with_links(links)
        attempted = [s for s in steps if s.id is not None]
        was_tried = any([await self.store.aio.post_attempted(s.id) for s in attempted])
        if not (was_tried and await self.transport.shows_parent(channel, _posted(parent), shown)):
            for step in attempted:
                await self.store.aio.mark_attempt(step.id)
            await self.transport.edit_parent(channel, _posted(parent), shown)
        for step in attempted:
            await self.store.aio.complete_post(step.id, parent.message_id)

    async def failed_replies(self, channel: str, repo: str, day: str) -> list[FailedReply]:
        """This digest's replies posted without a summary, not healed yet."""
        return await self.store.aio.failed_replies(self.platform, channel, repo, day)

    async def note_heal_attempt(self, failed: list[FailedReply], retry_after: datetime) -> None:
        """A retry of these replies' PRs made no summary: pace the next one."""
        ids = [f.record.id for f in failed if f.record.id is not None]
        if ids:
            await self.store.aio.write(self.store.note_heal_attempt, ids, iso(retry_after))

    def _reply_links(self, channel: str, digest: Digest) -> dict[int, str]:
        """PR number -> its reply in this thread (or the grouped reply that lists it)."""
        day = post_key_of(digest)
        links: dict[int, str] = {}
        for record in self.store.digest_posts(self.platform, channel, digest.repo, day):
            if not record.message_id:
                continue
            if record.kind == PostKind.PR:
                links[record.pr_number] = self.transport.link(channel, _posted(record))
            elif record.kind == PostKind.GROUP:
                url = self.transport.link(channel, _posted(record))
                links.update((number, url) for number in record.numbers)
        return links

    def _earlier_links(self, channel: str, digest: Digest) -> dict[int, str]:
        """PR number -> an earlier day's digest message about it, for the related PRs of this
        day that were merged before it (a revert's original, a follow-up's predecessor)."""
        day = digest.window.day.isoformat()
        links: dict[int, str] = {}
        for entry in digest.entries:
            for related in entry.related:
                if related.same_day or related.number in links:
                    continue
                record = self.store.earlier_reply(
                    self.platform, channel, digest.repo, related.number, day
                )
                if record is not None:
                    links[related.number] = self.transport.link(channel, _posted(record))
        return links

    def _day_links(self, channel: str, digest: Digest) -> dict[str, str]:
        """A weekly rollup's days -> their digest threads in this channel (the same filter's,
        else the whole day's), where they were posted."""
        assert digest.week is not None
        scope = DigestScope.of_digest(digest)
        links: dict[str, str] = {}
        for week_day in digest.week.days:
            day = week_day.day.isoformat()
            same = (scope.of_day(week_day.day).post_key, scope.whole_day(week_day.day).post_key)
            for key in dict.fromkeys(same):
                record = self.store.digest_post(
                    self.platform, channel, digest.repo, key, PostKind.PARENT
                )
                if record is not None and record.message_id:
                    links[day] = self.transport.link(channel, _posted(record))
                    break
        return links

    def _record(
        self, channel: str, digest: Digest, pr_number: int, *, summary_id: int | None = None,
        thread_id: str | None = None, numbers: tuple[int, ...] = (),
    ) -> PostRecord:  # fmt: skip
        return PostRecord(
            platform=self.platform,
            channel=channel,
            repo=digest.repo,
            day=post_key_of(digest),
            pr_number=pr_number,
            message_id="",
            thread_id=thread_id,
            summary_id=summary_id,
            tz_name=digest.window.tz_name,
            numbers=numbers,
        )

    async def _ensure(
        self,
        channel: str,
        digest: Digest,
        kind: PostKind,
        pr_number: int,
        send,
        find,
        *,
        summary_id: int | None = None,
        thread_id: str | None = None,
        numbers: tuple[int, ...] = (),
        unsummarized: bool = False,
    ) -> tuple[PostRecord, bool]:
        """Make sure one slot of the digest is posted; returns (record, whether we sent now)."""
        record = await self.store.aio.begin_post(
            self._record(
                channel, digest, pr_number, summary_id=summary_id, thread_id=thread_id,
                numbers=numbers,
            ),
            kind,
            unsummarized=unsummarized,
        )  # fmt: skip
        if record.message_id:
            return record, False
        # Only a slot whose send was started before (and not recorded) can exist unrecorded.
        found = await find() if await self.store.aio.post_attempted(record.id) else None
        if found is not None:
            return await self.store.aio.complete_post(
                record.id, found.message_id, found.thread_id
            ), False
        await self.store.aio.mark_attempt(record.id)
        for attempt in range(len(RETRY_DELAYS) + 1):
            try:
                # After a failed try the platform may have the message all the same: look first.
                posted: Posted = (await find() if attempt else None) or await send()
            except Exception as exc:
                if attempt == len(RETRY_DELAYS) or not is_transient(exc):
                    raise
                delay = RETRY_DELAYS[attempt]
                log.warning(
                    "sending %s %s of %s %s to %s:%s failed (%s); trying again in %.1fs",
                    kind, pr_number or "", digest.repo, digest.window.day, self.platform,
                    channel, type(exc).__name__, delay,
                )  # fmt: skip
                await asyncio.sleep(delay)
                continue
            return await self.store.aio.complete_post(
                record.id, posted.message_id, posted.thread_id
            ), True
        raise AssertionError("unreachable")  # the last attempt returns or raises


def groups(digest: Digest) -> list[Digest]:
    """The digest's grouped replies: a day's one (its trivial and bot PRs, when grouped), or
    a weekly rollup's one per area, each listing its PRs one line each."""
    if digest.week is not None and digest.overview is not None:
        by_number = {e.pr.number: e for e in digest.entries}
        return [
            replace(
                digest,
                entries=tuple(
                    replace(by_number[n], grouped=True) for n in area.numbers if n in by_number
                ),
                group_title=area.name,
            )
            for area in digest.overview.areas
            if any(n in by_number for n in area.numbers)
        ]
    return [digest] if digest.grouped_entries else []


def _posted(record: PostRecord) -> Posted:
    return Posted(record.message_id, record.thread_id)


def is_transient(exc: BaseException) -> bool:
    """Whether a failed send is worth trying again at once: a dropped connection, a timeout,
    or a gateway-type HTTP status. Duck-typed so the core needs no chat library: discord.py's
    HTTPException has `status`, slack_sdk's SlackApiError `response.status_code`."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    if type(exc).__module__.startswith("aiohttp") and "Connect" in type(exc).__name__:
        return True
    status = getattr(exc, "status", None)
    if not isinstance(status, int):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    return isinstance(status, int) and status in TRANSIENT_STATUSES


def post_zone(post: PostRecord | None, default_tz: str) -> tzinfo:
    """The zone a posted message showed its times in: its digest's, else the default one."""
    return zone(post.tz_name if post and post.tz_name else default_tz)


async def resume_unfinished(
    service, poster: DigestPoster, styles: DigestStyles | None = None, *, days: int = 3
) -> int:
    """Finish digests a crash or restart left half-posted in the last `days`; returns how many.

    Their summaries and overview are stored, so rebuilding a day makes no GitHub or LLM call;
    the channel's style cuts the thread into the same replies; the posts table skips every
    step that already went out.
    """
    since = (date.today() - timedelta(days=days)).isoformat()
    resumed = 0
    for parent in await poster.store.aio.unfinished_digests(poster.platform, since):
        digest = await rebuild(service, poster.platform, parent, styles)
        outcome = await poster.post(parent.channel, digest)
        resumed += outcome.status == PostStatus.RESUMED
        log.info("resumed the %s digest of %s in %s", parent.day, parent.repo, parent.channel)
    return resumed


async def rebuild(
    service, platform: str, parent: PostRecord, styles: DigestStyles | None = None
) -> Digest:
    """The digest a posts record (of its parent) belongs to, as its channel shows it: built
    again by `service` from the store, so only what is missing there (a PR's summary that
    failed) costs a call."""
    scope = DigestScope.from_post_key(parent.repo, parent.day, parent.tz_name or "UTC")
    bots = styles.bots if styles is not None else frozenset()
    digest = await service.build(scope, bots=bots)
    if styles is not None:
        digest = styles.apply(digest, platform, parent.channel)
    return digest
