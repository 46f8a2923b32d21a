"""The built-in local model, started on first use and reached through the openai client.

The server runs llama.cpp in this process (see `summarizer.local_server`); everything else
is the same OpenAISummarizer any endpoint gets, with a prompt sized to the model's context.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from openai import AsyncOpenAI

from bot.core.errors import ConfigurationError
from bot.core.llm_settings import LLMSettings
from summarizer import llm_client, local_server, model_assembly, tokens
from summarizer.openai_summarizer import OpenAISummarizer
from summarizer.prompt import COMPACT_PROMPT_VERSION, PromptBudget
from summarizer.sampling import LOCAL

log = logging.getLogger(__name__)


def local_available() -> bool:
    return model_assembly.local_runtime_available()


class LocalSummarizer:
    """The built-in model's summarizer before it starts: named from the settings alone (what a
    stored summary is looked up by), and `start()` makes it. A factory, not a proxy: the one
    lazy wrapper is the caller's (`bot.app.deferred`), which starts it at the first PR."""

    concurrency = 1  # llama.cpp here serves one request at a time (n_parallel=1)

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.model = (
            Path(settings.local_model).stem if settings.local_model else model_assembly.MODEL_NAME
        )
        self.prompt_version = COMPACT_PROMPT_VERSION  # always the compact prompt

    def start(self, seconds_per_pr: float | None = None) -> OpenAISummarizer:
        """Start the server (once a process) and give the summarizer over it; closing that
        summarizer stops the server. Slow, and blocking: call it on a worker thread.
        `seconds_per_pr` is this machine's measured speed, when the caller has it (the store
        is not ours to read), for the start-up warning."""
        log.warning(
            "No OPENAI_API_KEY or OPENAI_BASE_URL: using the built-in local model %s on the CPU "
            "(%s). For faster, better summaries set OPENAI_API_KEY, or "
            "OPENAI_BASE_URL for your own server.",
            self.model,
            speed_phrase(seconds_per_pr),
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
            http_client=llm_client.counted_http_client(),  # counted as any endpoint's requests
        )
        summarizer = local_openai_summarizer(
            client,
            server.model_name or self.model,
            server.context_size,
            on_close=local_server.stop_local_server,
        )
        log.info("local model ready: %s, context %d tokens", self.model, server.context_size)
        return summarizer


def speed_phrase(seconds_per_pr: float | None) -> str:
    """The expected wait, as this machine measured it: no constant, since a PR's time varies
    several-fold between machines with the cores and the model."""
    if seconds_per_pr is None:
        return "the first summary measures this machine's speed"
    return f"about {seconds_per_pr:.0f} s a PR on this machine"


def local_openai_summarizer(
    client: AsyncOpenAI,
    model: str,
    context_size: int,
    *,
    on_close: Callable[[], None] | None = None,
) -> OpenAISummarizer:
    """The summarizer as the built-in model gets it: the compact prompt on a budget chosen for
    CPU speed, bounded sections, greedy decoding under repetition control, one PR at a time."""
    return OpenAISummarizer(
        client,
        model,
        budget=PromptBudget.for_cpu(context_size, LOCAL.max_tokens or 0),
        concurrency=1,
        sampling=LOCAL,
        prompt_version=COMPACT_PROMPT_VERSION,
        on_close=on_close,
    )
