"""The summarizer port: `summarize(pr)`, `revise(pr, current)`, and `pick_highlights` for a day."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage


class SummarizeError(Exception):
    """A summary could not be produced; the message is one line fit for a report."""


@dataclass(frozen=True)
class SummaryResult:
    change_type: ChangeType
    sections: SummarySections
    files_covered: int
    files_total: int
    usage: Usage = field(default_factory=Usage)
    grounded_fraction: float = 1.0  # share of named identifiers found in the PR
    unverified: tuple[str, ...] = ()  # names the model still used that the PR never mentions
    facts: str = ""  # the change facts the model was given (JSON), stored with the summary


@dataclass(frozen=True)
class Revision:
    """The outcome of re-checking a flagged summary."""

    result: SummaryResult
    changed: bool  # False: the re-check found nothing to correct
    note: str  # one line: what was corrected, or why nothing was


@dataclass(frozen=True)
class LLMCall:
    """One request to the model, logged whether it worked or not."""

    repo: str
    number: int
    model: str
    prompt_version: str
    purpose: str  # "summary", "repair"
    messages: list[dict]
    response: str | None
    error: str | None
    usage: Usage
    duration_ms: int


@dataclass(frozen=True)
class DayCandidate:
    """One PR of a day as the highlight ranking sees it: only stored data, no diff."""

    number: int
    headline: str
    change_type: str  # "SUBSTANTIAL", "TRIVIAL", or "UNKNOWN" when there is no summary
    area: str
    files: int
    lines: int  # additions + deletions


class CallLog(Protocol):
    def __call__(self, call: LLMCall) -> None: ...


class Summarizer(Protocol):
    model: str
    prompt_version: str
    concurrency: int

    async def summarize(self, pr: PullRequest) -> SummaryResult: ...

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision: ...

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> list[int]:
        """The model's `count` most important PRs of the day, best first, as it answered them:
        unchecked (the caller drops numbers that are not candidates). One call, logged with
        purpose "overview" and number 0; raises SummarizeError when there is no usable answer."""

    async def aclose(self) -> None: ...
