"""`prdigest run`: the configured chat platforms and the scheduler, on one event loop, with
`/healthz` and `/metrics` (`bot.app.health`) on PRDIGEST_METRICS_PORT and the `--http` port.

Stops cleanly on SIGINT and SIGTERM: the tasks are cancelled, each adapter closes its
connection and finishes or abandons the message in flight (the posts table makes either safe),
and the local model server, if one was started, is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Iterator
from typing import Any

from bot.app import health as health_server
from bot.app.bots import NOTHING_CONFIGURED, App, build_app
from bot.app.doctor.runner import START_CHECKS, check_at_start
from bot.app.platforms import RunOptions
from bot.chat.posting import resume_unfinished
from bot.core.errors import StorageError
from bot.core.models import Platform
from bot.core.settings import Settings
from bot.schedule.subscriptions import check_configured_owners

__all__ = ["NOTHING_CONFIGURED", "run_bot"]

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def run_bot(
    settings: Settings,
    *,
    http: bool = False,
    port: int = 3000,
    on_started: Callable[[str], None] | None = None,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Run until SIGINT/SIGTERM. `on_started(platform)` is called as each platform connects,
    `on_listening(url)` once `/healthz` and `/metrics` listen on PRDIGEST_METRICS_PORT."""
    app = build_app(settings)
    connections = Connections(app)
    health = health_server.Health(app.store, connections.states)
    try:
        await check_configured_owners(
            app.subscriptions.configured, app.service.owners, _config_name(settings)
        )
        metrics_runner = await _serve_metrics(settings, health, on_listening)
    except BaseException:
        await app.service.aclose()
        app.store.close()
        raise
    background: set[asyncio.Task[Any]] = {asyncio.ensure_future(health.watch.run())}
    # prdigest doctor's checks, in the background: each failure is one warning in the log.
    background.add(asyncio.create_task(check_at_start(settings), name=START_CHECKS))
    # --http: Slack's server answers /healthz and /metrics beside /slack/events.
    options = RunOptions(http=http, port=port, routes=health.add_routes if http else None)
    tasks = connections.start(
        settings, options, _on_connect(app, connections, background, on_started)
    )
    try:
        await _until_stopped(app, tasks)
    finally:
        await app.scheduler.stop()
        pending = [*tasks, *background]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if metrics_runner is not None:
            await metrics_runner.cleanup()
        await app.service.aclose()
        app.store.close()


class Connections:
    """Which configured platforms are connected: their `started` callback came, their task
    still runs, and their bot, where it can tell, still holds its connection."""

    def __init__(self, app: App):
        self.app = app
        self.started: set[Platform] = set()
        self.tasks: dict[Platform, asyncio.Future[None]] = {}

    def start(
        self, settings: Settings, options: RunOptions, connected: Callable[[Platform], None]
    ) -> list[asyncio.Future[None]]:
        """Run each configured platform in a task; `connected(platform)` as each connects."""
        for entry, bot in self.app.entries():
            self.tasks[entry.platform] = asyncio.ensure_future(
                entry.run(bot, settings, options, lambda _bot, p=entry.platform: connected(p))
            )
        return list(self.tasks.values())

    async def states(self) -> dict[str, bool]:
        found = {}
        for platform, bot in self.app.bots.items():
            task = self.tasks.get(platform)
            running = platform in self.started and task is not None and not task.done()
            found[str(platform)] = running and await bot.is_connected()
        return found


def _on_connect(
    app: App, connections: Connections, background: set[asyncio.Task[Any]],
    on_started: Callable[[str], None] | None,
) -> Callable[[Platform], None]:  # fmt: skip
    """What happens as a platform connects: it counts as connected for /healthz, the caller
    hears of it, and any digest a crash left half-posted is finished (no duplicates: the
    posts table knows what went out)."""

    def connected(platform: Platform) -> None:
        log.info("%s connected", platform)
        connections.started.add(platform)
        if on_started:
            on_started(platform)
        task = asyncio.ensure_future(_resume(app, platform))
        background.add(task)
        task.add_done_callback(background.discard)

    return connected


async def _serve_metrics(
    settings: Settings, health: health_server.Health, on_listening: Callable[[str], None] | None
) -> Any:
    """/healthz and /metrics on PRDIGEST_METRICS_PORT, if it is set; the server's runner."""
    if settings.metrics_port is None:
        return None
    runner, url = await health_server.serve(health, settings.metrics_host, settings.metrics_port)
    log.info("serving /healthz and /metrics at %s", url)
    if on_listening:
        on_listening(url)
    return runner


def _config_name(settings: Settings) -> str:
    return str(settings.config_path) if settings.config_path else "PRDIGEST_REPO"


async def _until_stopped(app: App, tasks: list[asyncio.Future[None]]) -> None:
    """Start the schedule, then wait for SIGINT/SIGTERM or a platform that fails."""
    stop = asyncio.Event()
    with _signals(stop.set):
        stopper = asyncio.ensure_future(stop.wait())
        try:
            await app.scheduler.start()
            done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stopper and task.exception():
                    raise task.exception()  # type: ignore[misc]
            log.info("shutting down")
        finally:
            stopper.cancel()


@contextlib.contextmanager
def _signals(handler: Callable[[], None]) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    for sig in SIGNALS:
        try:
            loop.add_signal_handler(sig, handler)
        except (NotImplementedError, RuntimeError):  # not the main thread, or not Unix
            pass
    try:
        yield
    finally:
        for sig in SIGNALS:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError):
                pass


async def _resume(app: App, platform: Platform) -> None:
    """Finish what a stop cut off: half-posted digests, then unposted flag corrections."""
    bot = app.bots[platform]
    try:
        await resume_unfinished(app.service, bot.poster, app.core.styles)
        await bot.flag_loop.resume()
    except StorageError as exc:  # the next /digest or scheduled run resumes it
        log.warning("could not resume unfinished work: %s, nothing written", exc.reason)
    except Exception:  # noqa: BLE001 - the next /digest or scheduled run resumes it anyway
        log.warning("could not resume unfinished work", exc_info=True)
