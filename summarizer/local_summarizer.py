"""The built-in local model, started on first use and reached through the openai client."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.errors import ConfigurationError
from bot.models import PullRequest
from bot.settings import Settings
from summarizer.base import CallLog, SummaryResult
from summarizer.prompt import PROMPT_VERSION


def local_available() -> bool:
    from summarizer.model_assembly import local_runtime_available

    return local_runtime_available()


class LocalSummarizer:
    """Knows its model name without starting anything; starts the server on the first PR."""

    concurrency = 1  # llama.cpp on a laptop CPU serves one request at a time

    def __init__(self, settings: Settings, call_log: CallLog | None = None):
        self.settings = settings
        self.call_log = call_log
        self.model = (
            Path(settings.local_model).stem
            if settings.local_model
            else "qwen2.5-coder-1.5b-instruct-q4_k_m"
        )
        self.prompt_version = PROMPT_VERSION + "c"
        self._inner = None
        self._lock = asyncio.Lock()

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        async with self._lock:
            if self._inner is None:
                self._inner = await asyncio.to_thread(self._start)
        return await self._inner.summarize(pr)

    def _start(self):
        raise ConfigurationError("local model not wired yet")

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
