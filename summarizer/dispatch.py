"""A new chain of `if`/`elif` on one value: which value now goes where.

Backend selection is written as a dispatch: vLLM #35010 replaces XPU's `assert
self.is_flash_attn_backend` with `if self.attn_backend == AttentionBackendEnum.FLASH_ATTN:
return self._forward_fa(…)`, an `elif` for `TRITON_ATTN` and one for `TORCH_SDPA`, and an
`else:` that raises `ValueError`. The small model said "The diff changes
`MMEncoderAttention`"; the reader wanted the three routes. They are in the added lines: the
value each branch matches and the call it returns, and what any other value gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import ELSE_LINE, IF_LINE, block_rows, code_hunks
from summarizer.conditions import exit_action
from summarizer.facts import ChangeFacts, is_code_line, line_owner
from summarizer.hunks import Side, indent_of
from summarizer.wording import code, in_place, listed

_CASE = re.compile(r"^(?P<subject>[\w.\[\]\"']+)\s*==\s*(?P<value>[\w.\"']+)$")
_ELIF = re.compile(r"^[ \t]*elif\s+(?P<cond>.+?):\s*(?:#.*)?$")
_ROUTE = re.compile(r"^(?:return\s+)?(?:await\s+)?(?P<call>[A-Za-z_][\w.]*)\(")
_ASSERT = re.compile(r"^\s*assert\s+(?P<cond>[^,]+?)\s*(?:,.*)?$")
_SAID_CHARS = 60  # a longer assertion is not quoted


@dataclass(frozen=True)
class Dispatch:
    file: str
    enclosing: str | None
    subject: str
    routes: tuple[tuple[str, str], ...]  # (value matched, what its branch calls)
    otherwise: str  # what any other value gets: "raises `ValueError`", or ""
    asserted: str  # the assertion the chain takes the place of, or ""


def dispatches(pr: PullRequest, facts: ChangeFacts) -> list[Dispatch]:
    """Each chain the PR adds whole, in a definition that was there, of at least two
    branches that compare one value with `==` and each call something."""
    new = {d.name for d in facts.definitions if d.change == "added"}
    found = []
    for path, hunk in code_hunks(pr):
        for row in sorted(hunk.new.changed):
            chain = _chain(hunk.new, row)
            where = line_owner(path, hunk, True, row)
            if chain and where not in new:
                subject, routes, otherwise = chain
                asserted = _asserted(hunk.old.lines, sorted(hunk.old.changed))
                found.append(Dispatch(path, where, subject, routes, otherwise, asserted))
    return found


def _chain(side: Side, row: int) -> tuple[str, tuple[tuple[str, str], ...], str] | None:
    """(subject, routes, what other values get) of the chain whose `if` is at `row`."""
    first = IF_LINE.match(side.lines[row])
    case = _CASE.match(first["cond"]) if first else None
    if case is None:
        return None
    routes, otherwise, r = [], "", row
    while r is not None and r in side.changed:
        body = [b for b in block_rows(side, r) if is_code_line(side.lines[b])]
        head = side.lines[r]
        if not body or not set(body) <= side.changed:
            return None
        then = side.lines[body[0]].strip()
        if ELSE_LINE.match(head) and not _ELIF.match(head):
            otherwise = exit_action(then)
            break
        matched = _CASE.match((IF_LINE.match(head) or _ELIF.match(head) or {"cond": ""})["cond"])
        route = _ROUTE.match(then)
        if not (matched and route and matched["subject"] == case["subject"]):
            return None
        routes.append((matched["value"], route["call"].removeprefix("self.")))
        r = _next_branch(side, body[-1], indent_of(head))
    return (case["subject"], tuple(routes), otherwise) if len(routes) >= 2 else None


def _next_branch(side: Side, last: int, indent: int) -> int | None:
    """The `elif` or `else:` that follows a branch's block at the same depth, if any."""
    for r in range(last + 1, len(side.lines)):
        text = side.lines[r]
        if is_code_line(text):
            same = indent_of(text) == indent and ELSE_LINE.match(text)
            return r if same else None
    return None


def _asserted(lines: list[str], removed: list[int]) -> str:
    for r in removed:
        if (m := _ASSERT.match(lines[r])) and len(m["cond"]) <= _SAID_CHARS:
            return m["cond"]
    return ""


def dispatch_sentence(d: Dispatch) -> str:
    """ "In `f`, the PR routes on `x`: `A` to `f_a` and `B` to `f_b`; any other value
    raises `ValueError`, where it asserted `ok`." """
    prefix = _shared_prefix([v for v, _ in d.routes])
    routes = listed([f"{code(v.removeprefix(prefix))} to {code(c)}" for v, c in d.routes])
    other = f"; any other value {d.otherwise}" if d.otherwise else ""
    instead = f", where it asserted {code(d.asserted)}" if d.asserted else ""
    return f"{in_place(d.enclosing, d.file)}, the PR routes on {code(d.subject)}: {routes}{other}{instead}."


def _shared_prefix(values: list[str]) -> str:
    """`AttentionBackendEnum.` where every value is a member of it."""
    owners = {v.rsplit(".", 1)[0] for v in values if "." in v}
    return f"{owners.pop()}." if len(owners) == 1 and all("." in v for v in values) else ""


def dispatch_risk_sentence(d: Dispatch) -> str:
    """What a dispatch that replaced an assertion lets through: the other routes, which this
    code never ran before, and what any other value gets."""
    prefix = _shared_prefix([v for v, _ in d.routes])
    routes = listed([f"{code(v.removeprefix(prefix))} now runs {code(c)}" for v, c in d.routes[1:]])
    other = f", and any other value {d.otherwise}" if d.otherwise else ""
    return (
        f"{in_place(d.enclosing, d.file)}, where it asserted {code(d.asserted)}, {routes}{other}: "
        "those paths never ran here before."
    )
