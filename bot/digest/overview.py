"""The day at a glance: which PRs to highlight, chosen by the model and checked by code.

The model ranks the day's PRs from stored data only (headline, type, area, size); code keeps
only numbers of this day, at most `HIGHLIGHTS` of them, and tops a short answer up by a rule
(substantial first, then the size of the change). A failed call costs nothing but the call:
the rule picks alone. Every number, count and link the parent shows is computed from the
entries, never read from the model's text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.models import AreaGroup, ChangeType, DigestEntry
from bot.digest.areas import OTHER
from bot.ports.summarizer import DayCandidate

HIGHLIGHTS = 5  # asked for, and the most shown
# More areas than this and the one-PR areas go under "Other": vLLM's one-off title tags
# ([Qwen3.5], [UX], ...) made 15 one-PR areas of a 52-PR day, a list nobody scans.
MAX_AREAS = 10
MIN_HIGHLIGHTS = 3  # fewer valid picks than this are topped up by the rule

PICKED_BY_MODEL = "model"
PICKED_BY_MODEL_AND_RULE = "model+rule"
PICKED_BY_RULE = "rule"


def rule_order(entries: Sequence[DigestEntry]) -> list[DigestEntry]:
    """The rule's ranking: substantial changes first, then by lines changed; ties keep the
    digest's order (newest merge first), so the same day always ranks the same way."""
    position = {e.pr.number: i for i, e in enumerate(entries)}
    return sorted(
        entries,
        key=lambda e: (
            not (e.summary and e.summary.change_type == ChangeType.SUBSTANTIAL),
            -e.size,
            position[e.pr.number],
        ),
    )


@dataclass(frozen=True)
class HighlightRange:
    """How many highlights: asked for `asked`, at least `least` (topped up), at most `most`."""

    asked: int = HIGHLIGHTS
    least: int = MIN_HIGHLIGHTS
    most: int = HIGHLIGHTS


DAY = HighlightRange()
WEEK = HighlightRange(asked=8, least=5, most=10)  # a week's 5-10


def highlight_count(entries: Sequence[DigestEntry], span: HighlightRange = DAY) -> int:
    return min(span.asked, len(entries))


def candidates(entries: Sequence[DigestEntry]) -> list[DayCandidate]:
    """What the model is shown, best-first by the rule (a small model reads only the top)."""
    return [
        DayCandidate(
            number=e.pr.number,
            headline=e.headline,
            change_type=e.summary.change_type.value if e.summary else "UNKNOWN",
            area=e.area,
            files=len(e.pr.files),
            lines=e.size,
        )
        for e in rule_order(entries)
    ]


def inputs_key(shown: Sequence[DayCandidate], model: str, prompt_version: str) -> str:
    """The cache key of a day's ranking: the same candidates and model choose the same."""
    data = json.dumps(
        [model, prompt_version, [list(vars(c).values()) for c in shown]], ensure_ascii=False
    )
    return hashlib.sha256(data.encode()).hexdigest()[:32]


def checked_highlights(
    picked: Sequence[object], entries: Sequence[DigestEntry], span: HighlightRange = DAY
) -> tuple[list[int], str]:
    """The model's picks that are PRs of this day, in its order, without repeats, at most
    `HIGHLIGHTS`; topped up by the rule to at least `MIN_HIGHLIGHTS` (or the whole day, when
    it is smaller). Returns the numbers and how they were picked."""
    day = {e.pr.number for e in entries}
    kept: list[int] = []
    for value in picked:
        if isinstance(value, int) and not isinstance(value, bool) and value in day:
            if value not in kept:
                kept.append(value)
    kept = kept[: span.most]
    wanted = min(span.least, len(entries))
    if len(kept) >= wanted:
        return kept, PICKED_BY_MODEL
    filled = kept + [e.pr.number for e in rule_order(entries) if e.pr.number not in kept]
    return filled[: max(wanted, len(kept))], PICKED_BY_MODEL_AND_RULE if kept else PICKED_BY_RULE


def rule_highlights(entries: Sequence[DigestEntry], span: HighlightRange = DAY) -> list[int]:
    """The highlights when the model could not be asked or did not answer."""
    return [e.pr.number for e in rule_order(entries)[: highlight_count(entries, span)]]


def folded_areas(
    groups: Sequence[AreaGroup], order: Sequence[int], other: str = OTHER
) -> tuple[AreaGroup, ...]:
    """The areas the parent lists: as grouped, or with the one-PR areas folded into "Other"
    when there are more than `MAX_AREAS`. Biggest first, "Other" last, as before; `order` is
    the day's PR numbers, newest merge first, the order each area lists its PRs in."""
    if len(groups) <= MAX_AREAS:
        return tuple(groups)
    kept = [g for g in groups if len(g.numbers) > 1 and g.name != other]
    position = {n: i for i, n in enumerate(order)}
    rest = sorted((n for g in groups if g not in kept for n in g.numbers), key=position.get)
    return (*kept, AreaGroup(other, tuple(rest))) if rest else tuple(kept)
