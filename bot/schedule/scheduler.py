"""The daily schedule: each subscription's digest of the day before, posted each morning.

One APScheduler `AsyncIOScheduler` on the adapters' event loop runs:

- one CronTrigger job per subscription, at post time − lead time in the subscription's zone: it
  builds the digest (fetch and summaries, shared by every subscription of the repository), waits
  until the post time, then posts;
- a heartbeat every ~20 s that renews the SQLite lease (only its holder posts) and runs the
  catch-up, which is cheap when nothing is due (a few indexed reads, no network).

Catch-up posts every due day not recorded as posted in the `posts` table, oldest first, at most
`catchup_days` back: at start, after the machine slept (a heartbeat fires as soon as the loop
runs again), after a failed post (with backoff), and when another process's lease expired.
Posting itself is `DigestPoster.post`, idempotent and resumable, so a day is never posted twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.chat.healing import Healer, recent_days
from bot.chat.posting import DigestPoster, PostOutcome
from bot.chat.styles import DigestStyles
from bot.core.clock import utcnow
from bot.core.day_window import day_window, parse_day, time_of_day, zone
from bot.core.errors import ConfigurationError, StorageError, UserInputError
from bot.core.models import Digest, Subscription
from bot.core.post_times import (
    digest_day,
    is_weekly,
    latest_post,
    next_post,
    parse_target,
    post_instant,
    step,
    subscription_key,
)
from bot.core.pr_ref import parse_repo
from bot.core.scope import DigestScope
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.schedule import SubscriptionSource
from bot.schedule.subscriptions import Subscriptions
from bot.store.lease import Lease
from bot.store.subscriptions import SubscriptionStore
from bot.store.upkeep import Cutoffs, Pruned, prune_off_loop

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 20.0
# A cron job woken late (the machine slept) still runs within this: it works out its day from
# the clock, so any lateness under a day posts the right digest.
MISFIRE_GRACE_SECONDS = 23 * 3600
# The wait for the post time is cut into steps read against the wall clock: asyncio's timers do
# not count time the machine spent suspended, so one long sleep could wake far too late.
WAIT_STEP_SECONDS = 15.0
RETRY_FIRST_SECONDS = 60.0
RETRY_MAX_SECONDS = 3600.0
# How often the heartbeat looks for failed summaries whose background retry is due.
HEAL_CHECK_SECONDS = 60.0
# The daily prune of old data (`bot.store.upkeep`): first this long after the start, so a
# restart loop never prunes at every start, then once a day.
PRUNE_FIRST_SECONDS = 600.0
PRUNE_EVERY_SECONDS = 24 * 3600.0

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")


def _sub_label(sub: Subscription) -> str:
    return f"{sub.platform}:{sub.channel}:{sub.repo}"


class DigestScheduler:
    def __init__(
        self,
        service: DigestService,
        posters: dict[str, DigestPoster],
        subscriptions: SubscriptionSource,
        settings: Settings,
        *,
        lease: Lease,
        clock: Clock = utcnow,
        sleep: Sleep = asyncio.sleep,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
    ):
        """`posters` maps a platform ("slack", "discord") to its poster; `clock` returns an
        aware now and `sleep` waits, both replaceable so tests control time."""
        self.service = service
        self.posters = posters
        self.subscriptions = subscriptions
        self.settings = settings
        self.lease = lease
        self.clock = clock
        self._sleep = sleep
        self.heartbeat_seconds = heartbeat_seconds
        self.lead = timedelta(minutes=min(settings.lead_minutes, 23 * 60))
        self.starts = SubscriptionStore(service.store)
        self.scheduler = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={
                "coalesce": True,  # after a long sleep, one run, not one per missed day
                "max_instances": 1,
                "misfire_grace_time": MISFIRE_GRACE_SECONDS,
            },
        )
        self._subs: dict[str, Subscription] = {}
        self._first_days: dict[str, date] = {}
        self._skipped: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runs: dict[tuple[str, date], asyncio.Task[PostOutcome | None]] = {}
        self._done: set[tuple[str, date]] = set()
        self._retry: dict[tuple[str, date], tuple[int, datetime]] = {}
        self._canonical: dict[str, str] = {}  # as typed → GitHub's spelling, which posts record
        self._catch_up_lock = asyncio.Lock()
        self._catch_up_task: asyncio.Task[Any] | None = None
        # The days a catch-up still has to post, per subscription, and whether one is spawned
        # but has not listed them yet: an on-time post waits for older days (see _in_order).
        self._catching: dict[str, set[date]] = {}
        self._listing = False
        self._order = asyncio.Condition()
        self._holding: bool | None = None
        self._storage_fault: str | None = None  # why the lease could not be written, if so
        self.healer = Healer(service, DigestStyles(settings, subscriptions), clock=clock)
        self._heal_checked: datetime | None = None
        self._started = False
        self._stopping = False

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Schedule every subscription, then post what is due (returns when that is done).

        The jobs are added before the catch-up, so a post time that passes while catching up
        (a slow first fetch) is still honoured; the two never post a day twice.
        """
        logging.getLogger("apscheduler").setLevel(
            max(logging.WARNING, logging.getLogger("apscheduler").getEffectiveLevel())
        )  # its "Running job" lines every 20 s would drown the one line per action
        self.scheduler.start()
        self._started = True
        first_beat = self.clock() + timedelta(seconds=self.heartbeat_seconds)
        self.scheduler.add_job(
            self._heartbeat,
            IntervalTrigger(seconds=self.heartbeat_seconds, start_date=first_beat, timezone=UTC),
            id="heartbeat",
            name="lease and catch-up",
            misfire_grace_time=None,  # always run when late: being late is why it exists
        )
        self.scheduler.add_job(
            self._prune_job,
            IntervalTrigger(
                seconds=PRUNE_EVERY_SECONDS, timezone=UTC,
                start_date=self.clock() + timedelta(seconds=PRUNE_FIRST_SECONDS),
            ),
            id="prune",
            name="prune old data",
        )  # fmt: skip
        await self._take_lease()
        self._sync()
        # A task stop() can cancel; asyncio.wait returns then, without raising into the caller.
        await asyncio.wait([self._spawn_catch_up()])

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop scheduling; let the message in flight finish for up to `timeout` seconds, then
        abandon it (the posts table resumes it at the next start); release the lease."""
        if self._stopping:
            return
        self._stopping = True
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        abandoned = 0
        try:
            await asyncio.wait_for(self.idle(), timeout)
        except TimeoutError:
            pending = [t for t in self._tasks if not t.done()]
            abandoned = len(pending)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await asyncio.to_thread(self.lease.release)  # only at stop
        self._holding = False
        log.info("scheduler stopped abandoned=%d", abandoned)

    async def idle(self) -> None:
        """Wait until no build, wait or post is running (tests, and a graceful stop)."""
        while pending := [t for t in self._tasks if not t.done()]:
            await asyncio.wait(pending)

    def reload(self) -> None:
        """Re-read the subscriptions (after a chat command changed them) and reschedule."""
        if self._sync() and self._started:
            self._spawn_catch_up()  # a new subscription's latest digest goes out right away

    # -- scheduling ------------------------------------------------------------------------

    def _sync(self) -> bool:
        """Make the jobs match the subscriptions; True when one was added or changed."""
        wanted: dict[str, Subscription] = {}
        for sub in self.subscriptions.all():
            key = subscription_key(sub)
            if sub.platform not in self.posters:
                if key not in self._skipped:
                    self._skipped.add(key)
                    log.warning(
                        "skip sub=%s reason=no %s adapter running", _sub_label(sub), sub.platform
                    )
                continue
            wanted[key] = sub
        for key in self._subs.keys() - wanted.keys():
            if self.scheduler.get_job(f"digest:{key}"):
                self.scheduler.remove_job(f"digest:{key}")
            self._first_days.pop(key, None)
            log.info("unschedule sub=%s", _sub_label(self._subs[key]))
        changed = [key for key, sub in wanted.items() if self._subs.get(key) != sub]
        self._subs = wanted
        now = self.clock()
        for key in changed:
            sub = wanted[key]
            # Days whose post time passed before the subscription existed are not caught up,
            # except the latest one, so a new subscription shows its first digest right away.
            first_seen = self._first_seen(key, sub, now)
            self._first_days[key] = digest_day(sub, latest_post(sub, first_seen))
            self._schedule(key, sub)
            upcoming = latest_post(sub, now, self.lead)
            if self._started and upcoming > now.astimezone(UTC):
                # Inside the lead window already: the cron time has passed, start the work now.
                self._spawn(self._prepare(key, now), f"prepare {key}")
        return bool(changed)

    def _first_seen(self, key: str, sub: Subscription, now: datetime) -> datetime:
        """When the scheduler first saw `sub`: read here (a read never waits), and the first
        time recorded as `now` by the store's writer thread."""
        seen = self.starts.seen_at(sub)
        if seen is None:
            self._spawn(self.service.store.aio.write(self.starts.first_seen, sub, now), key)
        return seen or now

    def _schedule(self, key: str, sub: Subscription) -> None:
        post = time_of_day(sub.post_time)
        lead = int(self.lead.total_seconds() // 60)
        start_hour, start_minute = divmod((post.hour * 60 + post.minute - lead) % (24 * 60), 60)
        trigger = CronTrigger(
            hour=start_hour, minute=start_minute, second=0, timezone=zone(sub.tz_name)
        )
        self.scheduler.add_job(
            self._on_cron,
            trigger,
            args=[key],
            id=f"digest:{key}",
            name=f"digest {_sub_label(sub)}",
            replace_existing=True,
        )
        upcoming = next_post(sub, self.clock())
        log.info(
            "schedule sub=%s post=%s tz=%s lead_min=%d next_post=%s",
            _sub_label(sub), sub.post_time, sub.tz_name, lead,
            upcoming.astimezone(zone(sub.tz_name)).isoformat(),
        )  # fmt: skip

    async def _on_cron(self, key: str) -> None:
        """Post time − lead: build the digest now, post it at the post time (in a tracked
        task, so stop() and idle() see the work from the start)."""
        self._spawn(self._prepare(key, self.clock()), f"prepare {key}")

    async def _prepare(self, key: str, now: datetime) -> None:
        sub = self._subs.get(key)
        if sub is None or not await self._take_lease():
            return
        instant = latest_post(sub, now, self.lead)
        if instant <= now.astimezone(UTC):
            # Woken after the post time (the machine slept): older days may be due too, and
            # the catch-up posts them all, oldest first.
            self._spawn_catch_up()
            return
        day = digest_day(sub, instant)
        if await self.service.store.aio.read(self._is_posted, sub, day):
            return
        log.info(
            "prepare sub=%s day=%s post_at=%s",
            _sub_label(sub), day, instant.astimezone(zone(sub.tz_name)).isoformat(),
        )  # fmt: skip
        self._spawn(self._attempt(sub, day, instant), f"post {key} {day}")

    async def _heartbeat(self) -> None:
        self._spawn(self._beat(), "heartbeat")
        now = self.clock()
        if self._heal_checked is None or now - self._heal_checked >= timedelta(
            seconds=HEAL_CHECK_SECONDS
        ):
            self._heal_checked = now
            self._spawn(self.heal_due(), "heal")

    async def heal_due(self) -> int:
        """The background retry of failed summaries (`Healer.retry_due`), by the lease's
        holder only; returns the replies healed. A failure is one log line, tried again at a
        later beat."""
        if self._stopping or not await self._take_lease():
            return 0
        healed = 0
        for platform, poster in self.posters.items():
            try:
                healed += await self.healer.retry_due(poster)
            except Exception as exc:  # noqa: BLE001 - the next beat tries again
                log.warning(
                    "heal check failed platform=%s error=%s: %s",
                    platform, type(exc).__name__, str(exc)[:200],
                )  # fmt: skip
        return healed

    async def _prune_job(self) -> None:
        self._spawn(self.prune(), "prune")

    async def prune(self) -> Pruned:
        """The daily prune: LLM prompts and answers older than PRDIGEST_LLM_LOG_DAYS lose their
        bodies (their figures stay), diffs older than PRDIGEST_DIFF_DAYS and old CODEOWNERS
        texts go; batch by batch on the store's
        writer thread, by the lease's holder only. A failure is one log line."""
        if self._stopping or not await self._take_lease():
            return Pruned()
        cutoffs = Cutoffs.at(self.clock(), self.settings.llm_log_days, self.settings.diff_days)
        try:
            pruned = await prune_off_loop(self.service.store, cutoffs)
        except StorageError as exc:  # tomorrow's prune drops it instead
            log.warning("prune: %s, nothing dropped; tried again tomorrow", exc.reason)
            return Pruned()
        if not pruned.nothing:  # one line per action: a day with nothing old says nothing
            log.info(
                "pruned llm_calls_thinned=%d bytes=%d diffs=%d diff_bytes=%d codeowners=%d",
                pruned.calls_thinned, pruned.body_bytes, pruned.diffs, pruned.diff_bytes,
                pruned.codeowners,
            )  # fmt: skip
        return pruned

    async def _beat(self) -> None:
        if await self._take_lease():
            self._spawn_catch_up()

    async def _take_lease(self) -> bool:
        """Take or renew the lease, off the event loop; logs only when the state changes. A
        database locked past its timeout, read-only or full is not held this round, said in
        one line (not at every beat), and tried again at each beat."""
        try:
            held = self.lease.try_acquire()  # no wait; if the database is busy, wait off the loop
            if held is None:
                held = await asyncio.to_thread(self.lease.attempt)
        except StorageError as exc:
            return self._lease_fault(exc.reason)
        if held is None:  # which says nothing of who holds it: the state stays as it was
            return self._lease_fault("the database stayed locked past its timeout")
        if self._storage_fault is not None:
            log.info("lease: the database takes writes again")
            self._storage_fault = None
        if held != self._holding:
            if held:
                log.info(
                    "lease taken name=%s holder=%s previous=%s",
                    self.lease.name, self.lease.holder, self.lease.taken_from or "-",
                )  # fmt: skip
            else:
                log.warning(
                    "lease standby name=%s held_by=%s: another process posts the schedule",
                    self.lease.name, await asyncio.to_thread(self.lease.current_holder),
                )  # fmt: skip
        self._holding = held
        return held

    def _lease_fault(self, reason: str) -> bool:
        if reason != self._storage_fault:
            log.warning("lease: %s, nothing written; trying again at every beat", reason)
        self._storage_fault = reason
        return False

    # -- catch-up --------------------------------------------------------------------------

    async def catch_up(self) -> list[tuple[Subscription, date, PostOutcome]]:
        """Post every due, unposted day of every subscription (oldest first); returns the posts.

        Subscriptions are caught up concurrently, each one's days in order. A failure stops
        that subscription's catch-up (so its days stay in order) and is retried with backoff.
        """
        async with self._catch_up_lock:
            try:
                if self._stopping or not await self._take_lease():
                    return []
                now = self.clock()
                subs = list(self._subs.values())
                for sub in subs:
                    days = await self.service.store.aio.read(self.due_days, sub, now)
                    self._catching[subscription_key(sub)] = set(days)
            finally:
                await self._listed()
            results = await asyncio.gather(*(self._catch_up_one(sub, now) for sub in subs))
        return [posted for per_sub in results for posted in per_sub]

    async def _catch_up_one(
        self, sub: Subscription, now: datetime
    ) -> list[tuple[Subscription, date, PostOutcome]]:
        key = subscription_key(sub)
        posted = []
        try:
            for day in sorted(self._catching.get(key, ())):
                retry = self._retry.get((key, day))
                if self._stopping or (retry and now < retry[1]):
                    break
                outcome = await self._attempt(sub, day)
                await self._caught_up(key, {day})
                if outcome is None:
                    break
                posted.append((sub, day, outcome))
        finally:
            await self._caught_up(key, set(self._catching.get(key, ())))
        return posted

    async def _listed(self) -> None:
        async with self._order:
            self._listing = False
            self._order.notify_all()

    async def _caught_up(self, key: str, days: set[date]) -> None:
        async with self._order:
            self._catching[key] = self._catching.get(key, set()) - days
            self._order.notify_all()

    async def _in_order(self, sub: Subscription, day: date) -> None:
        """Wait until no catch-up has an older day of `sub` still to post, so a slow catch-up
        (a long first build) and the on-time post never put a thread's days out of order."""
        key = subscription_key(sub)
        async with self._order:
            await self._order.wait_for(
                lambda: not self._listing and not any(d < day for d in self._catching.get(key, ()))
            )

    def due_days(self, sub: Subscription, now: datetime) -> list[date]:
        """The days of the last `catchup_days` whose post time has passed and that are not
        recorded as fully posted, oldest first."""
        key = subscription_key(sub)
        latest = digest_day(sub, latest_post(sub, now))
        first = self._first_days.get(key, latest)
        days = []
        # A weekly rollup catches up its last missed week (or more, with a long catch-up).
        count = (
            -(-self.settings.catchup_days // 7) if is_weekly(sub) else self.settings.catchup_days
        )
        for back in range(max(1, count)):
            day = latest - back * step(sub)
            if day < first:
                break
            if not self._is_posted(sub, day):
                days.append(day)
        return sorted(days)

    def _is_posted(self, sub: Subscription, day: date) -> bool:
        """Whether the posts table shows the day's thread complete, without any network call.

        A day whose PR list is not stored yet counts as not posted: posting it then lists the
        PRs, and `DigestPoster.post` answers "already" without sending when it was.
        """
        key = (subscription_key(sub), day)
        if key in self._done:
            return True
        repo = self._canonical.get(sub.repo.lower(), sub.repo)
        numbers = self.service.store.get_day(repo, day_window(day, sub.tz_name))
        poster = self.posters[sub.platform]
        key_day = posted_key(sub, day)
        if poster.fully_posted(sub.channel, repo, key_day, numbers) is None:
            return False
        self._done.add(key)
        return True

    # -- one day ---------------------------------------------------------------------------

    async def run_once(
        self, subscription: Subscription, day: date, *, post_at: datetime | None = None
    ) -> PostOutcome | None:
        """Build and post one subscription's digest of `day` (waiting until `post_at` if given).

        Returns None without posting when another process holds the lease. Raises what the
        build or the post raised. Concurrent calls for the same day share one run.
        """
        key = (subscription_key(subscription), day)
        task = self._runs.get(key)
        if task is None:
            task = self._spawn(
                self._run(subscription, day, post_at), f"run {key[0]} {day}", awaited=True
            )
            self._runs[key] = task
            task.add_done_callback(lambda _: self._runs.pop(key, None))
        return await asyncio.shield(task)

    async def _attempt(
        self, sub: Subscription, day: date, post_at: datetime | None = None
    ) -> PostOutcome | None:
        """run_once for the scheduler's own callers: a failure is logged and retried later."""
        try:
            return await self.run_once(sub, day, post_at=post_at)
        except Exception as exc:  # noqa: BLE001 - one failed day must not stop the schedule
            key = (subscription_key(sub), day)
            count = self._retry.get(key, (0, None))[0] + 1
            delay = min(RETRY_FIRST_SECONDS * 2 ** (count - 1), RETRY_MAX_SECONDS)
            self._retry[key] = (count, self.clock() + timedelta(seconds=delay))
            log.warning(
                "post failed sub=%s day=%s attempt=%d retry_in_s=%d error=%s: %s",
                _sub_label(sub), day, count, delay, type(exc).__name__, str(exc)[:200],
            )  # fmt: skip
            return None

    async def _run(
        self, sub: Subscription, day: date, post_at: datetime | None
    ) -> PostOutcome | None:
        poster = self.posters[sub.platform]
        digest = await self._build(sub, day)
        if post_at is not None:
            await self._wait_until(post_at)
            await self._in_order(sub, day)
        # Checked (and renewed) right before posting: the lease may have moved during the build.
        if not await self._take_lease():
            log.info("skip sub=%s day=%s reason=lease held elsewhere", _sub_label(sub), day)
            return None
        outcome = await poster.post(sub.channel, digest, quiet=sub.quiet)
        late = (self.clock() - post_instant(sub, day)).total_seconds()
        log.info(
            "posted sub=%s day=%s status=%s replies=%d late_s=%.1f link=%s",
            _sub_label(sub), day, outcome.status, outcome.replies_sent, late, outcome.link,
        )  # fmt: skip
        self._done.add((subscription_key(sub), day))
        self._retry.pop((subscription_key(sub), day), None)
        await self._heal_recent(sub, digest.repo, day)
        return outcome

    async def _heal_recent(self, sub: Subscription, repo: str, day: date) -> None:
        """The next run's retry of the failed summaries of the subscription's last digests
        before `day` (a weekly rollup has no reply per PR); a failure is one log line."""
        if is_weekly(sub):
            return
        days = [posted_key(sub, earlier) for earlier in recent_days(day)]
        try:
            await self.healer.retry_recent(self.posters[sub.platform], sub.channel, repo, days)
        except Exception as exc:  # noqa: BLE001 - the day itself is posted; retried later
            log.warning(
                "heal failed sub=%s error=%s: %s",
                _sub_label(sub), type(exc).__name__, str(exc)[:200],
            )  # fmt: skip

    async def _build(self, sub: Subscription, day: date) -> Digest:
        """The digest `sub` posts for `day`, as it shows it; subscriptions of one repository
        building at once share one build of the day (the service's)."""
        repo = self._canonical.get(sub.repo.lower(), sub.repo)
        scope = replace(DigestScope.of_subscription(sub, day), repo=repo)
        styles = DigestStyles(self.settings)
        digest = await self.service.build(scope, bots=styles.bots)
        self._canonical[sub.repo.lower()] = digest.repo
        return styles.of(digest, sub)

    async def _wait_until(self, instant: datetime) -> None:
        while (remaining := (instant - self.clock()).total_seconds()) > 0:
            await self._sleep(min(remaining, WAIT_STEP_SECONDS))

    # -- tasks -----------------------------------------------------------------------------

    def _spawn(
        self, coro: Coroutine[Any, Any, T], name: str, *, awaited: bool = False
    ) -> asyncio.Task[T]:
        """A tracked task: stop() waits for it, then cancels it. `awaited` tasks' errors are
        their awaiters' to handle; any other task's error is a bug, and is logged."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._forget(done, awaited))
        return task

    def _forget(self, task: asyncio.Task[Any], awaited: bool) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()  # retrieved, so asyncio does not report it again
        if isinstance(exc, StorageError) and not awaited:  # the file's fault, not a bug
            log.warning("%s: %s, nothing written; tried again later", task.get_name(), exc.reason)
        elif exc is not None and not awaited:
            log.error("task failed task=%s error=%s", task.get_name(), exc, exc_info=exc)

    def _spawn_catch_up(self) -> asyncio.Task[Any]:
        if self._catch_up_task is None or self._catch_up_task.done():
            self._listing = True  # until it has listed its days (an on-time post waits)
            self._catch_up_task = self._spawn(self.catch_up(), "catch-up")
        return self._catch_up_task


def posted_key(sub: Subscription, day: date) -> str:
    """The posts-table key of `sub`'s post for `day` (a weekly one: the week ending it)."""
    return DigestScope.of_subscription(sub, day).post_key


# -- `prdigest post` -----------------------------------------------------------------------------


async def post_once(
    settings: Settings,
    service: DigestService,
    poster: DigestPoster,
    target: str,
    day: date | str,
    *,
    repo: str | None = None,
) -> PostOutcome:
    """One digest posted to `target` ("slack:C123"), for `prdigest post` run from cron.

    The repository, zone and display name come from the subscription for that channel when
    there is one (pass `repo` when the channel has several), else from PRDIGEST_REPO and
    PRDIGEST_TIMEZONE. `day` is a date or text such as "yesterday", read in that zone.
    Refused while a `prdigest run` holds the lease on the same database: it posts itself.
    """
    platform, channel = parse_target(target)
    if platform != poster.platform:
        raise ConfigurationError(
            f"{target}: this poster posts to {poster.platform}, not {platform}"
        )
    sub = _target_subscription(settings, service, platform, channel, repo)
    the_day = day if isinstance(day, date) else parse_day(day, sub.tz_name)
    lease = Lease(service.store, "scheduler")
    try:
        if not await asyncio.to_thread(lease.acquire):
            holder = await asyncio.to_thread(lease.current_holder)
            raise ConfigurationError(
                f"A `prdigest run` ({holder}) is posting the schedule on this "
                "database; let it post, or stop it first."
            )
        styles = DigestStyles(settings)
        scope = DigestScope.of_subscription(sub, the_day)  # a weekly one: the week ending it
        digest = await service.build(scope, bots=styles.bots)
        outcome = await poster.post(channel, styles.of(digest, sub), quiet=sub.quiet)
    finally:
        await asyncio.to_thread(lease.release)
        lease.close()
    log.info(
        "posted sub=%s day=%s status=%s replies=%d link=%s",
        _sub_label(sub), the_day, outcome.status, outcome.replies_sent, outcome.link,
    )  # fmt: skip
    return outcome


def _target_subscription(
    settings: Settings, service: DigestService, platform: str, channel: str, repo: str | None
) -> Subscription:
    subs = Subscriptions.from_settings(settings, service.store).all()
    here = [s for s in subs if (s.platform, s.channel) == (platform, channel)]
    if repo:
        here = [s for s in here if s.repo.lower() == parse_repo(repo).lower()]
    if len(here) == 1:
        return here[0]
    if len(here) > 1:
        names = ", ".join(sorted(s.repo for s in here))
        raise UserInputError(
            f"Several digests go to {platform}:{channel} ({names}): name one repository"
        )
    return Subscription(
        repo=parse_repo(repo or settings.repo),
        platform=platform,
        channel=channel,
        post_time=settings.digest_time,
        tz_name=settings.timezone,
        display_name=None,  # the service's display names apply PRDIGEST_DISPLAY_NAME
    )
