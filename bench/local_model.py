"""Benchmark the built-in local model: load time, seconds per PR, peak memory.

Run from the repo root:  .venv/bin/python -m bench.local_model  [--runs N]

Two synthetic-but-realistic Python PRs are summarized with the same strict JSON
schema the summarizer uses: a small one (~150 diff tokens) and a median-size one
(~1,100 diff tokens). Token counts come from the model's own tokenizer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

if __package__ in (None, ""):  # allow `python bench/local_model.py` too
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summarizer.local_server import LocalModelServer  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {
        "what_changed": {"type": "string"},
        "technical_impact": {"type": "string"},
        "potential_risks": {"type": "string"},
        "key_insights": {"type": "string"},
        "type": {"type": "string", "enum": ["TRIVIAL", "SUBSTANTIAL"]},
    },
    "required": ["what_changed", "technical_impact", "potential_risks", "key_insights", "type"],
    "additionalProperties": False,
}

SYSTEM = (
    "You summarize merged GitHub pull requests for a team's daily digest. "
    "Answer in JSON. Each text field is one or two plain sentences. "
    "type is TRIVIAL for typo/format/dependency-bump changes, else SUBSTANTIAL."
)

SMALL_DIFF = textwrap.dedent(
    """\
    diff --git a/app/pagination.py b/app/pagination.py
    index 3b1c2a0..8f4e9d1 100644
    --- a/app/pagination.py
    +++ b/app/pagination.py
    @@ -12,9 +12,11 @@ def paginate(items: list, page: int, per_page: int = 20) -> list:
    -    if page < 1:
    -        page = 1
    -    start = page * per_page
    +    if page < 1 or per_page < 1:
    +        raise ValueError("page and per_page must be positive")
    +    # pages are 1-based: page 1 starts at index 0
    +    start = (page - 1) * per_page
         end = start + per_page
         return items[start:end]
    """
)

_MEDIAN_MODULE = '''\
"""Token-bucket rate limiting for outgoing webhook deliveries."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    rate: float  # tokens added per second
    capacity: int
    tokens: float = field(init=False)
    updated: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = float(self.capacity)
        self.updated = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def try_take(self, cost: float = 1.0) -> bool:
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def wait_time(self, cost: float = 1.0) -> float:
        self._refill()
        missing = cost - self.tokens
        return 0.0 if missing <= 0 else missing / self.rate


class RateLimiter:
    """One bucket per destination host so a slow partner cannot starve the others."""

    def __init__(self, rate: float, capacity: int) -> None:
        self._rate = rate
        self._capacity = capacity
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = asyncio.Lock()

    async def acquire(self, host: str, cost: float = 1.0) -> None:
        while True:
            async with self._lock:
                bucket = self._buckets.setdefault(host, TokenBucket(self._rate, self._capacity))
                if bucket.try_take(cost):
                    return
                delay = bucket.wait_time(cost)
            await asyncio.sleep(delay)
'''

_MEDIAN_DELIVERY = """\
diff --git a/webhooks/delivery.py b/webhooks/delivery.py
index 5d0e1f2..a97c3b4 100644
--- a/webhooks/delivery.py
+++ b/webhooks/delivery.py
@@ -1,20 +1,26 @@
 import logging
+from urllib.parse import urlparse

 import aiohttp

+from webhooks.ratelimit import RateLimiter
 from webhooks.models import Delivery, DeliveryStatus
 from webhooks.store import DeliveryStore

 log = logging.getLogger(__name__)

+DEFAULT_RATE = 5.0  # deliveries per second per host
+DEFAULT_BURST = 20
+

 class Dispatcher:
-    def __init__(self, store: DeliveryStore, session: aiohttp.ClientSession) -> None:
+    def __init__(self, store: DeliveryStore, session: aiohttp.ClientSession,
+                 limiter: RateLimiter | None = None) -> None:
         self._store = store
         self._session = session
+        self._limiter = limiter or RateLimiter(DEFAULT_RATE, DEFAULT_BURST)

     async def deliver(self, delivery: Delivery) -> DeliveryStatus:
+        await self._limiter.acquire(urlparse(delivery.url).netloc)
         try:
             async with self._session.post(
                 delivery.url, json=delivery.payload, timeout=aiohttp.ClientTimeout(total=10)
             ) as response:
@@ -28,6 +34,9 @@ class Dispatcher:
             status = DeliveryStatus.FAILED
+        if status is DeliveryStatus.FAILED and delivery.attempts >= 5:
+            log.warning("giving up on delivery %s after %d attempts", delivery.id, delivery.attempts)
+            status = DeliveryStatus.DEAD
         await self._store.record(delivery.id, status)
         return status
"""

_MEDIAN_TESTS = """\
import asyncio

import pytest

from webhooks.ratelimit import RateLimiter, TokenBucket


def test_bucket_starts_full_and_drains():
    bucket = TokenBucket(rate=1.0, capacity=3)
    assert [bucket.try_take() for _ in range(4)] == [True, True, True, False]


def test_wait_time_is_zero_when_tokens_left():
    bucket = TokenBucket(rate=2.0, capacity=1)
    assert bucket.wait_time() == 0.0
    bucket.try_take()
    assert 0.0 < bucket.wait_time() <= 0.5


async def test_limiter_isolates_hosts():
    limiter = RateLimiter(rate=1000.0, capacity=1)
    await asyncio.wait_for(limiter.acquire("a.example"), 1)
    await asyncio.wait_for(limiter.acquire("b.example"), 1)
"""


def _added_file(path: str, body: str) -> str:
    lines = body.splitlines()
    header = (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n"
    )
    return header + "".join(f"+{line}\n" for line in lines)


MEDIAN_DIFF = (
    _added_file("webhooks/ratelimit.py", _MEDIAN_MODULE)
    + _MEDIAN_DELIVERY
    + _added_file("tests/test_ratelimit.py", _MEDIAN_TESTS)
)

PRS = {
    "small": (
        "Fix off-by-one in pagination",
        "Pages are 1-based; page 1 skipped items.",
        SMALL_DIFF,
    ),
    "median": (
        "Rate-limit webhook deliveries per host",
        "Adds a token bucket per destination host and dead-letters after 5 failures.",
        MEDIAN_DIFF,
    ),
}


def _prompt(title: str, body: str, diff: str) -> str:
    return f"Title: {title}\nAuthor: dev\nDescription: {body}\n\n{diff}"


def _count_tokens(server: LocalModelServer, text: str) -> int:
    # /tokenize is a llama.cpp route next to /v1, so strip the suffix.
    root = server.base_url.removesuffix("/v1")
    request = urllib.request.Request(
        f"{root}/tokenize",
        data=json.dumps({"content": text}).encode(),
        headers={"Authorization": f"Bearer {server.api_key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.load(response)["tokens"])


async def _summarize(server: LocalModelServer, prompt: str, max_tokens: int) -> tuple[float, dict]:
    import openai

    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, timeout=300)
    started = time.monotonic()
    try:
        response = await client.chat.completions.create(
            model=server.model_name,
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "pr_summary", "strict": True, "schema": SCHEMA},
            },
            max_tokens=max_tokens,
            temperature=0.2,
            # Every real PR is a new prompt: don't let repeated runs hit the KV cache.
            extra_body={"cache_prompt": False},
        )
    finally:
        await client.close()
    elapsed = time.monotonic() - started
    json.loads(response.choices[0].message.content or "")  # must be valid JSON
    usage = response.usage
    timings = (response.model_extra or {}).get("timings") or {}  # llama.cpp extension
    return elapsed, {
        "prompt_tokens": usage.prompt_tokens if usage else 0,
        "completion_tokens": usage.completion_tokens if usage else 0,
        "prompt_per_second": timings.get("prompt_per_second", 0.0),
        "predicted_per_second": timings.get("predicted_per_second", 0.0),
    }


def peak_rss_mib() -> float:
    """Peak resident memory of this process (llama.cpp runs in-process)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    # ru_maxrss is KiB on Linux, bytes on macOS.
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs per PR size (median taken)")
    parser.add_argument("--max-tokens", type=int, default=400)
    args = parser.parse_args(argv)

    server = LocalModelServer().start()
    try:
        print(f"model          {server.model_name}  (n_ctx {server.context_size})")
        print(f"load           {server.load_seconds:6.1f} s")
        for label, (title, body, diff) in PRS.items():
            diff_tokens = _count_tokens(server, diff)
            runs = [
                asyncio.run(_summarize(server, _prompt(title, body, diff), args.max_tokens))
                for _ in range(args.runs)
            ]
            seconds = statistics.median(r[0] for r in runs)
            usage = runs[-1][1]
            print(
                f"{label:<14} {seconds:6.1f} s/PR  diff {diff_tokens} tok, prompt "
                f"{usage['prompt_tokens']} tok, output {usage['completion_tokens']} tok"
            )
            for elapsed, stats in runs:
                print(
                    f"{'':<14} run {elapsed:5.1f} s  prompt {stats['prompt_per_second']:5.1f} tok/s"
                    f"  output {stats['predicted_per_second']:5.1f} tok/s"
                )
        print(f"peak RSS       {peak_rss_mib():6.0f} MiB")
        # Other work on the machine skews these numbers: show how busy it was.
        print(f"load average   {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
