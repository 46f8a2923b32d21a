"""GitHub misbehaving mid-day: 502s, the primary and the secondary rate limit.

Each test builds a whole day through `prdigest report` against the fake GitHub with a fault
injected, and checks that the report still holds every PR with its summary: 5xx answers are
retried, rate limits are waited out (not failed), and nothing is fetched or summarized twice.
"""

from __future__ import annotations

import time

from click.testing import CliRunner

from bot.app.cli import cli
from tests.conftest import REPO, make_pr
from tests.fakes.figures import figures

DAY = "2026-02-23"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def add_day(github, count: int) -> None:
    github.add_prs(
        REPO,
        [make_pr(n, f"{DAY} {n % 24:02d}:{n % 60:02d}:{n % 59:02d}") for n in range(1, count + 1)],
    )


def report_ok(result, count: int) -> str:
    assert result.exit_code == 0, result.output
    text = open("day.md").read()
    assert f"**Total Merged PRs:** {count}" in text
    assert "Summary unavailable" not in text
    assert text.count("**What changed and why**") == count
    return text


def test_a_502_on_every_5th_github_call_still_completes_the_day(env, github, llm):
    add_day(github, 120)  # two search pages, 240 per-PR calls
    fault = github.inject(r".", 502, every=5)
    started = time.monotonic()
    result = run("report", "--date", DAY, "--output", "day.md")
    elapsed = time.monotonic() - started
    report_ok(result, 120)

    calls = github.requests
    answered = [r for r in calls if not r.fault]
    # Every successful per-PR call happened once: retries repeat only the failed request.
    per_pr = [r.path for r in answered if "/pulls/" in r.path]
    assert len(per_pr) == len(set(per_pr)) == 240
    assert sum(r.fault for r in calls) == fault.fired >= len(calls) // 5
    assert llm.completions_count == 120  # each PR summarized exactly once
    figures(
        "github 502 on every 5th call",
        prs=120,
        github_calls=len(calls),
        answered_502=fault.fired,
        prs_summarized=120,
        llm_calls=llm.completions_count,
        seconds=round(elapsed, 2),
    )


def test_a_primary_rate_limit_mid_day_is_waited_out_until_the_reset(env, github, llm):
    add_day(github, 30)
    # After 20 per-PR calls: 403, X-RateLimit-Remaining: 0, reset 2 s after it is hit.
    github.inject_rate_limit(r"/pulls/\d+", after=20, reset_in=2)
    started = time.monotonic()
    result = run("report", "--date", DAY, "--output", "day.md")
    elapsed = time.monotonic() - started
    report_ok(result, 30)

    limited = [r for r in github.requests if r.fault]
    assert len(limited) == 1 and limited[0].status == 403
    after = [r for r in github.requests if r.received_at > limited[0].received_at]
    waited = after[0].received_at - limited[0].received_at
    assert waited >= 1.0  # slept until the reset, not retried at once
    assert after[0].path == limited[0].path  # the same request, repeated once
    assert llm.completions_count == 30
    figures(
        "github primary rate limit mid-day",
        prs=30,
        limited_at_call=len(github.requests) - len(after),
        waited_seconds=round(waited, 2),
        reset_in_seconds=2,
        prs_summarized=30,
        seconds=round(elapsed, 2),
    )


def test_a_secondary_rate_limit_honours_retry_after(env, github, llm):
    add_day(github, 30)
    github.inject_rate_limit(r"/pulls/\d+", after=15, reset_in=1, secondary=True)
    result = run("report", "--date", DAY, "--output", "day.md")
    report_ok(result, 30)

    limited = [r for r in github.requests if r.fault]
    assert len(limited) == 1
    nxt = next(r for r in github.requests if r.received_at > limited[0].received_at)
    waited = nxt.received_at - limited[0].received_at
    assert waited >= 0.9  # Retry-After: 1
    assert nxt.path == limited[0].path
    assert llm.completions_count == 30
    figures(
        "github secondary rate limit (Retry-After: 1)",
        prs=30,
        waited_seconds=round(waited, 2),
        prs_summarized=30,
    )


def test_a_rate_limited_search_is_waited_out_too(env, github, llm):
    add_day(github, 5)
    github.inject_rate_limit(r"^/search/issues", reset_in=1)
    result = run("report", "--date", DAY, "--output", "day.md")
    report_ok(result, 5)
    assert github.count(path_regex=r"^/search/issues") == 2  # the limited one, then its retry
