"""The daily schedule: real APScheduler on a clock the test moves, so no test waits for a day.

`FakeClock` replaces the `datetime.now` APScheduler reads, and is the scheduler's `clock` and
`sleep`; `run_until` lets time pass the way a sleeping machine sees it, jumping from one job
time to the next and waking the scheduler there. `Chat` is what the platform holds: every
message any "process" sent, so duplicates across restarts and processes are visible.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.app.compose import build_service
from bot.chat.posting import DigestPoster, Posted
from bot.core.day_window import day_window
from bot.core.errors import ConfigurationError
from bot.core.models import Digest, DigestEntry, PullRequest, Subscription
from bot.core.post_times import digest_day, latest_post
from bot.core.scope import DigestScope
from bot.core.settings import Settings
from bot.schedule.scheduler import DigestScheduler, post_once
from bot.schedule.subscriptions import StaticSubscriptions, Subscriptions
from bot.store.lease import Lease
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore
from tests.conftest import REPO, make_pr

PACIFIC = ZoneInfo("America/Los_Angeles")


def local(text: str, tz: ZoneInfo = PACIFIC) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=tz)


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def set(self, moment: datetime) -> None:
        self.now = max(self.now, moment.astimezone(UTC))  # time never runs backwards

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    async def sleep(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        await asyncio.sleep(0)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()

    class Now:
        @staticmethod
        def now(tz=None) -> datetime:
            return fake.now.astimezone(tz)

    # The only two places APScheduler 3 reads the time: its scheduler loop and its executors.
    monkeypatch.setattr("apscheduler.schedulers.base.datetime", Now)
    monkeypatch.setattr("apscheduler.executors.base.datetime", Now)
    return fake


class Flaky(Exception):
    pass


class Chat:
    """The platform side: every message sent, by any process, in order."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def parents(self, channel: str | None = None) -> list[dict]:
        return [
            m
            for m in self.messages
            if m["kind"] in ("parent", "empty") and channel in (None, m["channel"])
        ]

    def days(self, channel: str) -> list[date]:
        return [m["day"] for m in self.parents(channel)]

    def assert_each_day_once(self, expected: dict[str, list[date]]) -> None:
        keys = Counter((m["channel"], m["day"], m["kind"], m["pr"]) for m in self.messages)
        assert [k for k, n in keys.items() if n > 1] == []  # zero posted twice
        for channel, days in expected.items():
            assert sorted(set(self.days(channel))) == days  # zero missed, none extra
            for day in days:
                replies = [
                    m["pr"]
                    for m in self.messages
                    if (m["channel"], m["day"], m["kind"]) == (channel, day, "pr")
                ]
                assert replies == prs_of(day), (channel, day)


class ChatTransport:
    """A Transport (the port adapters implement) over `Chat`, with failures on demand."""

    def __init__(self, chat: Chat, clock: FakeClock, platform: str = "slack"):
        self.platform = platform
        self.chat = chat
        self.clock = clock
        self.sends = 0
        self.fail_at: int | None = None  # this transport's nth send raises once
        self.after_send = False  # ... after the platform got the message
        self.failed = False
        self.hold: asyncio.Event | None = None  # sends wait for this, once delivered

    async def _send(self, channel: str, digest: Digest, kind: str, pr: int = 0, thread=None):
        n, self.sends = self.sends, self.sends + 1
        failing = n == self.fail_at
        if failing and not self.after_send:
            self.failed = True
            raise Flaky("before sending")
        self.chat.messages.append(
            {"channel": channel, "repo": digest.repo, "day": digest.window.day, "kind": kind,
             "pr": pr, "thread": thread, "at": self.clock(), "title": digest.display_name}
        )  # fmt: skip
        message_id = str(len(self.chat.messages))
        if self.hold is not None:
            await self.hold.wait()
        if failing:
            self.failed = True
            raise Flaky("after sending")
        return Posted(message_id, message_id if kind == "parent" else thread)

    async def send_parent(self, channel, digest):
        return await self._send(channel, digest, "parent")

    async def send_reply(self, channel, thread_id, digest, entry, index):
        return await self._send(channel, digest, "pr", entry.pr.number, thread_id)

    async def send_empty(self, channel, digest):
        return await self._send(channel, digest, "empty")

    async def find_parent(self, channel, digest):
        for i, m in enumerate(self.chat.messages, start=1):
            if (m["channel"], m["day"], m["kind"] in ("parent", "empty")) == (
                channel, digest.window.day, True,
            ):  # fmt: skip
                return Posted(str(i), str(i))
        return None

    async def find_reply(self, channel, thread_id, digest, pr_number):
        for i, m in enumerate(self.chat.messages, start=1):
            if (m["channel"], m["thread"], m["pr"]) == (channel, thread_id, pr_number):
                return Posted(str(i), thread_id)
        return None

    async def edit_parent(self, channel, posted, digest):
        pass  # the parent's edit changes no message count

    def link(self, channel, posted):
        return f"chat://{channel}/{posted.message_id}"


def prs_of(day: date) -> list[int]:
    """0, 1 or 2 PRs a day (so empty days are covered), newest first."""
    return [day.toordinal() * 10 + i for i in reversed(range(day.toordinal() % 3))]


class FakeService:
    """DigestService's interface over fixed PRs per day: counts builds, can take (fake) time."""

    def __init__(self, store: Store, clock: FakeClock, build_seconds: float = 0):
        self.store = store
        self.clock = clock
        self.build_seconds = build_seconds
        self.builds: Counter[tuple[str, date]] = Counter()
        self.building: dict[tuple[str, date], asyncio.Future[Digest]] = {}

    async def digest(self, repo: str, window) -> Digest:
        self.builds[(repo, window.day)] += 1
        if self.build_seconds:
            await self.clock.sleep(self.build_seconds)
        numbers = prs_of(window.day)
        self.store.save_day(repo, window, numbers, complete=True)
        entries = tuple(
            DigestEntry(PullRequest(repo, n, f"PR {n}", f"https://github.com/{repo}/pull/{n}",
                                    "a", "merged"))
            for n in numbers
        )  # fmt: skip
        return Digest(repo, repo.split("/")[1], window, entries)

    async def build(self, scope: DigestScope, *, bots=frozenset()) -> Digest:
        """The day, built once for the subscriptions that ask for it at the same time (as
        DigestService shares its builds); the overview is the service's business."""
        key = (scope.repo, scope.first)
        if key not in self.building:
            self.building[key] = asyncio.ensure_future(self.digest(scope.repo, scope.window))
            self.building[key].add_done_callback(lambda _: self.building.pop(key, None))
        return await asyncio.shield(self.building[key])


SUB = Subscription("o/r", "slack", "C1", post_time="09:00", tz_name="America/Los_Angeles")


def make(
    db: Path | str,
    chat: Chat,
    clock: FakeClock,
    subs=(SUB,),
    *,
    holder: str = "a",
    service: FakeService | None = None,
    transport: ChatTransport | None = None,
    heartbeat: float = 20,
    ttl: float = 60,
    **env: str,
) -> DigestScheduler:
    store = service.store if service else Store(db)
    transport = transport or ChatTransport(chat, clock)
    settings = Settings.from_env({"PRDIGEST_LEAD_MINUTES": "30", **env}, dotenv=False)
    source = subs if hasattr(subs, "all") else StaticSubscriptions(tuple(subs))
    return DigestScheduler(
        service or FakeService(store, clock),  # type: ignore[arg-type]
        {transport.platform: DigestPoster(store, transport)},
        source,
        settings,
        lease=Lease(store, holder=holder, ttl=ttl, clock=clock),
        clock=clock,
        sleep=clock.sleep,
        heartbeat_seconds=heartbeat,
    )


async def settle(*schedulers: DigestScheduler) -> None:
    for _ in range(3):
        for _ in range(10):  # wakeup → due jobs submitted → job coroutines run and spawn
            await asyncio.sleep(0)
        for s in schedulers:
            await s.idle()


async def eventually(condition: Callable[[], bool], seconds: float = 10) -> None:
    """Wait in real time (store calls finish on threads) until `condition` holds."""
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.005)


async def run_until(
    until: datetime, clock: FakeClock, *schedulers: DigestScheduler, heartbeats: bool = False
) -> None:
    """Let time pass to `until`, waking the schedulers at each job time on the way."""
    while True:
        times = [
            job.next_run_time
            for s in schedulers
            if s.scheduler.running
            for job in s.scheduler.get_jobs()
            if job.next_run_time and (heartbeats or job.id != "heartbeat")
        ]
        upcoming = min(times, default=None)
        if upcoming is None or upcoming > until:
            break
        clock.set(upcoming)
        await wake(*schedulers)
    clock.set(until)
    await wake(*schedulers)


async def wake(*schedulers: DigestScheduler) -> None:
    for s in schedulers:
        if s.scheduler.running:
            s.scheduler.wakeup()
    await settle(*schedulers)


async def crash(scheduler: DigestScheduler) -> None:
    """The process dies: nothing more runs, and its lease is left to expire."""
    scheduler.scheduler.shutdown(wait=False)
    for task in list(scheduler._tasks):
        task.cancel()
    await asyncio.gather(*scheduler._tasks, return_exceptions=True)
    await asyncio.sleep(0)


@pytest.fixture
def chat() -> Chat:
    return Chat()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "prdigest.db"


# -- on time, in the zone ------------------------------------------------------------------


@pytest.mark.parametrize(
    "tz_name, change",
    [
        ("America/Los_Angeles", "2026-03-08"),  # spring forward: PST → PDT
        ("America/Los_Angeles", "2026-11-01"),  # fall back: PDT → PST
        ("Europe/Berlin", "2026-03-29"),  # CET → CEST
    ],
)
async def test_the_cron_fires_at_the_post_time_in_the_zone_across_a_dst_change(
    clock, db, chat, tz_name, change
):
    tz = ZoneInfo(tz_name)
    sub = Subscription("o/r", "slack", "C1", post_time="09:00", tz_name=tz_name)
    change_day = date.fromisoformat(change)
    clock.set(datetime.combine(change_day - timedelta(days=2), time(10), tzinfo=tz))
    scheduler = make(db, chat, clock, [sub])
    await scheduler.start()
    job = scheduler.scheduler.get_job("digest:slack:C1:o/r")
    assert job.next_run_time.astimezone(tz).time() == time(8, 30)  # post time − 30 min lead

    await run_until(clock() + timedelta(days=3), clock, scheduler)

    posts = chat.parents("C1")
    # First the latest digest, right at start; then one each morning at 09:00 local.
    assert posts[0]["day"] == change_day - timedelta(days=3)
    assert [p["day"] for p in posts[1:]] == [change_day + timedelta(days=n) for n in (-2, -1, 0)]
    for post in posts[1:]:
        at = post["at"].astimezone(tz)
        assert (at.date(), at.time()) == (post["day"] + timedelta(days=1), time(9, 0))
    offsets = {p["at"].astimezone(tz).utcoffset() for p in posts[1:]}
    assert len(offsets) == 2  # the same 09:00 local was two different UTC hours
    await scheduler.stop()


async def test_several_subscriptions_of_one_repo_share_one_build(clock, db, chat):
    subs = [SUB, Subscription("o/r", "slack", "C2", post_time="09:00", tz_name=SUB.tz_name)]
    clock.set(local("2026-03-02 12:00"))
    service = FakeService(Store(db), clock)
    scheduler = make(db, chat, clock, subs, service=service)
    await scheduler.start()
    await run_until(local("2026-03-04 12:00"), clock, scheduler)
    assert chat.days("C1") == chat.days("C2") == [date(2026, 3, d) for d in (1, 2, 3)]
    assert set(service.builds.values()) == {1}  # one build a day for both channels
    await scheduler.stop()


async def test_one_fetch_and_one_set_of_summaries_for_two_channels_with_the_real_service(
    clock, db, chat, env, github, llm
):
    """The real DigestService, against the fake GitHub and OpenAI servers."""
    day = "2026-02-23"
    github.add_prs(REPO, [make_pr(n, f"{day} 1{n}:00:00") for n in (1, 2, 3)])
    store = Store(db)
    service = build_service(env, store)
    slack, discord = ChatTransport(chat, clock, "slack"), ChatTransport(chat, clock, "discord")
    subs = [
        Subscription(REPO, "slack", "C1", tz_name="America/Los_Angeles", display_name="vLLM"),
        Subscription(REPO, "discord", "42", tz_name="America/Los_Angeles"),
    ]
    clock.set(local("2026-02-24 09:30"))
    scheduler = DigestScheduler(
        service,
        {"slack": DigestPoster(store, slack), "discord": DigestPoster(store, discord)},
        StaticSubscriptions(tuple(subs)),
        env,
        lease=Lease(store, clock=clock),
        clock=clock,
        sleep=clock.sleep,
    )
    try:
        await scheduler.start()
    finally:
        await scheduler.stop()
        await service.aclose()
    assert [(m["channel"], m["kind"], m["pr"]) for m in chat.messages if m["channel"] == "42"] == [
        ("42", "parent", 0), ("42", "pr", 3), ("42", "pr", 2), ("42", "pr", 1),
    ]  # fmt: skip
    assert chat.parents("C1")[0]["title"] == "vLLM" and chat.parents("42")[0]["title"] == "vllm"
    assert llm.completions_count == 3
    assert github.count(path_regex=r"^/search/issues") == 1


async def test_a_slow_build_started_early_posts_on_time_and_a_slower_one_the_same_morning(
    clock, db, chat
):
    clock.set(local("2026-03-02 12:00"))
    store = Store(db)
    service = FakeService(store, clock, build_seconds=20 * 60)  # within the 30 min lead
    scheduler = make(db, chat, clock, service=service)
    await scheduler.start()
    await run_until(local("2026-03-03 12:00"), clock, scheduler)
    assert chat.parents()[-1]["at"] == local("2026-03-03 09:00")

    service.build_seconds = 45 * 60  # longer than the lead: posted as soon as it is built
    await run_until(local("2026-03-04 12:00"), clock, scheduler)
    assert chat.parents()[-1]["at"] == local("2026-03-04 09:15")
    await scheduler.stop()


async def test_with_the_summaries_cached_the_post_leaves_within_a_second_of_its_time(db, chat):
    """Real time: the wait for the post time ends on the wall clock, not a second late."""
    store = Store(db)
    real = FakeClock()  # only for the transport's timestamps
    transport = ChatTransport(chat, real)
    service = FakeService(store, real)
    scheduler = DigestScheduler(
        service,  # type: ignore[arg-type]
        {"slack": DigestPoster(store, transport)},
        StaticSubscriptions((SUB,)),
        Settings.from_env({}, dotenv=False),
        lease=Lease(store),
    )
    post_at = datetime.now(UTC) + timedelta(seconds=0.3)
    await scheduler.run_once(SUB, date(2026, 3, 1), post_at=post_at)
    sent = datetime.now(UTC)
    assert timedelta(0) <= sent - post_at < timedelta(seconds=1)


# -- catch-up and exactly once -----------------------------------------------------------


@pytest.mark.parametrize("asleep_until, days", [
    ("2026-03-02 11:00", [1]),  # slept through this morning's post time
    ("2026-03-04 11:00", [1, 2, 3]),  # through three of them
])  # fmt: skip
async def test_after_the_machine_sleeps_the_missed_days_go_out_on_waking_oldest_first(
    clock, db, chat, asleep_until, days
):
    clock.set(local("2026-03-02 08:00"))
    scheduler = make(db, chat, clock)
    await scheduler.start()
    clock.set(local(asleep_until))  # suspended: no timer fired, the wall clock moved on
    await wake(scheduler)  # on resume, asyncio's timers fire and APScheduler runs what is due
    woke = [p for p in chat.parents() if p["day"] >= date(2026, 3, 1)]
    assert [p["day"] for p in woke] == [date(2026, 3, d) for d in days]
    assert {p["at"] for p in woke} == {local(asleep_until)}
    chat.assert_each_day_once({"C1": [date(2026, 2, 28)] + [date(2026, 3, d) for d in days]})
    await scheduler.stop()


async def test_catch_up_after_a_two_day_outage_posts_the_two_days_oldest_first(clock, db, chat):
    clock.set(local("2026-03-02 08:00"))
    first = make(db, chat, clock)
    await first.start()
    await run_until(local("2026-03-02 09:05"), clock, first)
    assert chat.days("C1") == [date(2026, 2, 28), date(2026, 3, 1)]
    await first.stop()

    clock.set(local("2026-03-04 12:00"))  # down through two post times
    before = len(chat.parents())
    second = make(db, chat, clock)
    await second.start()
    assert [p["day"] for p in chat.parents()[before:]] == [date(2026, 3, 2), date(2026, 3, 3)]
    chat.assert_each_day_once({"C1": [date(2026, 2, 28)] + [date(2026, 3, d) for d in (1, 2, 3)]})
    await second.stop()


async def test_catch_up_goes_back_at_most_catchup_days(clock, db, chat):
    clock.set(local("2026-03-01 10:00"))
    first = make(db, chat, clock, PRDIGEST_CATCHUP_DAYS="2")
    await first.start()
    await first.stop()
    clock.set(local("2026-03-08 10:00"))  # a week later
    second = make(db, chat, clock, PRDIGEST_CATCHUP_DAYS="2")
    await second.start()
    assert chat.days("C1") == [date(2026, 2, 28), date(2026, 3, 6), date(2026, 3, 7)]
    await second.stop()


async def test_a_restart_right_after_posting_posts_and_fetches_nothing(clock, db, chat):
    clock.set(local("2026-03-02 08:00"))
    first = make(db, chat, clock)
    await first.start()
    await run_until(local("2026-03-02 09:00:30"), clock, first)
    await first.stop()
    sent = len(chat.messages)

    clock.advance(seconds=5)
    service = FakeService(Store(db), clock)
    again = make(db, chat, clock, service=service)
    await again.start()
    await run_until(local("2026-03-02 18:00"), clock, again)
    assert len(chat.messages) == sent
    assert service.builds == Counter()  # the posts table alone answered "already posted"
    await again.stop()


async def test_a_failed_post_is_retried_with_backoff_and_resumed_not_repeated(clock, db, chat):
    clock.set(local("2026-03-05 10:00"))  # 2026-03-04 has two PRs: parent + 2 replies
    transport = ChatTransport(chat, clock)
    transport.fail_at, transport.after_send = 1, True  # the first reply reached Slack, then failed
    scheduler = make(db, chat, clock, transport=transport)
    await scheduler.start()
    assert transport.failed and len(chat.messages) == 2
    await run_until(clock() + timedelta(seconds=50), clock, scheduler, heartbeats=True)
    assert len(chat.messages) == 2  # still backing off
    await run_until(clock() + timedelta(seconds=30), clock, scheduler, heartbeats=True)
    chat.assert_each_day_once({"C1": [date(2026, 3, 4)]})
    await scheduler.stop()


async def test_stop_abandons_the_message_in_flight_and_the_next_start_finishes_it(clock, db, chat):
    clock.set(local("2026-03-05 10:00"))
    transport = ChatTransport(chat, clock)
    transport.hold = asyncio.Event()  # Slack got the parent, the answer never comes back
    scheduler = make(db, chat, clock, transport=transport)
    start = asyncio.create_task(scheduler.start())
    await eventually(lambda: len(chat.messages) == 1)
    await scheduler.stop(timeout=0.05)
    assert start.done()
    assert Lease(Store(db), holder="next", clock=clock).acquire()  # released at once

    clock.advance(minutes=1)
    again = make(db, chat, clock, holder="next")
    await again.start()
    chat.assert_each_day_once({"C1": [date(2026, 3, 4)]})
    await again.stop()


async def test_two_processes_on_one_database_post_once_and_the_second_takes_over(clock, db, chat):
    clock.set(local("2026-03-02 08:00"))
    a = make(db, chat, clock, holder="a", heartbeat=600, ttl=1800)
    b = make(db, chat, clock, holder="b", heartbeat=600, ttl=1800)
    await a.start()
    await b.start()
    await run_until(local("2026-03-04 12:00"), clock, a, b, heartbeats=True)
    assert {m["day"] for m in chat.parents()} == {date(2026, 2, 28)} | {
        date(2026, 3, d) for d in (1, 2, 3)
    }

    await crash(a)  # "a" dies holding the lease; "b" takes over once it has expired
    await run_until(local("2026-03-06 12:00"), clock, b, heartbeats=True)
    chat.assert_each_day_once({"C1": [date(2026, 2, 28)] + [date(2026, 3, d) for d in range(1, 6)]})
    takeover = [p for p in chat.parents() if p["day"] >= date(2026, 3, 4)]
    assert [p["at"] for p in takeover] == [local("2026-03-05 09:00"), local("2026-03-06 09:00")]
    await b.stop()


async def test_ten_forced_restarts_miss_no_day_and_post_none_twice(clock, db, chat):
    """Restarts at random moments, each process failing once at a random send (before or
    after the platform got the message), half of them killed right there: a seeded RNG."""
    rng = random.Random(20260301)
    subs = [SUB, Subscription("o/r", "slack", "C2", post_time="07:30", tz_name="Europe/Berlin")]
    clock.set(local("2026-03-01 06:00"))
    first_start = clock()
    failures = kills = 0
    for life in range(11):  # the first start and ten restarts
        if life:
            clock.advance(hours=rng.uniform(2, 20))  # down for a while
        transport = ChatTransport(chat, clock)
        if life < 10:
            transport.fail_at, transport.after_send = rng.randrange(0, 4), rng.random() < 0.5
        kill_on_failure = rng.random() < 0.5
        scheduler = make(db, chat, clock, subs, holder=f"life{life}", transport=transport,
                         heartbeat=300)  # fmt: skip
        await scheduler.start()
        for _ in range(rng.randint(1, 8)):
            if transport.failed and kill_on_failure:
                break
            step = timedelta(minutes=rng.choice([5, 20, 45, 120, 300]))
            await run_until(clock() + step, clock, scheduler, heartbeats=True)
        failures += transport.failed
        if transport.failed and kill_on_failure:
            kills += 1
            await crash(scheduler)
        else:
            await scheduler.stop()

    assert failures >= 5 and kills >= 2  # the seed really exercises both paths
    for sub in subs:
        first = digest_day(sub, latest_post(sub, first_start))
        last = digest_day(sub, latest_post(sub, clock()))
        days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
        chat.assert_each_day_once({sub.channel: days})
        assert len(days) >= 8


# -- subscriptions changing, and the odd cases --------------------------------------------------


async def test_a_chat_subscription_is_scheduled_at_once_and_unscheduled(clock, db, chat):
    clock.set(local("2026-03-02 12:00"))
    store = Store(db)
    chats = SubscriptionStore(store)
    scheduler = make(db, chat, clock, Subscriptions([], chats), service=FakeService(store, clock))
    await scheduler.start()
    assert scheduler.scheduler.get_jobs()[0].id == "heartbeat" and chat.messages == []

    chats.add(Subscription("o/r", "slack", "C7", post_time="09:00", tz_name=SUB.tz_name))
    scheduler.reload()
    await settle(scheduler)
    assert scheduler.scheduler.get_job("digest:slack:C7:o/r") is not None
    assert chat.days("C7") == [date(2026, 3, 1)]  # the latest digest, right away

    chats.remove("slack", "C7", "o/r")
    scheduler.reload()
    assert scheduler.scheduler.get_job("digest:slack:C7:o/r") is None
    await run_until(local("2026-03-04 12:00"), clock, scheduler)
    assert chat.days("C7") == [date(2026, 3, 1)]
    await scheduler.stop()


async def test_starting_inside_the_lead_window_builds_now_and_posts_on_time(clock, db, chat):
    clock.set(local("2026-03-02 08:45"))  # the 08:30 cron time has passed
    scheduler = make(db, chat, clock)
    await scheduler.start()
    await settle(scheduler)
    assert chat.parents()[-1]["day"] == date(2026, 3, 1)
    assert chat.parents()[-1]["at"] == local("2026-03-02 09:00")
    await scheduler.stop()


async def test_a_subscription_for_a_platform_not_running_is_skipped_with_a_warning(
    clock, db, chat, caplog
):
    clock.set(local("2026-03-02 12:00"))
    discord = Subscription("o/r", "discord", "42")
    scheduler = make(db, chat, clock, [SUB, discord])
    with caplog.at_level(logging.WARNING, logger="bot.schedule.scheduler"):
        await scheduler.start()
    assert "skip sub=discord:42:o/r reason=no discord adapter running" in caplog.text
    assert [m["channel"] for m in chat.parents()] == ["C1"]
    await scheduler.stop()


async def test_log_lines_are_one_per_action_and_hold_no_secret(clock, db, chat, caplog):
    clock.set(local("2026-03-02 08:00"))
    scheduler = make(db, chat, clock)
    with caplog.at_level(logging.INFO):
        await scheduler.start()
        await run_until(local("2026-03-02 09:05"), clock, scheduler, heartbeats=True)
        await scheduler.stop()
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("bot.")]
    assert [line.split(" ")[0] for line in ours if not line.startswith("digest ")] == [
        "lease", "schedule", "posted", "prepare", "posted", "scheduler",
    ]  # fmt: skip
    assert all("\n" not in line for line in ours)
    assert not [r for r in caplog.records if r.name.startswith("apscheduler")]


# -- prdigest post ------------------------------------------------------------------------------


async def test_post_once_posts_one_day_then_says_already(clock, db, chat):
    store = Store(db)
    settings = Settings.from_env({"PRDIGEST_REPO": "o/r"}, dotenv=False)
    poster = DigestPoster(store, ChatTransport(chat, clock))
    service = FakeService(store, clock)
    outcome = await post_once(settings, service, poster, "slack:C123", date(2026, 3, 4))  # type: ignore[arg-type]
    assert outcome.status == "posted" and outcome.link == "chat://C123/1"
    again = await post_once(settings, service, poster, "slack:C123", "2026-03-04")  # type: ignore[arg-type]
    assert again.status == "already" and len(chat.messages) == 3

    with pytest.raises(ConfigurationError, match="posts to slack, not discord"):
        await post_once(settings, service, poster, "discord:42", "yesterday")  # type: ignore[arg-type]
    running = Lease(store, holder="prdigest-run")
    assert running.acquire()
    with pytest.raises(ConfigurationError, match=r"A `prdigest run` \(prdigest-run\) is posting"):
        await post_once(settings, service, poster, "slack:C123", "2026-03-03")  # type: ignore[arg-type]


async def test_post_once_uses_the_channels_subscription_zone(clock, db, chat, tmp_path):
    config = tmp_path / "prdigest.toml"
    config.write_text('[[subscription]]\nrepo = "o/r"\nto = "slack:C5"\ntimezone = "Asia/Tokyo"\n')
    store = Store(db)
    settings = Settings.from_env({"PRDIGEST_CONFIG": str(config)}, dotenv=False)
    service = FakeService(store, clock)
    poster = DigestPoster(store, ChatTransport(chat, clock))
    await post_once(settings, service, poster, "slack:C5", date(2026, 3, 2))  # type: ignore[arg-type]
    ((repo, day),) = service.builds
    assert (repo, day) == ("o/r", date(2026, 3, 2))
    assert store.get_day("o/r", day_window(day, "Asia/Tokyo")) is not None  # Tokyo's day


async def test_a_slow_catch_up_of_an_older_day_still_posts_before_the_on_time_day(clock, db, chat):
    clock.set(local("2026-03-02 08:45"))
    service = FakeService(Store(db), clock, build_seconds=3600)  # an hour a day, on a CPU
    scheduler = make(db, chat, clock, service=service)
    await scheduler.start()
    await settle(scheduler)
    assert chat.days("C1") == [date(2026, 2, 28), date(2026, 3, 1)]
    await scheduler.stop()
