"""The values a PR passes for a parameter its signature gains: where a reviewer looks next.

When a function gains a parameter with no default, every call must now pass it, and what each
call passes is the change's substance: vLLM #34167 made `build_attn_metadata` take
`max_query_len`, and its four calls pass three computed values and one constant `1`. The
constant is what the real report's risk section asks about. Black writes a call that long
one argument a line (`max_query_len=num_tokens_per_req,`), so the added lines name them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from keyword import iskeyword

from bot.core.models import PullRequest
from summarizer.brackets import split_top_level
from summarizer.code_hunks import DEF_LINE, code_hunks
from summarizer.facts import line_owner, param_name
from summarizer.hunks import Side, indent_of
from summarizer.line_edits import change_blocks, rows_by_block

_QUOTED = re.compile(r"[rbf]?(['\"]).*\1")
# A number, a quoted string, or one of Python's constants: a value no call computes.
LITERAL = re.compile(rf"-?\d[\d_.eE+-]*|True|False|None|{_QUOTED.pattern}")


@dataclass(frozen=True)
class PassedValue:
    """One added `name=value` argument: its value and the definition it is written in."""

    name: str
    value: str
    file: str
    owner: str | None
    call_kept: bool  # the call's first line is unchanged (or above the hunk): it was there
    callee: str | None = None  # what the call calls (`_build_attention_metadata`), when shown

    @property
    def constant(self) -> bool:
        return bool(LITERAL.fullmatch(self.value))

    @property
    def quoted(self) -> bool:
        """A string (`glm_ocr="GlmOcrConfig"`): an entry added to a registry, not a value."""
        return bool(_QUOTED.fullmatch(self.value))


def required_params(added: tuple[str, ...]) -> list[str]:
    """The names of the added parameters a call must pass: no default, not `*args`,
    `**kwargs` or the `*` and `/` markers. A Triton kernel's (`BLOCK: tl.constexpr`) are
    bound by its launcher, not by a plain call."""
    if any("constexpr" in p for p in added):
        return []
    names = []
    for p in added:
        if "=" in p or p.startswith(("*", "/")):
            continue
        if (name := param_name(p)).isidentifier() and name not in ("self", "cls"):
            names.append(name)
    return names


def passed_values(pr: PullRequest, name: str) -> list[PassedValue]:
    """Each added line of Python that passes `name=` as an argument of its own line."""
    return [v for v in added_arguments(pr) if v.name == name]


_ARGUMENT = re.compile(r"\s+([A-Za-z_]\w*)=(?!=)(.+?),?\s*(?:#.*)?")
_POSITIONAL = re.compile(r"\s+((?![A-Za-z_]\w*=(?!=))[^=#]+?|.*==.*?),?\s*(?:#.*)?")


def added_arguments(pr: PullRequest) -> list[PassedValue]:
    """Every keyword argument the PR's Python adds on a line of its own, tests left out."""
    found = []
    for path, hunk in code_hunks(pr):
        side = hunk.new
        # A keyword the hunk also removes was passed before: its value is what changed
        # (vLLM #35284's `min_pixels=size["min_pixels"]` to `size[min_pixels_key]`).
        had = {m[1] for r in hunk.old.changed if (m := _ARGUMENT.fullmatch(hunk.old.lines[r]))}
        # A value the hunk removes as a positional argument was passed before, by position
        # (vLLM #34687 turns `qo_indptr_cpu,` into `qo_indptr=qo_indptr_cpu,`).
        positional = {
            m[1].strip() for r in hunk.old.changed
            if (m := _POSITIONAL.fullmatch(hunk.old.lines[r]))
        }  # fmt: skip
        for row in sorted(side.changed):
            m = _ARGUMENT.fullmatch(side.lines[row])
            if not m or m[1] in had or m[2].strip() in positional or m[2].rstrip()[-1] in "([{":
                continue  # passed before; or a value that goes on past its line
            opened = _call_line(side, row)
            if opened is not None and DEF_LINE.match(side.lines[opened]):
                continue  # a parameter with a default, in a signature
            owner = line_owner(path, hunk, True, row)
            callee = _callee(side.lines[opened]) if opened is not None else None
            kept = opened not in side.changed
            found.append(PassedValue(m[1], m[2].strip(), path, owner, kept, callee))
    return found


@dataclass(frozen=True)
class ChangedArgument:
    """A keyword argument on a line of its own whose value the PR changes in place."""

    name: str
    old: str
    new: str
    owner: str | None
    callee: str | None  # what the call calls, when its opening line is shown
    position: int = 0  # of a positional argument, counted from 1 (0: by keyword)
    # Where the opening line is not shown, an unchanged argument of the same call that tells
    # it from others: vLLM #35156's `prefix=f"{prefix}.gate"`, which says the gate's call.
    beside: str = ""


def changed_arguments(pr: PullRequest) -> list[ChangedArgument]:
    """Each `name=value` argument line of the Python that runs that the PR rewrites, in the
    same change block, as `name=other`: the call now gets another value for `name` (vLLM
    #35156's `quant_config=quant_config` becoming `quant_config=None`)."""
    found = []
    for path, hunk in code_hunks(pr):
        old_blocks, new_blocks = change_blocks(hunk.old), change_blocks(hunk.new)
        before = {
            (old_blocks[r], m[1]): m[2].strip() for r in hunk.old.changed
            if (m := _ARGUMENT.fullmatch(hunk.old.lines[r]))
        }  # fmt: skip
        for row in sorted(hunk.new.changed):
            m = _ARGUMENT.fullmatch(hunk.new.lines[row])
            old = before.get((new_blocks[row], m[1])) if m else None
            if not m or old is None or old == m[2].strip() or _goes_on(old, m[2]):
                continue
            opened = _call_line(hunk.new, row)
            if opened is not None and DEF_LINE.match(hunk.new.lines[opened]):
                continue  # a default changed in a signature
            callee = _callee(hunk.new.lines[opened]) if opened is not None else None
            owner = line_owner(path, hunk, True, row)
            beside = "" if callee else _sibling(hunk.new, row)
            found.append(ChangedArgument(m[1], old, m[2].strip(), owner, callee, beside=beside))
    return found


def _sibling(side: Side, row: int) -> str:
    """The nearest unchanged `name=value` argument beside the line at `row`, at its depth
    and in the same call (below it first: a call's last arguments name it most often)."""
    depth = indent_of(side.lines[row])
    for rows in (range(row + 1, len(side.lines)), range(row - 1, -1, -1)):
        for r in rows:
            text = side.lines[r]
            if not text.strip():
                continue
            if indent_of(text) != depth:
                break  # the call's brackets close, or open, here
            if r not in side.changed and (m := _ARGUMENT.fullmatch(text)):
                return f"{m[1]}={m[2].strip().removesuffix(',')}"
    return ""


def changed_positionals(pr: PullRequest) -> list[ChangedArgument]:
    """Each positional argument on a line of its own of a call the hunk opens that the PR
    rewrites in place, one line for one, as another value (vLLM #33088's `"avg",` becoming
    `"sum",` in `fused_matmul_reduce_scatter`), in diff order."""
    found = []
    for path, hunk in code_hunks(pr):
        removed, added = rows_by_block(hunk.old), rows_by_block(hunk.new)
        for block, olds in removed.items():
            news = added.get(block, [])
            if len(olds) != 1 or len(news) != 1:
                continue
            before, after = hunk.old.lines[olds[0]], hunk.new.lines[news[0]]
            a, b = _POSITIONAL.fullmatch(before), _POSITIONAL.fullmatch(after)
            opened = _call_line(hunk.new, news[0])
            if not (a and b and opened is not None) or not _one_argument(before, after):
                continue
            callee = _callee(hunk.new.lines[opened])
            if callee is None or iskeyword(callee) or DEF_LINE.match(hunk.new.lines[opened]):
                continue
            owner = line_owner(path, hunk, True, news[0])
            position = _position(hunk.new, opened, news[0])
            found.append(ChangedArgument("", a[1].strip(), b[1].strip(), owner, callee, position))
    return found


_OPERATOR_FIRST = re.compile(r"^(?:or|and|not|in|is|if|else|for|lambda)\b|^[-+*/%&|^<>=!@.]")


def places_rewritten(pr: PullRequest, old: str, new: str) -> int:
    """How many change blocks of the code that runs replace a line `old,` with `new,`, one
    for one: the calls one rewrite of an argument reaches, their openers shown or not."""
    count = 0
    for _, hunk in code_hunks(pr):
        removed, added = rows_by_block(hunk.old), rows_by_block(hunk.new)
        for block, olds in removed.items():
            news = added.get(block, [])
            if len(olds) == len(news) == 1:
                pair = (hunk.old.lines[olds[0]].strip(), hunk.new.lines[news[0]].strip())
                count += pair == (f"{old},", f"{new},")
    return count


def _one_argument(*lines: str) -> bool:
    """Lines that each hold one whole argument and its comma: not a continued expression
    (`or x`), not several arguments, not a piece of a string wrapped over lines."""
    for line in lines:
        value = line.split("#")[0].strip()
        if not value.endswith(",") or _OPERATOR_FIRST.match(value) or _goes_on(value[:-1]):
            return False
        if len(split_top_level(value[:-1], re.compile(","))) > 1:
            return False
    return True


def _position(side: Side, opened: int, row: int) -> int:
    """Which argument of the call opened at `opened` the line at `row` is: one a line."""
    depth = len(side.lines[row]) - len(side.lines[row].lstrip())
    return 1 + sum(
        1 for r in range(opened + 1, row)
        if side.lines[r].strip() and len(side.lines[r]) - len(side.lines[r].lstrip()) == depth
    )  # fmt: skip


def _goes_on(*values: str) -> bool:
    """A value that goes on past its line: what it is, the line does not say."""
    return any(v.rstrip()[-1:] in "([{" for v in values)


def argument_sentence(a: ChangedArgument, where: str) -> str:
    """ "`f` now passes `quant_config=None` where it passed `quant_config=quant_config`: that
    call gets `None` for `quant_config` whatever `quant_config` is." """
    to = f" to `{a.callee}`" if a.callee else ""
    # Said after the old value: "passes x to the call that also passes y where it passed z"
    # would read as if the call had passed z.
    among = f", in the call that also passes `{a.beside}`" if a.beside and not a.callee else ""
    if a.position:
        return (
            f"{where} now passes `{a.new}` where it passed `{a.old}`{to}, as its "
            f"{_ordinal(a.position)} argument: that call gets `{a.new}` there, where it got "
            f"`{a.old}`."
        )
    said = f"{where} now passes `{a.name}={a.new}`{to} where it passed `{a.name}={a.old}`{among}"
    new_fixed, old_fixed = bool(LITERAL.fullmatch(a.new)), bool(LITERAL.fullmatch(a.old))
    if new_fixed and not old_fixed:
        return f"{said}: that call gets `{a.new}` for `{a.name}` whatever `{a.old}` is."
    if old_fixed and not new_fixed:
        return f"{said}: that call now gets whatever `{a.new}` is, where it always got `{a.old}`."
    return f"{said}: that call gets `{a.new}` for `{a.name}`, where it got `{a.old}`."


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


# The name before the bracket a call's opening line leaves open: `x = self._build(`.
_CALLEE = re.compile(r"([A-Za-z_][\w.]*)\s*\(\s*$")


def _callee(line: str) -> str | None:
    """The function the call on its opening line calls, without `self.` (the reader looks
    it up by its name)."""
    m = _CALLEE.search(line.split("#")[0].rstrip())
    return m[1].removeprefix("self.") if m else None


def _call_line(side: Side, row: int) -> int | None:
    """The row that opens the brackets `row` stands in; None above the fragment."""
    depth = 0
    for above in range(row - 1, -1, -1):
        line = side.lines[above].split("#")[0]
        depth += sum(line.count(c) for c in ")]}") - sum(line.count(c) for c in "([{")
        if depth < 0:
            return above
    return None
