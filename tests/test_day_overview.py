"""The day's highlights: chosen by the model, checked by code, cached with the day.

The summarizer here is a stand-in for our own port (`bot.ports.summarizer.Summarizer`), so
each test says exactly what "the model" answers; the real client against a local server is
covered in tests/test_highlight_call.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.core.day_window import day_window
from bot.core.models import (
    ChangedFile,
    ChangeType,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    SummarySections,
)
from bot.digest.overview import checked_highlights, rule_highlights, rule_order
from bot.digest.service import DigestService
from bot.ports.summarizer import Highlights, SummarizeError
from bot.store.store import Store

WINDOW = day_window(date(2026, 2, 26), "UTC")


@dataclass
class Ranker:
    """The port's day ranking, answering what a test tells it to."""

    answer: list | Exception
    model: str = "m"
    prompt_version: str = "2"
    concurrency: int = 1
    calls: list[tuple[int, int]] = field(default_factory=list)  # (candidates shown, count)

    async def pick_highlights(self, repo, day, candidates, count):
        self.calls.append((len(candidates), count))
        if isinstance(self.answer, Exception):
            raise self.answer
        return Highlights(self.answer)

    async def aclose(self) -> None:
        pass


def entry(number: int, *, substantial: bool, lines: int) -> DigestEntry:
    pr = PullRequest(
        repo="o/r", number=number, title=f"[Kernel] change {number}",
        url=f"https://github.com/o/r/pull/{number}", author=f"dev{number % 3}", state="merged",
        merged_at=datetime(2026, 2, 26, 12, tzinfo=UTC) - timedelta(minutes=number),
        files=(ChangedFile("csrc/a.cu", additions=lines),),
    )  # fmt: skip
    kind = ChangeType.SUBSTANTIAL if substantial else ChangeType.TRIVIAL
    summary = PRSummary(
        repo="o/r", number=number, revision_sha="s", prompt_version="2", model="m",
        change_type=kind, sections=SummarySections("a" * 20, "b" * 20, "c" * 20, "d" * 20,
                                                   headline=f"Makes thing {number} faster"),
        files_covered=1, files_total=1,
    )  # fmt: skip
    return DigestEntry(pr, summary)


# 8 PRs: 1-4 substantial (4 the biggest), 5-8 trivial (8 the biggest of all)
ENTRIES = [entry(n, substantial=n <= 4, lines=n * 10) for n in range(1, 9)]
DAY = Digest("o/r", "r", WINDOW, tuple(ENTRIES))


def service(store: Store, ranker: Ranker) -> DigestService:
    return DigestService(store, source_factory=lambda: None, summarizer_factory=lambda: ranker)


@pytest.fixture
def store():
    return Store(":memory:")


def test_the_rule_ranks_substantial_changes_first_then_by_lines_changed():
    assert [e.pr.number for e in rule_order(ENTRIES)] == [4, 3, 2, 1, 8, 7, 6, 5]
    assert rule_highlights(ENTRIES) == [4, 3, 2, 1, 8]


def test_numbers_the_model_invents_are_dropped_and_the_rule_fills_in():
    assert checked_highlights([99, 3, "7", 3, 12345, True], ENTRIES) == ([3, 4, 2], "model+rule")


def test_a_model_answer_of_three_to_five_real_prs_is_kept_in_its_order():
    assert checked_highlights([6, 2, 8], ENTRIES) == ([6, 2, 8], "model")
    assert checked_highlights([6, 2, 8, 1, 5, 7, 3], ENTRIES) == ([6, 2, 8, 1, 5], "model")


def test_an_answer_with_no_real_pr_is_the_rule_alone():
    assert checked_highlights([100, 200], ENTRIES) == ([4, 3, 2], "rule")


async def test_the_overview_is_one_call_and_a_rerun_makes_none(store):
    ranker = Ranker([7, 1, 42, 3])  # 42 is not a PR of the day
    first = await service(store, ranker).at_a_glance(DAY)
    assert first.overview.highlights == (7, 1, 3) and first.overview.picked_by == "model"
    assert ranker.calls == [(8, 5)]
    again = await service(store, ranker).at_a_glance(DAY)  # a fresh process, same store
    assert again.overview == first.overview and len(ranker.calls) == 1


async def test_too_few_picks_are_topped_up_by_the_rule(store):
    glance = await service(store, Ranker([5])).at_a_glance(DAY)
    assert glance.overview.highlights == (5, 4, 3)
    assert glance.overview.picked_by == "model+rule"


async def test_a_failed_overview_call_still_gives_highlights_by_the_rule(store):
    ranker = Ranker(SummarizeError("the LLM timed out"))
    glance = await service(store, ranker).at_a_glance(DAY)
    assert glance.overview.highlights == (4, 3, 2, 1, 8)
    assert glance.overview.picked_by == "rule"


async def test_a_small_day_needs_no_call_every_pr_is_a_highlight(store):
    ranker = Ranker([1])
    small = Digest("o/r", "r", WINDOW, tuple(ENTRIES[:3]))
    glance = await service(store, ranker).at_a_glance(small)
    assert glance.overview.highlights == (3, 2, 1) and ranker.calls == []


async def test_every_pr_is_in_exactly_one_area_and_the_counts_add_up(store):
    glance = await service(store, Ranker([1, 2, 3])).at_a_glance(DAY)
    numbers = [n for area in glance.overview.areas for n in area.numbers]
    assert sorted(numbers) == sorted(e.pr.number for e in ENTRIES)
    assert all(e.area for e in glance.entries)
