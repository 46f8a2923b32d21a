"""The summarizers as prdigest builds them, pointed at a fake OpenAI endpoint through the real
`openai` client: the hosted one, and the built-in model's (compact CPU budget, grammar,
greedy). Each answer (and each SummarizeError) carries the LLM calls that made it."""

from __future__ import annotations

from openai import AsyncOpenAI

from summarizer.local_summarizer import local_openai_summarizer
from summarizer.openai_summarizer import OpenAISummarizer
from tests.fakes.openai_api import FakeOpenAI


def client(server: FakeOpenAI, retries: int = 0) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=retries)


def hosted(server: FakeOpenAI, retries: int = 0) -> OpenAISummarizer:
    return OpenAISummarizer(client(server, retries), "gpt-4.1-mini")


def local(server: FakeOpenAI) -> OpenAISummarizer:
    return local_openai_summarizer(client(server), "qwen2.5-coder-1.5b", 8192)
