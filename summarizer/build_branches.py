"""Conditional compilation a C, C++ or CUDA diff changes: which builds compile which lines.

A `#ifdef` decides per build target, not per call, and a reader of two lines added side by
side cannot tell which one a build gets. On the dev days the small model listed vLLM #33901's
`kProbeM = 128` and `kProbeM = DNNL_RUNTIME_DIM_VAL` both as "added", and never said that
only aarch64 builds change; of #34052 it said "The diff changes `KernelVecType<c10::BFloat16>`"
where the PR drops the s390x branch and turns the aarch64 one into the `#else` that s390x
and x86 builds without AVX512 now compile.

Two shapes are read, each from one hunk:
- a new block: `#if…`, its `#elif`/`#else` and its `#endif` all added, with the lines each
  branch compiles;
- branches of a block that stays: an `#elif` or `#else` removed with all its lines (the builds
  it served now take the branch below it), and a directive rewritten in place (`#elif
  defined(__aarch64__)` becoming `#else`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.models import PullRequest
from summarizer.checks import adds_running_definitions
from summarizer.code_hunks import C_FAMILY, code_hunks
from summarizer.facts import ChangeFacts, line_owner
from summarizer.hunks import Hunk, Side
from summarizer.prose import COMMENT_LINE
from summarizer.wording import code, in_place

_DIRECTIVE = re.compile(r"^\s*#\s*(?P<kind>if|ifdef|ifndef|elif|else|endif)\b\s*(?P<cond>.*?)\s*$")
_DEFINED = re.compile(r"^(?P<neg>!\s*)?defined\s*\(?\s*(?P<name>\w+)\s*\)?$")
_DEFINES = re.compile(r"\b(?:struct|class|union)\s+(?P<name>\w+(?:<[^{;]*?>)?)\s*[{:]")
_QUOTED_LINES = 2  # a branch of more lines is said by its count and its first line
_CONDITION_CHARS = 80


@dataclass(frozen=True)
class Branch:
    directive: str  # `#ifdef __aarch64__`, `#else`
    lines: tuple[str, ...]  # the code lines it compiles, stripped


@dataclass(frozen=True)
class NewBlock:
    """A `#if…` block the PR adds whole."""

    file: str
    enclosing: str | None
    branches: tuple[Branch, ...]
    replaced: str = ""  # the value the `#else` keeps, which the PR replaces with its name
    name: str = ""  # that name


@dataclass(frozen=True)
class BranchEdit:
    """Branches of a block that stays: dropped with their lines, or their directive rewritten."""

    file: str
    subject: str | None  # what the branches define (`KernelVecType<c10::BFloat16>`), if shown
    dropped: tuple[str, ...]  # directives removed with all their lines
    rewritten: tuple[tuple[str, str], ...]  # (old directive, new directive)


def targets(directive_text: str) -> str:
    """The builds a directive selects, in words: "`__aarch64__` is defined"."""
    m = _DIRECTIVE.match(directive_text)
    if m is None or m["kind"] in ("else", "endif"):
        return ""
    cond = m["cond"].split("//")[0].split("/*")[0].strip()
    if not cond or cond in ("0", "1"):
        return ""  # `#if 0` is code switched off, for every build alike
    if m["kind"] in ("ifdef", "ifndef"):
        return f"`{cond}` is {'not ' if m['kind'] == 'ifndef' else ''}defined"
    if d := _DEFINED.match(cond.strip("() ")):
        return f"`{d['name']}` is {'not ' if d['neg'] else ''}defined"
    return f"`{cond}` holds" if len(cond) <= _CONDITION_CHARS else ""


def _rows(side: Side) -> list[tuple[int, re.Match[str]]]:
    return [(r, m) for r, line in enumerate(side.lines) if (m := _DIRECTIVE.match(line))]


def _code_rows(side: Side, start: int, end: int) -> list[int]:
    return [
        r for r in range(start, end)
        if side.lines[r].strip() and not COMMENT_LINE.match(side.lines[r])
        and not _DIRECTIVE.match(side.lines[r])
    ]  # fmt: skip


# -- a block added whole ---------------------------------------------------------------------


def new_blocks(pr: PullRequest) -> list[NewBlock]:
    """The `#if…` blocks the PR adds whole to files that were there, in diff order."""
    added_files = {f.filename for f in pr.files if f.status == "added"}
    found: list[NewBlock] = []
    for path, hunk in code_hunks(pr, C_FAMILY):
        if path not in added_files:
            found += _hunk_blocks(path, hunk)
    return found


def _hunk_blocks(path: str, hunk: Hunk) -> list[NewBlock]:
    side, found = hunk.new, []
    rows = _rows(side)
    inside_until = -1  # a block nested in a new one is part of its branch
    for i, (row, m) in enumerate(rows):
        if m["kind"] not in ("if", "ifdef", "ifndef") or row not in side.changed:
            continue
        chain = _chain(rows[i:])
        if chain is None or row < inside_until:
            continue
        span = range(row, chain[-1][0] + 1)
        if any(r not in side.changed for r in span if side.lines[r].strip()):
            continue  # lines that were there, put under a new condition: not a new block
        inside_until = chain[-1][0]
        branches = tuple(
            Branch(side.lines[r].strip(), _statements(side, _code_rows(side, r + 1, nxt)))
            for (r, _), (nxt, _) in zip(chain, chain[1:], strict=False)
        )
        block = NewBlock(path, line_owner(path, hunk, True, row), branches)
        found.append(_with_replaced(block, hunk))
    return found


def _statements(side: Side, rows: list[int]) -> tuple[str, ...]:
    """The lines at `rows`, a statement wrapped over several lines joined into one."""
    out: list[str] = []
    for r in rows:
        text = side.lines[r].strip()
        if out and not out[-1].endswith((";", "{", "}")):
            out[-1] = f"{out[-1]} {text}"
        else:
            out.append(text)
    return tuple(out)


def _chain(rows: list[tuple[int, re.Match[str]]]) -> list[tuple[int, re.Match[str]]] | None:
    """The `#if…` at rows[0], its `#elif`/`#else` and its `#endif`, nested blocks skipped;
    None where the fragment ends inside it."""
    depth, chain = 0, []
    for row, m in rows:
        if m["kind"] in ("if", "ifdef", "ifndef"):
            depth += 1
            if depth == 1:
                chain.append((row, m))
        elif m["kind"] == "endif":
            depth -= 1
            if depth == 0:
                return [*chain, (row, m)]
        elif depth == 1:
            chain.append((row, m))
    return None


_ASSIGNS = re.compile(r"(?P<name>\w+)\s*=\s*(?P<value>[^;=]+?)\s*;$")


def _with_replaced(block: NewBlock, hunk: Hunk) -> NewBlock:
    """The `#else` that sets a name to the value a changed line of the hunk now reads by that
    name (`DNNL_RUNTIME_DIM_VAL` becoming `kProbeM`): builds of that branch get what they had."""
    last = block.branches[-1]
    if not last.directive.startswith("#else") or len(last.lines) != 1:
        return block
    if not (m := _ASSIGNS.search(last.lines[0])):
        return block
    name, value = m["name"], m["value"]
    word = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w(])")
    removed = [hunk.old.lines[r] for r in hunk.old.changed if word.search(hunk.old.lines[r])]
    added = {hunk.new.lines[r].strip() for r in hunk.new.changed}
    if any(word.sub(name, line).strip() in added for line in removed):
        return replace(block, replaced=value, name=name)
    return block


def _branch_words(branch: Branch) -> str:
    if len(branch.lines) <= _QUOTED_LINES:
        return " and ".join(code(line) for line in branch.lines) or "nothing"
    return f"{len(branch.lines)} lines starting {code(branch.lines[0])}"


def new_block_sentence(block: NewBlock) -> str:
    """What changed: the block and what each branch compiles."""
    parts = []
    for b in block.branches:
        where = targets(b.directive)
        parts.append(f"{_branch_words(b)} {f'where {where}' if where else 'elsewhere'}")
    head = block.branches[0].directive
    said = ", and ".join(parts)
    return f"{in_place(block.enclosing, block.file)}, a new {code(head)} block compiles {said}."


def new_block_risk(block: NewBlock) -> str:
    """Who gets the new lines: only the builds the first branch selects; with the value the
    `#else` keeps, that the others do not change."""
    first = block.branches[0]
    where = targets(first.directive)
    if not where:
        return ""
    lines = _branch_words(first)
    if block.replaced:
        return (
            f"Only builds where {where} change: they compile {lines}, and the others keep "
            f"{code(block.replaced)}, which the PR now reads as {code(block.name)}. A build or "
            "test run for another target never compiles the new branch."
        )
    return (
        f"Only builds where {where} compile {lines}: a build or test run for another target "
        "never compiles it, so a mistake there shows only on those builds."
    )


# -- branches of a block that stays ----------------------------------------------------------


def branch_edits(pr: PullRequest) -> list[BranchEdit]:
    """Branches dropped or directives rewritten in blocks that stay, one per hunk that has
    either, in diff order."""
    whole = {f.filename for f in pr.files if f.status in ("added", "removed")}
    found: list[BranchEdit] = []
    for path, hunk in code_hunks(pr, C_FAMILY):
        if path not in whole and (edit := _hunk_edit(path, hunk)) is not None:
            found.append(edit)
    return found


def _hunk_edit(path: str, hunk: Hunk) -> BranchEdit | None:
    old, rows = hunk.old, _rows(hunk.old)
    dropped: list[str] = []
    rewritten: list[tuple[str, str]] = []
    subject = None
    for i, (row, m) in enumerate(rows):
        if row not in old.changed or m["kind"] == "endif":
            continue
        end = rows[i + 1][0] if i + 1 < len(rows) else len(old.lines)
        body = _code_rows(old, row + 1, end)
        kept = [r for r in body if r not in old.changed]
        if not body:
            continue
        if not kept and m["kind"] in ("elif", "else"):
            dropped.append(old.lines[row].strip())
            subject = subject or _defined_in(old, body)
        elif kept and (new := _rewritten_as(hunk, kept[0])) and new != old.lines[row].strip():
            rewritten.append((old.lines[row].strip(), new))
            subject = subject or _defined_in(old, kept)
    if not dropped and not rewritten:
        return None
    return BranchEdit(path, subject, tuple(dropped), tuple(rewritten))


def _rewritten_as(hunk: Hunk, old_row: int) -> str | None:
    """The directive added just above the new side's copy of an unchanged old line."""
    old_context = [r for r in range(len(hunk.old.lines)) if r not in hunk.old.changed]
    new_context = [r for r in range(len(hunk.new.lines)) if r not in hunk.new.changed]
    if old_row not in old_context or len(old_context) != len(new_context):
        return None
    row = new_context[old_context.index(old_row)] - 1
    while row >= 0 and row in hunk.new.changed:
        if _DIRECTIVE.match(hunk.new.lines[row]):
            return hunk.new.lines[row].strip()
        if hunk.new.lines[row].strip():
            return None  # code added between: not the same branch's head
        row -= 1
    return None


def _defined_in(side: Side, rows: list[int]) -> str | None:
    return next((m["name"] for r in rows if (m := _DEFINES.search(side.lines[r]))), None)


def branch_edit_sentence(edit: BranchEdit) -> str:
    """What changed: the branches dropped, the directives rewritten."""
    of = f" of {code(edit.subject)}" if edit.subject else ""
    parts = []
    if edit.dropped:
        noun = "branch" if len(edit.dropped) == 1 else "branches"
        parts.append(f"the PR drops the {_listed(edit.dropped)} {noun}{of}")
        of = ""
    parts += [f"{code(a)} becomes {code(b)}{of}" for a, b in edit.rewritten]
    return f"In {code(edit.file)}, {', and '.join(parts)}."


def branch_edit_risk(edit: BranchEdit) -> str:
    """Which builds now compile another branch, or none."""
    own = f"their own {code(edit.subject)}" if edit.subject else "their own branch"
    said = []
    for d in edit.dropped:
        if where := targets(d.replace("#elif", "#if", 1)):
            said.append(f"Builds where {where} lose {own} and fall through to the branch below it")
    for a, b in edit.rewritten:
        before, now = targets(a.replace("#elif", "#if", 1)), targets(b.replace("#elif", "#if", 1))
        if not before:
            continue
        if b.startswith("#else"):
            said.append(
                f"{code(b)}, which was {code(a)}, now also compiles for builds that match no "
                f"branch above it, where before only builds where {before} did"
            )
        elif now:
            said.append(f"{code(b)} compiles where {now}, where before it compiled where {before}")
    return f"{'; '.join(said)}." if said else ""


def _listed(directives: tuple[str, ...]) -> str:
    quoted = [code(d) for d in directives]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


# -- what the summary says -------------------------------------------------------------------


@dataclass(frozen=True)
class BuildChange:
    directive: str  # the first directive it is about, as the diff has it
    sentence: str  # what changed
    risk: str  # which builds now compile something else
    lines: tuple[str, ...]  # the code lines the sentence says, not to be said again as added
    names: tuple[str, ...]  # where it is


def build_change(pr: PullRequest, facts: ChangeFacts) -> BuildChange | None:
    """The first change of conditional compilation: branches of a block that stays edited,
    else a new block where the PR adds no definition (beside new code, a guard around its
    declaration is a detail: vLLM #34302's new kernel)."""
    if edits := branch_edits(pr):
        e = edits[0]
        names = (e.subject,) if e.subject else ()
        first = (e.dropped or tuple(a for a, _ in e.rewritten))[0]
        return BuildChange(first, branch_edit_sentence(e), branch_edit_risk(e), (), names)
    blocks = [b for b in new_blocks(pr) if targets(b.branches[0].directive)]
    if blocks and not adds_running_definitions(pr, facts):
        b = blocks[0]
        lines = tuple(line for branch in b.branches for line in branch.lines)
        names = (b.enclosing,) if b.enclosing else ()
        head = b.branches[0].directive
        return BuildChange(head, new_block_sentence(b), new_block_risk(b), lines, names)
    return None
