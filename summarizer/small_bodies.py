"""What a function the PR adds does, where its whole body is a statement or two.

"The diff adds `enable_xet_high_performance`" names the function and leaves its point unsaid:
vLLM #35098's new function sets `huggingface_hub.constants.HF_XET_HIGH_PERFORMANCE = True` only
when the user has not set the variable, which a reader of the summary asked for. A body this
short says itself better than a model would, so code quotes it, beside the name the summary
already gives: `is_applicable_for_range` "returns `compile_range.end <= self.max_token_num`".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import ChangeFacts, line_owner, short_name
from summarizer.hunks import Hunk, indent_of
from summarizer.prose import COMMENT_LINE, prose_lines
from summarizer.wording import code

_STATEMENT_CHARS = 80  # a longer statement is not quoted: it would be the sentence
_SAID = 2  # bodies said, at most
# A `def` whose signature is one line: its body starts on the next.
_ONE_LINE_DEF = re.compile(r"\s*(?:async\s+)?def\s+\w+\s*\(.*\)[^:]*:\s*(?:#.*)?$")
_RETURN = re.compile(r"return\s+(.+)$")
_ASSIGN = re.compile(r"([\w.\[\]\"']+)\s*=(?!=)\s*(.+)$")
_CASE = re.compile(r"(if|for)\s+(.+):$")


@dataclass(frozen=True)
class SmallBody:
    """A function the PR adds whose body is one statement, or one under an `if` or a `for`."""

    file: str
    name: str  # as the facts name it: `Class.method` in a class
    statements: tuple[str, ...]  # the body's code lines, stripped, docstring left out

    def sentence(self) -> str:
        """ "The new `f` returns `x`.", "The new `g` sets `a` to `b` when `c`." """
        return f"The new {code(self.name)} {_does(self.statements)}."


def small_bodies(pr: PullRequest, facts: ChangeFacts) -> list[SmallBody]:
    """The functions the PR adds to the code that runs whose whole body it shows and is
    short enough to quote, in diff order."""
    added = {d.name for d in facts.of("added") if d.kind in ("function", "method")}
    found = []
    for path, hunk in code_hunks(pr):
        for row in sorted(hunk.new.changed):
            if not _ONE_LINE_DEF.match(hunk.new.lines[row]):
                continue
            name = line_owner(path, hunk, True, row + 1) if row + 1 < len(hunk.new.lines) else None
            if name in added and (body := _body(hunk, row)):
                found.append(SmallBody(path, name, body))
    return found


def bodies_sentence(pr: PullRequest, facts: ChangeFacts, what: str) -> str:
    """What the first new short functions the text names do, those it does not quote."""
    said = [
        b.sentence() for b in small_bodies(pr, facts)
        if re.search(rf"`(?:[\w.]*\.)?{re.escape(short_name(b.name))}(?:\(\))?`", what)
        and not any(s in what for s in b.statements)
    ]  # fmt: skip
    return " ".join(said[:_SAID])


def _body(hunk: Hunk, row: int) -> tuple[str, ...]:
    """The code lines of the body under the `def` at `row`, when the hunk shows all of it as
    added and it is one statement, or one under an `if` or a `for`; else ()."""
    side = hunk.new
    prose = prose_lines(side.lines, True)
    depth = indent_of(side.lines[row])
    body: list[str] = []
    for r in range(row + 1, len(side.lines)):
        text = side.lines[r]
        if text.strip() and indent_of(text) <= depth:
            break
        if not text.strip() or prose[r] or COMMENT_LINE.match(text):
            continue
        if r not in side.changed or len(text.strip()) > _STATEMENT_CHARS:
            return ()
        body.append(re.sub(r"\s+#.*$", "", text.strip()))
    else:
        return ()  # the hunk ends inside the body: more of it may follow
    one = len(body) == 1 and not body[0].endswith(":")
    under_case = len(body) == 2 and bool(_CASE.match(body[0])) and not body[1].endswith(":")
    return tuple(body) if one or under_case else ()


def _does(statements: tuple[str, ...]) -> str:
    """ "returns `x`", "sets `a` to `b`", "runs `f()`", each with "when `c`" or "for each
    `x in xs`" where the statement stands under an `if` or a `for`."""
    *case, statement = statements
    if m := _RETURN.match(statement):
        did = f"returns {code(m[1])}"
    elif m := _ASSIGN.match(statement):
        did = f"sets {code(m[1])} to {code(m[2])}"
    else:
        did = f"runs {code(statement)}"
    if not case:
        return did
    kind, head = _CASE.match(case[0]).groups()  # type: ignore[union-attr]
    return f"{did} when {code(head)}" if kind == "if" else f"{did} for each {code(head)}"
