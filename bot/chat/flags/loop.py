"""One platform's flag path, from the reaction to the correction.

The adapter hands over each flag reaction as one `Reaction` (`FlagLoop.on_reaction`). Put on:
the flagged message's record is read once (or adopted from the platform), the flag recorded
against the summary version that message showed, the thanks said once per summary, and the
re-check started at once, so its LLM call overlaps the thanks; its answer (a correction, or
"nothing to correct") is never posted before the thanks for that summary. Taken off: the
user's flag is withdrawn. Every answer goes straight to the platform's `PlatformAnswers`, with
the record read when the reaction came.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from bot.chat.flags.record import FlagOutcome, FlagRecords
from bot.chat.flags.revisions import RevisionService
from bot.chat.posting import DigestPoster, post_zone
from bot.chat.tasks import report
from bot.core.clock import utcnow
from bot.core.errors import StorageError
from bot.core.models import DigestEntry, PostKind, PostRecord, RevisionOutcome, RevisionStatus
from bot.ports.chat import PlatformAnswers, Reaction

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, None], str], None]


class FlagLoop:
    def __init__(
        self, records: FlagRecords, revisions: RevisionService, poster: DigestPoster,
        answers: PlatformAnswers, spawn: Spawn,
    ):  # fmt: skip
        self.records = records
        self.revisions = revisions  # shared by every platform: one re-check per summary
        self.poster = poster  # records the correction, so it can be flagged in turn
        self.answers = answers
        self.spawn = spawn  # the adapter's tracked tasks, so shutdown drains re-checks too
        self.store = records.store
        self.platform = poster.platform
        self._thanking: dict[tuple[str, int], asyncio.Event] = {}

    async def on_reaction(self, reaction: Reaction) -> None:
        """A flag put on or taken off a message. A storage fault is one log line: a reaction
        has no one to answer."""
        try:
            if reaction.added:
                await self._added(reaction)
            else:
                await self.store.aio.write(self.records.removed, reaction)
        except StorageError as exc:
            report(exc, "recording a flag" if reaction.added else "withdrawing a flag")

    async def _added(self, reaction: Reaction) -> None:
        """Record the flag and set its consequences going: thanks, re-check, answer."""
        post = await self.store.aio.read(self.records.post_of, reaction)
        if post is None:
            post = await self.answers.adopt(reaction)
        outcome = await self.store.aio.write(self.records.added, reaction, post)
        if outcome is None:
            return
        key = (outcome.flag.channel, outcome.flag.summary_id)
        thanked = asyncio.Event() if outcome.acknowledge else None
        if thanked is not None:
            self._thanking[key] = thanked
        if outcome.new:
            self.spawn(self._recheck(outcome), f"re-check of summary {key[1]}")
        if thanked is None:
            return
        try:
            await self.answers.thank(outcome.flag, outcome.post)
        except Exception:  # noqa: BLE001 - the flag is recorded; the thanks is a courtesy
            log.warning("could not thank for a flag on summary %s", key[1], exc_info=True)
        finally:
            thanked.set()
            if self._thanking.get(key) is thanked:
                del self._thanking[key]

    async def _recheck(self, flagged: FlagOutcome) -> None:
        flag = flagged.flag
        outcome = await self.revisions.on_flag(flag)  # the core applies the limits
        thanks = self._thanking.get((flag.channel, flag.summary_id))
        if thanks is not None:
            await thanks.wait()
        try:
            if outcome.status == RevisionStatus.REVISED and outcome.new is not None:
                await self._correct(outcome, flagged.post)
            elif outcome.status == RevisionStatus.UNCHANGED:
                await self.answers.no_change(outcome, flagged.post)
            else:
                log.info(
                    "flag by %s on %s#%s (summary %s): %s, nothing posted (%s)",
                    flag.user, flag.repo, flag.number, flag.summary_id, outcome.status,
                    outcome.note,
                )  # fmt: skip
        except Exception:  # noqa: BLE001 - the new version is stored; posting it is best effort
            log.warning(
                "could not post the re-check of %s#%s (%s)", flag.repo, flag.number,
                outcome.status, exc_info=True,
            )  # fmt: skip

    async def _correct(self, outcome: RevisionOutcome, post: PostRecord | None) -> None:
        """The corrected summary next to the flagged one (recorded, so it can be flagged in
        turn), then the flagged message edited to point at it."""
        flag, new, old = outcome.flag, outcome.new, outcome.old
        assert new is not None and new.id is not None
        pr = await self.store.aio.get_pr(new.repo, new.number)
        if pr is None:
            pr = await self.revisions.service.pull_request(new.repo, new.number)
        tz = post_zone(post, self.revisions.settings.timezone)
        entry = DigestEntry(pr, new)
        posted = await self.poster.send_recorded(
            PostKind.REVISION,
            lambda: self.answers.send_revision(outcome, post, entry, tz),
            channel=flag.channel,
            repo=new.repo,
            pr_number=new.number,
            summary_id=new.id,
            day=post.day if post else "",
            thread_id=post.thread_id if post else None,
            tz_name=post.tz_name if post else None,
        )
        log.info(
            "posted revision %s of %s#%s in %s:%s after a flag by %s",
            new.id, new.repo, new.number, self.platform, flag.channel, flag.user,
        )  # fmt: skip
        if old is not None:
            await self.answers.mark_revised(outcome, post, DigestEntry(pr, old), tz, posted)

    async def resume(self, days: int = 2) -> int:
        """Post the corrections a stop cut off between saving a revision and posting it."""
        store = self.store
        posted = 0
        since = utcnow() - timedelta(days=days)
        for flag_id, old_id, new_id in await store.aio.unposted_revisions(self.platform, since):
            flag, old, new = (
                await store.aio.get_flag(flag_id), await store.aio.get_summary_by_id(old_id),
                await store.aio.get_summary_by_id(new_id),
            )  # fmt: skip
            if flag is None or old is None or new is None:
                continue
            outcome = RevisionOutcome(RevisionStatus.REVISED, flag, old, new, new.change_note or "")
            try:
                post = await store.aio.post_by_message(self.platform, flag.channel, flag.message_id)
                await self._correct(outcome, post)
                posted += 1
            except Exception:  # noqa: BLE001 - tried again at the next start
                log.warning("could not post the correction of summary %s", old_id, exc_info=True)
        return posted
