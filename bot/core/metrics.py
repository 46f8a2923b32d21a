"""What `prdigest run` counts for Prometheus: the names and labels operators alert on.

One registry for the process, so `/metrics` shows exactly these series (not the default
process collectors of a library that happens to be imported). The names are a contract:
dashboards and alerts are written against them.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

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
