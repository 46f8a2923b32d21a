"""Errors a PR now swallows: a failure that used to surface and now leaves no trace.

`with contextlib.suppress(Exception): self.workspace.destroy()` in a `__del__` (vLLM #33985)
keeps a teardown quiet; it also hides a destroy that failed. A broad `except` whose body only
passes does the same. Narrow ones (`except ImportError: pass`) name the one failure they
expect, and a block that logs or raises still tells someone: neither is this case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import block_rows, code_hunks, indent_of
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk, Side

_BROAD = r"(?:Base)?Exception"
_SUPPRESS = re.compile(rf"^\s*with\s+(?:contextlib\.)?suppress\(\s*{_BROAD}\s*\)\s*:")
_EXCEPT = re.compile(
    rf"^\s*except(?:\s+\(?\s*{_BROAD}\s*\)?(?:\s+as\s+\w+)?)?\s*:\s*(?:#.*)?$"
)
# A body that does nothing about the error: no log, no raise, no fallback value computed.
_SILENT = re.compile(r"^\s*(?:pass|continue|\.\.\.|return(?:\s+None)?)\s*(?:#.*)?$")
_TRY = re.compile(r"^\s*try\s*:")


@dataclass(frozen=True)
class SwallowedError:
    file: str
    enclosing: str | None
    how: str  # the line that swallows: `with contextlib.suppress(Exception):`
    guarded: str  # the first line whose error it swallows, when the hunk shows it


def swallowed_errors(pr: PullRequest) -> list[SwallowedError]:
    """Each broad `suppress` block, or broad `except` that only passes, that the PR adds to
    the Python code that runs (not one it re-indents), in diff order."""
    return [s for path, hunk in code_hunks(pr) for s in _hunk_swallowed(path, hunk)]


def _hunk_swallowed(path: str, hunk: Hunk) -> list[SwallowedError]:
    new = hunk.new
    before = {hunk.old.lines[r].strip() for r in hunk.old.changed}
    found = []
    for row in sorted(new.changed):
        line = new.lines[row]
        if line.strip() in before:
            continue  # there before, moved or re-indented
        if _SUPPRESS.match(line):
            guarded = _first_code(new, block_rows(new, row))
        elif _EXCEPT.match(line) and _only_silent(new, row):
            guarded = _tried(new, row)
        else:
            continue
        owner = line_owner(path, hunk, True, row)
        found.append(SwallowedError(path, owner, line.strip(), guarded))
    return found


def _first_code(side: Side, rows: list[int]) -> str:
    return next((side.lines[r].strip() for r in rows if is_code_line(side.lines[r])), "")


def _only_silent(side: Side, row: int) -> bool:
    """The `except` body the hunk shows is all there is, and it does nothing but go on."""
    body = [r for r in block_rows(side, row) if is_code_line(side.lines[r])]
    ends = not body or body[-1] + 1 < len(side.lines)
    return bool(body) and ends and all(_SILENT.match(side.lines[r]) for r in body)


def _tried(side: Side, row: int) -> str:
    """The first line of the `try` this `except` closes, when the hunk shows it."""
    depth = indent_of(side.lines[row])
    for r in range(row - 1, -1, -1):
        text = side.lines[r]
        if not text.strip() or indent_of(text) > depth:
            continue
        return _first_code(side, block_rows(side, r)) if _TRY.match(text) else ""
    return ""
