"""The summarizer port: one method, `summarize(pr)`."""

from __future__ import annotations

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


class CallLog(Protocol):
    def __call__(self, call: LLMCall) -> None: ...


class Summarizer(Protocol):
    model: str
    prompt_version: str
    concurrency: int

    async def summarize(self, pr: PullRequest) -> SummaryResult: ...

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision: ...

    async def aclose(self) -> None: ...
