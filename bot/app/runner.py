"""`prdigest run`: the configured chat platforms and the scheduler, on one event loop.

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

from bot.app.bots import NOTHING_CONFIGURED, App, build_app
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
) -> None:
    app = build_app(settings)
    try:
        await check_configured_owners(
            app.subscriptions.configured, app.service.owners, _config_name(settings)
        )
    except BaseException:
        await app.service.aclose()
        app.store.close()
        raise
    background: set[asyncio.Task[Any]] = set()

    def connected(platform: Platform) -> None:
        log.info("%s connected", platform)
        if on_started:
            on_started(platform)
        # Once connected, finish any digest a crash left half-posted (no duplicates: the
        # posts table knows what went out).
        task = asyncio.ensure_future(_resume(app, platform))
        background.add(task)
        task.add_done_callback(background.discard)

    options = RunOptions(http=http, port=port)
    tasks = [
        asyncio.ensure_future(
            entry.run(bot, settings, options, lambda _bot, p=entry.platform: connected(p))
        )
        for entry, bot in app.entries()
    ]
    try:
        await _until_stopped(app, tasks)
    finally:
        await app.scheduler.stop()
        pending = [*tasks, *background]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await app.service.aclose()
        app.store.close()


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
