"""Benchmark: 200 concurrent `/prsummary` commands for 50 distinct PRs, through the real Slack
(Bolt) app, against the local fakes, with a simulated LLM latency.

    python bench/load.py [--commands 200] [--prs 50] [--latency 1.0] [--channels 20]

The commands come from distinct users spread over channels (so the default per-user and
per-channel limits are not what is measured) and are all dispatched at once, the way Slack
would deliver a burst. Prints: how many were acknowledged and how fast (Slack's limit is 3 s),
how many got their summary, LLM calls (target: one per PR), GitHub calls, and wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
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

    @property
    def acks_over_limit(self) -> int:
        return sum(a >= ACK_LIMIT for a in self.acks)

    def lines(self) -> list[str]:
        acks = sorted(self.acks)
        p95 = acks[int(0.95 * (len(acks) - 1))] if acks else 0.0
        return [
            f"commands dispatched at once:  {self.commands} ({self.prs} distinct PRs)",
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
) -> LoadResult:
    result = LoadResult(commands, prs)
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

            async def one(i: int, number: int):
                started = time.perf_counter()
                delivery = await bot.driver.command(
                    "/prsummary",
                    str(number),
                    channel=f"C0LOAD{i % channels:02d}",
                    user=f"U0L{i:04d}",
                )
                return delivery, time.perf_counter() - started

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--prs", type=int, default=50)
    parser.add_argument("--latency", type=float, default=1.0, help="simulated LLM seconds")
    parser.add_argument("--channels", type=int, default=20)
    args = parser.parse_args()
    for name in list(os.environ):  # a developer's own settings must not leak in
        if name.startswith("PRDIGEST_"):
            del os.environ[name]
    result = asyncio.run(
        run_load(commands=args.commands, prs=args.prs, latency=args.latency, channels=args.channels)
    )
    print("\n".join(result.lines()))


if __name__ == "__main__":
    main()
