"""Benchmark: search over a year of a busy repository (15,000 PRs), and what the index costs a
day's writes.

    python bench/search.py [--prs 15000] [--per-day 40] [--queries 50] [--seed 1]

The PRs are simulated and written through the Store API as a digest writes them (`save_pr`
with its files, then `save_summary`), so the index is filled by its own triggers: titles with
vLLM's tags, 1 to 25 changed files under vLLM-like paths, four sections of ~60 words and a
headline drawn from a Zipf-distributed vocabulary of 4,000 words (real terms and made-up ones).

Printed:
- **search**: median and p95 milliseconds of `bot.digest.search.search` (what `prdigest
  search` and `/digest search` run) over `--queries` varied queries, each run 3 times: one to
  three words, a path part (`fused_moe_lora`), a phrase, rare and common words, and the
  filters (since/until, author, type, repository, area, which code decides); goal: median
  under 50 ms.
- **indexing a day**: milliseconds to store one more day of `--per-day` PRs and summaries,
  with the index's triggers and without them (dropped on a copy of the same database), and
  the difference, what the index adds; goal: under 100 ms.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.models import (  # noqa: E402
    ChangedFile,
    ChangeType,
    PRSummary,
    PullRequest,
    SummarySections,
)
from bot.core.search import SearchTerms  # noqa: E402
from bot.digest.search import search  # noqa: E402
from bot.store.store import Store  # noqa: E402

REPO = "vllm-project/vllm"
TZ = "America/Los_Angeles"
FIRST_DAY = date(2025, 2, 1)
TAGS = ["Core", "Bugfix", "Kernel", "LoRA", "ROCm", "Doc", "CI/Build", "Model", "Frontend",
        "V1", "Perf", "Misc", "Quantization", "Spec Decode", "Hardware][TPU", "Multimodal"]  # fmt: skip
DIRS = ["vllm/v1/core", "vllm/v1/worker", "vllm/lora/ops/triton_ops", "vllm/model_executor/layers",
        "vllm/model_executor/models", "vllm/attention/backends", "csrc/quantization", "docs/features",
        "tests/v1/core", "vllm/entrypoints/openai", "vllm/distributed", ".buildkite",
        "vllm/model_executor/layers/fused_moe", "benchmarks", "vllm/v1/spec_decode"]  # fmt: skip
REAL_WORDS = """scheduler kernel attention cache prefix lora adapter moe fused triton cuda rocm
tpu quantization fp8 int4 awq gptq marlin tokenizer detokenizer sampler logits speculative
eagle medusa ngram draft worker executor engine request batch chunked prefill decode block
allocator kv memory gpu cpu offload tensor parallel pipeline expert sharding weights loader
checkpoint config model llama qwen mistral deepseek gemma phi mixtral vision multimodal image
audio video embedding pooling reranker api server openai endpoint streaming tool calling
structured output grammar json schema guided regex benchmark latency throughput regression
crash hang leak deadlock race timeout retry error warning docs typo test flaky ci build docker
wheel dependency upgrade torch compile graph cudagraph inductor profiler metrics logging""".split()


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    made = {
        "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(2, 4)))
        for _ in range(size)
    }  # fmt: skip
    return REAL_WORDS + sorted(made)[: size - len(REAL_WORDS)]


def zipf_words(rng: random.Random, words: list[str], count: int) -> list[str]:
    # Rank r drawn with weight 1/r: a few words are everywhere, most are rare.
    return [words[min(int(rng.paretovariate(1.0)) - 1, len(words) - 1)] for _ in range(count)]


def simulated_pr(rng: random.Random, words: list[str], number: int, day: date) -> tuple:
    title_words = " ".join(zipf_words(rng, words, rng.randint(3, 9)))
    title = f"[{rng.choice(TAGS)}] {title_words.capitalize()}"
    files = tuple(
        ChangedFile(
            f"{rng.choice(DIRS)}/{'_'.join(zipf_words(rng, words, rng.randint(1, 3)))}.py",
            additions=rng.randint(1, 200), deletions=rng.randint(0, 80),
        )
        for _ in range(rng.randint(1, 25))
    )  # fmt: skip
    merged = datetime.combine(day, datetime.min.time(), UTC) + timedelta(
        minutes=rng.randint(0, 1439)
    )
    pr = PullRequest(
        repo=REPO, number=number, title=title, url=f"https://github.com/{REPO}/pull/{number}",
        author=f"dev{int(rng.paretovariate(1.2)) % 800}", state="merged", merged_at=merged,
        merge_commit_sha=f"{number:040x}", files=files,
        labels=tuple(rng.sample(["ready", "ci/build", "documentation", "performance"], rng.randint(0, 2))),
    )  # fmt: skip
    sections = [" ".join(zipf_words(rng, words, 60)) + "." for _ in range(4)]
    summary = PRSummary(
        repo=REPO, number=number, revision_sha=pr.revision_sha, prompt_version="3c",
        model="gpt-4o-mini", change_type=rng.choice(list(ChangeType)),
        sections=SummarySections(*sections, headline=" ".join(zipf_words(rng, words, 12)) + "."),
        files_covered=len(files), files_total=len(files),
    )  # fmt: skip
    return pr, summary


def store_day(store: Store, day_prs: list[tuple]) -> float:
    """Store a day's PRs and summaries as a digest does (one write each); milliseconds."""
    started = time.perf_counter()
    for pr, _summary in day_prs:
        store.save_pr(pr)
    for _pr, summary in day_prs:
        store.save_summary(summary)
    return (time.perf_counter() - started) * 1000


def fill(store: Store, rng: random.Random, words: list[str], total: int, per_day: int) -> None:
    number, day = 1000, FIRST_DAY
    while number < 1000 + total:
        prs = [
            simulated_pr(rng, words, n, day)
            for n in range(number, min(number + per_day, 1000 + total))
        ]
        store.atomically(lambda prs=prs: [store_day(store, prs)])  # one transaction a day
        number += per_day
        day += timedelta(days=1)


def queries(rng: random.Random, words: list[str], count: int, last_day: date) -> list[SearchTerms]:
    shapes = [
        lambda: SearchTerms(text=rng.choice(REAL_WORDS)),
        lambda: SearchTerms(text=" ".join(rng.sample(REAL_WORDS[:60], 2))),
        lambda: SearchTerms(text=rng.choice(words[500:])),  # a rare word
        lambda: SearchTerms(text="fused_moe_lora"),
        lambda: SearchTerms(text='"prefix cache"'),
        lambda: SearchTerms(text=rng.choice(REAL_WORDS), since=last_day - timedelta(days=30)),
        lambda: SearchTerms(text=rng.choice(REAL_WORDS), author=f"dev{rng.randint(1, 20)}"),
        lambda: SearchTerms(text=rng.choice(REAL_WORDS), change_type=ChangeType.SUBSTANTIAL),
        lambda: SearchTerms(text=rng.choice(REAL_WORDS), repo=REPO, limit=25),
        lambda: SearchTerms(text=rng.choice(REAL_WORDS[:40]), area=rng.choice(["LoRA", "Core", "ROCm"])),
        lambda: SearchTerms(since=last_day - timedelta(days=7), until=last_day),
        lambda: SearchTerms(text=" ".join(rng.sample(REAL_WORDS, 3))),
    ]  # fmt: skip
    return [shapes[i % len(shapes)]() for i in range(count)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prs", type=int, default=15_000)
    parser.add_argument("--per-day", type=int, default=40)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    words = vocabulary(rng)
    with tempfile.TemporaryDirectory(prefix="prdigest-search-bench-") as tmp:
        path = Path(tmp) / "year.db"
        store = Store(path)
        started = time.perf_counter()
        fill(store, rng, words, args.prs, args.per_day)
        print(f"stored {store.indexed_count():,} PRs with summaries in "
              f"{time.perf_counter() - started:.0f} s ({path.stat().st_size / 1e6:.0f} MB)")  # fmt: skip
        last_day = FIRST_DAY + timedelta(days=args.prs // args.per_day)
        timed_search(store, queries(rng, words, args.queries, last_day))
        timed_day(store, path, rng, words, args.per_day, last_day)
        store.close()


def timed_search(store: Store, terms: list[SearchTerms]) -> None:
    times, found = [], []
    for query in terms:
        for _ in range(3):
            started = time.perf_counter()
            results = search(store, query, TZ)
            times.append((time.perf_counter() - started) * 1000)
        found.append(len(results))
    print(
        f"search: {len(terms)} queries x3: median {statistics.median(times):.1f} ms, "
        f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms "
        f"(results per query: median {statistics.median(found):.0f}); goal: median < 50 ms"
    )


def timed_day(store: Store, path: Path, rng: random.Random, words: list[str], per_day: int,
              last_day: date) -> None:  # fmt: skip
    """A day stored with the index and, on a copy without its triggers, without it."""
    copy = path.with_name("no-index.db")
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(path, copy)
    bare = Store(copy)
    for trigger in [r[0] for r in bare.db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_docs%'"
    )]:  # fmt: skip
        bare.db.execute(f"DROP TRIGGER {trigger}")
    with_index, without = [], []
    number = 900_000
    for i in range(5):
        day = last_day + timedelta(days=i + 1)
        prs = [simulated_pr(rng, words, number + n, day) for n in range(per_day)]
        number += per_day
        without.append(store_day(bare, prs))
        with_index.append(store_day(store, prs))
    bare.close()
    added = statistics.median(with_index) - statistics.median(without)
    print(
        f"indexing a day of {per_day} PRs (each PR and summary its own write, 5 days): "
        f"{statistics.median(with_index):.0f} ms with the index, "
        f"{statistics.median(without):.0f} ms without; the index adds {added:.0f} ms "
        "(goal: < 100 ms)"
    )


if __name__ == "__main__":
    main()
