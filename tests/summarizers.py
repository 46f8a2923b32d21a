"""The summarizers as prdigest builds them, pointed at a fake OpenAI endpoint through the real
`openai` client: the hosted one, and the built-in model's (compact CPU budget, grammar,
greedy). Each answer (and each SummarizeError) carries the LLM calls that made it."""

from __future__ import annotations

import openai
from openai import AsyncOpenAI

from summarizer.llm_client import httpx
from summarizer.local_summarizer import local_openai_summarizer
from summarizer.openai_summarizer import OpenAISummarizer
from tests.fakes.openai_api import FakeOpenAI


def client(server: FakeOpenAI, retries: int = 0) -> AsyncOpenAI:
    # No connection outlives its request: a test's event loop closes with the test, and a
    # client collected later closes its pooled connections on whatever loop runs then (a CLI
    # test's), where closing one of a closed loop is an error logged into that test's output.
    unpooled = openai.DefaultAsyncHttpxClient(limits=httpx.Limits(max_keepalive_connections=0))
    return AsyncOpenAI(
        base_url=server.url + "/v1", api_key="k", max_retries=retries, http_client=unpooled
    )


def hosted(server: FakeOpenAI, retries: int = 0) -> OpenAISummarizer:
    return OpenAISummarizer(client(server, retries), "gpt-4.1-mini")


def local(server: FakeOpenAI) -> OpenAISummarizer:
    return local_openai_summarizer(client(server), "qwen2.5-coder-1.5b", 8192)
