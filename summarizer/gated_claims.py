"""A claim that a PR enables what it only gates.

Adding a requirement to the value a predicate returns never turns anything on: vLLM #35250
makes `is_fp4bmm_enabled` also require `on_gfx950()`, so FP4 turns off on MI300X (gfx942),
and the small model wrote "Fixes AMD GPU crash by enabling FP4 operations on gfx950". FP4
was on there before. Where the PR's change to a returned condition is an added `and` part,
a sentence that says it enables something where that part holds is backwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.core.models import PullRequest
from summarizer.conditions import ConditionChange, conditions_changed

_ENABLES = re.compile(r"\benabl(?:e|es|ed|ing)\b|\bturn(?:s|ed|ing)? on\b", re.IGNORECASE)
# Words that say the change narrows: "enabled only on gfx950", "restricts it to", "gated".
_NARROWS = re.compile(
    r"\b(?:only|restrict\w*|limit\w*|gat(?:e|es|ed|ing)|requir\w*|disabl\w*|no longer|"
    r"unless|instead)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z]+\d+\w*|[A-Za-z]{5,}")


def enables_what_it_gates(sentence: str, gates: Sequence[ConditionChange]) -> str:
    """Why `sentence` is backwards, or "": it says the PR enables something where the
    requirement it adds holds, and the PR only adds that requirement (`gates_added`)."""
    if not _ENABLES.search(sentence) or _NARROWS.search(sentence):
        return ""
    lowered = sentence.lower()
    for c in gates:
        part = c.added[0]
        if any(token.lower() in lowered for token in _TOKEN.findall(part)):
            where = f"`{c.enclosing}`" if c.enclosing else "the value returned"
            return (
                f"says the PR enables something where `{part}` holds, but it only adds "
                f"`{part}` as a requirement of {where}: where it does not hold, that now "
                "returns false, and nothing is turned on"
            )
    return ""


def gates_added(pr: PullRequest) -> list[ConditionChange]:
    """The returned conditions the PR only adds an `and` part to."""
    return [
        c for c in conditions_changed(pr)
        if c.returned and c.operator == "and" and c.added and not c.dropped
    ]  # fmt: skip
