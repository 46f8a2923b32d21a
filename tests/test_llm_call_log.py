"""Every LLM call is logged in `llm_calls`, answered or not: a summarizer's answer carries the
calls that made it (as llm's `Response` does) and is stored with them in one transaction; a
failure carries those made before it, and they are logged before it goes on."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.summarizer import (
    Highlights,
    LLMCall,
    Revision,
    SummarizeError,
    SummaryResult,
    with_calls,
)
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.summarizers import hosted
from tests.test_day_overview import DAY as BUSY_DAY
from tests.test_headline import PR as HEADLINE_PR

DAY = "2026-02-23"
SECTIONS = SummarySections("w", "t", "p", "k", headline="h")
PR = PullRequest(REPO, 1, "t", f"https://github.com/{REPO}/pull/1", "a", "merged", head_sha="s")


def call(purpose: str = "summary", error: str | None = None) -> LLMCall:
    return LLMCall(
        REPO, 1, "m", "v", purpose, [{"role": "user", "content": "x"}],
        None if error else "{}", error, Usage(10, 5), 20,
    )  # fmt: skip


def logged(store: Store) -> list[tuple[str, str | None]]:
    return [(r["purpose"], r["error"]) for r in store.db["llm_calls"].rows]


@dataclass
class Model:
    """The summarizer port, failing or answering as a test says, with the calls it "made"."""

    failure: BaseException | None = None
    model: str = "m"
    prompt_version: str = "v"
    concurrency: int = 1
    calls: list[LLMCall] = field(default_factory=lambda: [call()])

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        if self.failure is not None:
            raise with_calls(self.failure, self.calls)
        return SummaryResult(ChangeType.TRIVIAL, SECTIONS, 1, 1, calls=tuple(self.calls))

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        if self.failure is not None:
            raise with_calls(self.failure, self.calls)
        result = SummaryResult(ChangeType.TRIVIAL, SECTIONS, 1, 1, calls=tuple(self.calls))
        return Revision(result, changed=False, note="nothing to correct")

    async def pick_highlights(self, repo, day, candidates, count) -> Highlights:
        if self.failure is not None:
            raise with_calls(self.failure, self.calls)
        return Highlights([8, 7, 6], self.calls)

    async def aclose(self) -> None:
        pass


def service(model: Model) -> DigestService:
    store = Store(":memory:")
    store.save_pr(PR)
    return DigestService(store, source_factory=lambda: None, summarizer_factory=lambda: model)


async def test_a_summary_is_stored_with_the_calls_that_made_it():
    digest = service(Model(calls=[call("summary"), call("grounding")]))
    entry = await digest.pr_entry(REPO, 1)
    assert entry.summary is not None
    assert logged(digest.store) == [("summary", None), ("grounding", None)]


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (SummarizeError("the LLM timed out"), "the LLM timed out"),
        (RuntimeError("a bug"), "unexpected error (RuntimeError)"),
    ],
)
async def test_a_failed_summarys_calls_are_logged_too(failure, error):
    digest = service(Model(failure, calls=[call(error="500"), call("repair", error="500")]))
    entry = await digest.pr_entry(REPO, 1)
    assert entry.error == error and entry.summary is None
    assert logged(digest.store) == [("summary", "500"), ("repair", "500")]
    assert digest.store.db["summaries"].count == 0


async def test_the_calls_of_a_summary_cancelled_half_way_are_logged():
    digest = service(Model(asyncio.CancelledError(), calls=[call()]))  # a shutdown, say
    with pytest.raises(asyncio.CancelledError):
        await digest.pr_entry(REPO, 1)
    assert logged(digest.store) == [("summary", None)]


async def test_a_re_checks_calls_are_logged_whether_or_not_it_changed_anything():
    digest = service(Model(calls=[call("revision")]))
    summary = digest.store.save_summary(
        PRSummary(REPO, 1, "s", "v", "m", ChangeType.TRIVIAL, SECTIONS, 1, 1)
    )
    revision = await digest.revise(PR, summary)
    assert not revision.changed and logged(digest.store) == [("revision", None)]


async def test_a_failed_re_checks_calls_are_logged():
    digest = service(Model(SummarizeError("invalid twice"), calls=[call("revision", "bad")]))
    summary = PRSummary(REPO, 1, "s", "v", "m", ChangeType.TRIVIAL, SECTIONS, 1, 1)
    with pytest.raises(SummarizeError):
        await digest.revise(PR, summary)
    assert logged(digest.store) == [("revision", "bad")]


async def test_the_days_ranking_is_stored_with_its_call_and_a_failed_one_is_logged():
    ranked = service(Model(calls=[call("overview")]))
    glance = await ranked.at_a_glance(BUSY_DAY)
    assert glance.overview.picked_by == "model"
    assert logged(ranked.store) == [("overview", None)]
    failed = service(Model(SummarizeError("unusable"), calls=[call("overview", "unusable")]))
    glance = await failed.at_a_glance(BUSY_DAY)
    assert glance.overview.picked_by == "rule"
    assert logged(failed.store) == [("overview", "unusable")]


async def test_the_summarizers_answer_and_its_failure_carry_their_calls(llm):
    summarizer = hosted(llm)
    result = await summarizer.summarize(HEADLINE_PR)
    assert [(c.purpose, c.number, c.error) for c in result.calls] == [("summary", 7, None)]
    assert result.calls[0].messages == llm.chat_requests[0]["messages"]
    llm.script([("content", "not json"), ("content", "still not json")])
    with pytest.raises(SummarizeError) as failed:
        await summarizer.summarize(HEADLINE_PR)
    answered = [(c.purpose, c.response) for c in failed.value.calls]
    assert answered == [("summary", "not json"), ("repair", "still not json")]
    await summarizer.aclose()


def test_a_summary_whose_calls_cannot_be_written_is_not_written_either():
    store = Store(":memory:")
    unwritable = LLMCall(REPO, 1, "m", "v", "summary", [{"x": object()}], "{}", None, Usage(), 1)
    with pytest.raises(TypeError):
        store.save_summary(
            PRSummary(REPO, 1, "s", "v", "m", ChangeType.TRIVIAL, SECTIONS, 1, 1), [unwritable]
        )
    assert store.db["summaries"].count == 0 and store.db["llm_calls"].count == 0


def test_the_endpoints_refusals_are_logged_with_their_error(env, github, llm):
    github.add_prs(REPO, [make_pr(1, f"{DAY} 10:00:00"), make_pr(2, f"{DAY} 09:00:00")])
    llm.script([("status", 400, {}, {"error": {"message": "context too long"}})])
    result = CliRunner().invoke(cli, ["report", "--date", DAY])
    assert result.exit_code == 1  # one PR unavailable, named
    store = Store(Settings.from_env(dotenv=False).db_path)
    rows = list(store.db["llm_calls"].rows_where(order_by="id"))
    failed = [r for r in rows if r["error"]]
    assert len(failed) == 1 and failed[0]["response"] is None
    assert "400" in failed[0]["error"] and json.loads(failed[0]["messages"])
    unlogged = store.db.execute(
        "SELECT number FROM summaries AS s WHERE NOT EXISTS"
        " (SELECT 1 FROM llm_calls AS c WHERE c.number = s.number AND c.error IS NULL)"
    ).fetchall()
    assert unlogged == [] and store.db["summaries"].count == 1
