"""What happens after a flag reaction, on any platform: thanks once, re-check, answer.

The adapters say how to thank, how to post a correction and how to say "nothing to correct";
the order and the bookkeeping live here once: the re-check starts at once (so the LLM call
overlaps the thanks), and its answer is never posted before the thanks for that summary.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from bot.chat.flags import FlagOutcome, FlagService
from bot.chat.revisions import RevisionService
from bot.core.clock import utcnow
from bot.core.models import Flag, RevisionOutcome, RevisionStatus
from bot.ports.chat import FlagAnswers

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, None], str], None]


class FlagLoop:
    def __init__(self, flags: FlagService, revisions: RevisionService, spawn: Spawn):
        self.flags = flags
        self.revisions = revisions
        self.spawn = spawn  # the adapter's tracked tasks, so shutdown drains re-checks too
        self._thanking: dict[tuple[str, int], asyncio.Event] = {}

    async def added(
        self, answers: FlagAnswers, platform: str, channel: str, message_id: str, user: str,
        emoji: str,
    ) -> FlagOutcome | None:  # fmt: skip
        """Record a flag reaction and set its consequences going; None if it is not a flag."""
        args = (platform, channel, message_id, user, emoji)
        outcome = await self.flags.store.aio.write(self.flags.added, *args)
        if outcome is None:
            return None
        key = (outcome.flag.channel, outcome.flag.summary_id)
        thanked = self._thanking[key] = asyncio.Event() if outcome.acknowledge else None
        if outcome.new:
            self.spawn(self._recheck(answers, outcome.flag), f"re-check of summary {key[1]}")
        if thanked is None:
            return outcome
        try:
            await answers.thank(outcome.flag)
        except Exception:  # noqa: BLE001 - the flag is recorded; the thanks is a courtesy
            log.warning("could not thank for a flag on summary %s", key[1], exc_info=True)
        finally:
            thanked.set()
            if self._thanking.get(key) is thanked:
                del self._thanking[key]
        return outcome

    async def _recheck(self, answers: FlagAnswers, flag: Flag) -> None:
        outcome = await self.revisions.on_flag(flag)  # the core applies the limits
        thanks = self._thanking.get((flag.channel, flag.summary_id))
        if thanks is not None:
            await thanks.wait()
        try:
            if outcome.status == RevisionStatus.REVISED and outcome.new is not None:
                await answers.post_correction(outcome)
            elif outcome.status == RevisionStatus.UNCHANGED:
                await answers.post_no_change(outcome)
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

    async def resume(self, answers: FlagAnswers, platform: str, days: int = 2) -> int:
        """Post the corrections a stop cut off between saving a revision and posting it."""
        store = self.flags.store
        posted = 0
        since = utcnow() - timedelta(days=days)
        for flag_id, old_id, new_id in await store.aio.unposted_revisions(platform, since):
            flag, old, new = (
                await store.aio.get_flag(flag_id), await store.aio.get_summary_by_id(old_id),
                await store.aio.get_summary_by_id(new_id),
            )  # fmt: skip
            if flag is None or old is None or new is None:
                continue
            outcome = RevisionOutcome(RevisionStatus.REVISED, flag, old, new, new.change_note or "")
            try:
                await answers.post_correction(outcome)
                posted += 1
            except Exception:  # noqa: BLE001 - tried again at the next start
                log.warning("could not post the correction of summary %s", old_id, exc_info=True)
        return posted
