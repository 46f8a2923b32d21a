"""The summarizers as prdigest builds them, pointed at a fake OpenAI endpoint through the real
`openai` client: the hosted one, and the built-in model's (compact CPU budget, grammar,
greedy). `calls` collects what each call logs, as the service's LLM-call log would."""

from __future__ import annotations

from openai import AsyncOpenAI

from bot.ports.summarizer import LLMCall
from summarizer.local_summarizer import local_openai_summarizer
from summarizer.openai_summarizer import OpenAISummarizer
from tests.fakes.openai_api import FakeOpenAI


def client(server: FakeOpenAI, retries: int = 0) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=retries)


def hosted(
    server: FakeOpenAI, calls: list[LLMCall] | None = None, retries: int = 0
) -> OpenAISummarizer:
    log = calls.append if calls is not None else None
    return OpenAISummarizer(client(server, retries), "gpt-4.1-mini", call_log=log)


def local(server: FakeOpenAI, calls: list[LLMCall] | None = None) -> OpenAISummarizer:
    log = calls.append if calls is not None else None
    return local_openai_summarizer(client(server), "qwen2.5-coder-1.5b", 8192, log)
