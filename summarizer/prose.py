"""Which changed lines of a diff are prose: comments and docstrings, which change no logic.

A PR that rewords a docstring and the comments of a few examples is TRIVIAL however many lines
it touches; one line of logic is not. Python's docstrings span lines, so a line is known to be
inside one only by parsing the fragment around it (tree-sitter, as the facts do). A fragment
may begin inside a docstring, so it is parsed both ways and the reading that parses is kept.
A string assigned to a name is data, not prose: only strings that stand alone count.
"""

from __future__ import annotations

import re
import textwrap
import threading
from pathlib import PurePosixPath

from tree_sitter import Language, Node, Parser

from bot.core.models import ChangedFile
from summarizer.hunks import Hunk, parse_hunks, without_comment

COMMENT_LINE = re.compile(r"^\s*(?:#|//|/\*|\*(?:\s|/|$))")  # `*ptr = x;` is code
# A docstring is triple-quoted; a one-line string alone on its line is a piece of a call's
# argument that the fragment cut off.
_TRIPLE_START = re.compile(rb"""[rRbBuUfF]{0,2}(?:\"\"\"|''')""")
_local = threading.local()  # a Parser is not shared between threads


def _errors(node: Node) -> int:
    return (node.type == "ERROR" or node.is_missing) + sum(_errors(c) for c in node.children)


def _bare_strings(node: Node, shift: int, rows: set[int]) -> None:
    """The rows of triple-quoted strings that stand alone as statements (docstrings); comments
    are known by their line (a comment after code on a line is not prose)."""
    if (
        node.type == "string" and _TRIPLE_START.match(node.text or b"") is not None
        and node.parent is not None
        and node.parent.type == "expression_statement" and node.parent.named_child_count == 1
    ):  # fmt: skip
        rows.update(range(node.start_point[0] - shift, node.end_point[0] - shift + 1))
        return
    for child in node.children:
        _bare_strings(child, shift, rows)


def _inside_docstring(lines: list[str]) -> list[bool]:
    """For each line, whether it lies in a docstring or a comment. A fragment may begin
    inside a docstring: it is read both ways, and the reading that parses is kept."""
    body = textwrap.dedent("\n".join(lines))
    best: tuple[int, set[int]] | None = None
    # Only a fragment with an odd number of triple quotes can begin or end inside a docstring.
    odd = len(re.findall(r'"""|' + "'''", body)) % 2 == 1
    readings = (("", "", 0), ('"""\n', "", 1), ("", '\n"""', 0)) if odd else (("", "", 0),)
    for prefix, suffix, shift in readings:
        source = prefix + body + suffix + "\n"
        tree = _python_parser().parse(source.encode("utf-8", "replace"))
        rows: set[int] = set()
        _bare_strings(tree.root_node, shift, rows)
        errors = _errors(tree.root_node)
        if best is None or errors < best[0]:
            best = (errors, rows)
    assert best is not None
    return [row in best[1] for row in range(len(lines))]


def _python_parser() -> Parser:
    if not hasattr(_local, "parser"):
        import tree_sitter_python

        _local.parser = Parser(Language(tree_sitter_python.language()))
    return _local.parser


def prose_lines(lines: list[str], python: bool) -> list[bool]:
    """For each line of a fragment, whether it is blank, a comment or (Python) inside a
    docstring."""
    # Without a triple quote a fragment can neither hold nor begin inside a docstring: no parse.
    quoted = python and any('"""' in line or "'''" in line for line in lines)
    in_doc = _inside_docstring(lines) if quoted else [False] * len(lines)
    return [not line.strip() or bool(COMMENT_LINE.match(line)) or doc for line, doc in zip(
        lines, in_doc, strict=True
    )]  # fmt: skip


def _prose_rows(lines: list[str], changed: set[int], python: bool, edited: set[int]) -> bool:
    prose = prose_lines(lines, python)
    return all(prose[row] or row in edited for row in changed)


def only_prose(f: ChangedFile) -> bool:
    """Every changed line of the file is blank, a comment, (Python) inside a docstring, or
    changed only in its trailing comment."""
    if not f.patch:
        return False
    python = PurePosixPath(f.filename).suffix in (".py", ".pyi")
    for hunk in parse_hunks(f.patch):
        edited = comment_edits(hunk, python)
        for side, rows in zip((hunk.old, hunk.new), edited, strict=True):
            if not _prose_rows(side.lines, side.changed, python, rows):
                return False
    return True


def comment_edits(hunk: Hunk, python: bool) -> tuple[set[int], set[int]]:
    """The rows of each side of a Python hunk changed only in their trailing comment:
    `json=schema` made `json=schema  # type: ignore[call-arg]` (vLLM #34739, a mypy fix a
    reader found "changes `ResponsesRequest`" of). Each pairs with a row of the other side
    whose code is the same."""
    if not python:
        return set(), set()
    waiting: dict[str, list[int]] = {}
    for row in sorted(hunk.new.changed):
        if code := without_comment(hunk.new.lines[row]):
            waiting.setdefault(code, []).append(row)
    old_rows: set[int] = set()
    new_rows: set[int] = set()
    for row in sorted(hunk.old.changed):
        line = hunk.old.lines[row]
        rows = waiting.get(code) if (code := without_comment(line)) else None
        if rows and hunk.new.lines[rows[0]].strip() != line.strip():
            old_rows.add(row)
            new_rows.add(rows.pop(0))
    return old_rows, new_rows
