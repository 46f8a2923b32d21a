"""Two string literals the PR writes side by side that Python joins with no space between
their words.

A message wrapped over lines is adjacent literals, which Python concatenates as written:
vLLM #35081 turned `"Chunked prefill is not supported for POWER, "` into `"Chunked prefill
is not supported for"` followed by `"RISC-V CPUs; "`, and the log now says "forRISC-V". No
test catches it and a reviewer rarely sees it; code can, when the first piece ends in a
letter or digit, the next starts with one, and there is no comma between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import line_owner
from summarizer.hunks import Side
from summarizer.wording import code, in_place

# A line that is one string and nothing else: a piece of an implicit concatenation.
_PIECE = re.compile(
    r"""^\s*(?P<prefix>[rRuUfF]{0,2})(?P<q>["'])(?P<text>(?:(?!(?P=q))[^\\]|\\.)*)(?P=q)\s*$"""
)
_NEXT = re.compile(r"""^\s*[rRuUfF]{0,2}(?P<q>["'])(?P<text>(?:(?!(?P=q))[^\\]|\\.)*)(?P=q)""")
_WORD_CHARS = 12  # the words either side of the join, as the reader will see them


@dataclass(frozen=True)
class GluedStrings:
    file: str
    enclosing: str | None
    first: str  # the two literals, as written
    second: str
    joined: str  # the words either side of the join, as they now read


def glued_strings(pr: PullRequest) -> list[GluedStrings]:
    """Each pair of adjacent string lines of the PR's Python code that runs, at least one of
    them added, that join two words into one."""
    found = []
    for path, hunk in code_hunks(pr):
        side = hunk.new
        for row, next_row in _adjacent(side):
            if row in side.changed or next_row in side.changed:
                if glued := _glued(side, row, next_row):
                    where = line_owner(path, hunk, True, row)
                    found.append(GluedStrings(path, where, *glued))
    return found


def _adjacent(side: Side) -> list[tuple[int, int]]:
    rows = [r for r, line in enumerate(side.lines) if line.strip()]
    return list(pairwise(rows))


def _glued(side: Side, row: int, next_row: int) -> tuple[str, str, str] | None:
    first, second = _PIECE.match(side.lines[row]), _NEXT.match(side.lines[next_row])
    if not (first and second):
        return None
    a, b = first["text"], second["text"]
    if not (a and b and a[-1].isalnum() and b[0].isalnum()) or " " not in a or "`" in a + b:
        return None  # a piece ending in a space, or a long token split on purpose
    left = re.search(r"\S*$", a[-_WORD_CHARS:])
    right = re.match(r"\S*", b[:_WORD_CHARS])
    joined = (left.group() if left else "") + (right.group() if right else "")
    return side.lines[row].strip(), second.group().strip(), joined


def glued_sentence(g: GluedStrings) -> str:
    return (
        f"{in_place(g.enclosing, g.file)}, the text now reads {code(g.joined)}: Python joins "
        f"{code(g.first)} and {code(g.second)} with no space between them."
    )
