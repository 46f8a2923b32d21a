"""Wiring, in one place: settings in, a ready DigestService out."""

from __future__ import annotations

from bot.digest import DigestService
from bot.github_source import GitHubSource
from bot.settings import Settings
from bot.store import Store
from summarizer.factory import make_summarizer


def build_service(settings: Settings, store: Store | None = None) -> DigestService:
    def display_name(repo: str) -> str:
        if settings.display_name and (not settings.repo or settings.repo.lower() == repo.lower()):
            return settings.display_name
        return repo.split("/")[-1]

    return DigestService(
        store=store or Store(settings.db_path),
        source_factory=lambda: GitHubSource(
            settings.github_api_url,
            settings.github_token,
            retries=settings.github_retries,
            backoff=settings.github_backoff,
        ),
        summarizer_factory=lambda call_log: make_summarizer(settings, call_log),
        display_names=display_name,
    )
