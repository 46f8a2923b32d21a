"""The bots' side of the composition root: the chat core, the platforms present in the settings
and the scheduler, over the one digest service `bot.app.compose` builds; for `prdigest run`
and `prdigest post`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bot.app.compose import build_service
from bot.app.platforms import REGISTRY, PlatformEntry
from bot.chat.core import ChatCore
from bot.chat.posting import DigestPoster
from bot.core.errors import ConfigurationError
from bot.core.models import Platform
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import Subscriptions
from bot.store.lease import Lease
from bot.store.store import Store

NOTHING_CONFIGURED = (
    "Nothing to run: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or with "
    "SLACK_SIGNING_SECRET and --http, and/or DISCORD_BOT_TOKEN. See .env.example."
)


@dataclass
class App:
    """Everything `prdigest run` runs: one store and service, one chat core, the configured
    platforms' bots over it (each with its poster), and the scheduler over those posters."""

    settings: Settings
    store: Store
    service: DigestService
    scheduler: DigestScheduler
    core: ChatCore
    subscriptions: Subscriptions
    bots: dict[Platform, Any] = field(default_factory=dict)

    def entries(self) -> list[tuple[PlatformEntry, Any]]:
        return [(REGISTRY[platform], bot) for platform, bot in self.bots.items()]


def configured_platforms(settings: Settings) -> list[PlatformEntry]:
    return [entry for entry in REGISTRY.values() if entry.configured(settings)]


def build_app(settings: Settings) -> App:
    """Wire the bot for `prdigest run`; raises ConfigurationError when no platform is set up
    or prdigest.toml is wrong (refused here, at start, with its line and reason)."""
    entries = configured_platforms(settings)
    if not entries:
        raise ConfigurationError(NOTHING_CONFIGURED)
    store = Store(settings.db_path)
    service = build_service(settings, store)
    posters: dict[str, DigestPoster] = {}  # filled below, as each platform's bot is built
    # It runs even with no subscription yet: `/digest subscribe` adds them at runtime.
    subscriptions = Subscriptions.from_settings(settings, store)
    scheduler = DigestScheduler(
        service,
        posters,
        subscriptions,
        settings,
        lease=Lease(store, "scheduler"),
    )
    core = ChatCore(settings, service, store, scheduler=scheduler)
    app = App(settings, store, service, scheduler, core, subscriptions)
    for entry in entries:
        bot = entry.build(settings, service, store, core)
        app.bots[entry.platform] = bot
        posters[entry.platform] = bot.poster
    return app


@contextlib.asynccontextmanager
async def one_poster(
    platform: Platform, settings: Settings, service: DigestService, store: Store
) -> AsyncIterator[DigestPoster]:
    """The platform's poster for one `prdigest post`: Web API or REST only, no live connection."""
    entry = REGISTRY[platform]
    bot = entry.build(settings, service, store, ChatCore(settings, service, store))
    try:
        await entry.connect(bot, settings)
        yield bot.poster
    finally:
        await entry.close(bot)
