"""Closing the loop on a flag: re-check the flagged summary, and keep a corrected version.

Limits keep LLM cost bounded whatever people click: one re-check per summary version per
hour, a per-user cap on flags a day, and none for summaries older than the flag window.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.digest import DigestService
from bot.models import Flag, PRSummary
from bot.settings import Settings
from bot.store import Store, utcnow
from summarizer.base import SummarizeError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RevisionOutcome:
    status: str  # "revised", "unchanged", "limited", "withdrawn", "failed"
    flag: Flag
    old: PRSummary | None = None
    new: PRSummary | None = None
    note: str = ""


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
            summary = self.store.get_summary_by_id(flag.summary_id)
            if summary is None:
                return RevisionOutcome("failed", flag, note="the summary no longer exists")
            reason = self.limit_reason(flag, summary, self.clock())
            if reason:
                log.info("flag on summary %s recorded, not re-checked: %s", summary.id, reason)
                return RevisionOutcome("limited", flag, summary, note=reason)
            attempt = self.store.start_revision(summary.id, flag.user)
            try:
                pr = await self.service.pull_request(summary.repo, summary.number)
                summarizer = await self.service.summarizer()
                revision = await summarizer.revise(pr, summary)
            except asyncio.CancelledError:
                self.store.finish_revision(attempt, "cancelled")  # shutdown: not a used re-check
                raise
            except (SummarizeError, Exception) as exc:  # noqa: BLE001 - a flag must not crash the bot
                self.store.finish_revision(attempt, "failed")
                log.warning("re-check of summary %s failed: %s", summary.id, exc)
                return RevisionOutcome("failed", flag, summary, note=str(exc))
            if not self.store.active_flags(summary.id):
                self.store.finish_revision(attempt, "withdrawn")
                return RevisionOutcome("withdrawn", flag, summary, note="the flag was removed")
            if not revision.changed:
                self.store.finish_revision(attempt, "unchanged")
                return RevisionOutcome("unchanged", flag, summary, note=revision.note)
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
            self.store.finish_revision(attempt, "revised", new.id)
            log.info("summary %s revised as %s after a flag by %s", summary.id, new.id, flag.user)
            return RevisionOutcome("revised", flag, summary, new, revision.note)
