"""A statement taken out of a branch: what ran in one case now runs in every case.

The opposite of putting code under a new `if` (summarizer/guards.py), and as common a fix:
vLLM #34813 moves `hidden_states *= self.embedding_multiplier` out of the `else:` that
embedded `input_ids`, so embeddings a caller passes in are scaled too. The diff shows the line
removed at one depth and added at a shallower one, often rewritten on the way (`x = x * m`
becoming `x *= m`); the small model read it as an in-place edit. A reviewer's question
follows from the branch it left: the cases that took the other way now run it as well, and
did they need it?
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import CONDITION_CHARS, ELSE_LINE, IF_LINE, block_head, code_hunks
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk, Side, indent_of, without_comment
from summarizer.wording import code, in_place

_AUGMENTED = re.compile(
    r"^(?P<name>[\w.\[\]]+)\s*=\s*(?P=name)\s*(?P<op>[-+*/@%]|//)\s*(?P<term>[\w.]+)$"
)
_STATEMENT_CHARS = 80  # a longer statement is not quoted: it would be the sentence


@dataclass(frozen=True)
class Unguarded:
    """A statement that ran under `head` (an `if …:` or `else:` line) and now runs after or
    before it, at the branch's own level."""

    file: str
    enclosing: str | None
    statement: str  # as the PR writes it now
    head: str  # the branch line it left, stripped
    condition: str  # the `if` whose branch it left (for an `else:`, the `if` above it), or ""
    other: str  # for an `else:`, the first statement of the branch above it, or ""
    after: bool = True  # it now stands below the branch it left, not above it
    was: str = ""  # as it stood in the branch, where the PR rewrote it (`x = x * m`)


def unguarded(pr: PullRequest) -> list[Unguarded]:
    """Each statement of the Python code that runs that the PR takes out of an `if` or an
    `else:` to the branch's own level, in diff order."""
    return [u for path, hunk in code_hunks(pr) for u in _hunk_unguarded(path, hunk)]


def _hunk_unguarded(path: str, hunk: Hunk) -> list[Unguarded]:
    found = []
    added = {
        _same(hunk.new.lines[r]): r
        for r in sorted(hunk.new.changed)
        if is_code_line(hunk.new.lines[r])
    }
    for row in sorted(hunk.old.changed):
        line = hunk.old.lines[row]
        new_row = added.get(_same(line)) if is_code_line(line) else None
        if new_row is None or len(line.strip()) > _STATEMENT_CHARS:
            continue
        head = _head(hunk.old, row)
        if head is None or indent_of(hunk.new.lines[new_row]) != indent_of(hunk.old.lines[head]):
            continue
        condition, other = _branch_above(hunk.old, head)
        where = line_owner(path, hunk, True, new_row)
        statement = hunk.new.lines[new_row].strip()
        head_line = hunk.old.lines[head]
        after = any(
            hunk.new.lines[r] == head_line for r in range(new_row) if r not in hunk.new.changed
        )
        was = line.strip() if line.strip() != statement else ""
        found.append(Unguarded(
            path, where, statement, head_line.strip(), condition, other, after, was
        ))  # fmt: skip
    return found


def _code_text(line: str) -> str:
    """A line's code, its comment dropped and its white space squeezed."""
    return " ".join(without_comment(line).split())


def _same(line: str) -> str:
    """A statement as compared: `x = x * m` is `x *= m`, white space aside."""
    text = _code_text(line)
    if m := _AUGMENTED.match(text):
        return f"{m['name']} {m['op']}= {m['term']}"
    return text


def _head(side: Side, row: int) -> int | None:
    """The `if …:` or `else:` line whose block `row` is in, when the hunk shows it."""
    head = block_head(side, row)
    if head is None or head in side.changed:
        return None
    text = side.lines[head]
    return head if IF_LINE.match(text) or ELSE_LINE.match(text) else None


def _branch_above(side: Side, head: int) -> tuple[str, str]:
    """(the condition of the `if` the branch at `head` belongs to, the first statement of the
    branch above it): for an `if` line, its own condition."""
    if m := IF_LINE.match(side.lines[head]):
        return m["cond"], ""
    indent, first = indent_of(side.lines[head]), ""
    for r in range(head - 1, -1, -1):
        text = side.lines[r]
        if not is_code_line(text):
            continue
        if indent_of(text) > indent:
            first = text.strip()
        elif indent_of(text) < indent:
            break
        elif m := IF_LINE.match(text):
            return m["cond"], first
        elif re.match(r"\s*elif\b", text):
            break  # the branch above is one of several
        else:
            return "", ""  # the `else:` of a `for`, `while` or `try`: no `if`/`else` at all
    return "", first


def unguarded_sentence(u: Unguarded) -> str:
    where, said = in_place(u.enclosing, u.file), code(u.statement)
    branch = "its `else:`" if u.head.startswith("else") else f"`{u.head}`"
    if u.head.startswith("if") and len(u.condition) <= CONDITION_CHARS:
        return (
            f"{where}, {said} now runs whether or not {code(u.condition)} holds: it ran only "
            f"under that `if` before, so a case where it does not hold now gets it too."
        )
    if u.head.startswith("else") and u.condition and len(u.condition) <= CONDITION_CHARS:
        return (
            f"{where}, {said} now runs whichever way `if {u.condition}:` goes: it ran only in "
            f"{branch} before, so a case where {code(u.condition)} holds now gets it too."
        )
    if u.head.startswith("else") and u.after and u.other and len(u.other) <= _STATEMENT_CHARS:
        return (
            f"{where}, {said} now runs after the whole `if`/`else`, not only in {branch}: the "
            f"case that runs {code(u.other)} now gets it too.{_in_place_sentence(u)}"
        )
    return f"{where}, {said} now runs outside {branch}, in every case, where it ran only there."


_ALIASED = re.compile(r"^(?P<name>[\w.]+)\s*=\s*(?P<source>[A-Za-z_][\w.]*)$")


def _in_place_sentence(u: Unguarded) -> str:
    """ " `*=` works in place …": `x = x * m` rewritten as `x *= m` where the other case
    makes `x` another name's object (`hidden_states = inputs_embeds`, vLLM #34813): that
    case now changes the object it was given, which a reader found unsaid."""
    alias = _ALIASED.match(u.other)
    augmented = _AUGMENTED.match(_code_text(u.was)) if u.was else None
    if not (alias and augmented and alias["name"] == augmented["name"]):
        return ""
    op, source = f"{augmented['op']}=", alias["source"]
    return (
        f" On a tensor or a list `{op}` works in place: in that case it changes "
        f"{code(source)} itself, where {code(u.was)} made a new object."
    )


def taken_out_sentence(u: Unguarded) -> str:
    """What changed, said as a move out of the branch: "In `f`, `x *= m` moves out of its
    `else:` and now runs after the whole `if`/`else`." A statement rewritten on the way is
    quoted as it stood, then as it stands."""
    where = in_place(u.enclosing, u.file)
    said = f"{code(u.was)}, written as {code(u.statement)}," if u.was else code(u.statement)
    if u.head.startswith("if"):
        return f"{where}, {said} moves out of `{u.head}` and now runs in every case."
    if u.after and (u.condition or u.other):  # an `if`'s `else:`, not a loop's or a `try`'s
        return f"{where}, {said} moves out of its `else:` and now runs after the whole `if`/`else`."
    return ""
