"""`prdigest backfill --repo O/R --days N`: the last N days built, so search and ask know the
past from the first day.

It says what is built and what the rest costs before any LLM call, shows a bar, asks the
model for at most one summary per PR (no highlights: it posts nothing), and is resumable: a
second run, after Ctrl-C or a failure, builds only what is missing.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.digest import service as digest_service
from bot.digest.service import DigestService
from bot.store.store import Store
from tests.conftest import REPO
from tests.fakes.github import FakePR

PACIFIC = ZoneInfo("America/Los_Angeles")


@pytest.fixture(autouse=True)
def yesterday_settled(monkeypatch):
    """Yesterday is over and listed for good. In the hour after midnight a real run lists it
    again, since GitHub's search may still lag (`day_window.is_complete`); these specs are
    about what a backfill builds, and must not fail when CI runs in that hour."""
    monkeypatch.setattr(
        digest_service, "is_complete", lambda window: datetime.now(PACIFIC) >= window.end
    )


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def days_ago(n: int, hour: int = 10) -> datetime:
    """`hour`:00 Pacific, `n` days before today (Pacific)."""
    today = datetime.now(PACIFIC).date()
    return datetime.combine(today - timedelta(days=n), time(hour), tzinfo=PACIFIC)


def add_days(github) -> None:
    """Two PRs yesterday, one two days ago, none three days ago, one four days ago; one
    merged today, which no backfill touches (the day is not over)."""
    github.add_prs(
        REPO,
        [
            FakePR(1, "[Core] Yesterday morning", merged_at=days_ago(1, 9)),
            FakePR(2, "[Docs] Yesterday afternoon", merged_at=days_ago(1, 15)),
            FakePR(3, "[Core] Two days ago", merged_at=days_ago(2)),
            FakePR(4, "[Core] Four days ago", merged_at=days_ago(4)),
            FakePR(5, "[Core] Today", merged_at=datetime.now(PACIFIC) - timedelta(minutes=1)),
        ],
    )


def summarized(db_path) -> set[int]:
    store = Store(db_path)
    try:
        return {n for n in range(1, 6) if store.latest_summary(REPO, n) is not None}
    finally:
        store.close()


def test_backfill_builds_the_last_days_with_one_summary_per_pr(env, github, llm):
    add_days(github)
    result = run("backfill", "--repo", REPO, "--days", "3")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"0 of 3 days of {REPO} already built; building 3: about 3 new summaries (3 LLM calls)…"
    )
    assert f"Built 3 days of {REPO}." in result.stderr
    assert result.stdout == ""  # it posts and prints nothing but its progress
    assert len(llm.summary_requests) == 3 and llm.highlights_requests == []
    assert summarized(env.db_path) == {1, 2, 3}


def test_a_second_run_makes_no_llm_call_and_lists_no_day_again(env, github, llm):
    add_days(github)
    run("backfill", "--days", "3")  # PRDIGEST_REPO
    calls, searches = llm.completions_count, len(github.search_queries)
    again = run("backfill", "--days", "3")
    assert again.exit_code == 0
    assert again.stderr.splitlines()[0] == f"3 of 3 days of {REPO} already built: nothing to do."
    assert llm.completions_count == calls and len(github.search_queries) == searches


def test_a_longer_backfill_builds_only_the_days_not_built_yet(env, github, llm):
    add_days(github)
    run("backfill", "--days", "2")
    assert len(llm.summary_requests) == 3
    longer = run("backfill", "--days", "5")
    assert longer.stderr.splitlines()[0] == (
        f"2 of 5 days of {REPO} already built; building 3: about 1 new summary (1 LLM call)…"
    )
    assert len(llm.summary_requests) == 4  # #4 alone: every PR summarized once
    assert summarized(env.db_path) == {1, 2, 3, 4}


def test_the_cost_is_announced_before_any_llm_call(env, github, llm):
    add_days(github)
    seen: list[int] = []
    original = DigestService.plan

    async def plan(self, *args, **kwargs):
        found = await original(self, *args, **kwargs)
        seen.append(llm.completions_count)  # the moment the line is about to be printed
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DigestService, "plan", plan)
        result = run("backfill", "--days", "3")
    assert seen == [0] and "about 3 new summaries (3 LLM calls)" in result.stderr


def test_a_failed_summary_is_retried_alone_on_the_next_run(env, github, llm):
    add_days(github)
    llm.script([("status", 400)])  # one summary fails (400 is not retried)
    failed = run("backfill", "--days", "3")
    assert failed.exit_code == 1
    assert "1 PRs could not be summarized: #" in failed.stderr
    assert failed.stderr.rstrip().endswith("Run the same command again to retry only those.")
    calls = llm.completions_count
    retried = run("backfill", "--days", "3")
    assert retried.exit_code == 0
    assert retried.stderr.splitlines()[0] == (
        f"2 of 3 days of {REPO} already built; building 1: about 1 new summary (1 LLM call)…"
    )
    assert llm.completions_count == calls + 1
    assert summarized(env.db_path) == {1, 2, 3}


def test_ctrl_c_keeps_what_is_built_and_the_next_run_goes_on(env, github, llm):
    add_days(github)
    original, built = DigestService.build, []

    async def build(self, scope, **kwargs):
        if built:  # Ctrl-C while the second day builds
            raise KeyboardInterrupt
        built.append(scope.first)
        return await original(self, scope, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DigestService, "build", build)
        stopped = run("backfill", "--days", "3")
    assert stopped.exit_code == 130
    assert "Stopped after 1 of 3 days: run the same command again to go on." in stopped.stderr
    assert stopped.stderr.rstrip().endswith("Interrupted.")
    assert summarized(env.db_path) == {1, 2}  # yesterday's, kept
    again = run("backfill", "--days", "3")
    assert again.stderr.splitlines()[0].startswith(f"1 of 3 days of {REPO} already built;")
    assert summarized(env.db_path) == {1, 2, 3} and len(llm.summary_requests) == 3


@pytest.mark.parametrize("days", ["0", "367", "many"])
def test_the_number_of_days_is_checked_before_any_call(env, github, llm, days):
    result = run("backfill", "--days", days)
    assert result.exit_code == 2
    assert "Invalid value for '--days'" in result.stderr and "Traceback" not in result.output
    assert github.requests == [] and llm.requests == []
