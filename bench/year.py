"""Benchmark: a year of a busy repository (vLLM: 40 PRs a day) on one disk.

    python bench/year.py [--days 365] [--prs 40] [--keep-days 30] [--diff-days 90] [--repeat 7]

The first and the last day are built for real: `DigestService.build` against the fake GitHub
and the fake OpenAI (listing, fetching, summaries, highlights, the day at a glance). Each is
then timed again from the store alone, with no network call (what a repeated /digest, a
catch-up or a heal costs), `--repeat` times, a fresh service each time: that store-side build
is what a year of data could slow down, and what the 10% goal is about.

The days between are written through the Store API as the bot writes them: each PR with its
files (diffs sized like vLLM's: median ~4 KB, a few of 80 KB), a description, its summary
(~1.5 KB of text, ~1.5 KB of facts) stored with its LLM calls (prompts 6-12 KB, answers
~1.5 KB; one PR in four needs a second call), the day's highlights call, the digest thread's
posts (a parent, one reply per PR, the parent's edit), one flag a day and every third day a
revised summary, and the day's CODEOWNERS. After each day the prune runs as the scheduler runs
it, at that day's end (prompts kept --keep-days, diffs --diff-days). Prints the database size (goal < 300 MB) and the end-of-year build time
against the start (goal within 10%).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.compose import build_service  # noqa: E402
from bot.core.day_window import day_window  # noqa: E402
from bot.core.models import (  # noqa: E402
    ChangedFile,
    ChangeType,
    Flag,
    PostKind,
    PostRecord,
    PRSummary,
    PullRequest,
    SummarySections,
    Usage,
)
from bot.core.scope import DigestScope  # noqa: E402
from bot.core.settings import Settings  # noqa: E402
from bot.ports.summarizer import LLMCall  # noqa: E402
from bot.store.store import Store  # noqa: E402
from bot.store.upkeep import Cutoffs, Pruned, prune  # noqa: E402
from tests.fakes.github import FakeFile, FakeGitHub, FakePR  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402

REPO = "vllm-project/vllm"
TZ = "UTC"
FIRST_DAY = date(2025, 1, 1)
CHANNEL = "C0DIGEST"
FOLDERS = (
    "vllm/model_executor/layers", "vllm/v1/core", "vllm/v1/attention/backends", "vllm/engine",
    "vllm/distributed", "csrc/attention", "tests/kernels", "tests/v1", "docs/features",
    "vllm/entrypoints/openai", "vllm/lora", "vllm/multimodal", "benchmarks", ".buildkite",
)  # fmt: skip


class Text:
    """Prose and code from a 6,000-word vocabulary drawn Zipf-like, as real text is: what a
    full-text index and a page of SQLite hold of it is close to the real thing."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.vocab = [
            "".join(rng.choice(letters) for _ in range(rng.randint(3, 11))) for _ in range(6000)
        ]
        self.cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(6000)))

    def pick(self, count: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cumulative, k=count)

    def words(self, count: int) -> str:
        return " ".join(self.pick(count))

    def chars(self, size: int) -> str:
        """About `size` characters of prose (7 characters a word, with its space)."""
        return self.words(max(1, size // 7))

    def patch(self, size: int) -> str:
        lines, length = ["@@ -10,6 +10,12 @@ class Worker:"], 0
        while length < size:
            a, b, c = self.pick(3)
            line = f"{self.rng.choice('+- ')}    {a}_{b} = self.{c}({a}, {b}={len(lines)})"
            lines.append(line)
            length += len(line) + 1
        return "\n".join(lines)


def diff_bytes(rng: random.Random) -> int:
    """A PR's diff, as vLLM's spread: median ~1,100 tokens (4.4 KB), capped at 20,000."""
    return int(min(20_000, rng.lognormvariate(7.0, 1.0))) * 4


def synthetic_pr(text: Text, number: int, merged_at: datetime) -> PullRequest:
    rng = text.rng
    size = diff_bytes(rng)
    count = max(1, min(40, int(rng.lognormvariate(1.2, 1.0))))
    files = tuple(
        ChangedFile(
            f"{rng.choice(FOLDERS)}/{text.words(1)}_{number}_{i}.py",
            additions=size // count // 60,
            deletions=size // count // 200,
            patch=text.patch(size // count),
        )  # fmt: skip
        for i in range(count)
    )
    return PullRequest(
        repo=REPO, number=number, title=f"[{rng.choice(('Core', 'V1', 'Perf', 'Bugfix'))}] "
        f"{text.words(rng.randint(4, 9))}", url=f"https://github.com/{REPO}/pull/{number}",
        author=f"dev{rng.randint(1, 400)}", state="merged", body=text.chars(rng.randint(400, 2500)),
        labels=("ready",), merged_by="maintainer", merged_at=merged_at, base_ref="main",
        head_sha=f"{number:040x}", merge_commit_sha=f"{number * 7:040x}", files=files,
        changed_files=count,
    )  # fmt: skip


def as_fake(pr: PullRequest) -> FakePR:
    """The same PR as the fake GitHub serves it, for the two days built for real."""
    return FakePR(
        number=pr.number, title=pr.title, author=pr.author, merged_at=pr.merged_at,
        merged_by=pr.merged_by, body=pr.body, labels=list(pr.labels),
        files=[FakeFile(f.filename, patch=f.patch) for f in pr.files],
    )  # fmt: skip


def calls_for(text: Text, pr: PullRequest, model: str, version: str, at: datetime) -> list[LLMCall]:
    """The summary's calls: a 6-12 KB prompt and a ~1.5 KB answer; one PR in four retried."""
    purposes = ["summary"] + (["grounding"] if text.rng.random() < 0.25 else [])
    return [
        LLMCall(
            REPO,
            pr.number,
            model,
            version,
            purpose,
            [
                {"role": "system", "content": text.chars(1200)},
                {"role": "user", "content": text.chars(text.rng.randint(5000, 11000))},
            ],
            json.dumps({"headline": text.words(14), "what_changed": text.chars(1400)}),
            None,
            Usage(text.rng.randint(1800, 3600), text.rng.randint(300, 500)),
            text.rng.randint(2000, 9000),
            created_at=at,
        )  # fmt: skip
        for purpose in purposes
    ]


def summary_for(
    text: Text, pr: PullRequest, model: str, version: str, at: datetime, revision: int = 1
) -> PRSummary:
    sections = SummarySections(
        text.chars(420), text.chars(380), text.chars(300), text.chars(360),
        headline=text.words(14),
    )  # fmt: skip
    facts = json.dumps({"definitions": [text.words(3) for _ in range(12)], "files": 4})
    return PRSummary(
        REPO, pr.number, pr.head_sha, version, model, ChangeType.SUBSTANTIAL, sections,
        len(pr.files), len(pr.files), Usage(2600, 400), revision=revision, created_at=at,
        facts=facts + text.chars(1000), change_note=text.words(10) if revision > 1 else None,
    )  # fmt: skip


# -- one simulated day, through the Store API ---------------------------------------------------


def day_prs(text: Text, index: int, day: date, count: int) -> list[PullRequest]:
    start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(minutes=20)
    return [
        synthetic_pr(text, 20_000 + index * count + i, start + timedelta(minutes=34 * i))
        for i in range(count)
    ]


def write_day(store: Store, text: Text, day: date, prs: list[PullRequest], writer) -> None:
    """What a day leaves in the store: the PRs, their summaries with their calls, the day's
    list and highlights, the thread's posts, a flag, CODEOWNERS (one transaction)."""
    at = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=23)
    model, version = writer.model, writer.prompt_version
    summaries = []
    for pr in prs:
        store.save_pr(pr)
        calls = calls_for(text, pr, model, version, at)
        summaries.append(store.save_summary(summary_for(text, pr, model, version, at), calls))
    store.save_day(REPO, day_window(day, TZ), [pr.number for pr in reversed(prs)], True)
    overview = LLMCall(
        REPO, 0, model, "highlights-v1", "overview", [{"role": "user", "content": text.chars(4000)}],
        "[1, 2, 3]", None, Usage(1100, 20), 1500, created_at=at,
    )  # fmt: skip
    inputs = f"{day}:{len(prs)}"
    store.save_overview(
        REPO, day.isoformat(), TZ, inputs, [prs[0].number], "model", model, [overview]
    )
    replies = post_thread(store, day.isoformat(), summaries)
    flagged = summaries[text.rng.randrange(len(summaries))]
    assert flagged.id is not None
    store.add_flag(
        Flag("slack", CHANNEL, replies[flagged.number], "U0ALICE", REPO, flagged.number,
             flagged.id, "x")
    )  # fmt: skip
    if day.toordinal() % 3 == 0:
        revise(store, text, prs, flagged, at)
    store.save_codeowners(REPO, day.isoformat(), ".github/CODEOWNERS", text.chars(6000))


def post_thread(store: Store, day: str, summaries: list[PRSummary]) -> dict[int, str]:
    """The digest's thread as DigestPoster records it: each step begun, then completed."""
    ts = iter(f"{time.time():.6f}{i}" for i in range(len(summaries) + 2))

    def send(kind: PostKind, number: int = 0, summary_id: int | None = None, thread=None):
        record = PostRecord("slack", CHANNEL, REPO, day, number, "", thread, summary_id, tz_name=TZ)
        begun = store.begin_post(record, kind)
        assert begun.id is not None
        return store.complete_post(begun.id, next(ts), thread).message_id

    parent = send(PostKind.PARENT)
    replies = {s.number: send(PostKind.PR, s.number, s.id, parent) for s in summaries}
    send(PostKind.PARENT_EDIT, 0, None, parent)
    return replies


def revise(store: Store, text: Text, prs: list[PullRequest], flagged: PRSummary, at: datetime):
    """A flag's re-check that changed the summary: a new version, its call, the attempt."""
    pr = next(p for p in prs if p.number == flagged.number)
    assert flagged.id is not None
    attempt = store.start_revision(flagged.id, "U0ALICE")
    calls = calls_for(text, pr, flagged.model, flagged.prompt_version, at)
    calls = [LLMCall(**{**c.__dict__, "purpose": "revision"}) for c in calls]
    new = store.save_summary(
        summary_for(text, pr, flagged.model, flagged.prompt_version, at, revision=2), calls
    )
    assert new.id is not None
    store.supersede(flagged.id, new.id)
    store.finish_revision(attempt, "revised", new.id)


# -- the two days built for real ----------------------------------------------------------------


async def build_for_real(settings: Settings, store: Store, day: date) -> tuple[float, int]:
    """The day's digest as `/digest` builds it the first time (fetch, summaries, highlights)."""
    service = build_service(settings, store)
    try:
        started = time.perf_counter()
        digest = await service.build(DigestScope.day(REPO, day, TZ))
        return time.perf_counter() - started, len(digest.entries)
    finally:
        await service.aclose()


async def build_from_store(settings: Settings, store: Store, day: date, repeat: int) -> float:
    """The median time of the same day's digest built again, a fresh service each time: the
    list, the PRs, their summaries, areas, related PRs and highlights all from the store."""
    times = []
    for _ in range(repeat):
        service = build_service(settings, store)
        started = time.perf_counter()
        await service.build(DigestScope.day(REPO, day, TZ))
        times.append(time.perf_counter() - started)
        await service.aclose()
    return statistics.median(times)


def date_real_calls(store: Store, day: date) -> None:
    """The calls the real build just made are dated to the day it simulates (the model's
    clock is the machine's), so the prunes of the simulated year age them like the rest."""
    at = (datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=23)).isoformat()
    with store.connection(read=False), store.transaction():
        store.db.execute("UPDATE llm_calls SET created_at = ? WHERE created_at > ?", [at, at])


# -- the year -----------------------------------------------------------------------------------


def table_sizes(store: Store) -> list[tuple[str, int]]:
    """Bytes on disk per table (its indexes and full-text shadow tables folded in)."""
    rows = store.db.execute(
        "SELECT coalesce(m.tbl_name, s.name), sum(s.pgsize) FROM dbstat AS s"
        " LEFT JOIN sqlite_master AS m ON m.name = s.name GROUP BY 1 ORDER BY 2 DESC"
    ).fetchall()
    return [(name, size) for name, size in rows]


def simulate(store: Store, text: Text, args, writer, first: date) -> tuple[Pruned, float]:
    """Days 2 to N-1 through the Store API, each followed by the scheduler's prune."""
    pruned, started = Pruned(), time.perf_counter()
    for index in range(1, args.days - 1):
        day = first + timedelta(days=index)
        prs = day_prs(text, index, day, args.prs)
        store.atomically(write_day, store, text, day, prs, writer)
        next_morning = datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC)
        if not args.no_prune:
            pruned += prune(
                store, Cutoffs.at(next_morning + timedelta(hours=4), args.keep_days, args.diff_days)
            )
        if index % 60 == 0:
            size = store.file_size().bytes / 1e6
            print(f"  day {index + 1:3d}: {size:6.1f} MB", flush=True)
    return pruned, time.perf_counter() - started


async def real_day(
    settings: Settings, store: Store, text: Text, github: FakeGitHub, llm: FakeOpenAI,
    index: int, day: date, args,
) -> tuple[float, float, int]:  # fmt: skip
    """One day served by the fakes and built for real, then built again from the store."""
    prs = day_prs(text, index, day, args.prs)
    github.add_prs(REPO, [as_fake(pr) for pr in prs])
    first, count = await build_for_real(settings, store, day)
    date_real_calls(store, day)
    writer = build_service(settings, store).writer()
    summaries = [store.current_summary(pr, writer) for pr in prs]
    post_thread(store, day.isoformat(), [s.summary for s in summaries if s is not None])
    before = (len(github.requests), llm.completions_count)
    again = await build_from_store(settings, store, day, args.repeat)
    assert (len(github.requests), llm.completions_count) == before, "a rebuild made a call"
    return first, again, count


def _kept(args) -> str:
    if args.no_prune:
        return "never pruned"
    diffs = f"{args.diff_days} days" if args.diff_days else "for ever"
    return f"LLM bodies kept {args.keep_days} days, diffs {diffs}"


def report(store: Store, args, start, end, pruned: Pruned, written: float) -> None:
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = Path(store.path).stat().st_size
    print()
    print(
        f"A year: {args.days} days x {args.prs} PRs = {args.days * args.prs:,} PRs "
        f"(written in {written:.0f} s), {_kept(args)}"
    )
    met = "met" if size < 300e6 else "NOT met"
    print(f"database size:  {size / 1e6:.1f} MB   (goal < 300 MB: {met})")
    for name, table_bytes in table_sizes(store)[:8]:
        print(f"  {name:22s} {table_bytes / 1e6:7.1f} MB")
    print(
        f"pruned over the year: {pruned.calls_thinned:,} calls thinned, "
        f"{pruned.body_bytes / 1e6:.0f} MB of prompts and answers dropped; the diffs of "
        f"{pruned.diffs:,} PRs ({pruned.diff_bytes / 1e6:.0f} MB)"
    )
    print("a day's digest (40 PRs):            start       end    end/start")
    print(
        f"  first build (fakes: fetch, LLM)  {start[0]:7.2f} s {end[0]:7.2f} s   "
        f"{end[0] / start[0]:.2f}"
    )
    ratio = end[1] / start[1]
    print(
        f"  rebuilt from the store (median)  {start[1] * 1000:7.0f} ms {end[1] * 1000:6.0f} ms  "
        f"{ratio:.2f}   (goal within 10%: {'met' if ratio <= 1.10 else 'NOT met'})"
    )


def settings_for(github: FakeGitHub, llm: FakeOpenAI, db: Path, keep_days: int) -> Settings:
    return Settings.from_env(
        {"GITHUB_TOKEN": "bench-token", "GITHUB_API_URL": github.url,
         "OPENAI_API_KEY": "bench-key", "OPENAI_BASE_URL": llm.url + "/v1",
         "PRDIGEST_DB": str(db), "PRDIGEST_LLM_LOG_DAYS": str(keep_days)},
        dotenv=False,
    )  # fmt: skip


async def warm_up(github: FakeGitHub, llm: FakeOpenAI, text: Text, tmp: Path) -> None:
    """A throwaway day in a database of its own first: the one-off start-up (imports, parsers)
    is then in neither the start's time nor the end's."""
    day = FIRST_DAY - timedelta(days=1)
    github.add_prs(REPO, [as_fake(pr) for pr in day_prs(text, -1, day, 8)])
    store = Store(tmp / "warm-up.db")
    await build_for_real(settings_for(github, llm, tmp / "warm-up.db", 30), store, day)
    store.close()


async def run(args) -> None:
    text = Text(random.Random(args.seed))
    tmp = Path(tempfile.mkdtemp(prefix="prdigest-year-"))
    with FakeGitHub() as github, FakeOpenAI() as llm:
        github.add_repo(REPO)
        await warm_up(github, llm, text, tmp)
        settings = settings_for(github, llm, tmp / "year.db", args.keep_days)
        store = Store(settings.db_path)
        writer = build_service(settings, store).writer()
        last = FIRST_DAY + timedelta(days=args.days - 1)
        print(f"day 1 ({FIRST_DAY}) built for real against the fakes", flush=True)
        start = await real_day(settings, store, text, github, llm, 0, FIRST_DAY, args)
        pruned, written = simulate(store, text, args, writer, FIRST_DAY)
        print(f"day {args.days} ({last}) built for real against the fakes", flush=True)
        end = await real_day(settings, store, text, github, llm, args.days - 1, last, args)
        morning = datetime.combine(last + timedelta(days=1), datetime.min.time(), UTC)
        if not args.no_prune:
            pruned += prune(
                store, Cutoffs.at(morning + timedelta(hours=4), args.keep_days, args.diff_days)
            )
        report(store, args, start, end, pruned, written)
        store.close()
        print(f"the database: {settings.db_path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--prs", type=int, default=40, help="PRs merged a day")
    parser.add_argument("--keep-days", type=int, default=30, help="PRDIGEST_LLM_LOG_DAYS")
    parser.add_argument("--diff-days", type=int, default=90, help="PRDIGEST_DIFF_DAYS")
    parser.add_argument("--repeat", type=int, default=7, help="rebuilds timed per day")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--no-prune", action="store_true", help="the same year, never pruned")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
