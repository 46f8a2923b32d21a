"""Errors a PR makes its code raise where it did not: what a reviewer asks about first.

On the dev days 18 of 122 PRs add a `raise` (or a C++ `throw`, a `TORCH_CHECK`) to the code
that runs. A caller that reached that line before now gets an error, which is the risk a
reader of the real report is told ("replaces a hard `RuntimeError`", "now fails fast when the
schema is unsupported"), and the one a small model never names. A raise whose error the PR
also removes somewhere (a check moved, or reworded) is not new, and is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import enclosing_definition, line_owner

_RAISE = re.compile(
    r"^\s*(?:raise\s+(?P<py>[A-Za-z_][\w.]*)"
    r"|throw\s+(?:std::)?(?P<cpp>[A-Za-z_]\w*)"
    r"|(?P<check>TORCH_CHECK|STD_TORCH_CHECK|TORCH_CHECK_NOT_IMPLEMENTED)\s*\()"
)
_ASSERT = re.compile(r"^\s*assert\b")
_CODE_SUFFIXES = frozenset({".py", ".pyi", ".cpp", ".cc", ".cu", ".cuh", ".h", ".hpp"})


@dataclass(frozen=True)
class RaiseAdded:
    file: str
    error: str  # `ValueError`, `std::runtime_error`'s `runtime_error`, or `TORCH_CHECK`
    enclosing: str | None  # the definition it is raised in, when known
    # The innermost one (`AttentionImpl.do_rope_and_kv_cache_update`, not `AttentionImpl`):
    # a raise in a method the PR adds meets no caller that reached it before (vLLM #33443).
    owner: str | None = field(default=None, compare=False)
    # The error's message where the PR writes it as plain strings: the rule it enforces, in
    # the author's words ("`model` should be provided as the first positional argument").
    message: str = field(default="", compare=False)
    # The attribute a `hasattr` check guards, where the code below reads it: the case raised
    # `AttributeError` there before, and now raises this error first (vLLM #34739).
    missing: str = field(default="", compare=False)


def raises_added(pr: PullRequest) -> list[RaiseAdded]:
    """Each error the PR newly raises in the code that runs, by definition, once."""
    found: list[RaiseAdded] = []
    removed_errors: set[str] = set()
    for path, hunk in code_hunks(pr, _CODE_SUFFIXES):
        removed_errors |= {
            _error(m) for r in hunk.old.changed if (m := _RAISE.match(hunk.old.lines[r]))
        }
        # An `assert` the hunk removes stopped those cases already: a raise in its place
        # names the error, it adds no stop (vLLM #35010's backend dispatch).
        if any(_ASSERT.match(hunk.old.lines[r]) for r in hunk.old.changed):
            continue
        for row in sorted(hunk.new.changed):
            if m := _RAISE.match(hunk.new.lines[row]):
                where = enclosing_definition(path, hunk, True, row)
                owner = line_owner(path, hunk, True, row)
                message = _message(hunk.new.lines, row)
                missing = _missing_attribute(hunk.new.lines, row)
                found.append(RaiseAdded(path, _error(m), where, owner, message, missing))
    new = [r for r in found if r.error not in removed_errors]
    return list(dict.fromkeys(new))


_HASATTR = re.compile(r"^\s*if not hasattr\((?P<obj>[\w.]+),\s*[\"'](?P<attr>\w+)[\"']\):\s*$")


def _missing_attribute(lines: list[str], row: int) -> str:
    """`obj.attr` where the raise at `row` sits right under `if not hasattr(obj, "attr"):`
    and a later line of the fragment reads `obj.attr`: without the check, that read raised
    `AttributeError` in the same case."""
    head = next((lines[r] for r in range(row - 1, -1, -1) if lines[r].strip()), "")
    if not (m := _HASATTR.match(head)):
        return ""
    read = f"{m['obj']}.{m['attr']}"
    later = (line for line in lines[row + 1 :] if not _HASATTR.match(line))
    return read if any(re.search(rf"(?<![\w.]){re.escape(read)}\b", x) for x in later) else ""


def _error(m: re.Match[str]) -> str:
    return (m.group("py") or m.group("cpp") or m.group("check") or "").split("(")[0]


_STRING = re.compile(r"""^(?:[rRuU]?"([^"\\{}]*)"|[rRuU]?'([^'\\{}]*)')\s*,?\s*$""")
_OPENED = re.compile(r"\(\s*(?P<rest>.*)$")


def _message(lines: list[str], row: int) -> str:
    """The message of the error raised at `row`: the plain string literals that follow its
    opening bracket, joined as Python joins them; "" where any piece is not one (an
    f-string's fields, a variable, a call)."""
    opened = _OPENED.search(lines[row])
    if opened is None:
        return ""
    rest = opened["rest"].strip()
    if rest.endswith(")"):  # the whole call on its line
        pieces = [rest[:-1]]
    else:
        pieces = [rest] if rest else []
        for line in lines[row + 1 :]:
            text = line.strip()
            if text.startswith(")"):
                break
            pieces.append(text)
        else:
            return ""  # the fragment ends inside the call
    parts = [_STRING.match(p) for p in pieces if p]
    if not parts or not all(parts):
        return ""
    return "".join(m.group(1) if m.group(1) is not None else m.group(2) for m in parts if m)
