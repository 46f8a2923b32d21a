"""The composition root of the digest service: the store, the GitHub source and the summarizer,
wired. Every command builds its service here; `bot.app.bots` adds the chat core, the platforms
present in the settings and the scheduler for `prdigest run` and `post`.

The GitHub client and the summarizer are made on first use, and their libraries imported then
(`bot.app.deferred`): a command answered from the store never loads them."""

from __future__ import annotations

from collections.abc import Callable

from bot.app.deferred import DeferredSummarizer, github_source
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.schedule.subscriptions import load_area_map
from bot.store.store import Store


def display_names(settings: Settings) -> Callable[[str], str]:
    """A repository's report title: PRDIGEST_DISPLAY_NAME for the configured one, else its name."""

    def display_name(repo: str) -> str:
        if settings.display_name and (not settings.repo or settings.repo.lower() == repo.lower()):
            return settings.display_name
        return repo.split("/")[-1]

    return display_name


def build_service(settings: Settings, store: Store | None = None) -> DigestService:
    """The digest service over `store` (opened from PRDIGEST_DB when not given): GitHub made
    on first use, the summarizer too, and only from the LLM's settings."""
    llm = settings.llm
    return DigestService(
        store=store or Store(settings.db_path),
        source_factory=lambda: github_source(settings),
        summarizer_factory=lambda: DeferredSummarizer(llm),
        display_names=display_names(settings),
        area_map=load_area_map(settings),
        range_max_days=settings.range_max_days,
    )
