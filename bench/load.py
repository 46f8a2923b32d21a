"""Benchmark: 200 concurrent `/prsummary` commands for 50 distinct PRs, through the real Slack
(Bolt) app, against the local fakes, with a simulated LLM latency.

    python bench/load.py [--commands 200] [--prs 50] [--latency 1.0] [--channels 20]
                         [--lock-seconds 10]

The commands come from distinct users spread over channels (so the default per-user and
per-channel limits are not what is measured) and are all dispatched at once, the way Slack
would deliver a burst. Prints: how many were acknowledged and how fast (Slack's limit is 3 s),
how many got their summary, LLM calls (target: one per PR), GitHub calls, and wall time.

Then the same commands again on a fresh database while another process holds SQLite's write
lock (`BEGIN IMMEDIATE`) for `--lock-seconds`, arriving over the first half of it: every write
waits for the lock, and no acknowledgement may.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.settings import Settings  # noqa: E402
from bot.store.store import Store  # noqa: E402
from tests.conftest import make_pr  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402
from tests.fakes.slack import BotUnderTest, FakeSlack  # noqa: E402

REPO = "vllm-project/vllm"
ACK_LIMIT = 3.0


@dataclass
class LoadResult:
    commands: int
    prs: int
    acks: list[float] = field(default_factory=list)  # seconds per command to Bolt's ack
    answered: int = 0  # commands whose summary of the right PR came back
    wrong_or_missing: list[str] = field(default_factory=list)
    llm_calls: int = 0
    summaries_stored: int = 0
    github_calls: int = 0
    github_pr_fetches: int = 0  # GET .../pulls/N (not /files)
    wall: float = 0.0
    lock_seconds: float = 0.0  # another process held the write lock this long during the burst

    @property
    def acks_over_limit(self) -> int:
        return sum(a >= ACK_LIMIT for a in self.acks)

    def lines(self) -> list[str]:
        acks = sorted(self.acks)
        p95 = acks[int(0.95 * (len(acks) - 1))] if acks else 0.0
        when = (
            f"over {self.lock_seconds / 2:.0f} s, write lock held by another process for "
            f"{self.lock_seconds:.0f} s"
            if self.lock_seconds
            else "at once"
        )
        return [
            f"commands dispatched {when}: {self.commands} ({self.prs} distinct PRs)",
            f"acknowledged:                 {len(self.acks)}, "
            f"{self.acks_over_limit} at or over {ACK_LIMIT:.0f} s "
            f"(max {max(acks, default=0):.3f} s, p95 {p95:.3f} s, "
            f"median {statistics.median(acks) if acks else 0:.3f} s)",
            f"answered with their summary:  {self.answered} of {self.commands}"
            + (f"  MISSING: {self.wrong_or_missing[:5]}" if self.wrong_or_missing else ""),
            f"LLM calls:                    {self.llm_calls} (target: {self.prs}, one per PR)",
            f"summaries stored:             {self.summaries_stored}",
            f"GitHub calls:                 {self.github_calls} "
            f"({self.github_pr_fetches} PR reads for {self.prs} PRs)",
            f"wall time:                    {self.wall:.2f} s",
        ]


async def run_load(
    *,
    commands: int = 200,
    prs: int = 50,
    latency: float = 1.0,
    channels: int = 20,
    db: Path | None = None,
    lock_seconds: float = 0.0,
) -> LoadResult:
    result = LoadResult(commands, prs, lock_seconds=lock_seconds)
    db = db or Path(tempfile.mkdtemp(prefix="prdigest-load-")) / "load.db"
    with FakeGitHub() as github, FakeOpenAI(latency=latency) as llm, FakeSlack() as slack:
        github.add_repo(REPO)
        github.add_prs(
            REPO,
            [make_pr(n, f"2026-02-23 {n % 24:02d}:{n % 60:02d}:00") for n in range(1, prs + 1)],
        )
        settings = Settings.from_env(
            {
                "GITHUB_TOKEN": "load-token",
                "GITHUB_API_URL": github.url,
                "OPENAI_API_KEY": "load-key",
                "OPENAI_BASE_URL": llm.url + "/v1",
                "PRDIGEST_DB": str(db),
                "PRDIGEST_REPO": REPO,
            },
            dotenv=False,
        )
        bot = BotUnderTest(settings, slack)
        try:
            numbers = [(i % prs) + 1 for i in range(commands)]

            # With the lock held, the commands come in over its first half, so most of them
            # arrive while earlier commands' writes are waiting for the lock.
            spread = lock_seconds / 2 / max(1, commands)

            async def one(i: int, number: int):
                await asyncio.sleep(i * spread)
                started = time.perf_counter()
                delivery = await bot.driver.command(
                    "/prsummary",
                    str(number),
                    channel=f"C0LOAD{i % channels:02d}",
                    user=f"U0L{i:04d}",
                )
                return delivery, time.perf_counter() - started

            with write_lock(db, lock_seconds):
                started = time.perf_counter()
                outcomes = await asyncio.gather(*(one(i, n) for i, n in enumerate(numbers)))
                await bot.bot.drain(300)
                result.wall = time.perf_counter() - started
        finally:
            await bot.aclose()

        for (delivery, ack), number in zip(outcomes, numbers, strict=True):
            if delivery.status == 200:
                result.acks.append(ack)
            answers = [
                r for r in slack.responses_for(delivery.response_url)
                if r.get("response_type") == "in_channel"
                and (r.get("metadata") or {}).get("event_payload", {}).get("pr") == number
            ]  # fmt: skip
            if answers:
                result.answered += 1
            else:
                said = [r.get("text") for r in slack.responses_for(delivery.response_url)]
                result.wrong_or_missing.append(f"#{number}: {delivery.text!r} {said!r}")
        result.llm_calls = llm.completions_count
        result.github_calls = len(github.requests)
        result.github_pr_fetches = github.count(path_regex=r"/pulls/\d+$")
        store = Store(db)
        result.summaries_stored = store.db["summaries"].count
        store.close()
    return result


LOCK_HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=60, isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("CREATE TABLE IF NOT EXISTS bench_lock (x)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


@contextmanager
def write_lock(db: Path, seconds: float) -> Iterator[None]:
    """Another process holding SQLite's write lock on `db` for `seconds` (none for 0)."""
    if seconds <= 0:
        yield
        return
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(db), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.wait(timeout=seconds + 30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--prs", type=int, default=50)
    parser.add_argument("--latency", type=float, default=1.0, help="simulated LLM seconds")
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument(
        "--lock-seconds", type=float, default=10.0,
        help="second run: another process holds the write lock this long (0: skip)",
    )  # fmt: skip
    args = parser.parse_args()
    for name in list(os.environ):  # a developer's own settings must not leak in
        if name.startswith("PRDIGEST_"):
            del os.environ[name]
    options = {"commands": args.commands, "prs": args.prs, "latency": args.latency}
    result = asyncio.run(run_load(channels=args.channels, **options))
    print("\n".join(result.lines()))
    if args.lock_seconds > 0:
        print()
        locked = asyncio.run(
            run_load(channels=args.channels, lock_seconds=args.lock_seconds, **options)
        )
        print("\n".join(locked.lines()))
        print(f"slowest ack with the lock held: {max(locked.acks, default=0):.3f} s")


if __name__ == "__main__":
    main()
