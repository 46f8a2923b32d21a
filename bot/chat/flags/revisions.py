"""Closing the loop on a flag: re-check the flagged summary, and keep a corrected version.

Limits keep LLM cost bounded whatever people click: one re-check per summary version per
hour, a per-user cap on flags a day, and none for summaries older than the flag window.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime, timedelta

from bot.core.clock import utcnow
from bot.core.errors import PRDigestError
from bot.core.models import Flag, PRSummary, RevisionOutcome, RevisionStatus
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.summarizer import Revision, SummarizeError
from bot.store.store import Store

log = logging.getLogger(__name__)

__all__ = ["RevisionOutcome", "RevisionService"]


class RevisionService:
    def __init__(self, store: Store, service: DigestService, settings: Settings, clock=utcnow):
        self.store = store
        self.service = service
        self.settings = settings
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}

    def limit_reason(self, flag: Flag, summary: PRSummary, now: datetime) -> str | None:
        if summary.superseded:
            return "already revised"
        created = summary.created_at or now
        if now - created > timedelta(days=self.settings.flag_window_days):
            return f"older than {self.settings.flag_window_days} days"
        if self.store.revisions_since(summary.id, now - timedelta(hours=1)):
            return "re-checked within the last hour"
        cap = self.settings.flags_per_user_per_day
        if self.store.user_flags_since(flag.user, now - timedelta(days=1)) > cap:
            return f"more than {cap} flags from this user today"
        return None

    async def on_flag(self, flag: Flag) -> RevisionOutcome:
        """Re-check the flagged summary version, within the limits; the flag is already stored."""
        # One lock per flagged summary (a few bytes each; flags are rare), so concurrent flags
        # on one summary make one re-check and the others see its result.
        lock = self._locks.setdefault(flag.summary_id, asyncio.Lock())
        async with lock:
            summary = await self.store.aio.get_summary_by_id(flag.summary_id)
            if summary is None:
                return RevisionOutcome(
                    RevisionStatus.FAILED, flag, note="the summary no longer exists"
                )
            reason = await self.store.aio.read(self.limit_reason, flag, summary, self.clock())
            if reason:
                log.info("flag on summary %s recorded, not re-checked: %s", summary.id, reason)
                return RevisionOutcome(RevisionStatus.LIMITED, flag, summary, note=reason)
            attempt = await self.store.aio.start_revision(summary.id, flag.user)
            try:
                revision = await self._revise(summary, attempt)
            except (SummarizeError, PRDigestError) as exc:  # the model or GitHub failed
                log.warning("re-check of summary %s failed: %s", summary.id, exc)
                return RevisionOutcome(RevisionStatus.FAILED, flag, summary, note=str(exc))
            return await self.store.aio.write(self._conclude, flag, summary, attempt, revision)

    async def _revise(self, summary: PRSummary, attempt: int) -> Revision:
        """The re-check itself; the attempt is closed as cancelled or failed if it stops."""
        try:
            pr = await self.service.pull_request(summary.repo, summary.number)
            return await self.service.revise(pr, summary)
        except asyncio.CancelledError:
            # Shutdown: not a used re-check.
            closing = self.store.aio.finish_revision(attempt, RevisionStatus.CANCELLED)
            await asyncio.shield(closing)
            raise
        except Exception:
            # Expected failures are answered by the caller; anything else is a bug and is
            # raised on (the task's guard logs its traceback), with the attempt closed.
            await self.store.aio.finish_revision(attempt, RevisionStatus.FAILED)
            raise

    def _conclude(
        self, flag: Flag, summary: PRSummary, attempt: int, revision: Revision
    ) -> RevisionOutcome:
        """Record what the re-check found: withdrawn, unchanged, or a new summary version."""
        if not self.store.active_flags(summary.id):
            self.store.finish_revision(attempt, RevisionStatus.WITHDRAWN)
            return RevisionOutcome(
                RevisionStatus.WITHDRAWN, flag, summary, note="the flag was removed"
            )
        if not revision.changed:
            self.store.finish_revision(attempt, RevisionStatus.UNCHANGED)
            return RevisionOutcome(RevisionStatus.UNCHANGED, flag, summary, note=revision.note)
        result = revision.result
        new = self.store.save_summary(
            replace(
                summary,
                id=None,
                revision=summary.revision + 1,
                change_type=result.change_type,
                sections=result.sections,
                files_covered=result.files_covered,
                files_total=result.files_total,
                usage=result.usage,
                grounded_fraction=result.grounded_fraction,
                unverified=result.unverified,
                change_note=revision.note,
                created_at=None,
                superseded=False,
            )
        )
        self.store.supersede(summary.id, new.id)
        self.store.finish_revision(attempt, RevisionStatus.REVISED, new.id)
        log.info("summary %s revised as %s after a flag by %s", summary.id, new.id, flag.user)
        return RevisionOutcome(RevisionStatus.REVISED, flag, summary, new, revision.note)
