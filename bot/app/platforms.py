"""The platform registry: each chat platform prdigest can run on, found by name.

An entry says when the platform is configured, how its bot is built, run and closed, and how
one poster is opened for `prdigest post`. A third platform is one more adapter package and
one more entry here; nothing else in the core changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from adapters.discord.client import DiscordBot, run_discord
from adapters.slack.app import SlackBot, run_slack
from bot.chat.posting import DigestPoster
from bot.core.errors import ConfigurationError
from bot.core.models import Platform
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.schedule import ScheduleControl
from bot.store.store import Store

Started = Callable[[Any], None]


@dataclass(frozen=True)
class RunOptions:
    """What `prdigest run` was asked for that concerns how a platform listens."""

    http: bool = False  # Slack: HTTP at /slack/events instead of Socket Mode
    port: int = 3000


@dataclass(frozen=True)
class PlatformEntry:
    platform: Platform
    configured: Callable[[Settings], bool]
    build: Callable[[Settings, DigestService, Store, ScheduleControl | None], Any]
    run: Callable[[Any, Settings, RunOptions, Started], Coroutine[Any, Any, None]]
    poster: Callable[[Settings, DigestService, Store], contextlib.AbstractAsyncContextManager]


# -- Slack -------------------------------------------------------------------------------------


def _slack_bot(
    settings: Settings, service: DigestService, store: Store, scheduler: ScheduleControl | None
) -> SlackBot:
    return SlackBot(settings, service, store, scheduler=scheduler)


async def _run_slack(bot: SlackBot, settings: Settings, options: RunOptions, started: Started):
    await run_slack(
        settings, bot.service, bot.store, http=options.http, port=options.port, bot=bot,
        started=started,
    )  # fmt: skip


@contextlib.asynccontextmanager
async def _slack_poster(
    settings: Settings, service: DigestService, store: Store
) -> AsyncIterator[DigestPoster]:
    if not settings.slack_bot_token:
        raise ConfigurationError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
    bot = SlackBot(settings, service, store)
    try:
        yield bot.poster
    finally:
        await bot.aclose()


# -- Discord -----------------------------------------------------------------------------------


def _discord_bot(
    settings: Settings, service: DigestService, store: Store, scheduler: ScheduleControl | None
) -> DiscordBot:
    return DiscordBot(settings, service, store, scheduler=scheduler)


async def _run_discord(bot: DiscordBot, settings: Settings, options: RunOptions, started: Started):
    await run_discord(settings, bot.service, bot.store, bot=bot, started=started)


@contextlib.asynccontextmanager
async def _discord_poster(
    settings: Settings, service: DigestService, store: Store
) -> AsyncIterator[DigestPoster]:
    bot = DiscordBot(settings, service, store)
    try:
        await bot.login(settings.discord_bot_token or "")
        yield bot.poster
    finally:
        await bot.close()


REGISTRY: dict[Platform, PlatformEntry] = {
    Platform.SLACK: PlatformEntry(
        Platform.SLACK,
        configured=lambda settings: bool(settings.slack_bot_token),
        build=_slack_bot,
        run=_run_slack,
        poster=_slack_poster,
    ),
    Platform.DISCORD: PlatformEntry(
        Platform.DISCORD,
        configured=lambda settings: bool(settings.discord_bot_token),
        build=_discord_bot,
        run=_run_discord,
        poster=_discord_poster,
    ),
}
