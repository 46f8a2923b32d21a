"""Benchmark: a 50-PR day against the local fakes, with a simulated 1 s LLM latency.

    python bench/digest.py [--prs 50] [--latency 1.0] [--concurrency 8]

Prints wall time against the ideal ceil(N / concurrency) x latency, the same day summarized one
PR after another, the calls made to GitHub and the LLM, prompt tokens per PR, and a re-run.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.compose import build_service  # noqa: E402
from bot.core.day_window import day_window  # noqa: E402
from bot.core.settings import Settings  # noqa: E402
from bot.store.store import Store  # noqa: E402
from tests.fakes.github import FakeFile, FakeGitHub, FakePR  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402

REPO = "vllm-project/vllm"
DAY = date(2026, 2, 23)
TZ = "America/Los_Angeles"


def synthetic_day(count: int, seed: int = 7) -> list[FakePR]:
    """PRs whose diff sizes follow the real vLLM spread: median ~1,100 tokens, one of ~31,000."""
    rng = random.Random(seed)
    prs = []
    for i in range(count):
        target_tokens = 30_769 if i == 0 else int(min(20_000, rng.lognormvariate(7.0, 1.0)))
        n_files = max(1, min(80, int(rng.lognormvariate(1.2, 1.0))))
        lines_per_file = max(2, target_tokens // 9 // n_files)
        files = []
        for f in range(n_files):
            folder = rng.choice(["vllm/model_executor", "vllm/v1/core", "tests/kernels", "docs"])
            body = "\n".join(
                f"+    value_{f}_{j} = compute_thing(arg_{j}, other={j})"
                for j in range(lines_per_file)
            )
            files.append(
                FakeFile(
                    f"{folder}/file_{i}_{f}.py", patch=f"@@ -1,3 +1,{lines_per_file} @@\n{body}"
                )
            )
        merged = datetime(2026, 2, 23, 0, 30, tzinfo=ZoneInfo(TZ)) + timedelta(minutes=27 * i)
        prs.append(
            FakePR(
                number=35000 + i,
                title=f"[Perf] Synthetic change {i}",
                author=f"dev{i % 13}",
                merged_by="maintainer",
                merged_at=merged,
                body="Purpose: speed things up.\n\n## Test Plan\n\npytest",
                files=files,
            )
        )
    return prs


async def build_day(settings: Settings, db: Path) -> tuple[float, int]:
    service = build_service(settings, Store(db))
    started = time.perf_counter()
    digest = await service.digest(REPO, day_window(DAY, TZ))
    elapsed = time.perf_counter() - started
    await service.aclose()
    return elapsed, len(digest.entries)


def settings_for(github: FakeGitHub, llm: FakeOpenAI, db: Path, **more: str) -> Settings:
    """prdigest's settings against the fakes; `more` adds variables (PRDIGEST_CONCURRENCY...)."""
    return Settings.from_env(
        {
            "GITHUB_TOKEN": "bench-token",
            "GITHUB_API_URL": github.url,
            "OPENAI_API_KEY": "bench-key",
            "OPENAI_BASE_URL": llm.url + "/v1",
            "PRDIGEST_DB": str(db),
            **more,
        }
    )


def concurrent(github: FakeGitHub, llm: FakeOpenAI, db: Path, concurrency: int) -> Settings:
    return settings_for(github, llm, db, PRDIGEST_CONCURRENCY=str(concurrency))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prs", type=int, default=50)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip-sequential", action="store_true")
    args = parser.parse_args()

    prs = synthetic_day(args.prs)
    tmp = Path(tempfile.mkdtemp(prefix="prdigest-bench-"))
    with FakeGitHub() as github, FakeOpenAI(latency=args.latency) as llm:
        github.add_repo(REPO)
        github.add_prs(REPO, prs)
        db = tmp / "bench.db"

        wall, count = asyncio.run(build_day(concurrent(github, llm, db, args.concurrency), db))
        gh_calls = len(github.requests)
        search_pages = github.count(path_regex=r"/search/issues")
        per_pr = github.count(path_regex=r"/pulls/\d+")
        llm_calls = llm.completions_count
        prompt_tokens = [r["prompt_tokens"] for r in Store(db).db["llm_calls"].rows]

        github.clear_requests()
        rerun, _ = asyncio.run(build_day(concurrent(github, llm, db, args.concurrency), db))
        rerun_llm = llm.completions_count - llm_calls
        rerun_gh = len(github.requests)

        limit = math.ceil(count / args.concurrency) * args.latency
        print(f"PRs in the day:               {count}")
        print(f"wall time (concurrency {args.concurrency}):   {wall:.2f} s")
        print(
            f"limit ceil(N/c) x latency:    {limit:.2f} s   (ratio {wall / limit:.2f}, target <= 1.3)"
        )
        if not args.skip_sequential:
            seq_db = tmp / "sequential.db"
            seq, _ = asyncio.run(build_day(concurrent(github, llm, seq_db, 1), seq_db))
            print(
                f"one PR after another:         {seq:.2f} s   (speed-up {seq / wall:.1f}x, target >= 6)"
            )
        print(f"LLM calls:                    {llm_calls}")
        print(
            f"GitHub calls:                 {gh_calls} = 1 repo + {search_pages} search pages"
            f" + {per_pr} per-PR ({per_pr / count:.2f} per PR, target <= 2)"
        )
        print(
            f"prompt tokens per PR:         median {statistics.median(prompt_tokens):.0f},"
            f" max {max(prompt_tokens)} (budget {Settings().max_prompt_tokens})"
        )
        print(
            f"re-run of the same day:       {rerun:.3f} s, {rerun_llm} LLM calls,"
            f" {rerun_gh} GitHub calls (target < 1 s, 0 LLM calls)"
        )


if __name__ == "__main__":
    main()
