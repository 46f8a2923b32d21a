"""Benchmark: how long `prdigest` takes to start, as a ratio to `python -c pass`.

    python bench/startup.py [--runs 15] [--extra 30]

Times, each the median of N runs in a fresh process: `prdigest --help`, `prdigest report` of a
stored day, and `prdigest summary` of a stored PR. The stored day is built first through the
real command (`prdigest report`) against the local fake GitHub and fake OpenAI, in a temporary
PRDIGEST_DB: the real excerpt of 2026-02-23 and synthetic PRs, 36 in all like a busy day. The
timed runs must then make no GitHub or LLM call, which the fakes count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.digest import synthetic_day  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402
from tests.report_parser import parse_report, prs_from_report  # noqa: E402

REPO = "vllm-project/vllm"
DAY = "2026-02-23"
REAL_DAY = ROOT / "tests" / "data" / f"vllm-{DAY}-excerpt.md"
PRDIGEST = [sys.executable, "-c", "from bot.app.cli import main; main()"]
TARGET = 0.5  # seconds: "well under half a second" for --help and a stored report


def environment(github: FakeGitHub, llm: FakeOpenAI, tmp: Path) -> dict[str, str]:
    """The user's environment pointed at the fakes; nothing of the caller's prdigest settings.
    Compiled bytecode is kept, as an installed prdigest's is, but in `tmp`: the checkout is
    left as it was."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PRDIGEST_", "GITHUB_", "OPENAI_", "SLACK_", "DISCORD_"))
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        GITHUB_TOKEN="bench-token",
        GITHUB_API_URL=github.url,
        OPENAI_API_KEY="bench-key",
        OPENAI_BASE_URL=llm.url + "/v1",
        PRDIGEST_DB=str(tmp / "stored.db"),
        PRDIGEST_REPO=REPO,
        PYTHONPATH=str(ROOT),  # this checkout's prdigest, whichever one is installed
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
    )
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds one command takes in a fresh process; it must succeed."""
    started = time.perf_counter()
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[-4:])} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def median_of(runs: int, args: list[str], env: dict[str, str], cwd: Path) -> float:
    run(args, env, cwd)  # one warm-up: the OS file cache, .pyc files
    return statistics.median(run(args, env, cwd) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15, help="runs per command (median)")
    parser.add_argument(
        "--extra", type=int, default=30, help="synthetic PRs added to the real day's 6"
    )
    args = parser.parse_args()

    real = parse_report(REAL_DAY.read_text(encoding="utf-8"))
    tmp = Path(tempfile.mkdtemp(prefix="prdigest-startup-"))
    with FakeGitHub() as github, FakeOpenAI() as llm:
        github.add_repo(REPO)
        github.add_prs(REPO, prs_from_report(real))
        github.add_prs(REPO, synthetic_day(args.extra))
        env = environment(github, llm, tmp)
        built = run([*PRDIGEST, "report", "--date", DAY, "-o", str(tmp / "day.md")], env, tmp)
        number = str(real.entries[0].number)
        calls = len(github.requests), llm.completions_count

        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "prdigest --help": [*PRDIGEST, "--help"],
            f"prdigest report --date {DAY} (stored)": [*PRDIGEST, "report", "--date", DAY],
            f"prdigest summary {number} (stored)": [*PRDIGEST, "summary", number],
        }
        times = {name: median_of(args.runs, cmd, env, tmp) for name, cmd in commands.items()}
        made = len(github.requests) - calls[0], llm.completions_count - calls[1]

    base = times["python -c pass"]
    count = len(real.entries) + args.extra
    print(f"stored day: {count} PRs of {DAY}, built in {built:.1f} s")
    print(f"median of {args.runs} runs each, in a fresh process:")
    for name, seconds in times.items():
        mark = ""
        if name.startswith(("prdigest --help", "prdigest report")):
            mark = "  ok" if seconds < TARGET else f"  (target < {TARGET} s)"
        print(f"  {name:<44} {seconds:6.3f} s  {seconds / base:5.1f}x python -c pass{mark}")
    print(f"GitHub and LLM calls made by the timed runs: {made[0]} and {made[1]} (target 0 and 0)")


if __name__ == "__main__":
    main()
