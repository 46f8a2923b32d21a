"""What a function the PR keeps now returns or yields: the exits it takes out and puts in.

A fix often changes a function's answer by where it returns, not by a line edited in place.
vLLM #33839 takes out `return True` under `if threshold is not None and input_tensor.nbytes >=
threshold:` and puts in `return tensor_size <= lower_bound or tensor_size >= upper_bound` under
`if custom_ar_range is not None:`; #34142 yields each weight once, before its bias, where it
yielded a matching one twice. Read as lines removed and added, a small model said neither ("to
use custom_AR for mid-range sizes and symm_mem for small tensors", backwards). Quoted in
order, each with the `if` it stands under, they are the change as the diff has it.

An exit rewritten under the same `if` it stood under is a line edited in place, which the
edits say; a new `if` that returns is a new case, which new_branches says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.code_hunks import CONDITION_CHARS, DEF_LINE, block_head, code_hunks
from summarizer.facts import ChangeFacts, line_owner
from summarizer.hunks import Side, indent_of
from summarizer.wording import code, in_place, listed

_EXIT = re.compile(r"\s*(?:return|yield)\b")
_IF = re.compile(r"(if|elif)\s+(.+):$")
# Blocks that run what they hold in every case that reaches them.
_UNCONDITIONAL = re.compile(r"(?:async\s+)?(?:def|for|while|with)\s.*:$|try:$")
_STATEMENT_CHARS = 90  # a longer exit is not quoted: it would be the sentence
_EXITS = 3  # exits on a side, at most: more is a rewrite of the function
_LINES = 12  # lines one exit may span: a call's arguments, one a line
# An exit that returns or yields one call: `return f(` and its name, up to the bracket.
_CALLED = re.compile(r"((?:return|yield)\s+[\w.]+(?:\(\))?[\w.]*)\(.*\)$")


@dataclass(frozen=True)
class Case:
    """An `if` (or `elif`) an exit stands under, or the `else:` of one."""

    test: str  # the condition as the line writes it
    holds: bool = True  # False for the `else:` of `if test:`
    keyword: str = "if"

    def said(self) -> str:
        line = f"`{self.keyword} {self.test}:`"
        return line if self.holds else f"the `else:` of {line}"


@dataclass(frozen=True)
class Exit:
    """A `return` or `yield` statement, whole, and the cases it stands under, outermost
    first, as far up as the hunk shows them."""

    statement: str
    cases: tuple[Case, ...] = ()

    def said(self) -> str:
        under = f" (under {self.cases[-1].said()})" if self.cases else ""
        return f"{code(self.statement)}{under}"


@dataclass(frozen=True)
class ChangedExits:
    """The exits of one function that the PR takes out, and those it puts in, in order."""

    file: str
    function: str
    removed: tuple[Exit, ...]
    added: tuple[Exit, ...]

    def statements(self) -> list[str]:
        return [e.statement for e in (*self.removed, *self.added)]


def changed_exits(pr: PullRequest, facts: ChangeFacts) -> list[ChangedExits]:
    """The functions of the Python code that runs, kept by the PR, whose exits it changes
    other than in place, in diff order."""
    new_or_gone = {d.name for d in (*facts.of("added"), *facts.of("removed"))}
    found: dict[tuple[str, str], tuple[list[Exit | None], list[Exit | None]]] = {}
    for path, hunk in code_hunks(pr):
        for new, side in ((False, hunk.old), (True, hunk.new)):
            for row, exit_ in _exits(side):
                owner = line_owner(path, hunk, new, row)
                if owner and owner not in new_or_gone:
                    found.setdefault((path, owner), ([], []))[new].append(exit_)
    return [
        ChangedExits(path, owner, tuple(filter(None, old)), tuple(filter(None, new)))
        for (path, owner), (old, new) in found.items()
        if None not in old and None not in new and _changed_other_than_in_place(old, new)
    ]


def _exits(side: Side) -> Iterator[tuple[int, Exit | None]]:
    """Each whole exit statement the side changes, with its row; None for one that cannot
    be quoted whole (its lines run past the hunk, or past `_STATEMENT_CHARS` and it is no
    call to name) or whose case is not shown: its function's exits are not said then."""
    for row in sorted(side.changed):
        if not _EXIT.match(side.lines[row]):
            continue
        parts = [side.lines[row].strip()]
        # The lines that close it may be unchanged: a call's `)` the PR keeps (vLLM #35368).
        while unclosed(" ".join(parts)) and len(parts) < _LINES and row + len(parts) < len(side.lines):
            parts.append(side.lines[row + len(parts)].strip())
        statement = _elided(re.sub(r"([(\[{]) | ([)\]}])", r"\1\2", " ".join(parts)))
        cases = _cases(side, row)
        if unclosed(statement) or len(statement) > _STATEMENT_CHARS or cases is None:
            yield row, None
        else:
            yield row, Exit(statement, cases)


def _elided(statement: str) -> str:
    """A call too long to quote, by its name: `return super().embed_input_ids(…)` (vLLM
    #35368's new return, over seven lines of keyword arguments)."""
    if len(statement) <= _STATEMENT_CHARS or unclosed(statement):
        return statement
    m = _CALLED.match(statement)
    return f"{m[1]}(…)" if m and len(m[1]) < _STATEMENT_CHARS else statement


def _cases(side: Side, row: int) -> tuple[Case, ...] | None:
    """The `if`, `elif` and `else:` blocks the exit at `row` is in, outermost first, up to
    its function or as far as the hunk shows; () when its own block is a function's or a
    loop's, which runs it whatever the case; None when the hunk does not show its own case,
    or a case is too long to quote: then which case the exit is for is unknown."""
    cases: list[Case] = []
    head = block_head(side, row)
    while head is not None:
        line = _code_of(side, head)
        if line == "else:":
            above = _branch_above(side, head)
            m = _IF.match(_code_of(side, above))
            if not m or above is None:
                return None
            cases.append(Case(m[2], holds=False, keyword=m[1]))
            head = block_head(side, above)
        elif m := _IF.match(line):
            cases.append(Case(m[2], keyword=m[1]))
            head = block_head(side, head)
        elif _UNCONDITIONAL.match(line):
            if DEF_LINE.match(line):
                break  # the function's own body: no case above it applies
            head = block_head(side, head)
        else:
            return None
    else:
        if not cases and block_head(side, row) is None:
            return None  # the exit's own block starts above the hunk
    return tuple(reversed(cases))


def _code_of(side: Side, row: int | None) -> str:
    """The line at `row`, stripped of its comment; "" for no row, or one too long to quote."""
    line = re.sub(r"\s*#.*$", "", side.lines[row].strip()) if row is not None else ""
    return line if len(line) <= CONDITION_CHARS else ""


def _branch_above(side: Side, row: int) -> int | None:
    """The `if` or `elif` line an `else:` at `row` follows: the first line above it at its
    depth."""
    depth = indent_of(side.lines[row])
    for r in range(row - 1, -1, -1):
        text = side.lines[r]
        if text.strip() and indent_of(text) <= depth:
            return r if indent_of(text) == depth else None
    return None


def _changed_other_than_in_place(old: list[Exit | None], new: list[Exit | None]) -> bool:
    """Both sides have exits, few enough to quote, and they differ by more than a rewrite of
    each under the `if` it stood under."""
    if not (old and new) or len(old) > _EXITS or len(new) > _EXITS:
        return False
    if old == new:
        return False  # the same exits, moved together: nothing any caller meets changes
    in_place = len(old) == len(new) and all(
        a and b and a.cases == b.cases for a, b in zip(old, new, strict=True)
    )
    return not in_place


def exits_sentence(c: ChangedExits) -> str:
    """ "In `f`, the PR takes out `return True` (under `if x:`); in its place it puts
    `return y` (under `if z:`)." """
    its = "their" if len(c.removed) > 1 else "its"
    order = ", in that order" if len(c.added) > 1 else ""
    return (
        f"{in_place(c.function, c.file)}, the PR takes out {listed([e.said() for e in c.removed])}"
        f"; in {its} place it puts {listed([e.said() for e in c.added])}{order}."
    )


def exits_risk(c: ChangedExits) -> str:
    """What a caller of the function now gets, case by case: where a case it kept returns
    another value, where a case inside it still returns the old one, where a new case
    returns, where an old case no longer does; and a value a generator yielded twice in one
    case (vLLM #34142's weight), said alone: it is the bug."""
    verb = "yields" if any(e.statement.startswith("yield") for e in c.added) else "returns"
    past = "yielded" if verb == "yields" else "returned"
    twice = [
        f"{_where(k, now=False)}it yielded {code(item)} twice; it now yields it once"
        for k, item in sorted(_yielded_twice(c.removed) - _yielded_twice(c.added))
    ]
    if twice:
        return f"{in_place(c.function, c.file)}, {'; '.join(twice)}."
    old = {e.cases: e for e in c.removed}
    new = {e.cases: e for e in c.added}
    changed, still, added = [], [], []
    for k, e in new.items():
        outer = next((k[:n] for n in range(len(k) - 1, -1, -1) if k[:n] in old), None)
        if k in old and old[k].statement != e.statement:
            changed.append(f"{_where(k)}it now {verb} {_value(e)} where it {past} {_value(old[k])}")
        elif k not in old and outer is not None and old[outer].statement == e.statement:
            still.append(f"{_where(k[len(outer):], also=True)}it still {verb} {_value(e)}")
        elif k not in old:
            added.append(f"{_where(k)}it now {verb} {_value(e)}, a case it did not have")
    gone = [
        f"{_where(k, now=False)}it {past} {_value(e)}, a case the PR takes out"
        for k, e in old.items() if not any(n[: len(k)] == k for n in new)
    ]  # fmt: skip
    said = [*changed, *still, *added, *gone][:_EXITS]
    return f"{in_place(c.function, c.file)}, {'; '.join(said)}." if said else ""


def _where(cases: tuple[Case, ...], now: bool = True, also: bool = False) -> str:
    """ "where `a` and `b` hold, ", "where `a` does not hold, "; "" of no case."""
    held = [f"`{c.test}`" for c in cases if c.holds]
    not_held = [f"`{c.test}`" for c in cases if not c.holds]
    also_ = "also " if also else ""
    parts = []
    if held:
        verb = ("holds" if now else "held") if len(held) == 1 else ("hold" if now else "held")
        parts.append(f"{' and '.join(held)} {also_}{verb}")
    if not_held:
        parts.append(f"{' and '.join(not_held)} {'does' if now else 'did'} not {also_}hold")
    return f"where {', and '.join(parts)}, " if parts else ""


def _value(e: Exit) -> str:
    """What the exit gives: `x` of `return x`; each item of `xs` of `yield from xs`."""
    value = re.sub(r"^(?:return|yield)\b\s*", "", e.statement)
    if value.startswith("from "):
        return f"each item of {code(value[5:].strip())}"
    return code(value) if value else "`None`"


def _yielded_twice(exits: tuple[Exit, ...]) -> set[tuple[tuple[Case, ...], str]]:
    """(cases, item) for each item a generator yields both in a case and in every case: in
    that case it comes twice. `yield from [a, b]` yields `a` and `b`."""
    items: dict[tuple[Case, ...], set[str]] = {}
    for e in exits:
        value = re.sub(r"^yield\b\s*", "", e.statement) if e.statement.startswith("yield") else ""
        listed_items = re.fullmatch(r"from \[\((.+)\)\]", value)
        parts = re.split(r"\)\s*,\s*\(", listed_items[1]) if listed_items else [value]
        items.setdefault(e.cases, set()).update(p.strip("() ") for p in parts if p)
    always = items.get((), set())
    return {(k, item) for k, found in items.items() if k for item in found & always}
