"""A new `if` block in code that was there: the case the PR now handles, and what it does.

Most fixes add a case: vLLM #35230 returns `None, model_output` from the reasoning parser
when `not self.thinking_enabled`; #34906 registers `w13_bias` and `w2_bias` when
`self.moe.has_bias`. The small model tells these as "adds support for bias" and names neither
the condition nor what runs under it, which is what a reviewer reads the fix for. Both are in
the added lines, so code can say them exactly.

Only a block added whole, inside a definition that was there before (in a new function
every `if` is new, and the function is the news) or at a module's top level. An `else` or
`elif` added after it is most often one statement rewritten, and leaves the block out, except
a plain `else:` that holds the code the `if` took the place of: the old way, kept for the other
case (#34140 reads an audio's length from the processed arrays when it has them, and as
before otherwise). Lines the PR removes elsewhere and adds back
under the `if` are a guard (summarizer/guards.py), and an `if` line the PR removes too is a
move or an edited condition (summarizer/ordering.py, summarizer/conditions.py).
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.call_arguments import LITERAL
from summarizer.code_hunks import (
    CONDITION_CHARS,
    DEF_LINE,
    ELSE_LINE,
    IF_LINE,
    block_rows,
    code_hunks,
    indent_of,
)
from summarizer.conditions import exit_action
from summarizer.facts import ChangeFacts, is_code_line, line_owner
from summarizer.file_kinds import is_tooling_file
from summarizer.hunks import AUGMENTED, Hunk, Side, assigns
from summarizer.line_edits import change_blocks, rows_by_block
from summarizer.log_calls import LOG_LINE
from summarizer.wording import code, in_place, listed

_STATEMENTS = 6  # statements right under the `if`, at most: more is a feature of its own
_BODY_LINES = 30  # and lines under it in all
_VALUE_CHARS = 40  # a returned value longer than this is not quoted
_NOT_A_CASE = re.compile(r"^(?:TYPE_CHECKING|typing\.TYPE_CHECKING|__name__\s*==.*)$")
_RETURN = re.compile(r"return\b\s*(?P<value>.*)$")
_LOG = LOG_LINE
_ASSIGN = re.compile(
    r"^(?P<targets>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*(?::[^=]+)?=(?!=)"
)
# A call, or the context manager a `with` enters (vLLM #33810's `unittest.mock.patch`).
_CALL = re.compile(r"^(?:await\s+|(?:async\s+)?with\s+)?(?P<name>[A-Za-z_][\w.]*)\(")
_DEFINES = re.compile(r"\s*(?:async\s+)?(?:def|class)\s+(?P<name>\w+)")
_SAID_AT_MOST = 3  # names under "sets" and "calls", together
_KEPT_SHARE = 0.8  # of the replaced code lines found again under an added `else:`
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class NewBranch:
    """An `if` block the PR adds whole to a definition it did not add."""

    file: str
    enclosing: str | None
    condition: str
    action: str  # "returns `None`", "raises `ValueError`", "sets `a` and `b`", ...
    exits: bool  # the block ends the call, the loop step or the loop: a new early exit
    lines: tuple[str, ...] = ()  # the `if` line and the statements under it, stripped
    # The code right below the block was there before: for an exit, what that case skips now.
    skips_old: bool = False
    replaces: str = ""  # the code line the PR removes where it adds the `if`, if any
    # The code the `if` took the place of, now under its added `else:`: its lines, stripped.
    otherwise: tuple[str, ...] = ()
    # Of a block that is one assignment to a plain name: the name, its value, and the line
    # above the `if` that gave the name its value before, if the hunk shows one.
    target: str = ""
    value: str = ""
    overrides: str = ""

    def says(self, line: str) -> bool:
        """The line, added on its own, is one this sentence already tells."""
        return line.strip() in self.lines


def new_branches(pr: PullRequest, facts: ChangeFacts) -> list[NewBranch]:
    """Each new `if` block of the code that runs (Python) with something to say of it: the
    library's before its scripts', early exits before the rest, else in diff order."""
    added = {d.name for d in facts.of("added")}
    hunks = list(code_hunks(pr))
    removed = {line.strip() for _, hunk in hunks for line in _removed_lines(hunk)}
    found = [
        b
        for path, hunk in hunks
        if _status(pr, path) == "modified"
        for b in _hunk_branches(path, hunk, removed)
        if _in_old_code(b, added)
    ]
    found = list(dict.fromkeys(found))  # the same case added in two places of one definition
    return sorted(found, key=lambda b: (is_tooling_file(b.file), not b.exits))


def _in_old_code(b: NewBranch, added: set[str]) -> bool:
    """The block is in a definition the PR did not add (or at a module's top level)."""
    if not b.enclosing:
        return True  # `_hunk_branches` keeps an `if` with no definition only at the top level
    return b.enclosing not in added and b.enclosing.split(".")[-1] not in added


def _status(pr: PullRequest, path: str) -> str:
    return next((f.status for f in pr.files if f.filename == path), "")


def _removed_lines(hunk: Hunk) -> list[str]:
    return [hunk.old.lines[r] for r in sorted(hunk.old.changed)]


def _hunk_branches(path: str, hunk: Hunk, removed: set[str]) -> list[NewBranch]:
    side, found, inside = hunk.new, [], set()
    old_blocks, new_blocks = rows_by_block(hunk.old), change_blocks(side)
    for row in sorted(side.changed):
        m = IF_LINE.match(side.lines[row])
        if m is None or row in inside or side.lines[row].strip() in removed:
            continue
        replaced = [hunk.old.lines[r] for r in old_blocks.get(new_blocks[row], [])]
        if any(IF_LINE.match(line) for line in replaced):
            continue  # an `if` in the lines it replaces: a condition edited, not a new case
        condition = m.group("cond").strip()
        if len(condition) > CONDITION_CHARS or _NOT_A_CASE.match(condition):
            continue
        # An `if` at column 0 is the module's own, whatever definition ends above it.
        owner = line_owner(path, hunk, True, row) if m.group("indent") else None
        if owner is None and m.group("indent"):
            continue  # inside a definition the hunk does not name
        rows = block_rows(side, row)
        body, otherwise = _added_block(side, rows, replaced)
        if body and len(removed.intersection(body)) * 2 < len(body):  # else code put back
            inside.update(rows)  # an `if` in it is part of this case
            if branch := _branch(path, owner, side, row, rows, body, otherwise, replaced):
                found.append(branch)
    return found


def _branch(
    path: str,
    owner: str | None,
    side: Side,
    row: int,
    rows: list[int],
    body: list[str],
    otherwise: tuple[str, ...],
    replaced: list[str],
) -> NewBranch | None:
    action, exits = _action(body)
    if not action:
        return None
    condition = IF_LINE.match(side.lines[row]).group("cond").strip()  # type: ignore[union-attr]
    lines = (side.lines[row].strip(), *body)
    # `block_rows` ends where a non-blank line comes: the code below the block.
    old = rows[-1] + 1 not in side.changed or bool(otherwise)
    # Code kept under the `else:` was not replaced: it still runs, in the other case.
    instead = "" if otherwise else next((x.strip() for x in replaced if is_code_line(x)), "")
    target, value = _assignment(body)
    overrides = _set_above(side, row, target) if target else ""
    return NewBranch(
        path, owner, condition, action, exits, lines, old, instead, otherwise, target, value,
        overrides,
    )  # fmt: skip


def _assignment(body: list[str]) -> tuple[str, str]:
    """(name, value) of a block that is one assignment to a plain name or attribute."""
    if len(body) != 1 or not (m := _ASSIGN.match(body[0])) or "," in m.group("targets"):
        return "", ""
    return m.group("targets").strip(), body[0][m.end() :].strip()


def _set_above(side: Side, row: int, name: str) -> str:
    """The nearest line above `row`, within its definition, that assigns `name`."""
    sets_name = assigns(name)
    for line in reversed(side.lines[:row]):
        if DEF_LINE.match(line):
            return ""
        if sets_name.match(line):
            return line.strip()
    return ""


def _added_block(side: Side, rows: list[int], replaced: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """The code lines of the block of `rows` under an `if`, when all of it is added and it is
    short enough to be one case, and the old code under the `else:` added after it, if any;
    ([], ()) when an `else` or `elif` that holds other code follows it."""
    if not rows or rows[-1] + 1 >= len(side.lines):
        return [], ()  # the hunk ends inside the block, or at its end: what follows is unseen
    if any(r not in side.changed for r in rows if side.lines[r].strip()):
        return [], ()
    otherwise: tuple[str, ...] = ()
    if ELSE_LINE.match(side.lines[rows[-1] + 1]):
        otherwise = _old_code_kept(side, rows[-1] + 1, replaced)
        if not otherwise:
            return [], ()
    lines = [side.lines[r] for r in rows if is_code_line(side.lines[r])]
    if not lines or len(lines) > _BODY_LINES:
        return [], ()
    starts = _statement_starts(lines)
    if sum(indent_of(line) == indent_of(lines[0]) for line in starts) > _STATEMENTS:
        return [], ()
    return [line.strip() for line in _run_when_entered(starts)], otherwise


def _run_when_entered(lines: list[str]) -> list[str]:
    """The lines without the bodies of the functions and classes they define: those run only
    when called, not when the branch is entered (vLLM #33810's mock sets `head_size` as its own
    local)."""
    kept: list[str] = []
    inside: int | None = None  # the indent of the `def` or `class` whose body is skipped
    for line in lines:
        if inside is not None and indent_of(line) > inside:
            continue
        inside = indent_of(line) if _DEFINES.match(line) else None
        kept.append(line)
    return kept


def _old_code_kept(side: Side, row: int, replaced: list[str]) -> tuple[str, ...]:
    """The code lines under the plain `else:` added at `row` when they are the code lines the
    `if` took the place of (most of them, and little else); else ()."""
    if row not in side.changed or side.lines[row].strip() != "else:":
        return ()
    under = [side.lines[r] for r in block_rows(side, row)]
    body = [line.strip() for line in under if is_code_line(line)]
    old = [line.strip() for line in replaced if is_code_line(line)]
    kept = [line for line in old if line in body]
    if not old or len(kept) < _KEPT_SHARE * max(len(old), len(body)):
        return ()
    return tuple(kept)


def _statement_starts(lines: list[str]) -> list[str]:
    """The lines that start a statement: not those inside a call's brackets (`dtype=x,`)."""
    return [line for i, line in enumerate(lines) if not unclosed("\n".join(lines[:i]))]


def _action(body: list[str]) -> tuple[str, bool]:
    """What the block does, said from its statements (nested ones too): an exit if its first
    statement is one, else the names it sets and the functions it calls."""
    first = body[0]
    if m := _RETURN.match(first):  # said with its value, where short enough to quote
        value = m.group("value").strip()
        short = value and len(value) <= _VALUE_CHARS
        return (f"returns {code(value)}" if short else "returns early"), True
    if left := exit_action(first):
        return left, True
    return _effects(body), False


def _effects(body: list[str]) -> str:
    sets: list[str] = []
    calls: list[str] = []
    defines: list[str] = []
    logs, value, assignments = "", "", 0
    for line in body:
        if m := _LOG.match(line):
            logs = logs or f"logs {'a warning' if 'warn' in m.group(1) else 'a message'}"
        elif m := _ASSIGN.match(line):
            sets += [t.strip() for t in m.group("targets").split(",")]
            value, assignments = line[m.end() :].strip(), assignments + 1
        elif m := _DEFINES.match(line):
            defines.append(m.group("name"))
        elif (m := _CALL.match(line)) and m.group("name") not in _BUILTINS:
            calls.append(m.group("name"))
    # An attribute set outlives the call; a local is often only a step towards it.
    sets = sorted(dict.fromkeys(sets), key=lambda n: "." not in n)[:_SAID_AT_MOST]
    calls = list(dict.fromkeys(calls))[: max(0, _SAID_AT_MOST - len(sets))]
    if len(sets) == 1 and len(body) == 1:  # one assignment: its value says what it does
        if value and len(value) <= _VALUE_CHARS and not unclosed(value):
            return f"sets {code(sets[0])} to {code(value)}"
        if m := _CALL.match(value):
            return f"sets {code(sets[0])} from a call to {code(m.group('name'))}"
    said_sets = f"sets {listed([code(n) for n in sets])}" if sets else ""
    literal = LITERAL.fullmatch(value) and len(value) <= _VALUE_CHARS
    # `x = 0` then `x += n` does not leave `x` at the literal.
    changed_again = sets and any(
        re.match(rf"\s*{re.escape(sets[0])}\s*{AUGMENTED}", line) for line in body
    )
    if assignments == 1 and len(sets) == 1 and literal and not changed_again:
        # The value a fallback sets is what it falls back to (vLLM #33724's backend).
        said_sets = f"sets {code(sets[0])} to {code(value)}"
    parts = [
        f"defines {listed([code(n) for n in defines])}" if defines else "",
        said_sets,
        f"calls {listed([code(n) for n in calls])}" if calls else "",
        logs,
    ]
    said = [p for p in parts if p]
    return ", and ".join([", ".join(said[:-1]), said[-1]]) if len(said) > 1 else "".join(said)


def branch_sentence(b: NewBranch) -> str:
    """ "In `f`, a new check returns `None` when `x is None`." or "In `f`, new code runs
    when `flag`: it sets `a` and `b`." """
    where = in_place(b.enclosing, b.file)
    if b.exits and b.replaces.startswith("assert "):
        instead = f"in place of {code(b.replaces)}"
        return f"{where}, a new check {b.action} when {code(b.condition)}, {instead}."
    if b.exits:
        return f"{where}, a new check {b.action} when {code(b.condition)}{_else(b)}."
    return f"{where}, new code runs when {code(b.condition)}: it {b.action}{_else(b)}."


def _else(b: NewBranch) -> str:
    """ "; otherwise `enable_hf_transfer()` runs as before" for code kept under the `else:`."""
    if not b.otherwise:
        return ""
    if len(b.otherwise) == 1:
        return f"; otherwise {code(b.otherwise[0])} runs as before"
    return f"; otherwise the {len(b.otherwise)} lines starting {code(b.otherwise[0])} run as before"
