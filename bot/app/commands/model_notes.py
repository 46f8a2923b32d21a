"""Which model wrote a summary, said on stderr when it is not the model configured now.

A stored summary is shown as stored, whichever model wrote it: after a switch of model (from
an API model to the built-in one, say) the reader is told, and how to have it written again.
"""

from __future__ import annotations

from collections import Counter

from bot.app.deferred import Identity
from bot.core.models import DayWindow, PRSummary
from bot.store.store import Store


def written_by(model: str, prompt_version: str) -> str:
    return f"{model} (prompt {prompt_version})"


def is_configured(summary: PRSummary, configured: Identity | None) -> bool:
    """Written by the model and prompt that would write it now (or no LLM is configured)."""
    return configured is None or configured.writer.wrote(summary)


def summary_line(number: int, summary: PRSummary, configured: Identity | None) -> str:
    """`prdigest summary`'s line on stderr for a stored summary: who wrote it, and the way
    to redo it when that is not the configured model."""
    by = written_by(summary.model, summary.prompt_version)
    if is_configured(summary, configured):
        return f"#{number} was summarized earlier by {by}."
    now = written_by(configured.model, configured.prompt_version)  # type: ignore[union-attr]
    return (
        f"note: #{number} was summarized by {by}; the configured model is {now}: "
        "run with --refresh to redo it"
    )


def day_line(store: Store, repo: str, window: DayWindow, configured: Identity | None) -> str | None:
    """`prdigest report`'s line for a stored day whose summaries another model wrote: the
    report keeps only the configured model's, so those PRs are summarized again (a slow
    wait on the built-in model, which should not come as a surprise). None otherwise."""
    numbers = store.get_day(repo, window) if configured is not None else None
    others: Counter[str] = Counter()
    for number in numbers or ():
        pr = store.get_pr(repo, number)
        current = store.current_summary(pr, configured.writer) if pr and configured else None
        if current is not None and not current.up_to_date:  # a digest writes it again
            others[written_by(current.summary.model, current.summary.prompt_version)] += 1
    if not others:
        return None
    count = sum(others.values())
    by = ", ".join(name for name, _ in others.most_common())
    now = written_by(configured.model, configured.prompt_version)  # type: ignore[union-attr]
    return (
        f"note: {count} of the {len(numbers or ())} PRs of {window.day} were summarized by "
        f"{by}; the configured model is {now}: summarizing {'it' if count == 1 else 'them'} "
        "again"
    )
