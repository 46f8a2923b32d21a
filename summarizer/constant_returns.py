"""A value returned that was computed and is now a constant: the cases it used to tell apart.

`return not moe_parallel_config.is_sequence_parallel` becomes `return True` (vLLM #34087), and
FlashInfer is now enabled under sequence parallelism too, which the TODO above the line says
its fp8 kernels do not support. The line edit shows the text; a reviewer asks who gets a
different answer now: every case where the old expression was not that constant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import C_FAMILY, PYTHON_AND_STUBS, code_hunks
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk
from summarizer.line_edits import rows_by_block

_RETURN = re.compile(r"^\s*return\s+(?P<value>.+?)\s*;?\s*(?:#.*|//.*)?$")
_CONSTANT = re.compile(r"True|False|true|false")
_LITERAL = re.compile(r"None|nullptr|True|False|true|false|-?[\d.]+\w*|([\"']).*\1")
# An expression that is a truth value: negated, compared, joined, or a predicate's name.
_BOOLEAN = re.compile(
    r"^(?:not\s|!)|\s(?:and|or|is|in|==|!=|<=|>=|<|>|&&|\|\|)\s"
    r"|(?:^|[.\s(])(?:is|has|can|should|supports?|use|enable[ds]?)_\w*\(?[^()]*\)?$"
)


@dataclass(frozen=True)
class ConstantReturn:
    """A `return <expression>` replaced in place by `return True` (or `False`)."""

    file: str
    enclosing: str | None
    old: str  # the expression returned before
    new: str  # the constant returned now
    boolean: bool  # the old expression was a truth value: the cases it was the other one


def constant_returns(pr: PullRequest) -> list[ConstantReturn]:
    """Each return of the code that runs (Python, C++) whose computed value the PR replaces
    with a boolean constant, the only change of its block, in diff order."""
    return [c for path, hunk in code_hunks(pr, PYTHON_AND_STUBS | C_FAMILY) for c in _hunk_returns(path, hunk)]


def _hunk_returns(path: str, hunk: Hunk) -> list[ConstantReturn]:
    olds, news = rows_by_block(hunk.old, is_code_line), rows_by_block(hunk.new, is_code_line)
    found = []
    for block, new_rows in news.items():
        old_rows = olds.get(block, [])
        if len(old_rows) != 1 or len(new_rows) != 1:
            continue
        old = _RETURN.match(hunk.old.lines[old_rows[0]])
        new = _RETURN.match(hunk.new.lines[new_rows[0]])
        if not (old and new and _CONSTANT.fullmatch(new["value"])):
            continue
        if _LITERAL.fullmatch(old["value"]):
            continue  # one constant for another: the line edit says it all
        value = old["value"]
        owner = line_owner(path, hunk, True, new_rows[0])
        found.append(ConstantReturn(path, owner, value, new["value"], bool(_BOOLEAN.search(value))))
    return found

