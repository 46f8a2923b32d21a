"""Code put under a new `if`: what ran every time now runs only when the condition holds.

A fix often narrows where a step applies: vLLM #35125 moves the permutation of `test_shape`
under `if has_layers_dim:`, so the non-cross-layer case no longer permutes. The diff shows
the step's lines removed and added again one level deeper; the small model read them as
"adds a try-except block". Code can say exactly what happened, and a reviewer's question
follows from it: in the cases where the condition is false, was that step needed?
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import CONDITION_CHARS, ELSE_LINE, IF_LINE, code_hunks, indent_of
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk, Side
from summarizer.line_edits import rows_by_block
from summarizer.wording import in_place

_GUARDED_AT_LEAST = 2  # lines of code: one line re-indented is an edit, not a step
_SHARE = 0.8  # of the removed code lines found again under the new `if`


@dataclass(frozen=True)
class NewGuard:
    """Lines that ran unconditionally and now run only under a new `if condition:`."""

    file: str
    enclosing: str | None
    condition: str
    lines: int  # lines of code now under the condition
    first: str  # the first of them


def guarded_lines(g: NewGuard) -> str:
    """ "the 8 lines starting `try:`" """
    return f"the {g.lines} lines starting `{g.first}`"


def guard_sentence(g: NewGuard) -> str:
    """ "In `f`, the diff puts the 8 lines starting `try:` under a new `if ok:`." """
    return f"{in_place(g.enclosing, g.file)}, the diff puts {guarded_lines(g)} under a new `if {g.condition}:`."


def new_guards(pr: PullRequest) -> list[NewGuard]:
    """Each new `if` of the code that runs (Python) that takes in lines the PR removes from
    its own level, in diff order."""
    return [g for path, hunk in code_hunks(pr) for g in _hunk_guards(path, hunk)]


def _hunk_guards(path: str, hunk: Hunk) -> list[NewGuard]:
    old_rows, new_rows = rows_by_block(hunk.old), rows_by_block(hunk.new)
    found: list[NewGuard] = []
    for block, rows in new_rows.items():
        removed = [hunk.old.lines[r] for r in old_rows.get(block, [])]
        for row in rows:
            m = IF_LINE.match(hunk.new.lines[row])
            if m is None or len(m.group("cond")) > CONDITION_CHARS:
                continue
            indent = len(m.group("indent"))
            body, after = _body(hunk.new, rows, row, indent)
            guarded = _guarded(removed, body, indent)
            if guarded and not ELSE_LINE.match(after):
                owner = line_owner(path, hunk, True, row)
                found.append(NewGuard(path, owner, m.group("cond"), len(guarded), guarded[0]))
    return found



def _body(side: Side, rows: list[int], row: int, indent: int) -> tuple[list[str], str]:
    """The added lines indented under the `if` at `row`, stripped, and the line after them."""
    body: list[str] = []
    for r in rows[rows.index(row) + 1 :]:
        line = side.lines[r]
        if line.strip() and indent_of(line) <= indent:
            return body, line
        body.append(line.strip())
    return body, ""


def _guarded(removed: list[str], body: list[str], indent: int) -> list[str]:
    """The removed code lines, at the `if`'s own level or below it, found again in its body;
    [] unless they are most of what was removed and enough to be a step."""
    code = [line.strip() for line in removed if is_code_line(line) and indent_of(line) >= indent]
    if not any(indent_of(line) == indent for line in removed if is_code_line(line)):
        return []  # nothing ran at the `if`'s own level: no step was put under it
    kept = [line for line in code if line in body]
    return kept if len(kept) >= max(_GUARDED_AT_LEAST, _SHARE * len(code)) else []
