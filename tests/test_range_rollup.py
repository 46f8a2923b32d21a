"""Any range of days as one rollup: `prdigest report --from D1 --to D2` and `/digest D1..D2`.

A range is the weekly rollup's shape for any days: counts by day and by area, highlights,
the reverts within it and those of earlier PRs with what they undid, then one line per PR
grouped by area (in chat, one reply per area). The days not built yet are built first, with
the LLM calls they cost announced before any is made; a range is at most
PRDIGEST_RANGE_MAX_DAYS days (31), refused before any GitHub or LLM call. Posting a range
twice posts it once.
"""

from __future__ import annotations

import io
import re
import time
from datetime import date

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.chat.commands import ChatCommands, parse_digest_text
from bot.core.errors import UserInputError
from bot.core.scope import DigestScope, Span, TagRange
from tests.conftest import REPO, make_pr, pacific
from tests.fakes.discord import running_bot

TZ = "America/Los_Angeles"
IN_RANGE = (101, 102, 103, 104, 105)
CHANNEL = "C0DIGEST"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def add_range(github) -> None:
    """Four days, 2026-02-01 to 2026-02-04: five PRs (a revert pair among them, and a revert
    of a PR merged before the range), none on the fourth day; one PR before, one after."""
    github.add_prs(
        REPO,
        [
            make_pr(90, "2026-01-20 10:00:00", title="[Docs] Old install page"),
            make_pr(101, "2026-02-01 09:00:00", title="[Core] Faster scheduler"),
            make_pr(102, "2026-02-01 15:00:00", title="[Docs] Fix a typo"),
            make_pr(103, "2026-02-02 11:00:00", title="[Core] New block cache"),
            make_pr(104, "2026-02-03 08:00:00", title='Revert "[Core] New block cache"',
                    body=f"Reverts {REPO}#103"),
            make_pr(105, "2026-02-03 17:30:00", title='Revert "[Docs] Old install page"',
                    body=f"Reverts {REPO}#90"),
            make_pr(106, "2026-02-05 12:00:00", title="[Core] After the range"),
        ],
    )  # fmt: skip


def pr_lines(report: str) -> list[int]:
    """The numbers of the report's one-line-per-PR entries, in order."""
    return [int(n) for n in re.findall(r"^- #(\d+) \[", report, re.MULTILINE)]


# -- the report ----------------------------------------------------------------------------


def test_a_range_report_counts_by_day_and_area_and_lists_each_pr_once_by_area(env, github):
    add_range(github)
    result = run("report", "--from", "2026-02-01", "--to", "2026-02-04")
    assert result.exit_code == 0, result.output
    report = result.stdout
    assert report.startswith(
        "# vllm Merged PR Rollup\n\n**Range:** 2026-02-01 to 2026-02-04 (America/Los_Angeles)"
        "\n\n**Total Merged PRs:** 5\n\n"
    )
    by_day = report.split("## By day", 1)[1].split("##", 1)[0]
    assert re.findall(r"\| (\w{3} \d\d-\d\d) \| (\d+) \|", by_day) == [
        ("Sun 02-01", "2"), ("Mon 02-02", "1"), ("Tue 02-03", "2"), ("Wed 02-04", "0"),
    ]  # fmt: skip
    by_area = report.split("## By area", 1)[1].split("## Highlights", 1)[0]
    counted = sum(int(n) for n in re.findall(r"\((\d+) PRs?\)", by_area))
    assert counted == 5
    # One line per PR, grouped under its area's heading; nothing from outside the range.
    assert sorted(pr_lines(report)) == sorted(IN_RANGE)
    areas = re.findall(r"^---\n\n## (.+)\n\n((?:- #.+\n)+)", report, re.MULTILINE)
    assert sum(len(lines.splitlines()) for _, lines in areas) == 5
    assert "## Highlights" in report


def test_the_ranges_reverts_say_what_they_undid(env, github):
    add_range(github)
    report = run("report", "--from", "2026-02-01", "--to", "2026-02-04").stdout
    pair = (
        f"[#103](https://github.com/{REPO}/pull/103) \\[Core\\] New block cache — merged, then "
        f"reverted by [#104](https://github.com/{REPO}/pull/104)"
    )
    assert pair in report
    earlier = report.split("## Reverts of earlier PRs\n\n", 1)[1].split("\n\n", 1)[0]
    assert earlier == (
        f'- [#105](https://github.com/{REPO}/pull/105) Revert "\\[Docs\\] Old install page" '
        f"— undoes [#90](https://github.com/{REPO}/pull/90) \\[Docs\\] Old install page "
        "(merged 2026-01-20)"
    )


def test_a_week_is_a_range_of_seven_days_with_its_own_words(env, github):
    add_range(github)
    week = run("report", "--week", "2026-02-02").stdout  # Monday 2 to Sunday 8
    assert week.startswith("# vllm Weekly Merged PR Report\n\n**Week:** 2026-02-02 to 2026-02-08")
    assert sorted(pr_lines(week)) == [103, 104, 105, 106]
    span = DigestScope.week(REPO, date(2026, 2, 2), TZ)
    same_days = DigestScope.range(REPO, date(2026, 2, 2), date(2026, 2, 8), TZ)
    assert span.days == same_days.days and span.post_key == "2026-02-02 week"
    assert same_days.post_key == "2026-02-02..2026-02-08"


def test_from_alone_runs_to_yesterday(env, github):
    result = run("report", "--from", "3 days ago")
    assert result.exit_code == 0, result.output
    first = re.search(r"\*\*Range:\*\* (\S+) to (\S+) ", result.stdout)
    assert first is not None
    assert (date.fromisoformat(first[2]) - date.fromisoformat(first[1])).days == 2


# -- LLM calls announced before any is made --------------------------------------------------


class TimedStream(io.StringIO):
    """stderr that notes when each piece of text was written."""

    encoding = "utf-8"

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[float, str]] = []

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes):  # click writes bytes where a stream looks binary
            text = text.decode()
        self.writes.append((time.monotonic(), text))
        return super().write(text)

    def isatty(self) -> bool:
        return False


def test_the_llm_calls_are_announced_before_any_is_made(env, github, llm, monkeypatch):
    add_range(github)
    stderr = TimedStream()
    monkeypatch.setattr("sys.stderr", stderr)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["report", "--from", "2026-02-01", "--to", "2026-02-04"], standalone_mode=False)
    assert exit_.value.code == 0
    (said,) = [at for at, text in stderr.writes if text.startswith("Building ")]
    assert "Building 4 days first: about 5 new summaries (5 LLM calls)…" in stderr.getvalue()
    calls = [r for r in llm.requests if r.path.endswith("/chat/completions")]
    assert len(llm.summary_requests) == 5 and calls
    assert said < min(r.received_at for r in calls)


def test_the_announced_calls_are_the_calls_made_highlights_included(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"2026-02-0{1 + n % 2} {8 + n:02d}:00:00") for n in range(7)])
    result = run("report", "--from", "2026-02-01", "--to", "2026-02-02")
    assert "Building 2 days first: about 7 new summaries (8 LLM calls, with the highlights)…" in (
        result.stderr
    )
    assert llm.completions_count == 8 and len(llm.highlights_requests) == 1


def test_built_days_are_not_announced_again_and_cost_no_summary(env, github, llm):
    add_range(github)
    run("report", "--from", "2026-02-01", "--to", "2026-02-04")
    made = llm.completions_count
    again = run("report", "--from", "2026-02-01", "--to", "2026-02-04")
    assert "Building" not in again.stderr
    assert llm.completions_count == made
    assert sorted(pr_lines(again.stdout)) == sorted(IN_RANGE)


# -- the limits --------------------------------------------------------------------------------


def test_a_range_over_the_limit_is_refused_before_any_github_or_llm_call(env, github, llm):
    result = run("report", "--from", "2026-01-01", "--to", "2026-03-01")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: A range is at most 31 days (PRDIGEST_RANGE_MAX_DAYS); "
        "2026-01-01..2026-03-01 is 60\n"
    )
    assert github.requests == [] and llm.requests == []


def test_the_limit_is_a_setting(env, github, llm, monkeypatch):
    monkeypatch.setenv("PRDIGEST_RANGE_MAX_DAYS", "3")
    result = run("report", "--from", "2026-02-01", "--to", "2026-02-04")
    assert result.stderr == (
        "Error: A range is at most 3 days (PRDIGEST_RANGE_MAX_DAYS); 2026-02-01..2026-02-04 is 4\n"
    )
    assert github.requests == []


@pytest.mark.parametrize(
    "args, line",
    [
        (("--from", "2026-02-14", "--to", "2026-02-01"),
         "2026-02-14..2026-02-01 ends before it starts: write the earlier day first"),
        (("--from", "2026-02-01", "--to", "2099-01-01"), "2099-01-01 is in the future"),
        (("--to", "2026-02-01"), "--to needs --from: e.g. prdigest report --from 2026-02-01"),
        (("--from", "2026-02-01", "--date", "2026-02-03"), "--from/--to report a range: drop"),
        (("--from", "2026-02-01", "--week", "2026-02-03"), "--from/--to report a range: drop"),
        (("--from", "2026-02-01", "--to", "v0.9.0"), "not one of each"),
    ],
)  # fmt: skip
def test_bad_ranges_are_one_clear_line(env, github, llm, args, line):
    result = run("report", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and line in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert github.requests == [] and llm.requests == []


# -- /digest D1..D2 ------------------------------------------------------------------------------


NOW = pacific("2026-03-01 12:00:00")


@pytest.mark.parametrize(
    "text, first, last",
    [
        ("2026-02-01..2026-02-14", date(2026, 2, 1), date(2026, 2, 14)),
        ("3 days ago..yesterday", date(2026, 2, 26), date(2026, 2, 28)),
        ("2026-02-20..today paths:docs/**", date(2026, 2, 20), date(2026, 3, 1)),
    ],
)
def test_digest_takes_a_range_of_any_day_forms(text, first, last):
    scope = parse_digest_text(text, default_repo=REPO, tz_name=TZ, now=NOW)
    assert isinstance(scope, DigestScope) and scope.span == Span.RANGE
    assert (scope.first, scope.last) == (first, last)
    assert DigestScope.from_post_key(REPO, scope.post_key, TZ) == scope


def test_digest_takes_a_tag_range():
    scope = parse_digest_text("v0.8.0..v0.9.0 acme/widgets", default_repo=REPO, tz_name=TZ)
    assert scope == TagRange("acme/widgets", "v0.8.0", "v0.9.0", TZ)
    assert scope.post_key == "v0.8.0..v0.9.0"


@pytest.mark.parametrize(
    "text, line",
    [
        ("2026-02-01..", "A range has two ends"),
        ("2026-02-14..2026-02-01", "ends before it starts"),
        ("2026-02-01..v0.9.0", "not one of each"),
        ("2026-02-01..2026-13-01", "2026-13-01"),
        ("v0.8.0..-rf", "is not a tag name"),
    ],
)
def test_bad_chat_ranges_are_one_short_line(text, line):
    with pytest.raises(UserInputError) as info:
        parse_digest_text(text, default_repo=REPO, tz_name=TZ, now=NOW)
    assert line in str(info.value) and "\n" not in str(info.value)


def test_a_chat_range_over_the_limit_is_refused_at_once(env):
    commands = ChatCommands(service=None, settings=env)  # type: ignore[arg-type]
    with pytest.raises(UserInputError) as info:
        commands.digest_request("2025-11-01..2026-01-01", "C1")
    assert str(info.value) == (
        "A range is at most 31 days (PRDIGEST_RANGE_MAX_DAYS); 2025-11-01..2026-01-01 is 62"
    )


# -- in chat: one reply per area, posted once ---------------------------------------------------


def group_payloads(messages) -> list[dict]:
    return [
        m.metadata["event_payload"]
        for m in messages
        if (m.metadata or {}).get("event_type") == "prdigest_group"
    ]


async def test_slack_posts_a_range_as_a_parent_and_one_reply_per_area_once(bot, slack, github, llm):
    add_range(github)
    delivery = await bot.command("/digest", "2026-02-01..2026-02-04")
    assert delivery.text.startswith(f"Preparing the digest of {REPO} for 2026-02-01 to 2026-02-04")
    parent, *replies = slack.posted(CHANNEL)
    assert parent.thread_ts is None
    assert parent.metadata["event_payload"]["scope"] == "2026-02-01..2026-02-04"
    assert "vllm rollup · 2026-02-01 to 2026-02-04" in parent.text
    assert all(r.thread_ts == parent.ts for r in replies)
    titles = [p["title"] for p in group_payloads(replies) if p["part"] == 1]
    assert len(titles) == len(set(titles)) == len(replies) >= 2  # one reply per area
    shown = re.findall(r"pull/(\d+)\|#\1 ", "\n".join(str(r.blocks) for r in replies))
    assert sorted(map(int, shown)) == sorted(IN_RANGE)

    posts, calls = len(slack.posted()), llm.completions_count
    again = await bot.command("/digest", "2026-02-01..2026-02-04")
    assert "is already in this channel" in again.text
    assert len(slack.posted()) == posts and llm.completions_count == calls


async def test_discord_posts_a_range_as_a_parent_and_one_reply_per_area_once(
    fake, settings, github
):
    add_range(github)
    async with running_bot(fake, settings):
        first = fake.slash("digest", {"day": "2026-02-01..2026-02-04"})
        await fake.wait_for(lambda: first.finished, timeout=30, what="/digest to answer")
        (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
        replies = fake.channel_messages(parent["thread"]["id"])
        again = fake.slash("digest", {"day": "2026-02-01..2026-02-04"})
        await fake.wait_for(lambda: again.finished, timeout=30, what="/digest to answer")
    assert "rollup of pull requests merged into" in parent["content"].split("\n")[0]
    assert parent["thread"]["name"].startswith("vllm 2026-02-01 to 2026-02-04 · 5 PRs")
    text = "\n".join(str(m.get("embeds") or m.get("content")) for m in replies)
    assert sorted(int(n) for n in re.findall(r"\[#(\d+) ", text)) == sorted(IN_RANGE)
    assert 2 <= len(replies) < len(IN_RANGE)  # one reply per area, not one per PR
    assert "is already posted" in again.original["content"]
    assert len([m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]) == 1


def test_a_range_keys_apart_from_its_days_and_a_week():
    first, last = date(2026, 2, 2), date(2026, 2, 8)
    keys = {
        DigestScope.day(REPO, first, TZ).post_key,
        DigestScope.week(REPO, first, TZ).post_key,
        DigestScope.range(REPO, first, last, TZ).post_key,
    }
    assert keys == {"2026-02-02", "2026-02-02 week", "2026-02-02..2026-02-08"}
