"""A year on one disk: the LLM call log keeps full prompts and answers for
PRDIGEST_LLM_LOG_DAYS days (30 by default), then only the figures. The scheduler prunes once a
day, `prdigest prune` on demand; summaries, posts and flags are never pruned."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.commands import prune as prune_command
from bot.app.compose import build_service
from bot.core.clock import utcnow
from bot.core.models import ChangedFile, PullRequest, Usage
from bot.core.settings import Settings
from bot.ports.summarizer import LLMCall
from bot.schedule import scheduler as scheduler_module
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import StaticSubscriptions
from bot.store import upkeep
from bot.store.lease import Lease
from bot.store.search_index import SearchWhere
from bot.store.store import Store
from bot.store.upkeep import Cutoffs, prune
from tests.conftest import REPO, make_pr
from tests.fakes.openai_api import request_text

DAY = "2026-02-23"
NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)
FIGURES = (
    "repo", "number", "model", "prompt_version", "purpose", "error", "prompt_tokens",
    "completion_tokens", "duration_ms", "created_at",
)  # fmt: skip


def call(days_ago: float, number: int = 1, *, error: str | None = None, now=NOW) -> LLMCall:
    """A 10 KB call made `days_ago` days before `now`."""
    return LLMCall(
        REPO, number, "gpt-4o-mini", "v9", "summary",
        [{"role": "user", "content": "diff " * 2000}], None if error else '{"headline": "h"}',
        error, Usage(2500, 400), 1800, created_at=now - timedelta(days=days_ago),
    )  # fmt: skip


def rows(store: Store) -> list[dict]:
    return list(store.db["llm_calls"].rows_where(order_by="id"))


def test_calls_older_than_the_kept_days_lose_their_bodies_and_keep_their_figures():
    store = Store(":memory:")
    store.log_llm_calls([call(45), call(31, error="timed out"), call(29), call(1)])
    before = rows(store)
    pruned = prune(store, Cutoffs.at(NOW, 30))
    after = rows(store)
    assert pruned.calls_thinned == 2
    assert pruned.body_bytes == sum(
        len(r["messages"].encode()) + len((r["response"] or "").encode()) for r in before[:2]
    )
    assert [(r["messages"] is None, r["response"] is None) for r in after] == [
        (True, True), (True, True), (False, False), (False, False),
    ]  # fmt: skip
    for old, new in zip(before, after, strict=True):
        assert {k: new[k] for k in FIGURES} == {k: old[k] for k in FIGURES}
    assert after[2:] == before[2:]


def test_a_prune_is_idempotent():
    store = Store(":memory:")
    store.log_llm_calls([call(40), call(2)])
    first = prune(store, Cutoffs.at(NOW, 30))
    kept = rows(store)
    again = prune(store, Cutoffs.at(NOW, 30))
    assert first.calls_thinned == 1 and again.nothing and rows(store) == kept


def test_a_year_is_thinned_batch_by_batch(monkeypatch):
    monkeypatch.setattr(upkeep, "BATCH", 7)
    store = Store(":memory:")
    store.log_llm_calls([call(31 + day) for day in range(50)])
    assert store.prunable(Cutoffs.at(NOW, 30)).calls_thinned == 50
    assert prune(store, Cutoffs.at(NOW, 30)).calls_thinned == 50
    assert all(r["messages"] is None for r in rows(store))


def test_codeowners_read_more_than_a_week_ago_go_and_todays_stays():
    store = Store(":memory:")
    for back in (0, 6, 8, 40):
        day = (NOW - timedelta(days=back)).date().isoformat()
        store.save_codeowners(REPO, day, ".github/CODEOWNERS", "* @team")
    assert prune(store, Cutoffs.at(NOW, 30)).codeowners == 2
    assert store.get_codeowners(REPO, NOW.date().isoformat()) is not None
    assert store.db["codeowners"].count == 2


@pytest.fixture
def stored_day(env, github, llm) -> Settings:
    """A day summarized through the real pipeline: PRs, summaries, their calls."""
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    assert CliRunner().invoke(cli, ["report", "--date", DAY]).exit_code == 0
    return env


def later(monkeypatch, days: int) -> None:
    monkeypatch.setattr(prune_command, "utcnow", lambda: utcnow() + timedelta(days=days))


def test_prdigest_prune_says_what_it_dropped_and_never_touches_summaries(stored_day, monkeypatch):
    monkeypatch.setenv("PRDIGEST_DIFF_DAYS", "0")  # keeps every diff: the call log alone
    store = Store(stored_day.db_path)
    tables = ("summaries", "pull_requests", "pr_files", "posts", "flags", "digests")
    counts = {t: store.db[t].count for t in tables}
    summaries = list(store.db["summaries"].rows)
    calls = store.db["llm_calls"].count
    store.close()

    fresh = CliRunner().invoke(cli, ["prune"])
    assert fresh.exit_code == 0, fresh.output
    assert fresh.stdout.startswith("Nothing to prune: no LLM call older than 30 days")

    later(monkeypatch, 31)
    dry = CliRunner().invoke(cli, ["prune", "--dry-run"])
    assert dry.exit_code == 0
    assert dry.stdout.startswith(f"Would thin {calls} LLM calls older than 30 days (")
    assert "Nothing changed (--dry-run)." in dry.stdout
    store = Store(stored_day.db_path)
    assert all(r["messages"] for r in store.db["llm_calls"].rows)
    store.close()

    done = CliRunner().invoke(cli, ["prune"])
    assert done.exit_code == 0, done.output
    first, second = done.stdout.splitlines()
    assert first.startswith(f"Thinned {calls} LLM calls older than 30 days (")
    assert first.endswith("of prompts and answers); their figures are kept.")
    assert second.startswith("Database: ") and "VACUUM" in second
    again = CliRunner().invoke(cli, ["prune"])
    assert again.stdout.startswith("Nothing to prune")

    store = Store(stored_day.db_path)
    assert {t: store.db[t].count for t in tables} == counts
    assert list(store.db["summaries"].rows) == summaries
    assert all(r["messages"] is None and r["prompt_tokens"] for r in store.db["llm_calls"].rows)
    store.close()


def test_the_kept_days_come_from_the_setting_or_the_option(stored_day, monkeypatch):
    monkeypatch.setenv("PRDIGEST_DIFF_DAYS", "0")
    later(monkeypatch, 3)
    assert CliRunner().invoke(cli, ["prune"]).stdout.startswith("Nothing to prune")
    monkeypatch.setenv("PRDIGEST_LLM_LOG_DAYS", "2")
    assert CliRunner().invoke(cli, ["prune", "--dry-run"]).stdout.startswith("Would thin")
    monkeypatch.delenv("PRDIGEST_LLM_LOG_DAYS")
    result = CliRunner().invoke(cli, ["prune", "--days", "1", "--no-vacuum"])
    assert result.stdout.startswith("Thinned ") and "older than 1 days" in result.stdout


def test_a_vacuum_gives_the_space_back_when_it_is_worth_it(env, monkeypatch):
    monkeypatch.setattr(upkeep, "VACUUM_BYTES", 0)
    store = Store(env.db_path)
    store.log_llm_calls([call(60, n) for n in range(300)])  # 3 MB of prompts
    store.close()
    monkeypatch.setattr(prune_command, "utcnow", lambda: NOW)
    result = CliRunner().invoke(cli, ["prune"])
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[1]
    assert line.startswith("Database: ") and "after VACUUM" in line, line
    before, after = (float(part.split()[0]) for part in line[len("Database: ") :].split(" -> "))
    assert after < before / 2


async def test_the_scheduler_prunes_once_a_day_from_soon_after_its_start(env, monkeypatch):
    monkeypatch.setattr(scheduler_module, "PRUNE_FIRST_SECONDS", 0.2)
    store = Store(env.db_path)
    old = call(40, now=utcnow())
    store.log_llm_calls([old, call(0, now=utcnow())])
    service = build_service(env, store)
    scheduler = DigestScheduler(
        service, {}, StaticSubscriptions(()), env, lease=Lease(store), heartbeat_seconds=60
    )
    try:
        await scheduler.start()
        job = scheduler.scheduler.get_job("prune")
        assert job is not None and job.trigger.interval == timedelta(days=1)
        for _ in range(50):
            await asyncio.sleep(0.1)
            if any(r["messages"] is None for r in rows(store)):
                break
    finally:
        await scheduler.stop()
        await service.aclose()
    thinned = [r for r in rows(store) if r["messages"] is None]
    assert [r["created_at"] for r in thinned] == [old.created_at.astimezone(UTC).isoformat()]
    store.close()


# -- old diffs: GitHub keeps them, a new summary reads them again --------------------------


def diff_of(number: int, merged: datetime) -> PullRequest:
    return PullRequest(
        repo=REPO, number=number, title=f"Tune the scheduler ({number})", url="", author="alice", state="merged",
        merged_at=merged, files=(
            ChangedFile("vllm/engine/worker.py", "modified", 3, 1, "@@ -1 +1 @@\n-a\n+b\n"),
            ChangedFile("csrc/big_kernel.cu", "modified", 800, 0, None),  # GitHub gave none
        ),
    )  # fmt: skip


def test_prs_merged_before_the_kept_days_lose_their_patches_and_keep_their_files():
    store = Store(":memory:")
    for number, days_ago in ((1, 200), (2, 91), (3, 89), (4, 1)):
        store.save_pr(diff_of(number, NOW - timedelta(days=days_ago)))
    cutoffs = Cutoffs.at(NOW, 30, 90)
    assert store.prunable(cutoffs).diffs == 2
    pruned = prune(store, cutoffs)
    assert (pruned.diffs, pruned.diff_bytes) == (2, 2 * len("@@ -1 +1 @@\n-a\n+b\n"))
    old, kept = store.get_pr(REPO, 1), store.get_pr(REPO, 3)
    assert old is not None and kept is not None
    assert old.diff_pruned and not kept.diff_pruned
    assert [f.patch for f in old.files] == [None, None]
    assert [(f.filename, f.additions) for f in old.files] == [
        (f.filename, f.additions) for f in kept.files
    ]
    assert kept.files[0].patch
    assert prune(store, cutoffs).nothing  # idempotent


def test_a_pr_stored_again_from_github_has_its_diff_back():
    store = Store(":memory:")
    store.save_pr(diff_of(1, NOW - timedelta(days=200)))
    prune(store, Cutoffs.at(NOW, 30, 90))
    store.save_pr(diff_of(1, NOW - timedelta(days=200)))
    again = store.get_pr(REPO, 1)
    assert again is not None and not again.diff_pruned and again.files[0].patch


def test_diff_days_0_keeps_every_diff():
    store = Store(":memory:")
    store.save_pr(diff_of(1, NOW - timedelta(days=2000)))
    assert prune(store, Cutoffs.at(NOW, 30, 0)).nothing
    assert store.get_pr(REPO, 1).files[0].patch  # type: ignore[union-attr]


def test_old_diffs_are_dropped_batch_by_batch_and_the_search_index_is_untouched(monkeypatch):
    monkeypatch.setattr(upkeep, "BATCH", 4)
    store = Store(":memory:")
    for number in range(1, 11):
        store.save_pr(diff_of(number, NOW - timedelta(days=100 + number)))
    docs = list(store.db["search_docs"].rows)
    assert prune(store, Cutoffs.at(NOW, 30, 90)).diffs == 10
    assert list(store.db["search_docs"].rows) == docs  # no index row was written again
    assert {h.number for h in store.search_prs("scheduler", SearchWhere(), limit=20)} == set(
        range(1, 11)
    )


def test_prdigest_prune_drops_old_diffs_and_a_refresh_reads_them_from_github_again(
    stored_day, github, llm
):
    """The stored day (2026-02-23) is more than 90 days old: its diffs go, its summaries stay;
    the report is still built from the store, and summarizing again fetches each PR again."""
    done = CliRunner().invoke(cli, ["prune", "--no-vacuum"])
    assert done.exit_code == 0, done.output
    assert "Dropped the diffs of 3 PRs merged more than 90 days ago (" in done.stdout
    fetched, prompts = github.count(path_regex=r"/pulls/\d+"), len(llm.chat_requests)

    again = CliRunner().invoke(cli, ["report", "--date", DAY])
    assert again.exit_code == 0, again.output
    assert github.count(path_regex=r"/pulls/\d+") == fetched  # shown from the store
    assert len(llm.chat_requests) == prompts

    refreshed = CliRunner().invoke(cli, ["report", "--date", DAY, "--refresh"])
    assert refreshed.exit_code == 0, refreshed.output
    assert github.count(path_regex=r"/pulls/\d+") > fetched
    assert all("+y_0 = 2" in request_text(r) for r in llm.chat_requests[prompts:])
    store = Store(stored_day.db_path)
    assert not any(store.get_pr(REPO, n).diff_pruned for n in range(1, 4))  # type: ignore[union-attr]
    store.close()


def test_github_failing_to_give_a_pruned_diff_again_costs_that_pr_alone(stored_day, github, llm):
    assert CliRunner().invoke(cli, ["prune", "--no-vacuum"]).exit_code == 0
    github.inject(r"/pulls/2$", 502, times=50)
    result = CliRunner().invoke(cli, ["report", "--date", DAY, "--refresh", "--output", "x.md"])
    assert "Traceback" not in result.output
    text = open("x.md").read()
    assert "**Total Merged PRs:** 3" in text
    assert "Summary unavailable" in text and "GitHub answered 502" in text
    store = Store(stored_day.db_path)
    assert [store.get_pr(REPO, n).diff_pruned for n in (1, 2, 3)] == [False, True, False]  # type: ignore[union-attr]
    store.close()
