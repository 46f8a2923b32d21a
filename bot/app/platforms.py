"""The platform registry: each chat platform prdigest can run on, found by name.

An entry says when the platform is configured, how its bot is built, run and closed, and how
one poster is opened for `prdigest post`. A third platform is one more adapter package and
one more entry here; nothing else in the core changes.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from adapters.discord.client import create_bot as create_discord_bot
from adapters.discord.client import run_discord
from adapters.slack.app import create_bot as create_slack_bot
from adapters.slack.app import run_slack
from bot.chat.core import ChatCore
from bot.core.errors import ConfigurationError
from bot.core.models import Platform
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.store.store import Store

Started = Callable[[Any], None]


@dataclass(frozen=True)
class RunOptions:
    """What `prdigest run` was asked for that concerns how a platform listens."""

    http: bool = False  # Slack: HTTP at /slack/events instead of Socket Mode
    port: int = 3000
    routes: Callable[[Any], None] | None = None  # adds /healthz and /metrics to the HTTP app


@dataclass(frozen=True)
class PlatformEntry:
    """One chat platform: when it is configured, and how its bot is built (over the shared
    chat core), run until cancelled, connected for a single post, and closed."""

    platform: Platform
    configured: Callable[[Settings], bool]
    build: Callable[[Settings, DigestService, Store, ChatCore], Any]
    run: Callable[[Any, Settings, RunOptions, Started], Coroutine[Any, Any, None]]
    connect: Callable[[Any, Settings], Coroutine[Any, Any, None]]  # REST only, for one post
    close: Callable[[Any], Coroutine[Any, Any, None]]


# -- Slack -------------------------------------------------------------------------------------


def _slack_bot(settings: Settings, service: DigestService, store: Store, core: ChatCore) -> Any:
    if not settings.slack_bot_token:
        raise ConfigurationError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
    return create_slack_bot(settings, service, store, core=core)


async def _run_slack(bot: Any, settings: Settings, options: RunOptions, started: Started):
    await run_slack(
        settings, bot.service, bot.store, http=options.http, port=options.port, bot=bot,
        started=started, routes=options.routes,
    )  # fmt: skip


async def _connect_slack(bot: Any, settings: Settings) -> None:
    """The Web API needs no connection of its own."""


async def _close_slack(bot: Any) -> None:
    await bot.aclose()


# -- Discord -----------------------------------------------------------------------------------


def _discord_bot(settings: Settings, service: DigestService, store: Store, core: ChatCore) -> Any:
    return create_discord_bot(settings, service, store, core=core)


async def _run_discord(bot: Any, settings: Settings, options: RunOptions, started: Started):
    await run_discord(settings, bot.service, bot.store, bot=bot, started=started)


async def _connect_discord(bot: Any, settings: Settings) -> None:
    await bot.login(settings.discord_bot_token or "")


async def _close_discord(bot: Any) -> None:
    await bot.close()


def _has(token: str) -> Callable[[Settings], bool]:
    return lambda settings: bool(getattr(settings, token))


# (platform, configured, build, run, connect, close)
REGISTRY: dict[Platform, PlatformEntry] = {
    entry.platform: entry
    for entry in (
        PlatformEntry(Platform.SLACK, _has("slack_bot_token"), _slack_bot, _run_slack, _connect_slack, _close_slack),
        PlatformEntry(Platform.DISCORD, _has("discord_bot_token"), _discord_bot, _run_discord, _connect_discord, _close_discord),
    )
}  # fmt: skip
