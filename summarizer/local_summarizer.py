"""The built-in local model, started on first use and reached through the openai client.

The server runs llama.cpp in this process (see `summarizer.local_server`); everything else
is the same OpenAISummarizer any endpoint gets, with a prompt sized to the model's context.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from openai import AsyncOpenAI

from bot.core.errors import ConfigurationError
from bot.core.llm_settings import LLMSettings
from bot.core.models import PRSummary, PullRequest
from bot.ports.summarizer import CallLog, DayCandidate, Revision, SummaryResult
from summarizer import local_server, model_assembly, tokens
from summarizer.openai_summarizer import OpenAISummarizer
from summarizer.prompt import COMPACT_PROMPT_VERSION, PromptBudget
from summarizer.sampling import LOCAL

log = logging.getLogger(__name__)


def local_available() -> bool:
    return model_assembly.local_runtime_available()


class LocalSummarizer:
    """Knows its model name without starting anything; starts the server on the first PR."""

    concurrency = 1  # llama.cpp here serves one request at a time (n_parallel=1)

    def __init__(self, settings: LLMSettings, call_log: CallLog | None = None):
        self.settings = settings
        self.call_log = call_log
        self.model = (
            Path(settings.local_model).stem if settings.local_model else model_assembly.MODEL_NAME
        )
        self.prompt_version = COMPACT_PROMPT_VERSION  # always the compact prompt
        # This machine's measured seconds a PR, when its caller has them (the store is not
        # ours to read); None until a first summary has been timed here.
        self.seconds_per_pr: float | None = None
        self._inner: OpenAISummarizer | None = None
        self._lock = asyncio.Lock()

    async def _summarizer(self) -> OpenAISummarizer:
        async with self._lock:
            if self._inner is None:
                self._inner = await asyncio.to_thread(self._start)
            return self._inner

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        return await (await self._summarizer()).summarize(pr)

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        return await (await self._summarizer()).revise(pr, current)

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> list[int]:
        # The compact budget shows the model only the first candidates that fit it.
        summarizer = await self._summarizer()
        return await summarizer.pick_highlights(repo, day, candidates, count)

    def _start(self) -> OpenAISummarizer:
        log.warning(
            "No OPENAI_API_KEY or OPENAI_BASE_URL: using the built-in local model %s on the CPU "
            "(%s). For faster, better summaries set OPENAI_API_KEY, or "
            "OPENAI_BASE_URL for your own server.",
            self.model,
            speed_phrase(self.seconds_per_pr),
        )
        try:
            server = local_server.get_local_server(model_assembly.local_model_path(self.settings))
        except (model_assembly.ModelAssemblyError, local_server.LocalServerError) as exc:
            raise ConfigurationError(str(exc)) from None
        # Budgets are counted in the model's own tokens, not estimated (3 characters a token
        # undercounted what a 1,000-token budget holds by a quarter).
        tokens.use_model_tokenizer(server.count_tokens)
        client = AsyncOpenAI(
            base_url=server.base_url,
            api_key=server.api_key,
            # Generation on two cores runs 14 tokens/s: a long prompt takes minutes, not seconds.
            timeout=max(self.settings.llm_timeout, 600.0),
            max_retries=1,
        )
        inner = local_openai_summarizer(
            client, server.model_name or self.model, server.context_size, self.call_log
        )
        log.info("local model ready: %s, context %d tokens", self.model, server.context_size)
        return inner

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
            local_server.stop_local_server()
            self._inner = None


def speed_phrase(seconds_per_pr: float | None) -> str:
    """The expected wait, as this machine measured it: no constant, since a PR's time varies
    several-fold between machines with the cores and the model."""
    if seconds_per_pr is None:
        return "the first summary measures this machine's speed"
    return f"about {seconds_per_pr:.0f} s a PR on this machine"


def local_openai_summarizer(
    client: AsyncOpenAI, model: str, context_size: int, call_log: CallLog | None = None
) -> OpenAISummarizer:
    """The summarizer as the built-in model gets it: the compact prompt on a budget chosen for
    CPU speed, bounded sections, greedy decoding under repetition control, one PR at a time."""
    return OpenAISummarizer(
        client,
        model,
        budget=PromptBudget.for_cpu(context_size, LOCAL.max_tokens or 0),
        concurrency=1,
        call_log=call_log,
        sampling=LOCAL,
        prompt_version=COMPACT_PROMPT_VERSION,
    )
