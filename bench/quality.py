"""How well a model summarizes whole real days: the benchmark to judge a model by.

    python bench/quality.py --data days.jsonl [--days 2026-02-09,2026-02-23] [--limit N]

Each line of the JSONL file is one merged PR with GitHub's field names (`number`, `title`,
`user`, `merged_by`, `merged_at`, `merge_commit_sha`, `body`, `files` with `filename`,
`status`, `additions`, `deletions`, `patch`, `previous_filename`), its `report_day`, and
optionally `reference` (`type` and sections of a summary you trust). The PRs are served by
the project's own fake GitHub, and the real pipeline (`prdigest report`'s) summarizes them with
the LLM configured as for prdigest itself: the built-in model when neither OPENAI_API_KEY nor
OPENAI_BASE_URL is set, or any endpoint (`PRDIGEST_MODEL`, `OPENAI_BASE_URL`, ...).

For each PR it prints: summarized or not, seconds, LLM calls, prompt and output tokens, the
type against `reference`, the share of backticked names found in the PR, words per section,
and any repeated sentence; then the totals. Run it twice with two models (or two settings) on
your own repository's past days to compare them: `--fetch owner/repo --days ...` first writes
those days' PRs to `--data` through GitHub (GITHUB_TOKEN), in the same format.

Last, a table per day and in total of what a reader would score (bench/summary_metrics.py):
grounded identifiers a PR, PRs that name none, risk sections that name the PR's code, empty
risk boilerplate, unsupported performance claims, inverted add/remove claims, type agreement,
TRIVIAL recall, and seconds a PR. Two more modes print the same table without a model:

    python bench/quality.py --data days.jsonl --rescore kept.db   # a run kept with --db
    python bench/quality.py --data days.jsonl --reference          # the reference sections
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.summary_metrics import Scores, Totals, merge, pr_line, score, table, totals_of  # noqa: E402
from bot.app.compose import build_service  # noqa: E402
from bot.core.day_window import day_window  # noqa: E402
from bot.core.models import (  # noqa: E402
    ChangedFile,
    ChangeType,
    DigestEntry,
    PullRequest,
    SummarySections,
)
from bot.core.settings import Settings  # noqa: E402
from bot.store.store import Store  # noqa: E402
from summarizer.checks import check_answer, decide_type, remove_sentences  # noqa: E402
from summarizer.claims import backticked_names, check_names  # noqa: E402
from summarizer.facts import extract_facts  # noqa: E402
from summarizer.finishing import fillable, finish, names_marked  # noqa: E402
from summarizer.prompt import COMPACT_PROMPT_VERSION  # noqa: E402
from summarizer.repetition import find_repetition  # noqa: E402
from tests.fakes.github import FakeFile, FakeGitHub, FakePR  # noqa: E402

TZ = "America/Los_Angeles"  # the dev days are Pacific-time days, as the real reports are
REPO = "vllm-project/vllm"
REFERENCE_KEYS = ("what_changed_and_why", "technical_impact", "potential_risks", "key_insights")


@dataclass
class PRResult:
    number: int
    title: str
    ok: bool
    error: str
    seconds: float
    calls: int
    prompt_tokens: int
    output_tokens: int
    change_type: str
    reference_type: str | None
    names: int
    grounded: int
    words: list[int]
    repeated: str
    scores: Scores | None = None

    @property
    def type_agrees(self) -> bool | None:
        if not self.ok or not self.reference_type:
            return None
        return self.change_type == self.reference_type


def load_days(path: Path, days: list[str] | None) -> dict[str, list[dict]]:
    by_day: dict[str, list[dict]] = defaultdict(list)
    with path.open() as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                by_day[row["report_day"]].append(row)
    if days:
        missing = [d for d in days if d not in by_day]
        if missing:
            raise SystemExit(f"no PRs for {', '.join(missing)} in {path}")
        return {d: by_day[d] for d in days}
    return dict(sorted(by_day.items()))


def fake_pr(row: dict) -> FakePR:
    files = [
        FakeFile(
            f["filename"],
            status=f.get("status", "modified"),
            additions=f.get("additions"),
            deletions=f.get("deletions"),
            patch=f.get("patch"),
            previous_filename=f.get("previous_filename"),
        )
        for f in row["files"]
    ]
    return FakePR(
        number=row["number"],
        title=row["title"],
        author=row.get("user") or "unknown",
        merged_by=row.get("merged_by"),
        merged_at=datetime.fromisoformat(row["merged_at"].replace("Z", "+00:00")),
        merge_commit_sha=row.get("merge_commit_sha") or "",
        body=row.get("body") or "",
        files=files,
    )


def settings_for(github: FakeGitHub, db: Path) -> Settings:
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENAI_", "PRDIGEST_"))}
    env |= {"GITHUB_TOKEN": "bench", "GITHUB_API_URL": github.url, "PRDIGEST_DB": str(db)}
    return Settings.from_env(env)


def measure(entry: DigestEntry, calls: list[dict], row: dict) -> PRResult:
    pr = entry.pr
    reference = (row.get("reference") or {}).get("type")
    summary = entry.summary
    names = grounded = 0
    words: list[int] = []
    repeated = ""
    if summary is not None:
        claims = backticked_names(summary.sections)
        names, grounded = len(claims), len(claims) - len(check_names(claims, pr))
        words = [len(text.split()) for _, text in summary.sections.items()]
        found = find_repetition(summary.sections)
        repeated = str(found) if found else ""
    seconds = sum(c["duration_ms"] for c in calls) / 1000
    return PRResult(
        number=pr.number,
        title=row["title"],
        ok=summary is not None,
        error=entry.error or "",
        seconds=seconds,
        calls=len(calls),
        prompt_tokens=sum(c["prompt_tokens"] or 0 for c in calls),
        output_tokens=sum(c["completion_tokens"] or 0 for c in calls),
        change_type=summary.change_type.value if summary else "",
        reference_type=reference,
        names=names,
        grounded=grounded,
        words=words,
        repeated=repeated,
        scores=None
        if summary is None
        else score(pr, summary.sections, summary.change_type, _type(reference), seconds),
    )


def _type(value: str | None) -> ChangeType | None:
    return ChangeType(value) if value else None


async def run_day(
    day: str, rows: list[dict], settings: Settings, store: Store, github: FakeGitHub
) -> tuple[list[PRResult], float]:
    repo = REPO
    github.add_prs(repo, [fake_pr(row) for row in rows])
    service = build_service(settings, store)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        print(f"  {day}: {done} of {total} PRs done", file=sys.stderr, flush=True)

    try:
        digest = await service.digest(
            repo, day_window(date.fromisoformat(day), TZ), progress=progress
        )
        wall = time.perf_counter() - started
        # The day at a glance: the one overview call, timed apart from the summaries.
        glance_started = time.perf_counter()
        glanced = await service.at_a_glance(digest)
        glance_seconds = time.perf_counter() - glance_started
    finally:
        await service.aclose()
    print_glance(glanced, glance_seconds)
    by_number = {row["number"]: row for row in rows}
    results = []
    for entry in digest.entries:
        if entry.pr.number not in by_number:
            continue  # kept from an earlier run into the same --db, not asked for by --numbers
        calls = list(store.db["llm_calls"].rows_where("number = ?", [entry.pr.number]))
        results.append(measure(entry, calls, by_number[entry.pr.number]))
    return results, wall


def print_glance(digest, seconds: float) -> None:
    """The headlines (their length in words) and the overview call's outcome."""
    overview = digest.overview
    lengths = [len(e.headline.split()) for e in digest.entries if e.summary]
    missing = sum(1 for e in digest.entries if e.summary and not e.summary.sections.headline)
    print()
    for e in digest.entries:
        if e.summary:
            print(f"#{e.pr.number:<6} [{e.area}] {e.summary.sections.headline}")
    if lengths:
        print(
            f"headlines:               {len(lengths)}, {missing} missing, words median "
            f"{statistics.median(lengths):.0f} max {max(lengths)}"
        )
    print(
        f"overview:                {overview.picked_by} in {seconds:.1f} s: highlights "
        f"{', '.join(f'#{n}' for n in overview.highlights)}; {len(overview.areas)} areas"
    )


def print_pr(r: PRResult) -> None:
    agrees = {True: "=", False: "≠", None: " "}[r.type_agrees]
    kind = f"{r.change_type or '-':11} {agrees} {r.reference_type or '':11}"
    names = f"{r.grounded}/{r.names}" if r.names else "-"
    words = "/".join(map(str, r.words)) or "-"
    status = "ok  " if r.ok else "FAIL"
    line = (
        f"#{r.number:<6} {status} {r.seconds:6.1f}s {r.calls} calls {r.prompt_tokens:6} in "
        f"{r.output_tokens:5} out  {kind} names {names:6} words {words:15}"
    )
    print(line + (f"  REPEATS: {r.repeated}" if r.repeated else ""))
    if not r.ok:
        print(f"         {r.error}")


def print_totals(results: list[PRResult], wall: float) -> None:
    n = len(results)
    done = [r for r in results if r.ok]
    typed = [r for r in results if r.type_agrees is not None]
    names = sum(r.names for r in done)
    seconds = [r.seconds for r in results]
    words = [w for r in done for w in r.words]
    print()
    print(f"PRs:                     {n}")
    print(f"summarized:              {len(done)} of {n}")
    print(f"with a repeated sentence: {sum(1 for r in done if r.repeated)}")
    if typed:
        agree = sum(1 for r in typed if r.type_agrees)
        print(f"type agrees:             {agree} of {len(typed)} ({agree / len(typed):.0%})")
    if names:
        grounded = sum(r.grounded for r in done)
        print(f"backticked names found:  {grounded} of {names} ({grounded / names:.1%})")
    if seconds:
        print(
            f"seconds a PR:            median {statistics.median(seconds):.1f}, "
            f"max {max(seconds):.1f}"
        )
    print(f"LLM calls:               {sum(r.calls for r in results)} ({n} PRs)")
    print(
        f"tokens:                  {sum(r.prompt_tokens for r in results)} in, "
        f"{sum(r.output_tokens for r in results)} out"
    )
    if words:
        print(
            f"words a section:         median {statistics.median(words):.0f}, "
            f"min {min(words)}, max {max(words)}"
        )
    print(f"wall time:               {wall / 60:.1f} min")


async def fetch_days(repo: str, days: list[str], out: Path) -> None:
    """Write `days` of `repo` as benchmark data, through GitHub and prdigest's own fetcher."""
    settings = Settings.from_env(dict(os.environ))
    service = build_service(settings, Store(Path(tempfile.mkdtemp()) / "fetch.db"))
    with out.open("w") as f:
        for day in days:
            info = await asyncio.to_thread(service.source.repository, repo)
            window = day_window(date.fromisoformat(day), settings.timezone)
            for number in await asyncio.to_thread(service.source.merged_numbers, info, window):
                pr = await service.pull_request(info.full_name, number)
                f.write(json.dumps(as_row(pr, day)) + "\n")
            print(f"{day}: written", file=sys.stderr)


def as_row(pr: PullRequest, day: str) -> dict:
    return {
        "report_day": day,
        "number": pr.number,
        "title": pr.title,
        "html_url": pr.url,
        "user": pr.author,
        "merged_by": pr.merged_by,
        "merged_at": pr.merged_at.isoformat().replace("+00:00", "Z") if pr.merged_at else None,
        "merge_commit_sha": pr.merge_commit_sha,
        "body": pr.body,
        "files": [asdict(f) for f in pr.files],  # GitHub's field names, as ChangedFile's
    }


def pull_request(row: dict) -> PullRequest:
    """A data row as the PullRequest the pipeline reads from (the fake) GitHub."""
    merged_at = row.get("merged_at")
    files = tuple(
        ChangedFile(
            f["filename"],
            status=f.get("status", "modified"),
            additions=f.get("additions") or 0,
            deletions=f.get("deletions") or 0,
            patch=f.get("patch"),
            previous_filename=f.get("previous_filename"),
        )
        for f in row["files"]
    )
    return PullRequest(
        repo=REPO,
        number=row["number"],
        title=row["title"],
        url=row.get("html_url") or "",
        author=row.get("user") or "unknown",
        state="merged",
        body=row.get("body") or "",
        merged_by=row.get("merged_by"),
        merged_at=datetime.fromisoformat(merged_at.replace("Z", "+00:00")) if merged_at else None,
        merge_commit_sha=row.get("merge_commit_sha"),
        files=files,
        changed_files=len(files),
    )


def reference_totals(rows: list[dict]) -> Totals:
    """The figures of the data's `reference` summaries (the real reports): the bar."""
    scores = []
    for row in rows:
        reference = row.get("reference") or {}
        sections, kind = reference.get("sections"), _type(reference.get("type"))
        if not sections or kind is None:
            continue
        text = SummarySections(*(sections.get(key) or "" for key in REFERENCE_KEYS))
        scores.append(score(pull_request(row), text, kind, kind))
    return totals_of(len(rows), scores)


def _model_type(calls: list[dict]) -> ChangeType | None:
    """The type the model's last summary answer gave, before the code's type rule."""
    for call in sorted(calls, key=lambda c: c["id"], reverse=True):
        if call["purpose"] != "summary" or not call["response"]:
            continue
        try:
            return _type(json.loads(call["response"]).get("type"))
        except (ValueError, AttributeError):
            return None
    return None


def stored_totals(store: Store, rows: list[dict], code_steps: bool = False) -> Totals:
    """The figures of the summaries a run kept with --db (each PR's latest current one),
    with the seconds its LLM calls took. `code_steps` applies today's code steps after the
    model (the type rule, names marked, the facts' sentences) to the stored answers first."""
    scores, seconds = [], []
    for row in rows:
        calls = list(store.db["llm_calls"].rows_where("number = ?", [row["number"]]))
        took = sum(c["duration_ms"] or 0 for c in calls) / 1000 if calls else None
        if took is not None:
            seconds.append(took)
        summary = store.latest_summary(REPO, row["number"])
        if summary is None:
            continue
        reference = _type((row.get("reference") or {}).get("type"))
        pr = pull_request(row)
        sections, kind = summary.sections, summary.change_type
        if code_steps:
            # Today's facts and type rule over the model's own type, as its answer gave it.
            facts = extract_facts(pr)
            kind = decide_type(pr, _model_type(calls) or kind, sections.what_changed, facts)
            small = summary.prompt_version == COMPACT_PROMPT_VERSION
            sections = names_marked(sections, facts, pr)
            findings = check_answer(pr, sections, kind, facts, small_model=small)
            sections = remove_sentences(sections, findings, fillable(facts, pr))
            sections = finish(sections, pr, facts, kind)
        scores.append(score(pr, sections, kind, reference, took))
    return totals_of(len(rows), scores, seconds)


def print_scores(by_day: list[tuple[str, Totals]], title: str) -> None:
    """Each PR's scores, then the table per day and in total."""
    print(f"\n== {title}")
    for day, totals in by_day:
        print(f"-- {day}")
        for s in totals.scores:
            print(pr_line(s))
    rows = [*by_day, ("all", merge([t for _, t in by_day]))] if len(by_day) > 1 else by_day
    print()
    print(table(rows))


def selected(args: argparse.Namespace) -> dict[str, list[dict]]:
    """The data's PRs by day, narrowed by --days, --numbers and --limit."""
    days = [d.strip() for d in args.days.split(",")] if args.days else None
    wanted = {int(n) for n in args.numbers.split(",")} if args.numbers else None
    by_day = {}
    for day, rows in load_days(args.data, days).items():
        rows = [row for row in rows if wanted is None or row["number"] in wanted]
        by_day[day] = rows[: args.limit] if args.limit else rows
    return by_day


def summarize(by_day: dict[str, list[dict]], db: Path) -> None:
    """The normal run: summarize each day with the configured model, and measure it."""
    everything: list[PRResult] = []
    results: list[PRResult] = []
    scored: list[tuple[str, Totals]] = []
    total_wall = 0.0
    with FakeGitHub() as github:
        github.add_repo(REPO)
        settings = settings_for(github, db)
        store = Store(db)
        model = settings.model if settings.llm_configured else "built-in"
        for day, rows in by_day.items():
            print(f"== {day}: {len(rows)} PRs, model {model}")
            results, wall = asyncio.run(run_day(day, rows, settings, store, github))
            for r in results:
                print_pr(r)
            print_totals(results, wall)
            made = [r.scores for r in results if r.scores is not None]
            scored.append((day, totals_of(len(results), made, [r.seconds for r in results])))
            everything += results
            total_wall += wall
    if len(everything) > len(results):
        print("\n== all days")
        print_totals(everything, total_wall)
    print_scores(scored, f"what a reader would score ({model})")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the PRs, one JSON a line")
    parser.add_argument("--days", help="comma-separated report days (default: every day)")
    parser.add_argument("--limit", type=int, help="only the first N PRs of each day")
    parser.add_argument("--numbers", help="only these PRs (comma-separated numbers)")
    parser.add_argument("--db", type=Path, help="keep the store here (default: a temporary one)")
    parser.add_argument("--fetch", metavar="OWNER/REPO", help="first write --days to --data")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--rescore",
        metavar="DB",
        type=Path,
        help="no model: score the summaries a run kept with --db in DB",
    )
    parser.add_argument(
        "--code-steps",
        action="store_true",
        help="with --rescore: apply today's code steps after the model to the stored answers",
    )
    mode.add_argument(
        "--reference",
        action="store_true",
        help="no model: score the data's reference summaries (the bar)",
    )
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.fetch:
        if not args.days:
            raise SystemExit("--fetch needs --days")
        days = [d.strip() for d in args.days.split(",")]
        asyncio.run(fetch_days(args.fetch, days, args.data))
    by_day = selected(args)
    if args.reference:
        print_scores([(d, reference_totals(rows)) for d, rows in by_day.items()], "reference")
    elif args.rescore:
        if not args.rescore.is_file():
            raise SystemExit(f"no database at {args.rescore}")
        store = Store(args.rescore)
        totals = [(d, stored_totals(store, rows, args.code_steps)) for d, rows in by_day.items()]
        print_scores(totals, f"stored in {args.rescore}")
    else:
        summarize(by_day, args.db or Path(tempfile.mkdtemp(prefix="prdigest-quality-")) / "q.db")


if __name__ == "__main__":
    main()
