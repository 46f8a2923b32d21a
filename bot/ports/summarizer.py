"""The summarizer port: `summarize(pr)`, `revise(pr, current)`, `pick_highlights` for a day, and
`answer` for a question about stored PRs.

Every answer carries the LLM calls that made it (`calls`), and so does every failure
(`SummarizeError.calls`, `calls_of` for any other error): whoever keeps the answer logs them
with it, as llm's `Response.log_to_db` does. The summarizer itself never writes anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage


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
    created_at: datetime | None = None  # when it was made; None: when it is written


class SummarizeError(Exception):
    """A summary could not be produced; the message is one line fit for a report, and
    `calls` the requests made before it failed (logged like any others)."""

    def __init__(self, message: str, calls: Iterable[LLMCall] = ()):
        super().__init__(message)
        self.calls = tuple(calls)


# The attribute that carries a failure's calls on an error the summarizer did not expect.
_CALLS = "llm_calls"


def with_calls(exc: BaseException, calls: Iterable[LLMCall]) -> BaseException:
    """`exc` carrying the calls made before it stopped the work (a SummarizeError raised
    further down keeps those it has and gets the rest)."""
    calls = tuple(calls)
    if isinstance(exc, SummarizeError):
        exc.calls = calls
    else:
        setattr(exc, _CALLS, calls)
    return exc


def calls_of(exc: BaseException) -> tuple[LLMCall, ...]:
    """The calls a failed piece of summarizer work made, to be logged."""
    if isinstance(exc, SummarizeError):
        return exc.calls
    return tuple(getattr(exc, _CALLS, ()))


@dataclass(frozen=True)
class SummaryWriter:
    """The model and prompt version that write new summaries now. A stored summary they did
    not write is still shown (`prdigest summary` names its model), never reused to spare a
    call; see `SummaryTables.current_summary`, the one cache rule."""

    model: str
    prompt_version: str

    def wrote(self, summary: PRSummary) -> bool:
        return (summary.model, summary.prompt_version) == (self.model, self.prompt_version)


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
    # The requests that made it, stored with it; not part of its value (equality ignores them).
    calls: tuple[LLMCall, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Revision:
    """The outcome of re-checking a flagged summary."""

    result: SummaryResult
    changed: bool  # False: the re-check found nothing to correct
    note: str  # one line: what was corrected, or why nothing was


class Highlights(list[int]):
    """The model's ranking of a day, as it answered it: a list of PR numbers (compared as
    one), and the call that made it."""

    def __init__(self, numbers: Iterable[int] = (), calls: Iterable[LLMCall] = ()):
        super().__init__(numbers)
        self.calls = tuple(calls)


@dataclass(frozen=True)
class DayCandidate:
    """One PR of a day as the highlight ranking sees it: only stored data, no diff."""

    number: int
    headline: str
    change_type: str  # "SUBSTANTIAL", "TRIVIAL", or "UNKNOWN" when there is no summary
    area: str
    files: int
    lines: int  # additions + deletions


@dataclass(frozen=True)
class AskSource:
    """One stored PR an answer may cite, as the model reads it: only stored data."""

    number: int
    day: str  # merged, in the asker's zone
    title: str
    headline: str
    text: str  # the summary's four sections


class AnswerText(str):
    """The model's answer to a question about stored PRs, as it wrote it: unchecked (the
    caller drops citations of PRs it was not given), and the call that made it."""

    calls: tuple[LLMCall, ...]

    def __new__(cls, text: str = "", calls: Iterable[LLMCall] = ()) -> AnswerText:
        answer = super().__new__(cls, text)
        answer.calls = tuple(calls)
        return answer


class Summarizer(Protocol):
    model: str
    prompt_version: str
    concurrency: int

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        """The PR's summary, with its calls; raises SummarizeError (with its calls) when the
        model gives no usable answer."""

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision: ...

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> Highlights:
        """The model's `count` most important PRs of the day, best first, as it answered them:
        unchecked (the caller drops numbers that are not candidates). One call, with purpose
        "overview" and number 0; raises SummarizeError when there is no usable answer."""

    async def answer(self, repo: str, question: str, sources: Sequence[AskSource]) -> AnswerText:
        """An answer to `question` from `sources` in a few sentences, citing them as `#N`:
        unchecked. One call, with purpose "ask" and number 0; raises SummarizeError when
        there is no usable answer."""

    async def aclose(self) -> None: ...
