"""A branch's condition edited in place: the cases it now lets through, or now stops.

A bug fix is often one `if` line: `vocab_size <= 32000 or vocab_size > 258048` becomes
`vocab_size > 258048` (vLLM #35354), and LoRA on a small vocabulary no longer raises. The line
edit says what the text became; a reviewer asks what that does: which inputs took the branch
before and do not now. When the old and the new condition share all but some of their
top-level `or` (or `and`) parts, code can say exactly which: a part dropped from an `or`
no longer takes the branch on its own, a part added to an `and` now keeps inputs out of it.
The values a condition matches are `or` parts too: `quantization == "modelopt"` becoming
`quantization in ("modelopt", "modelopt_mixed")` (vLLM #35047), or `isinstance(layer,
Attention)` becoming `isinstance(layer, (Attention, MLAAttention))` (#35430), lets one more
kind of input take the branch.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.brackets import DEPTH, split_top_level
from summarizer.code_hunks import C_FAMILY, PYTHON_AND_STUBS, code_hunks
from summarizer.facts import line_owner
from summarizer.hunks import Hunk, Side
from summarizer.line_edits import change_blocks
from summarizer.wording import code, in_place, listed

_PY_BRANCH = re.compile(r"^(?P<indent>\s*)(?P<kw>if|elif|while)\s+(?P<cond>.+?):\s*(?:#.*)?$")
_C_BRANCH = re.compile(
    r"^(?P<indent>\s*)(?:\}\s*else\s+)?(?P<kw>if|while)\s*\((?P<cond>.+)\)\s*\{?\s*$"
)
# A value returned as a condition: `return cls._AITER_ENABLED and on_gfx950()` (vLLM #35250).
_PY_RETURN = re.compile(r"^(?P<indent>\s*)(?P<kw>return)\s+(?P<cond>.+?)\s*(?:#.*)?$")
_C_RETURN = re.compile(r"^(?P<indent>\s*)(?P<kw>return)\s+(?P<cond>.+?);\s*$")
_PY_SUFFIXES = PYTHON_AND_STUBS
_BLOCK_LINES = 6  # changed lines of a block, at most, around a condition edited in place
_C_SUFFIXES = C_FAMILY
# An operator between spaces: `or` in `color` or `x.or_` is no operator.
_OPERATORS = {
    "or": re.compile(r"(?<=\s)(?:or|\|\|)(?=\s)"),
    "and": re.compile(r"(?<=\s)(?:and|&&)(?=\s)"),
}
# What the branch's first line does: said of the inputs that now take it, or no longer do.
_ACTIONS = (
    (re.compile(r"raise\s+([A-Za-z_][\w.]*)|throw\s+(?:std::)?(\w+)"), "raises {}"),
    (re.compile(r"return\b"), "returns early"),
    (re.compile(r"continue\b"), "skips to the next item"),
    (re.compile(r"break\b"), "stops the loop"),
)


@dataclass(frozen=True)
class ConditionChange:
    """An `if` whose condition lost or gained top-level parts, joined by `operator`."""

    file: str
    enclosing: str | None
    operator: str  # "or" or "and": how the parts are joined, on both sides
    dropped: tuple[str, ...]  # parts of the old condition that the new one lacks
    added: tuple[str, ...]  # parts of the new condition that the old one lacked
    action: str  # what the branch does: "raises `ValueError`", "returns early", ""
    returned: bool = False  # the condition is the value a `return` gives, not a branch's
    chained: bool = False  # wrapped, and its head not in the hunk: only the chain is known
    # Of values matched (`x in (a, b)`, `isinstance(x, (A, B))`): what the values are
    # compared with, and the values added or dropped; the parts say `x == b`.
    subject: str = ""
    values: tuple[str, ...] = ()


def conditions_changed(pr: PullRequest) -> list[ConditionChange]:
    """Each branch of the code that runs whose condition the PR edits in place by dropping
    or adding whole `or`/`and` parts, in diff order."""
    found: list[ConditionChange] = []
    for path, hunk in code_hunks(pr, _PY_SUFFIXES | _C_SUFFIXES):
        python = PurePosixPath(path).suffix in _PY_SUFFIXES
        for line in (_PY_BRANCH, _PY_RETURN) if python else (_C_BRANCH, _C_RETURN):
            found.extend(_hunk_changes(path, hunk, line))
    return found


def _hunk_changes(path: str, hunk: Hunk, branch: re.Pattern[str]) -> list[ConditionChange]:
    found: list[ConditionChange] = []
    old_blocks, new_blocks = _branches(hunk.old, branch), _branches(hunk.new, branch)
    for block, (_, old) in old_blocks.items():
        if block not in new_blocks:
            continue
        new_row, new = new_blocks[block]
        if old.group("kw") != new.group("kw") or old.group("indent") != new.group("indent"):
            continue
        returned = new.group("kw") == "return"
        owner = line_owner(path, hunk, True, new_row)
        action = "" if returned else branch_action(hunk.new, new_row)
        if change := _compared(old.group("cond"), new.group("cond")):
            operator, dropped, added = change
            found.append(ConditionChange(path, owner, operator, dropped, added, action, returned))
        elif matched := values_compared(old.group("cond"), new.group("cond")):
            subject, dropped, added, values = matched
            found.append(ConditionChange(
                path, owner, "or", dropped, added, action, returned, subject=subject,
                values=values,
            ))  # fmt: skip
    return found


def _branches(side: Side, branch: re.Pattern[str]) -> dict[int, tuple[int, re.Match[str]]]:
    """The first changed branch line of each change block of at most `_BLOCK_LINES` lines,
    by block: in a longer block the code around the branch was rewritten too, and two `if`
    lines of it need not be one condition edited."""
    blocks = change_blocks(side)
    sizes = Counter(blocks.values())
    found: dict[int, tuple[int, re.Match[str]]] = {}
    for row, block in blocks.items():
        if block in found or sizes[block] > _BLOCK_LINES:
            continue
        if m := branch.match(side.lines[row]):
            found[block] = (row, m)
    return found


def _compared(old: str, new: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """The operator both conditions are joined by, and the parts dropped and added; None
    when the two do not share a part (a rewrite) or differ in no whole part."""
    for operator in ("or", "and"):
        old_parts, new_parts = _parts(old, operator), _parts(new, operator)
        if old_parts is None or new_parts is None:
            continue
        if change := parts_compared(old_parts, new_parts):
            return operator, *change
    return None


_COMPARED = re.compile(r"^(?P<subject>[\w.\[\]\"'()]+?)\s*(?P<op>==|\bin\b)\s*(?P<values>.+)$")
_ISINSTANCE = re.compile(r"^isinstance\(\s*(?P<subject>[\w.]+)\s*,\s*(?P<values>.+)\)$")
_COMMA = re.compile(r",")


def values_compared(
    old: str, new: str
) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """A whole condition that matches a value (or a type) against a set, with values only
    added or only dropped: what is compared, the parts dropped and added (`x == v`,
    `isinstance(x, T)`), and the values themselves; None otherwise."""
    before, after = _matched(old), _matched(new)
    if before is None or after is None or before[:2] != after[:2]:
        return None
    kind, subject = before[:2]
    change = parts_compared(list(before[2]), list(after[2]))
    if change is None:
        return None
    dropped, added = change
    part = "isinstance({s}, {v})" if kind == "isinstance" else "{s} == {v}"
    return (
        subject,
        tuple(part.format(s=subject, v=v) for v in dropped),
        tuple(part.format(s=subject, v=v) for v in added),
        dropped or added,
    )


def _matched(condition: str) -> tuple[str, str, tuple[str, ...]] | None:
    """("isinstance" or "value", what is compared, the values it may match)."""
    text = _unwrapped(condition.strip())
    if m := _ISINSTANCE.match(text):
        kind, subject, values = "isinstance", m.group("subject"), m.group("values")
    elif (m := _COMPARED.match(text)) and not _top_level(text, _OPERATORS["or"]):
        if _top_level(text, _OPERATORS["and"]):
            return None
        kind, subject, values = "value", m.group("subject"), m.group("values")
        if m.group("op") == "in" and not values.strip().startswith(("(", "[", "{")):
            return None  # `x in some_list`: the values are not in the line
        if m.group("op") == "==":
            values = f"({values})"
    else:
        return None
    inner = values.strip()
    if inner[:1] in "([{" and _depth_ok(inner[1:-1]) and inner[-1:] in ")]}":
        inner = inner[1:-1]
    items = tuple(v.strip() for v in split_top_level(inner, _COMMA) if v.strip())
    return (kind, subject, items) if items else None


def parts_compared(
    old_parts: list[str], new_parts: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The parts dropped and the parts added, when the two lists share a part and differ
    only by dropping or only by adding whole parts."""
    if len(old_parts) + len(new_parts) < 3:
        return None
    dropped = tuple(p for p in old_parts if p not in new_parts)
    added = tuple(p for p in new_parts if p not in old_parts)
    shared = len(old_parts) - len(dropped)
    if shared and (dropped or added) and not (dropped and added):
        return dropped, added
    return None


def _parts(condition: str, operator: str) -> list[str] | None:
    """The condition's top-level parts joined by `operator` (never cut inside brackets or
    strings), or None where the other operator also joins parts at the top level: there
    precedence, not the text, decides what a part is."""
    text = _unwrapped(condition.strip())
    words, other = _OPERATORS[operator], _OPERATORS["and" if operator == "or" else "or"]
    if _top_level(text, other):
        return None
    return [_unwrapped(p.strip()) for p in split_top_level(text, words)]


def _unwrapped(text: str) -> str:
    while text.startswith("(") and text.endswith(")") and _depth_ok(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _depth_ok(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += DEPTH.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _top_level(text: str, words: re.Pattern[str]) -> bool:
    return len(split_top_level(text, words)) > 1


def branch_action(side: Side, row: int) -> str:
    """What the branch does first, read from the next non-blank line below it."""
    for line in side.lines[row + 1 : row + 3]:
        if line.strip():
            return exit_action(line)
    return ""


def exit_action(line: str) -> str:
    """What a statement that leaves does: "raises `ValueError`", "returns early", "skips to
    the next item", "stops the loop"; "" for one that does not leave."""
    for pattern, said in _ACTIONS:
        if m := pattern.match(line.strip()):
            error = next((g for g in m.groups() if g), "") if m.groups() else ""
            return said.format(f"`{error}`") if error else said.split(" {")[0]
    return ""


def condition_edit_sentence(c: ConditionChange, also: tuple[str, ...] = ()) -> str:
    """What the PR does to the condition, for "what changed": "In `f`, `on_gfx950()` is added
    to the `and` chain it returns." The risk says which cases it moves. `also` names other
    definitions where the PR makes the same edit. "" for values matched:
    summarizer/listed_items.py says those."""
    if c.values:
        return ""
    parts = listed([code(p) for p in (c.added or c.dropped)])
    verb = ("is" if len(c.added or c.dropped) == 1 else "are") + (
        " added to" if c.added else " dropped from"
    )
    each = "each" if also else "it"
    if c.returned:
        target = f"the `{c.operator}` chain {each} returns"
    elif c.chained:
        target = f"an `{c.operator}` chain"
    elif c.action:
        target = f"the condition of the branch that {c.action}"
    else:
        target = "the condition of a branch"
    where = f"In {listed([code(n) for n in (c.enclosing, *also)])}" if also else in_place(
        c.enclosing, c.file
    )
    return f"{where}, {parts} {verb} {target}."
