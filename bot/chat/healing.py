"""Failed summaries heal where they were posted.

A digest reply posted as "Summary unavailable" (the model or GitHub failed for that PR) is
edited in place once a later attempt makes the summary, and the digest's parent with it
(`DigestPoster.heal`: recorded steps, exactly once). A later attempt is any rebuild of the
digest, since a rebuild asks the model again for exactly the PRs the store has no summary
for: the next scheduled run, `/digest` of that day in that channel, or the background retry
here, paced by `RETRY_DELAYS` per reply and stopped after `MAX_RETRIES`. A summary made by
anything else (`prdigest report`) heals the reply at the next attempt without any call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from bot.chat.posting import DigestPoster, rebuild
from bot.chat.styles import DigestStyles
from bot.core.clock import utcnow
from bot.core.models import Digest, PostKind, PostRecord
from bot.core.scope import post_key_of
from bot.store.posts import FailedReply

log = logging.getLogger(__name__)

# The background retry of a failed PR: 5 minutes after its reply was posted, then 20 minutes
# and an hour after each failed retry, then no more (the next scheduled run, or `/digest` of
# that day, still tries).
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(minutes=5),
    timedelta(minutes=20),
    timedelta(hours=1),
)
MAX_RETRIES = len(RETRY_DELAYS)
# Replies posted longer ago than this are left as they are (the background retry), and the
# next scheduled run retries this many days before its own: nobody reads an old thread for
# its news.
HEAL_DAYS = 3

Clock = Callable[[], datetime]


class Healer:
    """Retries the failed PRs of posted digests and heals their replies."""

    def __init__(self, service, styles: DigestStyles | None = None, *, clock: Clock = utcnow):
        self.service = service
        self.styles = styles
        self.clock = clock

    async def after_attempt(self, poster: DigestPoster, channel: str, digest: Digest) -> int:
        """`digest` was just built (so its failed PRs were just tried again): heal what now
        has a summary, pace the next retry of what still has none. Returns the replies
        healed."""
        if not await poster.failed_replies(channel, digest.repo, post_key_of(digest)):
            return 0  # the usual case: nothing to heal, nothing written
        healed = await poster.heal(channel, digest)
        still = await poster.failed_replies(channel, digest.repo, post_key_of(digest))
        if still:
            # The first retry came RETRY_DELAYS[0] after the post; each one failed waits longer.
            attempts = max(f.attempts for f in still) + 1
            delay = RETRY_DELAYS[min(attempts, MAX_RETRIES - 1)]
            await poster.note_heal_attempt(still, self.clock() + delay)
        return healed

    async def retry_recent(
        self, poster: DigestPoster, channel: str, repo: str, days: list[str]
    ) -> int:
        """The next scheduled run's attempt: each of `days` (posts-table day keys) of this
        channel's digest of `repo` that has a failed reply is built again and healed,
        whatever the background retries' pace. Returns the replies healed."""
        healed = 0
        for day in days:
            failed = await poster.failed_replies(channel, repo, day)
            if failed:
                healed += await self._attempt(poster, failed[0].record, len(failed), "next run")
        return healed

    async def retry_due(self, poster: DigestPoster) -> int:
        """The background retry: every recent digest of this platform with a failed reply
        whose retry is due (or a heal a crash cut short) is built again and healed, one log
        line per attempt. Returns the replies healed."""
        now = self.clock()
        since = (now - timedelta(days=HEAL_DAYS)).astimezone(UTC).isoformat()
        store = poster.store.aio
        due: dict[tuple[str, str, str], tuple[PostRecord, int]] = {}
        for step in await store.unfinished_heals(poster.platform, since):
            due.setdefault((step.channel, step.repo, step.day), (step, 0))
        for failed in await store.failed_replies_since(poster.platform, since):
            if is_due(failed, now):
                r = failed.record
                record, count = due.get((r.channel, r.repo, r.day), (r, 0))
                due[(r.channel, r.repo, r.day)] = (record, count + 1)
        healed = 0
        for record, count in due.values():
            try:
                healed += await self._attempt(poster, record, count, "background")
            except Exception as exc:  # noqa: BLE001 - one digest must not stop the others
                log.warning(
                    "heal %s %s in %s:%s failed: %s: %s", record.repo, record.day,
                    poster.platform, record.channel, type(exc).__name__, str(exc)[:200],
                )  # fmt: skip
        return healed

    async def _attempt(
        self, poster: DigestPoster, record: PostRecord, failed: int, why: str
    ) -> int:
        """Build the digest `record` belongs to again (the model is asked again for each PR
        without a summary) and heal it; one log line."""
        parent = await poster.store.aio.digest_post(
            poster.platform, record.channel, record.repo, record.day, PostKind.PARENT
        )
        if parent is None or not parent.message_id:
            return 0
        digest = await rebuild(self.service, poster.platform, parent, self.styles)
        healed = await self.after_attempt(poster, record.channel, digest)
        log.info(
            "heal attempt (%s) %s %s in %s:%s: %d of %d failed replies healed",
            why, record.repo, record.day, poster.platform, record.channel, healed, failed,
        )  # fmt: skip
        return healed


def is_due(failed: FailedReply, now: datetime) -> bool:
    """Whether the background may retry this reply's PR now."""
    if failed.attempts >= MAX_RETRIES:
        return False
    if failed.retry_after:
        return now >= datetime.fromisoformat(failed.retry_after)
    return now >= datetime.fromisoformat(failed.posted_at) + RETRY_DELAYS[0]


def recent_days(day: date, days: int = HEAL_DAYS) -> list[date]:
    """The days before `day` whose digests the next scheduled run retries."""
    return [day - timedelta(days=back) for back in range(1, days + 1)]
