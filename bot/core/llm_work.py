"""A meter of the LLM work a piece of code starts, wherever in its tasks it starts.

Chat commands are limited by the summaries they make, not by how often they are typed: a
`/digest` of a repository that does not exist, or a `/prsummary` of an issue, asks the model
nothing and must cost nothing. The command opens a meter; the digest service ticks it each
time it hands a PR to the summarizer. A context variable carries the meter into the tasks the
service starts (they copy the context they are made in), so no signature changes for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class LLMWork:
    """How many summaries were handed to the model while this meter was open."""

    started: int = 0


_current: ContextVar[LLMWork | None] = ContextVar("prdigest_llm_work", default=None)


def started(count: int = 1) -> None:
    """Count `count` summaries as started (nothing when no meter is open: the CLI, the
    scheduler)."""
    work = _current.get()
    if work is not None:
        work.started += count


@contextmanager
def metered() -> Iterator[LLMWork]:
    """Count the LLM work started inside the block, and in the tasks it starts."""
    work = LLMWork()
    token = _current.set(work)
    try:
        yield work
    finally:
        _current.reset(token)
