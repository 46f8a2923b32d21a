"""What the CLI shows on stderr while the built-in model works: a line as each PR starts, and
while a PR is read, its elapsed seconds against this machine's measured speed.

A newcomer's first summary on two cores takes tens of seconds; without this the terminal
looks hung. Hosted models answer in seconds and keep the plain progress bar.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO, TypeVar

from bot.app.deferred import DeferredSummarizer
from bot.core.models import PRSummary, PullRequest
from bot.digest.service import DigestService
from bot.ports.summarizer import (
    AnswerText,
    AskSource,
    DayCandidate,
    Highlights,
    Revision,
    Summarizer,
    SummaryResult,
)
from bot.store.store import Store

T = TypeVar("T")

RECENT_CALLS = 50  # the speed is the median of this many recent summary calls
TERMINAL_EVERY = 1.0  # seconds between updates of the elapsed line on a terminal
LOG_EVERY = 10.0  # and between lines when stderr is a file or a pipe (cron, CI)
TITLE_WIDTH = 60


def now() -> float:
    return time.monotonic()


async def pause(seconds: float) -> None:
    await asyncio.sleep(seconds)


def is_terminal(stream: TextIO) -> bool:
    return stream.isatty()


def measured_seconds_per_pr(store: Store, model: str) -> float | None:
    """The median seconds of this machine's recent summary calls to `model`; None before the
    first one (the database is this machine's, so are its timings)."""
    seconds = store.recent_call_seconds(model, "summary", RECENT_CALLS)
    return statistics.median(seconds) if seconds else None


def short_title(title: str) -> str:
    # A title is untrusted text: one line, no control characters, and short enough that
    # the line does not wrap on a common terminal.
    text = " ".join("".join(c if c.isprintable() else " " for c in title).split())
    return text if len(text) <= TITLE_WIDTH else text[: TITLE_WIDTH - 1].rstrip() + "…"


@dataclass
class LocalProgress:
    """Progress of the built-in model's summaries; `active` once the summarizer is that model.

    `update(done, total)` is the service's progress callback; it numbers the PRs.
    """

    stream: TextIO
    tty: bool
    active: bool = False
    estimate: float | None = None  # seconds a PR, measured before this run
    done: int = 0
    total: int | None = None
    started: int = 0  # summaries begun this day: the service counts a PR once it is stored
    timed: list[float] = field(default_factory=list)  # this run's PRs, in seconds

    def update(self, done: int, total: int) -> None:
        if done == 0:  # a new day (of a week)
            self.started = 0
        self.done, self.total = done, total

    def __enter__(self) -> LocalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def expected(self) -> float | None:
        if self.estimate is not None:
            return self.estimate
        return statistics.median(self.timed) if self.timed else None

    async def reading(self, pr: PullRequest, work: Awaitable[T]) -> T:
        """Await `work` (one PR's summary), saying which PR it is and how long it is taking."""
        self._line(self.heading(pr))
        self.started += 1
        result, seconds = await self._timed(work, lambda s: self.elapsed(pr.number, s))
        self._measured(pr.number, seconds)
        return result

    async def choosing_highlights(self, work: Awaitable[T]) -> T:
        """Await the day's highlight call: one more wait of the model's, said as such."""
        self._line("Choosing the day's highlights")
        result, _ = await self._timed(work, lambda s: f"highlights: {s:.0f} s")
        return result

    async def _timed(self, work: Awaitable[T], line_at: Callable[[float], str]) -> tuple[T, float]:
        started = now()
        ticker = asyncio.create_task(self._tick(line_at, started))
        try:
            result = await work
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            if self.tty:
                self._write("\r\x1b[K")  # the elapsed line goes; the next heading takes its place
        return result, now() - started

    def heading(self, pr: PullRequest) -> str:
        title = short_title(pr.title)
        if self.total:
            # The PRs before it: those stored (cached ones too) or begun, whichever is ahead.
            index = min(max(self.done, self.started) + 1, self.total)
            return f"Summarizing {index} of {self.total}: #{pr.number} {title}"
        return f"Summarizing #{pr.number} {title}"

    def elapsed(self, number: int, seconds: float) -> str:
        expected = self.expected()
        if expected is None:
            return f"#{number}: {seconds:.0f} s (the first summary measures this machine's speed)"
        if seconds <= expected:
            return f"#{number}: {seconds:.0f} s of about {expected:.0f} s"
        return f"#{number}: {seconds:.0f} s (usually about {expected:.0f} s)"

    async def _tick(self, line_at: Callable[[float], str], started: float) -> None:
        every = TERMINAL_EVERY if self.tty else LOG_EVERY
        while True:
            await pause(every)
            line = line_at(now() - started)
            if self.tty:
                self._write(f"\r{line}\x1b[K")
            else:
                self._line(line)

    def _measured(self, number: int, seconds: float) -> None:
        if self.expected() is None:
            self._line(
                f"#{number} took {seconds:.0f} s: about {seconds:.0f} s a PR on this machine."
            )
        self.timed.append(seconds)

    def _line(self, text: str) -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


class Watched:
    """The built-in model's summarizer, with each PR's summary shown by a LocalProgress."""

    def __init__(self, inner: Summarizer, progress: LocalProgress):
        self.inner = inner
        self.progress = progress

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def prompt_version(self) -> str:
        return self.inner.prompt_version

    @property
    def concurrency(self) -> int:
        return self.inner.concurrency

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        return await self.progress.reading(pr, self.inner.summarize(pr))

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        return await self.inner.revise(pr, current)

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> Highlights:
        work = self.inner.pick_highlights(repo, day, candidates, count)
        return await self.progress.choosing_highlights(work)

    async def answer(self, repo: str, question: str, sources: Sequence[AskSource]) -> AnswerText:
        return await self.inner.answer(repo, question, sources)

    async def aclose(self) -> None:
        await self.inner.aclose()


def watch_local_model(service: DigestService, stream: TextIO | None = None) -> LocalProgress:
    """Progress on `stream` (stderr) for each summary, should the service's summarizer turn
    out to be the built-in model; that model's start-up warning gets the measured speed."""
    out = stream or sys.stderr
    progress = LocalProgress(out, is_terminal(out))
    make = service.summarizer_factory

    def factory() -> Summarizer:
        summarizer = make()  # run on a worker thread: the store read below may block
        if not (isinstance(summarizer, DeferredSummarizer) and summarizer.local):
            return summarizer
        progress.estimate = measured_seconds_per_pr(service.store, summarizer.model)
        summarizer.seconds_per_pr = progress.estimate
        progress.active = True
        return Watched(summarizer, progress)

    service.summarizer_factory = factory
    return progress
