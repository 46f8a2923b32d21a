"""A condition wrapped over several lines, one `and` (or `or`) part a line, with a part added or
dropped: the same question as a one-line condition edited, asked of the lines a formatter wraps.

vLLM #35424 adds one line, `and cfg.parallel_config.pipeline_parallel_size == 1`, to the
chain `enable_allreduce_rms_fusion` returns, and pipeline-parallel runs lose the fusion. The
hunk often starts below the `return (` or `if (` that opens the chain; then only the chain is
known, and the sentence says what the part does to it, which holds whatever uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core.models import PullRequest
from summarizer.brackets import DEPTH, without_strings
from summarizer.code_hunks import code_hunks
from summarizer.conditions import ConditionChange, branch_action, parts_compared
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk, Side

_PART_LINE = re.compile(r"^\s*(?P<op>and|or)\s+(?P<part>.+?)\s*(?:#.*)?$")
_FIRST_LINE = re.compile(r"^\s*(?:(?P<kw>return|if|elif|while)\s*\(?\s*)?(?P<part>.+?)\s*(?:#.*)?$")
_HEAD_LINE = re.compile(r"^\s*(?P<kw>return|if|elif|while)\s*\(\s*$")
_CLOSING = re.compile(r"^\s*\)\s*:?\s*$")


@dataclass
class _Chain:
    first: int  # the row of its first part
    operator: str
    parts: list[str]
    rows: list[int] = field(default_factory=list)
    kw: str = ""  # the `return`, `if` … that opens it, when the hunk shows it
    valid: bool = True


def chains_changed(pr: PullRequest) -> list[ConditionChange]:
    """Each wrapped `and`/`or` chain of the Python code that runs whose parts the PR edits by
    adding or dropping whole lines, in diff order."""
    return [c for path, hunk in code_hunks(pr) for c in _hunk_chains(path, hunk)]


def _hunk_chains(path: str, hunk: Hunk) -> list[ConditionChange]:
    found = []
    olds = {_anchor(hunk.old, c.first): c for c in _chains(hunk.old)}
    for new in _chains(hunk.new):
        old = olds.get(_anchor(hunk.new, new.first))
        if old is None or old.operator != new.operator or old.kw != new.kw:
            continue
        if not (set(new.rows) & hunk.new.changed or set(old.rows) & hunk.old.changed):
            continue
        if change := parts_compared(old.parts, new.parts):
            dropped, added = change
            found.append(ConditionChange(
                path, line_owner(path, hunk, True, new.first), new.operator, dropped, added,
                _action(hunk.new, new), new.kw == "return", chained=not new.kw,
            ))  # fmt: skip
    return found


def _anchor(side: Side, row: int) -> int:
    """The unchanged lines above `row`: the same on both sides for one place of the code."""
    return sum(1 for r in range(row) if r not in side.changed)


def _chains(side: Side) -> list[_Chain]:
    chains: list[_Chain] = []
    previous: int | None = None
    for row, line in enumerate(side.lines):
        if not is_code_line(line):
            continue
        m = _PART_LINE.match(line)
        last = chains[-1] if chains else None
        if m and last and last.rows[-1] == previous:
            last.valid &= m["op"] == last.operator and _balanced(m["part"])
            last.parts.append(_closed(m["part"]))
            last.rows.append(row)
        elif m and previous is not None and not _PART_LINE.match(side.lines[previous]):
            chains.append(_started(side, previous, m["op"], m["part"], row))
        elif m and previous is None:  # the hunk starts inside the chain: its parts from here
            chains.append(_Chain(row, m["op"], [_closed(m["part"])], [row], valid=_balanced(m["part"])))
        previous = row
    return [c for c in chains if c.valid]


def _started(side: Side, first: int, operator: str, part: str, row: int) -> _Chain:
    head = _FIRST_LINE.match(side.lines[first])
    assert head is not None  # a code line always matches
    kw = head["kw"] or ""
    above = next((r for r in range(first - 1, -1, -1) if is_code_line(side.lines[r])), None)
    if not kw and above is not None and (opened := _HEAD_LINE.match(side.lines[above])):
        kw = opened["kw"]
    first_part = head["part"]
    chain = _Chain(first, operator, [first_part, _closed(part)], [first, row], kw)
    chain.valid = _balanced(first_part) and _balanced(part) and not first_part.endswith(":")
    return chain


def _closed(part: str) -> str:
    """The part without the bracket that closes the whole condition after it."""
    stripped = part.rstrip(":").rstrip()
    return stripped[:-1].rstrip() if stripped.endswith(")") and _depth(stripped) < 0 else part


def _balanced(part: str) -> bool:
    return _depth(_closed(part)) == 0


def _depth(text: str) -> int:
    return sum(DEPTH.get(ch, 0) for ch in without_strings(text))


def _action(side: Side, chain: _Chain) -> str:
    """What the branch a wrapped `if` guards does first, read below its closing bracket."""
    if chain.kw not in ("if", "elif", "while"):
        return ""
    below = chain.rows[-1] + 1
    if below < len(side.lines) and _CLOSING.match(side.lines[below]):
        return branch_action(side, below)
    return branch_action(side, chain.rows[-1])
