"""`/healthz` and `/metrics` for `prdigest run`, served on the bot's own event loop.

They listen on PRDIGEST_METRICS_PORT (on 127.0.0.1 unless PRDIGEST_METRICS_HOST says
otherwise; nothing listens when it is unset), and beside `/slack/events` on the `--http` port.

`/healthz` answers 200 only when every check holds, else 503 naming what failed:
- `event_loop`: the loop is responsive: a heartbeat task ticks every 0.25 s, and no tick came
  more than `LOOP_LAG_LIMIT` late in the last `LAG_MEMORY` seconds (a blocked loop answers
  nothing while blocked; once it runs again, it owns up to it here);
- `database`: a tiny write (the `health` table's one row) goes through within `DB_TIMEOUT`;
- one check per configured platform: connected (and still connected, where the adapter can
  tell).

`/metrics` is the registry of `bot.core.metrics` in Prometheus' text format, written by
prometheus-client. The unhealed-replies gauge is read from the store just before it is
written out, through `store.aio`, never from inside the scrape's own collection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from aiohttp import web

from bot.chat.healing import HEAL_DAYS
from bot.chat.web_site import start_site
from bot.core import metrics
from bot.core.clock import utcnow
from bot.core.errors import StorageError
from bot.store.store import Store

log = logging.getLogger(__name__)

BEAT_SECONDS = 0.25
LOOP_LAG_LIMIT = 1.0  # a tick this late means the loop was blocked (an ack needs < 3 s)
LAG_MEMORY = 15.0  # how long a late tick keeps /healthz failing
DB_TIMEOUT = 5.0
PROBE_NAME = "healthz"

# Each configured platform's state: started and still connected.
Platforms = Callable[[], Awaitable[dict[str, bool]]]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


class LoopWatch:
    """The event loop's heartbeat: how late its ticks come."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.last_tick = clock()
        self.late_at: float | None = None  # when a tick last came too late
        self.worst = 0.0  # how late it was

    async def run(self) -> None:
        while True:
            expected = self.clock() + BEAT_SECONDS
            await asyncio.sleep(BEAT_SECONDS)
            self.tick(self.clock() - expected)

    def tick(self, lag: float) -> None:
        self.last_tick = self.clock()
        if lag > LOOP_LAG_LIMIT:
            self.late_at, self.worst = self.last_tick, lag

    def check(self) -> Check:
        now = self.clock()
        # A tick not come yet counts too: the request may be served before the heartbeat
        # that was due while the loop was blocked.
        overdue = now - self.last_tick - BEAT_SECONDS
        recent = self.worst if self.late_at is not None and now - self.late_at < LAG_MEMORY else 0.0
        lag = max(overdue, recent)
        if lag > LOOP_LAG_LIMIT:
            return Check("event_loop", False, f"blocked: a tick came {lag:.1f} s late")
        return Check("event_loop", True, "responsive")


class Health:
    """The checks and the two routes, over the process' store and platforms."""

    def __init__(self, store: Store, platforms: Platforms, watch: LoopWatch | None = None):
        self.store = store
        self.platforms = platforms
        self.watch = watch or LoopWatch()

    async def checks(self) -> list[Check]:
        found = [self.watch.check(), await self._database()]
        for platform, connected in (await self.platforms()).items():
            found.append(Check(platform, connected, "connected" if connected else "not connected"))
        return found

    async def _database(self) -> Check:
        try:
            await asyncio.wait_for(
                self.store.aio.touch_health(PROBE_NAME, utcnow()), timeout=DB_TIMEOUT
            )
        except StorageError as exc:
            return Check("database", False, f"not writable: {exc.reason}")
        except TimeoutError:
            return Check("database", False, f"no write within {DB_TIMEOUT:g} s (locked?)")
        return Check("database", True, "writable")

    async def healthz(self, request: web.Request) -> web.Response:
        checks = await self.checks()
        failed = [c.name for c in checks if not c.ok]
        body = {
            "status": "failing" if failed else "ok",
            "failed": failed,
            "checks": {c.name: c.detail for c in checks},
        }
        return web.Response(
            text=json.dumps(body) + "\n",
            status=503 if failed else 200,
            content_type="application/json",
        )

    async def metrics(self, request: web.Request) -> web.Response:
        await self.refresh_gauges()
        body, content_type = metrics.exposition()
        return web.Response(body=body, headers={"Content-Type": content_type})

    async def refresh_gauges(self) -> None:
        """The gauge read from the store: replies still waiting for their summary to heal."""
        since = utcnow() - timedelta(days=HEAL_DAYS)
        try:
            count = await self.store.aio.unhealed_replies(since)
        except StorageError as exc:  # the last value stands; /healthz says what is wrong
            log.debug("metrics: could not count unhealed replies: %s", exc.reason)
            return
        metrics.SUMMARIES_UNAVAILABLE.set(count)

    def add_routes(self, app: web.Application) -> None:
        """`/healthz` and `/metrics` on `app` (ours, or Slack's `--http` server)."""
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics)


async def serve(health: Health, host: str, port: int) -> tuple[web.AppRunner, str]:
    """Listen on `host:port` (port 0: any free port); the runner to clean up, and the URL."""
    app = web.Application()
    health.add_routes(app)
    runner = await start_site(
        app, host, port, access_log=False,
        failure=f"Cannot serve /healthz and /metrics on {host}:{port} (PRDIGEST_METRICS_PORT)",
    )  # fmt: skip
    bound = runner.addresses[0][1] if runner.addresses else port
    return runner, f"http://{_url_host(host)}:{bound}"


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
