"""Benchmark: one PR of 4,210 changed files, of which GitHub lists 3,000, fetched and prompted.

    python bench/huge_pr.py [--changed 4210] [--seed 7] [--before REV]

The PR is served by the project's fake GitHub, in a child process so that its memory is not
counted as prdigest's. Its files look like a large vLLM refactor: lognormal change sizes,
mostly Python source spread over a deep tree, with tests, docs, config, lock files, generated
protobuf code and a vendored library among them, in an order where the first files listed
are neither the biggest nor the most worth reading.

Printed: the fetch (`GitHubSource.fetch_pr`: wall time, GitHub requests, peak memory traced
by tracemalloc while fetching and the process's peak RSS), the prompt as prdigest's default
budget and the built-in model's CPU budget build it (time, tokens, files covered, the
coverage line), and the ten files whose diff comes first.

`--before REV` runs the same measurement on the code of an older commit (taken with
`git archive` into a temporary directory; nothing in this checkout changes).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core.models import PRSummary, SummarySections  # noqa: E402
from bot.digest.github_source import GitHubSource  # noqa: E402
from summarizer.prompt import PromptBudget, build_prompt  # noqa: E402
from tests.fakes.github import FakeFile, FakeGitHub, FakePR  # noqa: E402

REPO = "vllm-project/vllm"
NUMBER = 36000
LISTED = 3000  # GitHub's limit on a PR's files listing

_DIRS = [
    "vllm/model_executor/layers", "vllm/model_executor/models", "vllm/v1/core", "vllm/v1/engine",
    "vllm/v1/worker", "vllm/distributed", "vllm/entrypoints/openai", "vllm/attention/backends",
    "csrc/attention", "csrc/quantization",
]  # fmt: skip


def synthetic_files(changed: int, seed: int) -> list[FakeFile]:
    """`changed` files: one in ten tests, docs or config; a few lock, generated, vendored."""
    rng = random.Random(seed)
    files = [
        FakeFile("requirements/uv.lock", patch=_patch("pinned", 4000, rng)),
        FakeFile("vllm/grpc/engine_pb2.py", patch=_patch("generated", 3000, rng)),
    ]
    for i in range(40):
        files.append(
            FakeFile(f"third_party/flashinfer/src/k{i}.cu", patch=_patch("vend", 300, rng))
        )
    for i in range(changed - len(files)):
        kind = rng.random()
        folder = rng.choice(_DIRS)
        if kind < 0.04:
            path = f"tests/{folder.split('/')[-1]}/test_case_{i}.py"
        elif kind < 0.07:
            path = f"docs/source/{folder.split('/')[-1]}/page_{i}.md"
        elif kind < 0.08:
            path = f"configs/{folder.split('/')[-1]}/c_{i}.yaml"
        else:
            path = f"{folder}/sub_{i % 37}/module_{i}.py"
        lines = max(1, min(1500, int(rng.lognormvariate(2.0, 1.3))))
        files.append(FakeFile(path, patch=_patch(f"v{i}", lines, rng)))
    return files


def _patch(name: str, lines: int, rng: random.Random) -> str:
    body = "\n".join(
        f"{rng.choice('+-+ ')}    {name}_{j} = compute_thing(arg_{j}, other={j})"
        for j in range(lines)
    )
    return f"@@ -1,{lines} +1,{lines} @@\n{body}"


def serve(changed: int, seed: int, conn) -> None:
    """The child process: the fake GitHub with the one PR, until the parent says stop."""
    with FakeGitHub() as github:
        github.add_repo(REPO)
        github.add_pr(REPO, FakePR(NUMBER, "[Refactor] Move the engine", files=synthetic_files(changed, seed)))  # fmt: skip
        conn.send(github.url)
        conn.recv()
        conn.send(github.count(path_regex=rf"/pulls/{NUMBER}/files"))


def measure(changed: int, seed: int) -> None:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.get_context("fork").Process(target=serve, args=(changed, seed, child))
    server.start()
    url = parent.recv()
    source = GitHubSource(url, "bench-token", retries=0)
    info = source.repository(REPO)

    started = time.perf_counter()
    source.fetch_pr(info, NUMBER)
    fetch_time = time.perf_counter() - started
    tracemalloc.start()
    pr = source.fetch_pr(info, NUMBER)
    _, fetch_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    parent.send("stop")
    pages = parent.recv() // 2  # fetched twice: once timed, once traced
    server.join()

    print(f"PR:                  {changed:,} changed files, GitHub lists {min(changed, LISTED):,}")
    print(f"fetch:               {fetch_time:.2f} s, {pages} pages of files")
    print(f"peak memory:         {fetch_peak / 2**20:.1f} MiB traced while fetching")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"                     {rss:.0f} MiB peak RSS of the whole process")
    print(f"PR as fetched:       {len(pr.files):,} files, changed_files "
          f"{getattr(pr, 'changed_files', '(not read)')}")  # fmt: skip
    for name, budget in (("default", PromptBudget()), ("CPU", PromptBudget.for_cpu(8192, 700))):
        report_prompt(name, pr, budget)


def report_prompt(name: str, pr, budget: PromptBudget) -> None:
    started = time.perf_counter()
    built = build_prompt(pr, budget)
    elapsed = time.perf_counter() - started
    summary = PRSummary(
        repo=pr.repo, number=pr.number, revision_sha="", prompt_version="", model="model",
        change_type="SUBSTANTIAL", sections=SummarySections("", "", "", ""),
        files_covered=built.files_covered, files_total=built.files_total,
    )  # fmt: skip
    print(f"\nprompt ({name} budget, {budget.max_prompt_tokens:,} tokens):")
    print(f"  built in {elapsed:.2f} s, {built.prompt_tokens:,} prompt tokens")
    print(f"  files covered:     {built.files_covered:,} of {built.files_total:,}")
    print(f"  coverage line:     {summary.coverage_line}")
    listing = [
        line for line in built.messages[1]["content"].splitlines() if "GitHub listed" in line
    ]
    print(f"  cut-off stated:    {listing[0] if listing else '(not stated)'}")
    print("  first 10 diffs:")
    for d in built.selection.shown[:10]:
        f = d.file
        print(f"    {f.filename} (+{f.additions}/-{f.deletions}), {d.tokens} tokens shown")


def run_before(rev: str, argv: list[str]) -> None:
    """This script, run on the code of commit `rev`."""
    with tempfile.TemporaryDirectory(prefix="prdigest-before-") as tmp:
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        (Path(tmp) / "bench").mkdir(exist_ok=True)
        (Path(tmp) / "bench" / "huge_pr.py").write_text(Path(__file__).read_text())
        print(f"== on commit {rev}")
        subprocess.run([sys.executable, str(Path(tmp) / "bench" / "huge_pr.py"), *argv], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changed", type=int, default=4210)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--before", metavar="REV")
    args = parser.parse_args()
    if args.before:
        run_before(args.before, ["--changed", str(args.changed), "--seed", str(args.seed)])
        return
    measure(args.changed, args.seed)


if __name__ == "__main__":
    main()
