"""Lines a diff changes in place: the same statement with one part replaced.

Many bug fixes are a handful of such lines: `len(self.output_token_ids)` becomes
`self.num_output_tokens()`, an assertion on `"56088"` becomes one that also accepts
`"56,088"`. Read as a removed line and an added line, a small model tells them backwards ("removes
the assertion on 56088") or not at all. Paired here token by token, each is one exact fact:
the part that was there and the part that replaced it, quoted as the diff has them, so the
model reads the mechanism first and code can write it into the summary.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from summarizer.hunks import indent_of


@dataclass(frozen=True)
class LineEdit:
    """A line changed in place: `old` is the part of it the diff replaced, `new` what stands
    there now, each as the diff has it (a whole short line, or the changed part with a few
    tokens around it)."""

    file: str
    old: str
    new: str
    enclosing: str | None = None  # the function or class it is in, when known
    places: int = 1  # the same edit made in this many places of the file
    prose: bool = False  # a line of docs: compared by its words, quoted whole-word
    imported: bool = False  # a line of an import: a module path or a name imported, no value


class Side(Protocol):
    lines: list[str]
    changed: set[int]


# A change block of more lines than this on either side is a rewrite, not a line edited.
_BLOCK_LINES = 4
_SIMILAR = 0.5  # tokens shared by the two lines, as difflib's ratio: below it, another line
_ADDED_LINES = 3  # statements added on their own, at most, each an edit: more are new code
_WHOLE_LINE = 70  # chars: a line this short is shown whole; a longer one by its changed part
_CONTEXT = 2  # tokens kept on each side of a changed part
_PART_CHARS = 100  # a changed part longer than this is a rewrite of the line
_KEPT = 12  # edits kept for a PR: the facts show a few; the rest would only be stored
_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\w+|\S")
_WORD = re.compile(r"\S+")
_DEFINES = re.compile(r"\s*(?:async\s+)?(?:def|class|struct|fn|func)\s")  # signatures say those


def change_blocks(side: Side) -> dict[int, int]:
    """Each changed row's change block: the unchanged lines above it, which both sides of a
    hunk share (a removed run and the lines added in its place have the same number)."""
    blocks, unchanged = {}, 0
    for row in range(len(side.lines)):
        if row in side.changed:
            blocks[row] = unchanged
        else:
            unchanged += 1
    return blocks


def hunk_edits(old: Side, new: Side, prose: bool = False) -> Iterator[tuple[int, int, str, str]]:
    """(old row, new row, old part, new part) for each line of the hunk changed in place: a
    change block whose removed lines each pair, in order, with a similar line added in their
    place; then (-1, new row, "", line) for a few statements added with nothing removed. A
    block with lines only added or only removed around the pairs is a rewrite: its pairs
    would hide what was added (a tuple that became a list comprehension). In `prose` (docs)
    a line is any line, and a line added on its own is no edit."""
    removed, added = rows_by_block(old), rows_by_block(new)
    # Lines changed in place first: they are the mechanism; statements added are its detail.
    yield from _paired(old, new, removed, added, prose)
    if not prose:
        yield from _added_alone(old, new, removed, added)


def _paired(
    old: Side, new: Side, removed: dict[int, list[int]], added: dict[int, list[int]], prose: bool
) -> Iterator[tuple[int, int, str, str]]:
    for block, olds in removed.items():
        news = added.get(block, [])
        if len(olds) != len(news) or len(olds) > _BLOCK_LINES:
            continue
        pairs = [
            _pair(old.lines[o], new.lines[n], prose) for o, n in zip(olds, news, strict=True)
        ]
        if any(p is None for p in pairs):
            continue
        for o, n, paired in zip(olds, news, pairs, strict=True):
            if paired and paired != _SAME:
                yield o, n, *paired


def _added_alone(
    old: Side, new: Side, removed: dict[int, list[int]], added: dict[int, list[int]]
) -> Iterator[tuple[int, int, str, str]]:
    """A few statements added with nothing removed in their place: `x = F()` is added."""
    # A line removed in one place and added in another moved: it is not added (vLLM #34142).
    gone = {old.lines[row].strip() for rows in removed.values() for row in rows}
    for block, news in added.items():
        code = [row for row in news if not _COMMENT.match(new.lines[row])]
        if block in removed or not code or len(code) > _ADDED_LINES:
            continue
        statements = [_statement(new.lines[row]) for row in code]
        # Lines of one statement wrapped (a declaration's parameters) are no statements each.
        whole = len(code) == 1 or all(_balanced(list(_TOKEN.finditer(x))) for x in statements)
        if all(statements) and whole and gone.isdisjoint(statements):
            yield from ((-1, row, "", line) for row, line in zip(code, statements, strict=True))


def rows_by_block(side: Side, keep: Callable[[str], bool] = str.strip) -> dict[int, list[int]]:
    """The changed rows of each change block, in order, whose line `keep` accepts (by default
    the non-blank ones)."""
    rows: dict[int, list[int]] = {}
    for row, block in change_blocks(side).items():
        if keep(side.lines[row]):
            rows.setdefault(block, []).append(row)
    return rows


def _statement(line: str) -> str:
    """A line added on its own that says what it does: code, not a definition, decorator,
    import or a bracket closing, and short enough to quote whole."""
    text = line.strip()
    if not _is_code(text) or _DEFINES.match(text) or len(text) > _PART_CHARS:
        return ""
    if re.match(r"[@)\]}]|(?:from|import)\s", text):
        return ""
    return text


_SAME = ("", "")  # a line paired with itself, re-indented or re-wrapped: no edit, no rewrite


def _pair(line: str, candidate: str, prose: bool = False) -> tuple[str, str] | None:
    """The parts of `line` and `candidate` that differ, when one is an edit of the other; of
    docs (`prose`) any two lines, compared word by word."""
    if not prose and not all(_is_code(x) and not _DEFINES.match(x) for x in (line, candidate)):
        return None
    if not prose and _moved_a_level(line, candidate):
        return None
    if prose:  # a command in a comment of an example is quoted without its leading `#`
        # (only that one: `x = 3  # 1 trainer` keeps its own, vLLM #34992)
        line, candidate = _COMMENT.sub("", line, count=1), _COMMENT.sub("", candidate, count=1)
    token = _WORD if prose else _TOKEN
    old, new, ops, similar = _compared(line.strip(), candidate.strip(), token)
    if not ops:
        return _SAME
    if similar < _SIMILAR and (prose or not _same_head(line, candidate)):
        return None
    return _parts(line.strip(), candidate.strip(), old, new, ops)


def _moved_a_level(line: str, candidate: str) -> bool:
    """A statement now at another depth: it left its block, or went into one (vLLM #34813
    takes `hidden_states *= ...` out of an `else:`, so it runs in both cases), which is the
    change, not the edit of its text. A wrapped call's argument re-indented is neither."""
    return indent_of(line) != indent_of(candidate) and not any(x.rstrip().endswith(",") for x in (line, candidate))


_Opcode = tuple[str, int, int, int, int]


def _compared(
    a: str, b: str, token: re.Pattern[str] = _TOKEN
) -> tuple[list[re.Match[str]], list[re.Match[str]], list[_Opcode], float]:
    """The two lines' tokens, the opcodes where they differ, and the share they have in common."""
    old, new = list(token.finditer(a)), list(token.finditer(b))
    matcher = difflib.SequenceMatcher(
        None, [t.group() for t in old], [t.group() for t in new], autojunk=False
    )
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    return old, new, ops, matcher.ratio()


# What a statement gives a value to: `return`, a name or attribute assigned, a key or keyword
# argument. Two lines with the same one are that value replaced, however little else they share.
_HEAD = re.compile(
    r"\s*(return\b|yield\b|(?:[\"'][^\"']+[\"']|[\w.\[\]]+)\s*(?::[^=]*)?=(?!=)"
    r"|[\"'][^\"']+[\"']\s*:)"
)


def _same_head(line: str, candidate: str) -> bool:
    heads = [_HEAD.match(x) for x in (line, candidate)]
    return all(heads) and " ".join(heads[0].group(1).split()) == " ".join(heads[1].group(1).split())


_COMMENT = re.compile(r"^\s*(#|//|/\*|\*|--\s)")
_CODE_CHARS = re.compile(r"[()\[\]{}=<>_@$]")
# A generator's `yield a, b` or a bare `return x` has no bracket, but no sentence starts so.
_KEYWORD_STATEMENT = re.compile(r"\s*(?:yield|return|raise|await|del|assert)\s+\w[^.!?]*$")
# An option line, `--extra-index-url https://…` in a requirements file (vLLM #34387's torch
# index): no bracket and no `=`, and no sentence starts so.
OPTION_LINE = re.compile(r"\s*--?[A-Za-z][\w-]*(?:[\s=]\S+)?\s*$")


def _is_code(line: str) -> bool:
    """Not a comment, and not a line of prose (a docstring reflowed pairs its lines with
    words shifted between them, which is no edit of the code)."""
    if _COMMENT.match(line):
        return False
    return bool(
        _CODE_CHARS.search(line) or _KEYWORD_STATEMENT.match(line) or OPTION_LINE.match(line)
    )


def _parts(
    old_line: str,
    new_line: str,
    old: list[re.Match[str]],
    new: list[re.Match[str]],
    ops: list[_Opcode],
) -> tuple[str, str] | None:
    if len(old_line) <= _WHOLE_LINE and len(new_line) <= _WHOLE_LINE:
        return old_line, new_line
    (_, i1, _, j1, _), (_, _, i2, _, j2) = ops[0], ops[-1]
    # The same tokens of context on both sides, so the two parts read as one place.
    before = min(_CONTEXT, i1, j1)
    after = min(_CONTEXT, len(old) - i2, len(new) - j2)
    old_part = _span(old_line, old, i1 - before, i2 + after)
    new_part = _span(new_line, new, j1 - before, j2 + after)
    if len(old_part) > _PART_CHARS or len(new_part) > _PART_CHARS:
        return None
    return old_part, new_part


def _span(line: str, tokens: list[re.Match[str]], first: int, end: int) -> str:
    if first >= end:
        return ""
    return line[tokens[first].start() : tokens[end - 1].end()]


def grouped(edits: Iterable[LineEdit]) -> tuple[LineEdit, ...]:
    """The same edit made in several places of a file (a keyword renamed in five calls) is
    one edit with its count; the first `_KEPT` kept, in the diff's order."""
    counts: dict[tuple[str, str, str], list[LineEdit]] = {}
    for e in edits:
        counts.setdefault((e.file, e.old, e.new), []).append(e)
    out = []
    for same in counts.values():
        places = {e.enclosing for e in same}
        enclosing = same[0].enclosing if len(places) == 1 else None
        out.append(replace(same[0], enclosing=enclosing, places=len(same)))
    return tuple(out[:_KEPT])


def file_edits(
    path: str,
    hunks: Iterable[tuple[Side, Side]],
    where: Callable[[int, int, bool], str | None],
    prose: bool = False,
    imports: Callable[[int, int], bool] | None = None,
) -> Iterator[LineEdit]:
    """The file's edits; `where(hunk index, row, on the new side)` names the definition a row
    lies in, and `imports(hunk index, new row)` whether it is a line of an import. A line
    that left one definition for another was rewritten, not edited."""
    sides = list(hunks)
    # A statement added here and removed in another hunk of the file moved (vLLM #35184 runs
    # `current_output_index += 1` earlier): it is not added.
    gone = {o.lines[r].strip() for o, _ in sides for r in o.changed}
    for index, (old, new) in enumerate(sides):
        for old_row, new_row, old_part, new_part in hunk_edits(old, new, prose):
            if old_row < 0 and new.lines[new_row].strip() in gone:
                continue
            enclosing = where(index, new_row, True)
            if old_row < 0 or where(index, old_row, False) == enclosing:
                imported = imports is not None and imports(index, new_row)
                yield LineEdit(path, old_part, new_part, enclosing, prose=prose, imported=imported)


def core(edit: LineEdit) -> tuple[str, str]:
    """The smallest parts of the edit that read on their own: the tokens that differ, widened
    until their brackets close (`len(self.output_token_ids)` -> `self.num_output_tokens()`,
    not `len(self.output_token_ids` -> `self.num_output_tokens(`). A docs edit is already
    whole words."""
    old, new, ops, _ = _compared(edit.old, edit.new)
    if not ops or edit.prose:
        return edit.old, edit.new
    (_, i1, _, j1, _), (_, _, i2, _, j2) = ops[0], ops[-1]
    if _at(old, i2) == _at(new, j2) == "(":  # a call keeps its arguments
        i2, j2 = i2 + 1, j2 + 1
    while not (_balanced(old[i1:i2]) and _balanced(new[j1:j2])):
        if i2 < len(old) and j2 < len(new) and old[i2].group() == new[j2].group():
            i2, j2 = i2 + 1, j2 + 1
        elif i1 > 0 and j1 > 0 and old[i1 - 1].group() == new[j1 - 1].group():
            i1, j1 = i1 - 1, j1 - 1
        else:
            return edit.old, edit.new
    # A name's owner stays with it: `self.x` -> `self.y`, not `x` -> `y`.
    while i1 > 0 and j1 > 0 and old[i1 - 1].group() == new[j1 - 1].group() == ".":
        i1, j1 = max(i1 - 2, 0), max(j1 - 2, 0)
    # A value keeps the name it is given to: `X="a"` -> `X="b"`, not `"a"` -> `"b"`.
    if i2 - i1 == 1 and _LITERAL.fullmatch(old[i1].group()) and _at(old, i1 - 1) in ("=", ":"):
        i1, j1 = max(i1 - 2, 0), max(j1 - 2, 0)
    # A list's or a call's trailing comma separates the value from the next: not part of it.
    if _at(old, i2 - 1) == _at(new, j2 - 1) == "," and i2 - i1 > 1 and j2 - j1 > 1:
        i2, j2 = i2 - 1, j2 - 1
    return _span(edit.old, old, i1, i2), _span(edit.new, new, j1, j2)


_LITERAL = re.compile(r"\".*\"|'.*'|\d[\w.]*")


def _at(tokens: list[re.Match[str]], index: int) -> str:
    return tokens[index].group() if 0 <= index < len(tokens) else ""


_OPEN, _CLOSE = "([{", ")]}"


def _balanced(tokens: list[re.Match[str]]) -> bool:
    depth = 0
    for t in tokens:
        if t.group() in _OPEN:
            depth += 1
        elif t.group() in _CLOSE:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
