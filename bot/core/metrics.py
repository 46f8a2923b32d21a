"""What `prdigest run` counts for Prometheus: the names and labels operators alert on.

One registry for the process, so `/metrics` shows exactly these series (not the default
process collectors of a library that happens to be imported). The names are a contract:
dashboards and alerts are written against them. Imported only by the code that counts (the
LLM client, posting, the chat core, the health server), never by `prdigest report`, so a
stored day still starts without prometheus-client.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

# No `*_created` series beside each counter: the start time of a label set is noise on a
# dashboard, and it doubles what a scrape carries.
disable_created_metrics()

REGISTRY = CollectorRegistry(auto_describe=True)

LLM_CALLS = Counter(
    "prdigest_llm_calls",
    "HTTP requests to the LLM, by what they were for and how they ended.",
    ["purpose", "outcome"],
    registry=REGISTRY,
)
LLM_TOKENS = Counter(
    "prdigest_llm_tokens",
    "Tokens the LLM read (prompt) and wrote (completion).",
    ["kind"],
    registry=REGISTRY,
)
GITHUB_REQUESTS = Counter(
    "prdigest_github_requests",
    "HTTP requests to GitHub's API, by status code (or 'error' when no answer came).",
    ["status"],
    registry=REGISTRY,
)
DIGESTS_POSTED = Counter(
    "prdigest_digests_posted",
    "Digests whose thread was posted in full, by chat platform.",
    ["platform"],
    registry=REGISTRY,
)
SUMMARIES_UNAVAILABLE = Gauge(
    "prdigest_summaries_unavailable",
    "Replies posted as 'Summary unavailable' that have not healed yet.",
    registry=REGISTRY,
)
COMMAND_ACK_SECONDS = Histogram(
    "prdigest_command_ack_seconds",
    "Seconds from a slash command's arrival to its acknowledgement.",
    ["platform", "command"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0),
    registry=REGISTRY,
)

# What an LLM request's outcome label says: answered (2xx), refused or failed (an HTTP error
# status, a connection that failed), or no answer in time.
OK, ERROR, TIMEOUT = "ok", "error", "timeout"


def exposition() -> tuple[bytes, str]:
    """The registry as Prometheus text, and its content type: the body of `/metrics`."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def sample(name: str, **labels: str) -> float:
    """One series' current value (0 when it has no sample yet): for tests and benches that
    compare counts before and after."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def total(name: str) -> float:
    """The sum of a series over all its label sets (a counter's `_total`, say)."""
    return sum(s.value for metric in REGISTRY.collect() for s in metric.samples if s.name == name)
