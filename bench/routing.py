"""Does each team get exactly its part? Filtered subscriptions and the weekly rollup on three
whole real days of vllm-project/vllm.

    python bench/routing.py --data ../shared/data/vllm-dev-days.jsonl

Every PR of the JSONL file (as bench/quality.py reads it) is served by the project's fake
GitHub under vllm-project/vllm, with vLLM's CODEOWNERS excerpt (`tests.test_codeowners.VLLM`)
as `.github/CODEOWNERS`; the LLM is the fake's default answer and Slack the fake Slack. One
prdigest.toml holds about ten `[[subscription]]` tables, each to its own channel, and each day
is posted to each of them with `prdigest post --date D --to slack:C` (the unfiltered one
first, so the day is summarized once), as a user runs it from cron.

Checked, with the figures printed:

- each subscription posts exactly the PRs its filter keeps, where "keeps" is computed here
  from the JSONL rows' file lists, independently of prdigest's matching code: paths with
  `wcmatch` globs, owners with the PyPI `codeowners` package, logins compared ignoring case,
  combined as the README's "Filtering a subscription" says (AND between kinds, OR within one,
  excludes win; a `paths`/`codeowners` exclude drops files, not PRs);
- the parent of each posted digest counts as many PRs as were posted;
- the subscriptions share one summary per PR (one per-PR LLM call per PR in all) and each
  subscription-day costs at most its own overview call (none with 3 PRs or fewer);
- `prdigest report --week 2026-02-23` counts exactly the PRs of its days, makes no per-PR LLM
  call (the days are built) and one overview call; and a weekly subscription, unfiltered and
  filtered, posts a rollup parent with the right count within Slack's limits, one line per PR
  in its area replies.

Exit status 0 when every check holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from codeowners import CodeOwners
from wcmatch.glob import DOTGLOB, GLOBSTAR, globmatch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.slack import render as slack_render  # noqa: E402
from bench.quality import fake_pr, load_days  # noqa: E402
from bot.app.cli import cli  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI  # noqa: E402
from tests.fakes.slack import FakeSlack, Message  # noqa: E402
from tests.test_codeowners import VLLM  # noqa: E402

REPO = "vllm-project/vllm"
TZ = "America/Los_Angeles"  # the dev days are Pacific-time days
WEEK_FIRST = "2026-02-23"  # a Monday: the rollup of 23 February to 1 March
WEEK_LAST = "2026-03-01"  # its Sunday, the day a weekly subscription is posted for
DAY_LEAST = 3  # a day of this many PRs or fewer has every PR as a highlight: no overview call
WEEK_LEAST = 5  # the same for a week
OVERVIEW = "overview"  # the llm_calls purpose of a highlights call
PR_EVENT = "prdigest_pr"
GROUP_EVENT = "prdigest_group"
SHOWN_DIFFS = 8  # differing PR numbers printed per cell
# Every variable prdigest reads, cleared so the caller's own settings never leak in (as
# tests/conftest.py does for a test).
OUR_VARIABLES = (
    "GITHUB_TOKEN GITHUB_API_URL OPENAI_API_KEY OPENAI_BASE_URL SLACK_BOT_TOKEN SLACK_APP_TOKEN "
    "SLACK_SIGNING_SECRET SLACK_API_URL DISCORD_BOT_TOKEN DISCORD_API_URL DISCORD_GATEWAY_URL"
).split()
_PARENT_COUNT = re.compile(r"\*(\d+)\* merged")
_SCOPE_COUNT = re.compile(r"(\d+) of (\d+) PRs? merged")
_PR_LINK = re.compile(r"/pull/(\d+)\|#\1 ")  # a grouped line: <url|#N title>
_MD_TOTAL = re.compile(r"^\*\*Total Merged PRs:\*\* (\d+)$", re.MULTILINE)
_MD_PR_LINE = re.compile(r"^- #(\d+) \[", re.MULTILINE)
_MD_DAY_ROW = re.compile(r"^\| \[?(\w{3} \d\d-\d\d)\]?(?:\([^)]*\))? \| (\d+) \|$", re.MULTILINE)


# -- the subscriptions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sub:
    """One `[[subscription]]`: its channel and its filter keys as prdigest.toml writes them."""

    name: str
    channel: str
    filters: dict[str, list[str]] = field(default_factory=dict)
    weekly: bool = False

    @property
    def text(self) -> str:
        return " ".join(f"{k}:{','.join(v)}" for k, v in self.filters.items()) or "(none)"

    def toml(self) -> str:
        lines = ["[[subscription]]", f'repo = "{REPO}"', f'to = "slack:{self.channel}"']
        lines += [f"{key} = {json.dumps(values)}" for key, values in self.filters.items()]
        if self.weekly:
            lines += ['schedule = "weekly"', 'weekday = "monday"']
        return "\n".join(lines) + "\n"


DAILY = [
    Sub("everything", "C0ALL"),  # first: it builds (and summarizes) each whole day
    Sub("attention", "C0ATTN", {"paths": ["vllm/v1/attention/**", "csrc/attention/**"]}),
    Sub("tests but models", "C0TESTS", {"paths": ["tests/**", "!tests/models/**"]}),
    Sub("docs (bare dir)", "C0DOCS", {"paths": ["docs"]}),
    Sub("owner Lucas", "C0LUCAS", {"codeowners": ["@LucasWilkinson"]}),
    Sub("owner mgoin", "C0MGOIN", {"codeowners": ["@mgoin"]}),
    Sub("owner minus", "C0OWNEX", {"codeowners": ["@youkaichao", "!@WoosukKwon"]}),
    Sub("not maintainers'", "C0NOTMNT", {"codeowners": ["!@vllm-project/maintainers"]}),
    Sub("authors", "C0AUTH", {"authors": ["darklight1337", "Yewentao256", "HMELLOR"]}),
    Sub("not authors", "C0NOTAUTH", {"authors": ["!DarkLight1337", "!mgoin", "!hmellor"]}),
    Sub(
        "paths+owners",
        "C0COMBO",
        {
            "paths": ["vllm/**", "!vllm/model_executor/models/**"],
            "codeowners": ["@mgoin", "@vllm-project/rocm-team", "@jeejeelee"],
        },
    ),
]
WEEKLY = [
    Sub("week: everything", "C0WEEK", weekly=True),
    Sub("week: owner mgoin", "C0WEEKMG", {"codeowners": ["@mgoin"]}, weekly=True),
]


# -- what each subscription should post, computed here ------------------------------------------


def wc_patterns(pattern: str) -> list[str]:
    """The README's path glob as wcmatch globs: a trailing `/` is everything below; a pattern
    with no `/` (a trailing one aside) matches at any depth; one with no wildcard names a file
    or a directory, and a directory everything below it (`docs` is also `docs/**`)."""
    anchored = "/" in pattern.rstrip("/")
    text = pattern.lstrip("/")
    if text.endswith("/"):
        text += "**"
    globs = [text] if anchored else [text, f"**/{text}"]
    if not any(c in text for c in "*?"):
        globs += [f"{g}/**" for g in globs]
    return globs


def path_matches(patterns: Iterable[str], filename: str) -> bool:
    # DOTGLOB: prdigest's globs give no special meaning to names starting with a dot.
    globs = [g for p in patterns for g in wc_patterns(p)]
    return bool(globs) and globmatch(filename, globs, flags=GLOBSTAR | DOTGLOB)


def split_terms(values: list[str]) -> tuple[list[str], list[str]]:
    include = [v for v in values if not v.startswith("!")]
    return include, [v[1:] for v in values if v.startswith("!")]


def login_key(login: str) -> str:
    return login.casefold().removeprefix("@").removesuffix("[bot]")


class Expected:
    """Which PRs a filter keeps, from the rows alone (no prdigest matching code)."""

    def __init__(self, codeowners_text: str) -> None:
        self.codeowners = CodeOwners(codeowners_text)

    def owners(self, filename: str) -> set[str]:
        return {owner.casefold() for _kind, owner in self.codeowners.of(filename)}

    def keeps(self, row: dict[str, Any], filters: dict[str, list[str]]) -> bool:
        files = [f["filename"] for f in row["files"]]
        if "paths" in filters:
            include, exclude = split_terms(filters["paths"])

            def path_counts(name: str) -> bool:
                wanted = not include or path_matches(include, name)
                return wanted and not path_matches(exclude, name)

            if not any(path_counts(name) for name in files):
                return False
        if "codeowners" in filters:
            include, exclude = split_terms(filters["codeowners"])
            inc, exc = {o.casefold() for o in include}, {o.casefold() for o in exclude}

            def owner_counts(name: str) -> bool:
                have = self.owners(name)
                return (not inc or bool(have & inc)) and not have & exc

            if not any(owner_counts(name) for name in files):
                return False
        if "authors" in filters:
            include, exclude = split_terms(filters["authors"])
            who = login_key(row.get("user") or "")
            if include and who not in {login_key(a) for a in include}:
                return False
            if who in {login_key(a) for a in exclude}:
                return False
        unknown = set(filters) - {"paths", "codeowners", "authors"}
        assert not unknown, f"the expected side does not model {unknown}"
        return True

    def touches_excluded(self, row: dict[str, Any], filters: dict[str, list[str]]) -> bool:
        """Whether one of the PR's files matches a `paths` or `codeowners` exclude: a kept PR
        that does is kept because an exclude drops files, not PRs."""
        _, paths_out = split_terms(filters.get("paths", []))
        _, owners_out = split_terms(filters.get("codeowners", []))
        out = {o.casefold() for o in owners_out}
        return any(
            path_matches(paths_out, f["filename"]) or self.owners(f["filename"]) & out
            for f in row["files"]
        )

    def numbers(self, rows: list[dict[str, Any]], filters: dict[str, list[str]]) -> set[int]:
        return {row["number"] for row in rows if self.keeps(row, filters)}


# -- driving prdigest ----------------------------------------------------------------------------


@dataclass
class Checks:
    failures: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str) -> bool:
        if not ok:
            self.failures.append(what)
        return ok


def set_env(github: FakeGitHub, llm: FakeOpenAI, slack: FakeSlack, tmp: Path) -> Path:
    """The environment a user would set, pointing at the fakes; the config's path."""
    for name in list(os.environ):
        if name.startswith("PRDIGEST_") or name in OUR_VARIABLES:
            del os.environ[name]
    config = tmp / "prdigest.toml"
    os.environ.update(
        {
            "GITHUB_TOKEN": "bench-token",
            "GITHUB_API_URL": github.url,
            "OPENAI_API_KEY": "bench-key",
            "OPENAI_BASE_URL": llm.url + "/v1",
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_API_URL": slack.api_url,
            "PRDIGEST_SLACK_PACE": "0",
            "PRDIGEST_DB": str(tmp / "prdigest.db"),
            "PRDIGEST_CONFIG": str(config),
            "PRDIGEST_REPO": REPO,
            "PRDIGEST_TIMEZONE": TZ,
        }
    )
    return config


def invoke(args: list[str]) -> Result:
    result = CliRunner().invoke(cli, args)
    if result.exit_code != 0:
        print(f"prdigest {' '.join(args)} exited {result.exit_code}:\n{result.output}")
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
    return result


def llm_calls(db: Path) -> Counter[str]:
    """The llm_calls rows so far: per-PR calls (every purpose but the overview's) and
    overview calls."""
    calls: Counter[str] = Counter()
    if not db.exists():
        return calls  # before the first command creates it
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT purpose, count(*) FROM llm_calls GROUP BY purpose").fetchall()
    for purpose, n in rows:
        calls[OVERVIEW if purpose == OVERVIEW else "per-PR"] += n
    return calls


def summarized_numbers(db: Path) -> Counter[int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT number FROM llm_calls WHERE purpose != ?", [OVERVIEW])
        return Counter(n for (n,) in rows)


def event(message: Message) -> str:
    return (message.metadata or {}).get("event_type", "")


def current(slack: FakeSlack, message: Message) -> Message:
    return slack.message(message.channel, message.ts) or message


def block_text(message: Message) -> str:
    parts = []
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            parts.append(block["text"].get("text", ""))
        parts += [e.get("text", "") for e in block.get("elements") or () if isinstance(e, dict)]
    return "\n".join(parts) or message.text


@dataclass
class Posted:
    """What one `prdigest post` put in its channel."""

    exit_code: int
    numbers: list[int]
    parent_count: int | None  # `*N* merged` (None: no parent, e.g. a quiet day's line)
    scope: tuple[int, int] | None  # "N of M PRs merged", a filtered digest's
    quiet: bool
    overview_calls: int
    per_pr_calls: int


def post(slack: FakeSlack, db: Path, sub: Sub, day: str) -> Posted:
    before_msgs = len(slack.posted(sub.channel))
    before_calls = llm_calls(db)
    result = invoke(["post", "--date", day, "--to", f"slack:{sub.channel}"])
    after_calls = llm_calls(db)
    new = slack.posted(sub.channel)[before_msgs:]
    numbers = [m.metadata["event_payload"]["pr"] for m in new if event(m) == PR_EVENT]
    parents = [current(slack, m) for m in new if m.thread_ts is None]
    parent_count = scope = None
    quiet = False
    if result.exit_code == 0 and parents:
        text = block_text(parents[0])
        quiet = "None of the" in text
        if (found := _PARENT_COUNT.search(text)) is not None:
            parent_count = int(found[1])
        if (found := _SCOPE_COUNT.search(text)) is not None:
            scope = (int(found[1]), int(found[2]))
    return Posted(
        result.exit_code,
        numbers,
        parent_count,
        scope,
        quiet,
        after_calls[OVERVIEW] - before_calls[OVERVIEW],
        after_calls["per-PR"] - before_calls["per-PR"],
    )


# -- the days ------------------------------------------------------------------------------------


def show_diff(expected: set[int], posted: list[int]) -> str:
    missing = sorted(expected - set(posted))[:SHOWN_DIFFS]
    extra = sorted(set(posted) - expected)[:SHOWN_DIFFS]
    twice = sorted(n for n, c in Counter(posted).items() if c > 1)[:SHOWN_DIFFS]
    parts = [f"missing {missing}" if missing else "", f"extra {extra}" if extra else ""]
    parts.append(f"posted twice {twice}" if twice else "")
    return "; ".join(p for p in parts if p)


def run_days(
    days: dict[str, list[dict[str, Any]]],
    expect: Expected,
    slack: FakeSlack,
    db: Path,
    checks: Checks,
) -> dict[tuple[str, str], Posted]:
    """Post every day to every daily subscription; check each post; print the table."""
    results: dict[tuple[str, str], Posted] = {}
    for day in days:
        for sub in DAILY:
            results[sub.channel, day] = post(slack, db, sub, day)
    width = max(len(s.name) for s in DAILY)
    fwidth = max(len(s.text) for s in DAILY)
    head = "  ".join(f"{d} exp/post" for d in days)
    print(f"{'subscription':{width}}  {'filter':{fwidth}}  {head}")
    notes: list[str] = []
    for sub in DAILY:
        cells = []
        for day, rows in days.items():
            got = results[sub.channel, day]
            want = expect.numbers(rows, sub.filters)
            checks.check(got.exit_code == 0, f"{sub.name} {day}: prdigest post exit code")
            exact = checks.check(
                sorted(got.numbers) == sorted(want), f"{sub.name} {day}: posted PRs"
            )
            cells.append(f"{len(want):>4}/{len(got.numbers):<4}{'ok' if exact else 'NO':>3}")
            if not exact:
                notes.append(f"  {sub.name} {day}: {show_diff(want, got.numbers)}")
            notes += check_parent(sub, day, rows, want, got, checks)
        print(f"{sub.name:{width}}  {sub.text:{fwidth}}  {'  '.join(f'{c:17}' for c in cells)}")
    if notes:
        print("differences:")
        print("\n".join(notes))
    return results


def check_parent(
    sub: Sub, day: str, rows: list[dict], want: set[int], got: Posted, checks: Checks
) -> list[str]:
    """The parent counts the PRs posted (a quiet day: one line saying none matched)."""
    label = f"{sub.name} {day}"
    if not want:
        ok = checks.check(got.quiet and not got.numbers, f"{label}: quiet-day line")
        return [] if ok else [f"  {label}: no quiet-day line"]
    notes = []
    if not checks.check(got.parent_count == len(want), f"{label}: parent's count"):
        notes.append(f"  {label}: parent says *{got.parent_count}* merged, want {len(want)}")
    if sub.filters and not checks.check(
        got.scope == (len(want), len(rows)), f"{label}: parent's 'N of M'"
    ):
        notes.append(f"  {label}: parent says {got.scope}, want ({len(want)}, {len(rows)})")
    return notes


def check_sharing(
    days: dict[str, list[dict[str, Any]]],
    results: dict[tuple[str, str], Posted],
    expect: Expected,
    db: Path,
    checks: Checks,
) -> None:
    total = sum(len(rows) for rows in days.values())
    per_pr = sum(p.per_pr_calls for p in results.values())
    numbers = summarized_numbers(db)
    twice = sorted(n for n, c in numbers.items() if c > 1)
    print()
    print(
        f"per-PR LLM calls over {len(results)} posts: {per_pr} for {total} PRs "
        f"({len(numbers)} distinct PRs; {len(twice)} called more than once"
        + (f": {twice[:SHOWN_DIFFS]}" if twice else "")
        + ")"
    )
    checks.check(per_pr == total and len(numbers) == total, "one per-PR call per PR")
    late = [k for k, p in results.items() if p.per_pr_calls and k[0] != DAILY[0].channel]
    checks.check(not late, "filtered subscriptions made per-PR calls")
    if late:
        print(f"  per-PR calls made by filtered subscriptions: {late}")

    bound = overviews = 0
    over: list[str] = []
    for (channel, day), posted in results.items():
        sub = next(s for s in DAILY if s.channel == channel)
        matching = len(expect.numbers(days[day], sub.filters))
        allowed = 1 if matching > DAY_LEAST else 0
        bound += allowed
        overviews += posted.overview_calls
        if posted.overview_calls > allowed:
            over.append(f"{sub.name} {day} ({matching} PRs): {posted.overview_calls}")
    print(
        f"overview calls: {overviews} (at most {bound}: one per subscription-day with more "
        f"than {DAY_LEAST} PRs, of {len(results)} subscription-days)"
    )
    checks.check(not over, "overview calls per subscription-day")
    for line in over:
        print(f"  too many overview calls: {line}")


# -- the week ------------------------------------------------------------------------------------


def run_week(
    days: dict[str, list[dict[str, Any]]],
    expect: Expected,
    slack: FakeSlack,
    db: Path,
    tmp: Path,
    checks: Checks,
) -> None:
    week_rows = [
        row for day, rows in days.items() if WEEK_FIRST <= day <= WEEK_LAST for row in rows
    ]
    want = {row["number"] for row in week_rows}
    by_day = Counter(row["report_day"] for row in week_rows)
    print()
    print(
        f"== the week {WEEK_FIRST} to {WEEK_LAST}: {len(want)} PRs ({dict(sorted(by_day.items()))})"
    )

    before = llm_calls(db)
    out = tmp / "week.md"
    result = invoke(["report", "--week", WEEK_FIRST, "-o", str(out)])
    after = llm_calls(db)
    checks.check(result.exit_code == 0, "report --week exit code")
    text = out.read_text() if out.exists() else ""
    total = _MD_TOTAL.search(text)
    lines = [int(n) for n in _MD_PR_LINE.findall(text)]
    rows = {label: int(n) for label, n in _MD_DAY_ROW.findall(text)}
    per_pr, overview = after["per-PR"] - before["per-PR"], after[OVERVIEW] - before[OVERVIEW]
    print(
        f"report --week: Total Merged PRs {total[1] if total else 'missing'}; "
        f"{len(lines)} PR lines ({len(set(lines))} distinct); by day "
        f"{', '.join(f'{k}: {v}' for k, v in rows.items()) or 'missing'}; "
        f"LLM calls {per_pr} per-PR, {overview} overview"
    )
    checks.check(total is not None and int(total[1]) == len(want), "week Markdown total")
    same = checks.check(sorted(lines) == sorted(want), "week Markdown PR lines")
    if not same:
        print(f"  week lines: {show_diff(want, lines)}")
    checks.check(sum(rows.values()) == len(want), "week Markdown by-day sum")
    checks.check(per_pr == 0, "week made no per-PR call")
    checks.check(overview == 1, "week made one overview call")

    for sub in WEEKLY:
        post_week(sub, expect.numbers(week_rows, sub.filters), slack, db, checks)


def post_week(sub: Sub, want: set[int], slack: FakeSlack, db: Path, checks: Checks) -> None:
    """A weekly subscription's rollup: one parent with the count, within Slack's limits, and
    one line per PR in its area replies."""
    before = llm_calls(db)
    result = invoke(["post", "--date", WEEK_LAST, "--to", f"slack:{sub.channel}"])
    after = llm_calls(db)
    messages = slack.posted(sub.channel)
    parents = [current(slack, m) for m in messages if m.thread_ts is None]
    groups = [current(slack, m) for m in messages if event(m) == GROUP_EVENT]
    numbers = [int(n) for m in groups for n in _PR_LINK.findall(block_text(m))]
    count = _PARENT_COUNT.search(block_text(parents[0])) if parents else None
    per_pr, overview = after["per-PR"] - before["per-PR"], after[OVERVIEW] - before[OVERVIEW]
    label = f"{sub.name} ({sub.text})"
    print(
        f"{label}: parent *{count[1] if count else '?'}* merged, expected {len(want)}; "
        f"{len(groups)} area replies listing {len(numbers)} PRs; "
        f"{sum(1 for m in messages if event(m) == PR_EVENT)} per-PR replies; "
        f"LLM calls {per_pr} per-PR, {overview} overview"
    )
    checks.check(result.exit_code == 0 and len(parents) == 1, f"{label}: one parent")
    checks.check(count is not None and int(count[1]) == len(want), f"{label}: parent's count")
    if not checks.check(sorted(numbers) == sorted(want), f"{label}: area replies' PRs"):
        print(f"  {label}: {show_diff(want, numbers)}")
    checks.check(per_pr == 0, f"{label}: no per-PR call")
    checks.check(overview <= (1 if len(want) > WEEK_LEAST else 0), f"{label}: overview calls")
    if parents:
        checks.check(fits_slack(parents[0]), f"{label}: parent within Slack's limits")
    checks.check(all(fits_slack(m) for m in groups), f"{label}: area replies within limits")


def fits_slack(message: Message) -> bool:
    r = slack_render
    blocks = message.blocks
    lengths = [r.block_text_length(b) for b in blocks]
    header = next((len(b["text"]["text"]) for b in blocks if b["type"] == "header"), 0)
    ok = (
        len(blocks) <= r.MAX_BLOCKS
        and sum(lengths) <= r.MAX_MESSAGE_TEXT
        and max(lengths, default=0) <= r.MAX_SECTION_TEXT
        and header <= r.MAX_HEADER_TEXT
    )
    if message.thread_ts is None:
        print(
            f"  parent size: {len(blocks)} blocks of {r.MAX_BLOCKS}; {sum(lengths):,} characters "
            f"of {r.MAX_MESSAGE_TEXT:,}; largest block {max(lengths, default=0):,} of "
            f"{r.MAX_SECTION_TEXT:,}; header {header} of {r.MAX_HEADER_TEXT}"
        )
    return ok


# -- main ----------------------------------------------------------------------------------------


def print_setup(days: dict[str, list[dict]], expect: Expected) -> None:
    total = sum(len(rows) for rows in days.values())
    print(f"== {REPO}: {total} PRs on {len(days)} days ({TZ}); CODEOWNERS = tests' VLLM excerpt")
    print(f"{len(DAILY)} daily subscriptions, each to its own Slack channel; PRs each keeps:")
    for sub in DAILY:
        counts = [len(expect.numbers(rows, sub.filters)) for rows in days.values()]
        line = f"  {sub.channel:10} {sub.name:17} {sub.text}: {counts} = {sum(counts)}"
        despite = [
            row["number"]
            for rows in days.values()
            for row in rows
            if expect.keeps(row, sub.filters) and expect.touches_excluded(row, sub.filters)
        ]
        if despite:
            line += f" ({len(despite)} of them also touch an excluded file)"
        print(line)
    print()


def run(data: Path) -> Checks:
    days = load_days(data, None)
    expect = Expected(VLLM)
    checks = Checks()
    print_setup(days, expect)
    with tempfile.TemporaryDirectory(prefix="prdigest-routing-") as name:
        tmp = Path(name)
        os.chdir(tmp)  # no developer's .env is read
        with FakeGitHub() as github, FakeOpenAI() as llm, FakeSlack() as slack:
            github.add_repo(REPO)
            github.add_prs(REPO, [fake_pr(row) for rows in days.values() for row in rows])
            github.set_file(REPO, ".github/CODEOWNERS", VLLM)
            config = set_env(github, llm, slack, tmp)
            config.write_text("\n".join(sub.toml() for sub in [*DAILY, *WEEKLY]))
            db = Path(os.environ["PRDIGEST_DB"])
            results = run_days(days, expect, slack, db, checks)
            check_sharing(days, results, expect, db, checks)
            run_week(days, expect, slack, db, tmp, checks)
            print(
                f"fake LLM requests: {len(llm.summary_requests)} summary, "
                f"{len(llm.highlights_requests)} highlights"
            )
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the PRs, one JSON a line")
    args = parser.parse_args()
    started = time.perf_counter()
    checks = run(args.data.resolve())
    print()
    if checks.failures:
        print(f"FAILED: {len(checks.failures)} checks")
        for failure in checks.failures:
            print(f"  {failure}")
    else:
        print("all checks hold")
    print(f"wall time: {time.perf_counter() - started:.1f} s")
    sys.exit(1 if checks.failures else 0)


if __name__ == "__main__":
    main()
