"""openai and PyGithub, imported when GitHub or the LLM is first called, not at start.

Between them they take over half a second to import, and `prdigest report` of a stored day,
`summary` of a stored PR, `flags` and `--help` call neither. The summarizer is named (model,
prompt version, concurrency) from the settings alone, which is all a stored answer needs.

The two imports inside functions below are the only ones of the project: the floor plan
(tests/test_floor_plan.py) lists them, and lint-imports sees them like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.core.llm_settings import LLMSettings
from bot.core.models import PRSummary, PullRequest
from bot.core.settings import Settings
from bot.ports.summarizer import (
    AnswerText,
    AskSource,
    DayCandidate,
    Highlights,
    Revision,
    Summarizer,
    SummaryResult,
    SummaryWriter,
)
from summarizer import model_assembly
from summarizer.prompt import COMPACT_PROMPT_VERSION, PromptBudget, prompt_version_for

if TYPE_CHECKING:
    from bot.digest.github_source import GitHubSource


def github_source(settings: Settings) -> GitHubSource:
    """The GitHub client of these settings: a token, a GitHub App, or anonymous."""
    from bot.digest.github_source import GitHubSource  # PyGithub: about 0.15 s

    return GitHubSource.from_settings(settings)


def build_summarizer(llm: LLMSettings, seconds_per_pr: float | None = None) -> Summarizer:
    """The summarizer `summarizer.factory` chooses: an endpoint, or the built-in model (started
    here, its warning naming `seconds_per_pr`)."""
    from summarizer.factory import make_summarizer  # openai: about 0.5 s

    return make_summarizer(llm, seconds_per_pr)


@dataclass(frozen=True)
class Identity:
    """What a stored summary is keyed by: the model and prompt version that write new ones."""

    model: str
    prompt_version: str
    local: bool  # the built-in model, on this machine's CPU
    concurrency: int

    @property
    def writer(self) -> SummaryWriter:
        return SummaryWriter(self.model, self.prompt_version)


def configured_identity(llm: LLMSettings) -> Identity | None:
    """The model these settings summarize with, as `summarizer.factory` would choose it (a
    test holds the two together); None when no LLM is configured at all."""
    if llm.llm_configured:
        budget = PromptBudget(max_prompt_tokens=llm.max_prompt_tokens)
        return Identity(llm.model, prompt_version_for(budget), False, llm.concurrency)
    if llm.local_model or model_assembly.local_runtime_available():
        model = Path(llm.local_model).stem if llm.local_model else model_assembly.MODEL_NAME
        return Identity(model, COMPACT_PROMPT_VERSION, True, 1)
    return None


class DeferredSummarizer:
    """The configured summarizer, built (and openai imported) at its first LLM call.

    With no LLM configured it is built at once, so the factory's own error is raised where
    it always was: before any GitHub call.
    """

    def __init__(self, llm: LLMSettings):
        self.llm = llm
        self.seconds_per_pr: float | None = None  # the built-in model's, measured by the caller
        self._inner: Summarizer | None = None
        self._lock = asyncio.Lock()
        identity = configured_identity(llm)
        if identity is None:
            inner = self._inner = build_summarizer(llm)  # "No LLM configured"
            identity = Identity(inner.model, inner.prompt_version, True, inner.concurrency)
        self.identity = identity

    @property
    def model(self) -> str:
        return self.identity.model

    @property
    def prompt_version(self) -> str:
        return self.identity.prompt_version

    @property
    def concurrency(self) -> int:
        return self.identity.concurrency

    @property
    def local(self) -> bool:
        return self.identity.local

    async def built(self) -> Summarizer:
        async with self._lock:
            if self._inner is None:
                # On a worker thread: the import takes half a second of the event loop's time,
                # and the built-in model's start far longer.
                self._inner = await asyncio.to_thread(
                    build_summarizer, self.llm, self.seconds_per_pr
                )
            return self._inner

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        return await (await self.built()).summarize(pr)

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        return await (await self.built()).revise(pr, current)

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> Highlights:
        return await (await self.built()).pick_highlights(repo, day, candidates, count)

    async def answer(self, repo: str, question: str, sources: Sequence[AskSource]) -> AnswerText:
        return await (await self.built()).answer(repo, question, sources)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
            self._inner = None
