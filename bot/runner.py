"""`prdigest run`: the configured chat adapters and the scheduler, on one event loop.

Stops cleanly on SIGINT and SIGTERM: the tasks are cancelled, each adapter closes its
connection and finishes or abandons the message in flight (the posts table makes either safe),
and the local model server, if one was started, is stopped.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from bot.bootstrap import build_service
from bot.errors import ConfigurationError
from bot.settings import Settings
from bot.store import Store

log = logging.getLogger(__name__)

NOTHING_CONFIGURED = (
    "Nothing to run: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or with "
    "SLACK_SIGNING_SECRET and --http, and/or DISCORD_BOT_TOKEN. See .env.example."
)


def slack_configured(settings: Settings) -> bool:
    return bool(settings.slack_bot_token)


def discord_configured(settings: Settings) -> bool:
    return bool(settings.discord_bot_token)


async def run_bot(
    settings: Settings,
    *,
    http: bool = False,
    port: int = 3000,
    on_started: Callable[[str], None] | None = None,
) -> None:
    if not (slack_configured(settings) or discord_configured(settings)):
        raise ConfigurationError(NOTHING_CONFIGURED)
    store = Store(settings.db_path)
    service = build_service(settings, store)
    bots: dict[str, Any] = {}  # platform -> its bot, whose poster the scheduler shares
    runners: list[Coroutine[Any, Any, None]] = []

    if slack_configured(settings):
        from adapters.slack.app import SlackBot, run_slack

        bots["slack"] = SlackBot(settings, service, store)
        runners.append(
            run_slack(
                settings, service, store, http=http, port=port, bot=bots["slack"],
                started=lambda _bot: connected("slack"),
            )
        )  # fmt: skip
    if discord_configured(settings):
        from adapters.discord import DiscordBot, run_discord

        bots["discord"] = DiscordBot(settings, service, store)
        runners.append(
            run_discord(
                settings, service, store, bot=bots["discord"],
                started=lambda _bot: connected("discord"),
            )
        )  # fmt: skip

    posters = {platform: bot.poster for platform, bot in bots.items()}
    scheduler = _make_scheduler(settings, service, store, posters)
    for bot in bots.values():
        bot.scheduler = scheduler

    background: set[asyncio.Task[Any]] = set()

    def connected(platform: str) -> None:
        _started(on_started, platform)
        # Once connected, finish any digest a crash left half-posted (no duplicates: the
        # posts table knows what went out).
        task = asyncio.ensure_future(_resume(service, bots[platform], platform))
        background.add(task)
        task.add_done_callback(background.discard)

    tasks = [asyncio.ensure_future(r) for r in runners]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread, or not Unix
            pass
    stopper = asyncio.ensure_future(stop.wait())
    try:
        if scheduler is not None:
            await scheduler.start()
        done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is not stopper and task.exception():
                raise task.exception()  # type: ignore[misc]
        log.info("shutting down")
    finally:
        if scheduler is not None:
            await scheduler.stop()
        pending = [*tasks, stopper, *background]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await service.aclose()
        store.close()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError):
                pass


async def _resume(service, bot, platform: str) -> None:
    """Finish what a stop cut off: half-posted digests, then unposted flag corrections."""
    from bot.chat_posting import resume_unfinished

    try:
        await resume_unfinished(service, bot.poster)
        await bot.flag_loop.resume(bot, platform)
    except Exception:  # noqa: BLE001 - the next /digest or scheduled run resumes it anyway
        log.warning("could not resume unfinished work", exc_info=True)


def _started(callback: Callable[[str], None] | None, platform: str) -> None:
    log.info("%s connected", platform)
    if callback:
        callback(platform)


def _make_scheduler(settings: Settings, service, store: Store, posters: dict[str, Any]):
    """The daily digest scheduler over the running adapters' posters.

    It runs even with no subscription yet: `/digest subscribe` adds them at runtime. A bad
    prdigest.toml is refused here, at start, with its line and reason.
    """
    from bot.lease import Lease
    from bot.scheduler import DigestScheduler
    from bot.subscriptions import Subscriptions

    subscriptions = Subscriptions.from_settings(settings, store)
    return DigestScheduler(
        service, posters, subscriptions, settings, lease=Lease(store, "scheduler")
    )
