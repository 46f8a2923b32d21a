"""The OpenAI client of a configured endpoint, and what its network errors say.

The client's own `max_retries` and timeout do the retrying: a timeout, a 408, 409, 429 or 5xx
is tried again with its backoff (at most 8 s between tries, or the server's Retry-After up to
2 min). A connection that waiting cannot heal fails at once instead: a host name that does not
resolve, a refused connection, a TLS failure, a URL the client cannot use. The transport below
raises those as an `openai.APIConnectionError`, which the client passes on as it is instead of
retrying (an OpenAIError raised while sending is not wrapped or retried).

Every such error names the place: "could not reach the LLM at 127.0.0.1:8000 (OPENAI_BASE_URL):
connection refused", or OpenAI at api.openai.com when OPENAI_BASE_URL is not set.

Every HTTP request the client sends, its own retries included, is counted for `/metrics`
(`prdigest_llm_calls_total`, by purpose and outcome) where it is sent: in the transport, which
the built-in model's client uses too (`counted_http_client`).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import openai
from openai import AsyncOpenAI

from bot.core import metrics
from bot.core.endpoints import Endpoint
from bot.core.llm_settings import LLMSettings
from bot.core.models import Usage

try:  # the HTTP library this openai release is built on
    import httpx2 as httpx
except ImportError:  # pragma: no cover - openai releases before httpx2
    import httpx  # type: ignore[no-redef]

# Seconds to set up a connection: the openai client's own default. PRDIGEST_LLM_TIMEOUT is the
# wait for an answer, which a long prompt needs; a server that is up accepts a connection at once.
CONNECT_TIMEOUT = 5.0
# Where the transport leaves the endpoint on a request, for the error that request may end in.
ENDPOINT_KEY = "prdigest.endpoint"
TIMEOUT_SETTING = "PRDIGEST_LLM_TIMEOUT"


# What the completion in flight is for ("summary", "repair", "grounding", "revision",
# "overview"...): set around each completion by the summarizer, read by the transport for each
# request it sends. A context variable, because the client's retries run in the same task.
_PURPOSE: ContextVar[str] = ContextVar("prdigest_llm_purpose", default="other")


@contextmanager
def for_purpose(purpose: str) -> Iterator[None]:
    """The requests sent inside the block are counted under `purpose`."""
    token = _PURPOSE.set(purpose)
    try:
        yield
    finally:
        _PURPOSE.reset(token)


def count_tokens(usage: Usage) -> None:
    """An answer's tokens, for `prdigest_llm_tokens_total`."""
    metrics.LLM_TOKENS.labels(kind="prompt").inc(usage.prompt_tokens)
    metrics.LLM_TOKENS.labels(kind="completion").inc(usage.completion_tokens)


class CountedTransport(httpx.AsyncBaseTransport):
    """An HTTP transport that counts each request it sends: answered (ok), an error status or
    a failed connection (error), or no answer in time (timeout). A request cancelled by its
    caller (a shutdown) is not counted: it has no outcome."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None):
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        calls = metrics.LLM_CALLS
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TimeoutException:
            calls.labels(purpose=_PURPOSE.get(), outcome=metrics.TIMEOUT).inc()
            raise
        except asyncio.CancelledError:
            raise
        except Exception:
            calls.labels(purpose=_PURPOSE.get(), outcome=metrics.ERROR).inc()
            raise
        outcome = metrics.OK if response.status_code < 400 else metrics.ERROR
        calls.labels(purpose=_PURPOSE.get(), outcome=outcome).inc()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def counted_http_client() -> httpx.AsyncClient:
    """openai's own HTTP client, its requests counted: for a client made elsewhere (the
    built-in model's)."""
    return openai.DefaultAsyncHttpxClient(transport=CountedTransport())


class EndpointUnreachable(openai.APIConnectionError):
    """A connection that waiting will not make: raised at the first try, never retried."""


class _FailFast(httpx.AsyncBaseTransport):
    """The default transport, with connection failures that cannot heal raised as
    EndpointUnreachable, and every request marked with the endpoint it is for."""

    # httpx's ConnectError covers DNS, refused and a failed TLS handshake; a bare SSLError can
    # still come through from the async stack. A connect timeout means nothing answered at all.
    _LASTING = (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol, ssl.SSLError)

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self.inner = CountedTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions = {**request.extensions, ENDPOINT_KEY: self.endpoint}
        try:
            return await self.inner.handle_async_request(request)
        except self._LASTING as exc:
            raise EndpointUnreachable(request=request) from exc

    async def aclose(self) -> None:
        await self.inner.aclose()


def make_client(settings: LLMSettings) -> AsyncOpenAI:
    """The client of the endpoint these settings configure (OpenAI's when no base URL)."""
    return AsyncOpenAI(
        # Self-hosted servers (vLLM, Ollama) take any key; the client insists on one.
        api_key=settings.openai_api_key or "not-needed",
        base_url=settings.openai_base_url,
        timeout=httpx.Timeout(
            settings.llm_timeout, connect=min(CONNECT_TIMEOUT, settings.llm_timeout)
        ),
        max_retries=settings.llm_max_retries,
        http_client=openai.DefaultAsyncHttpxClient(transport=_FailFast(settings.endpoint)),
    )


def describe(exc: openai.APIConnectionError) -> str | None:
    """One line naming the place a request failed to reach, or None when the request did not go
    through `make_client`'s transport (the built-in model's own server has no setting to name)."""
    request = getattr(exc, "request", None)
    extensions = getattr(request, "extensions", None) or {}
    endpoint = extensions.get(ENDPOINT_KEY)
    if not isinstance(endpoint, Endpoint):
        return None
    if isinstance(exc, openai.APITimeoutError):
        read = (extensions.get("timeout") or {}).get("read")
        after = f" after {read:g} s" if isinstance(read, int | float) else ""
        return f"{endpoint.place} timed out{after} ({TIMEOUT_SETTING})"
    return endpoint.unreachable(exc)
