"""The hunks of the code that runs: the diff every reader of changed code lines starts from.

Tests, docs and CI change no behaviour a caller meets, so the readers of raises, conditions,
caches, orderings and call arguments each read only the other files, of the languages they
understand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.facts import is_code_line
from summarizer.file_kinds import is_support_file
from summarizer.hunks import Hunk, Side, indent_of, parse_hunks

PYTHON = frozenset({".py"})
PYTHON_AND_STUBS = frozenset({".py", ".pyi"})
C_FAMILY = frozenset({".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp"})
# A `def` line, async or not: where a definition starts or is re-signed.
DEF_LINE = re.compile(r"\s*(?:async\s+)?def\s")
# An `if` line of Python, and the `else` or `elif` that can follow its block.
IF_LINE = re.compile(r"^(?P<indent>[ \t]*)if\s+(?P<cond>.+?):\s*(?:#.*)?$")
ELSE_LINE = re.compile(r"^[ \t]*(?:else|elif\b.*):\s*(?:#.*)?$")
CONDITION_CHARS = 80  # a longer condition is not quoted: it would be the sentence


def code_hunks(pr: PullRequest, suffixes: frozenset[str] = PYTHON) -> Iterator[tuple[str, Hunk]]:
    """(path, hunk) for each hunk of the PR's files of code that runs whose name ends in one
    of `suffixes`, in diff order."""
    return file_hunks(
        pr, lambda path: not is_support_file(path) and PurePosixPath(path).suffix in suffixes
    )


def file_hunks(
    pr: PullRequest, keep: Callable[[str], bool] = lambda _: True
) -> Iterator[tuple[str, Hunk]]:
    """(path, hunk) for each hunk of the PR's files whose path `keep` keeps, in diff order."""
    for f in pr.files:
        if keep(f.filename):
            yield from ((f.filename, hunk) for hunk in parse_hunks(f.patch or ""))


def if_condition(side: Side, row: int) -> str:
    """The condition of the `if` whose block the line is in, when the hunk shows it."""
    head = block_head(side, row)
    m = IF_LINE.match(side.lines[head]) if head is not None else None
    return m["cond"] if m and len(m["cond"]) <= CONDITION_CHARS else ""


def block_head(side: Side, row: int) -> int | None:
    """The row of the line whose block the line at `row` is in (an `if …:`, an `else:`, a
    `def`): the first code line above it indented less; None where the fragment starts
    inside that block. The way up from a line, as `block_rows` is the way down."""
    depth = indent_of(side.lines[row])
    for r in range(row - 1, -1, -1):
        if is_code_line(side.lines[r]) and indent_of(side.lines[r]) < depth:
            return r
    return None


def block_rows(side: Side, row: int) -> list[int]:
    """The rows of the block the line at `row` opens (a `def`, a `with`, an `except`): those
    below it up to the first non-blank line indented no deeper, or the end of the hunk."""
    rows = []
    for r in range(row + 1, len(side.lines)):
        text = side.lines[r]
        if text.strip() and indent_of(text) <= indent_of(side.lines[row]):
            break
        rows.append(r)
    return rows


def swaps_by_file(pr: PullRequest, old: str, new: str) -> dict[str, int]:
    """Per file, how many times `old` gives way to `new`: in each hunk, its removed lines that
    hold `old` paired with its added lines that hold `new`. The facts keep a dozen edits of a
    PR, and group only identical lines, so a count read from them says too few places
    (vLLM #34651 swaps `isinstance(tokenizer, MistralTokenizer)` on four different lines)."""
    counts: dict[str, int] = {}
    for path, h in file_hunks(pr):
        n = min(
            sum(old in h.old.lines[r] and new not in h.old.lines[r] for r in h.old.changed),
            sum(new in h.new.lines[r] and old not in h.new.lines[r] for r in h.new.changed),
        )
        if n:
            counts[path] = counts.get(path, 0) + n
    return counts
