"""An expression rewritten in place, evaluated on both sides: does it give other values?

vLLM #32621 rewrote `max(64, next_power_of_2(128 // num_slices))` as
`64 if num_slices > 1 else 128`. Both give 128 for one slice and 64 for more, so the PR
changes how the value is written, not the value. The built-in model said it "affects the
behavior of the LoRA expand kernel by changing the `block_n` parameter", and a reader had to
work the values out by hand to see that it does not. Code can do that work: an integer
expression of one variable, built from arithmetic, comparisons, conditionals and a few
well-known pure helpers, is evaluated for each value of that variable from 0 to `_HIGH`,
old and new, and the values compared. Anything else (a call we do not know, a string, two
variables) is not evaluated at all: what is said is only what was computed.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from bot.core.models import PullRequest
from summarizer.facts import ChangeFacts
from summarizer.file_kinds import runs_code
from summarizer.hunks import without_comment
from summarizer.line_edits import LineEdit, core
from summarizer.wording import code, listed

_HIGH = 1024  # every value of the variable from 0 to this is checked (sizes, counts, ranks)
_LOW = 16  # values checked, at least, for anything to be said
_BITS = 256  # an integer wider than this is not computed: a diff line must not stall us
_SHOWN = 3  # differing values named, at most


class _Unknown(Exception):
    """The expression holds something this module does not evaluate."""


def _next_power_of_2(n: int) -> int:
    if n < 1:  # vLLM's helper gives 1 and Triton's 0: not known which one the code calls
        raise _Unknown
    return 1 << (n - 1).bit_length()


def _cdiv(a: int, b: int) -> int:
    return -(a // -b)


# Helpers whose meaning their name fixes, wherever they are imported from.
_PURE: dict[str, Callable[..., int]] = {
    "max": max, "min": min, "abs": abs, "int": int, "next_power_of_2": _next_power_of_2,
    "cdiv": _cdiv, "round_up": lambda x, m: _cdiv(x, m) * m,
}  # fmt: skip
_BINARY: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}  # fmt: skip
_COMPARE: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}  # fmt: skip


@dataclass(frozen=True)
class ValueRewrite:
    """An expression of `variable` rewritten in place, and the values where old and new give
    different results: (value, old result, new result), each result as a reader writes it."""

    edit: LineEdit
    old: str
    new: str
    variable: str
    differ: tuple[tuple[int, str, str], ...]
    through: int = _HIGH  # every value from 0 to this was checked
    beyond: int = 0  # larger values checked: powers of two, each constant and its neighbours

    @property
    def same_from_one(self) -> bool:
        """Old and new agree for every positive value checked (0, a count of nothing, aside)."""
        return all(value == 0 for value, _, _ in self.differ)


def value_rewrites(pr: PullRequest, facts: ChangeFacts) -> list[ValueRewrite]:
    """The PR's in-place edits of the code that runs that are evaluable expressions."""
    running = {f.filename for f in pr.files if runs_code(f)}
    found = (value_rewrite(e) for e in facts.edits if e.file in running)
    return [r for r in found if r is not None]


def only_same_values(pr: PullRequest, facts: ChangeFacts) -> bool:
    """The code that runs changes only by expressions rewritten to give the same values."""
    running = [f for f in pr.files if runs_code(f)]
    if not running or any(f.additions != f.deletions for f in running):
        return False
    rewrites = value_rewrites(pr, facts)
    lines = sum(f.additions for f in running)
    return bool(rewrites) and all(r.same_from_one for r in rewrites) and lines == len(rewrites)


@lru_cache(maxsize=1024)
def value_rewrite(edit: LineEdit) -> ValueRewrite | None:
    """The edit as an expression of one variable rewritten, where both sides evaluate."""
    if not (edit.old and edit.new) or edit.prose or edit.imported:
        return None
    for old, new in _candidates(edit):
        try:
            old_tree, new_tree = _expression(old), _expression(new)
        except (SyntaxError, _Unknown):
            continue
        variables = _variables(old_tree) | _variables(new_tree)
        if len(variables) != 1 or _variables(old_tree) != _variables(new_tree):
            continue
        (variable,) = variables
        differ, through, beyond = _differences(old_tree, new_tree, variable)
        if through >= _LOW:
            return ValueRewrite(edit, old, new, variable, differ, through, beyond)
    return None


# What stands before a value on its line: a dict key, a keyword, an assignment, a return.
_LEAD = re.compile(r"^\s*(?:return\s+|[\"'][\w.-]+[\"']\s*:\s*|[\w.]+\s*(?::[^=]+)?=(?!=)\s*)")


def _candidates(edit: LineEdit) -> Iterator[tuple[str, str]]:
    """The whole value of each line, then the parts that differ (`core`) where they stand
    alone in their line: `a + b` in `2 * a + b` would be evaluated out of its precedence."""
    old_lead, new_lead = _LEAD.match(edit.old), _LEAD.match(edit.new)
    if old_lead and new_lead and old_lead.group().strip() == new_lead.group().strip():
        yield _value(edit.old[old_lead.end() :]), _value(edit.new[new_lead.end() :])
    old, new = core(edit)
    if _stands_alone(old, edit.old) and _stands_alone(new, edit.new):
        yield old, new


def _value(text: str) -> str:
    """The value as written, without a trailing comma or comment."""
    return without_comment(text.strip()).rstrip(",;").strip()


def _stands_alone(part: str, line: str) -> bool:
    at = line.find(part)
    if at < 0:
        return False
    before, after = line[:at].rstrip(), line[at + len(part) :].lstrip()
    return (not before or before[-1] in "(,=[:") and (not after or after[0] in "),]:;")


def _expression(text: str) -> ast.expr:
    tree = ast.parse(text, mode="eval").body
    _check(tree)
    return tree


def _check(node: ast.AST) -> None:
    """Raise `_Unknown` unless every part of the tree is one `_evaluate` knows."""
    for child in ast.walk(node):
        allowed = isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop,
                                     ast.unaryop, ast.BinOp, ast.UnaryOp, ast.BoolOp,
                                     ast.Compare, ast.IfExp, ast.Name, ast.Attribute, ast.Call,
                                     ast.Constant))  # fmt: skip
        if not allowed:
            raise _Unknown
        if isinstance(child, ast.Constant) and (
            type(child.value) not in (int, bool) or abs(child.value) > 2**64
        ):
            raise _Unknown
        if isinstance(child, ast.Call) and (child.keywords or _callee(child) not in _PURE):
            raise _Unknown
        if isinstance(child, ast.BinOp) and type(child.op) not in _BINARY:
            raise _Unknown


# Helpers whose name says what they do wherever they come from (`triton.next_power_of_2`);
# `x.max(n, 0)` is a method of `x`, not the built-in.
_QUALIFIED = frozenset({"next_power_of_2", "cdiv", "round_up"})


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr if func.attr in _QUALIFIED else ""
    return getattr(func, "id", "")


def _variables(tree: ast.expr) -> set[str]:
    """The names the expression reads (`self.n` as one), helpers called aside."""
    callees = {id(c.func) for c in ast.walk(tree) if isinstance(c, ast.Call)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in callees or isinstance(node, ast.Call):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)) and not _inside_attribute(node, tree):
            found.add(ast.unparse(node))
    return found


def _inside_attribute(node: ast.AST, tree: ast.expr) -> bool:
    return any(isinstance(p, ast.Attribute) and p.value is node for p in ast.walk(tree))


def _points(*trees: ast.expr) -> list[int]:
    """The values checked: 0 to `_HIGH`, then where a larger value could differ: each power
    of two to 2^32 and its neighbours, and each constant of the expressions, its neighbours
    and its double (`min(n, 8192)` and `n` part at 8193)."""
    constants = {
        c.value for t in trees for c in ast.walk(t)
        if isinstance(c, ast.Constant) and type(c.value) is int and 0 <= c.value <= 2**32
    }  # fmt: skip
    larger = {p + d for k in range(11, 33) for p in (2**k,) for d in (-1, 0, 1)}
    larger |= {c + d for c in constants for d in (-1, 0, 1)} | {2 * c for c in constants}
    return [*range(_HIGH + 1), *sorted(v for v in larger if v > _HIGH)]


def _differences(
    old: ast.expr, new: ast.expr, variable: str
) -> tuple[tuple[tuple[int, str, str], ...], int, int]:
    """The values where old and new differ; the last value of the run from 0 that both
    sides give (`next_power_of_2(0)` is not known, so neither is what uses it); how many
    larger values both give. A value neither can be known at is skipped."""
    differ: list[tuple[int, str, str]] = []
    through, beyond, unbroken = -1, 0, True
    for value in _points(old, new):
        try:
            before, after = _result(old, variable, value), _result(new, variable, value)
        except _Unknown:
            unbroken = False
            continue
        if unbroken and value <= _HIGH:
            through = value
        elif value > through:
            beyond += 1
        if before != after:
            differ.append((value, before, after))
    return tuple(differ), through, beyond


def _result(tree: ast.expr, variable: str, value: int) -> str:
    try:
        result = _evaluate(tree, variable, value)
    except ZeroDivisionError:
        return "raised `ZeroDivisionError`"
    except (ValueError, OverflowError, TypeError, MemoryError, RecursionError) as e:
        raise _Unknown from e
    return repr(int(result) if isinstance(result, bool) else result)


def _evaluate(node: ast.expr, variable: str, value: int) -> int | float | bool:
    match node:
        case ast.Constant(value=constant):
            return constant
        case ast.Name() | ast.Attribute():
            return value
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _evaluate(left, variable, value), _evaluate(right, variable, value)
            return _bounded(_BINARY[type(op)], op, a, b)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -_evaluate(operand, variable, value)
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            return not _evaluate(operand, variable, value)
        case ast.BoolOp(op=op, values=values):
            return _bool_op(op, values, variable, value)
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            return _compare(left, ops, comparators, variable, value)
        case ast.IfExp(test=test, body=body, orelse=orelse):
            chosen = body if _evaluate(test, variable, value) else orelse
            return _evaluate(chosen, variable, value)
        case ast.Call(args=args):
            return _PURE[_callee(node)](*(_evaluate(a, variable, value) for a in args))
    raise _Unknown


def _bounded(
    apply: Callable[[int, int], int], op: ast.operator, a: int | float, b: int | float
) -> int | float:
    """The operation's result, where it stays small: a shift by more than 64 bits or a
    product of wide numbers is not computed at all."""
    if isinstance(op, (ast.LShift, ast.RShift)) and not 0 <= b <= 64:
        raise _Unknown
    if isinstance(op, ast.Mult) and isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > _BITS:
            raise _Unknown
    result = apply(a, b)
    if isinstance(result, int) and result.bit_length() > _BITS:
        raise _Unknown
    return result


def _bool_op(
    op: ast.boolop, values: list[ast.expr], variable: str, value: int
) -> int | float | bool:
    result: int | float | bool = isinstance(op, ast.And)
    for operand in values:
        result = _evaluate(operand, variable, value)
        if bool(result) != isinstance(op, ast.And):
            return result
    return result


def _compare(
    left: ast.expr, ops: list[ast.cmpop], comparators: list[ast.expr], variable: str, value: int
) -> bool:
    a = _evaluate(left, variable, value)
    for op, right in zip(ops, comparators, strict=True):
        if type(op) not in _COMPARE:
            raise _Unknown
        b = _evaluate(right, variable, value)
        if not _COMPARE[type(op)](a, b):
            return False
        a = b
    return True


def rewrite_sentence(rewrite: ValueRewrite, where: str) -> str:
    """What the rewrite does to the values, as computed: the same for every value checked,
    or where it differs. Only what was computed is claimed."""
    old, new, name = code(rewrite.old), code(rewrite.new), code(rewrite.variable)
    computes = f"{where} now computes {new} where it computed {old}"
    if rewrite.same_from_one:
        checked = checked_values(rewrite)
        if not rewrite.differ:
            return f"{computes}; the two give the same value {checked}."
        (_, before, after) = rewrite.differ[0]
        return (
            f"{computes}; the two give the same value {checked}. Only {name} = 0 differs: the "
            f"old {_gave(before, 'gave')}, the new {_gave(after, 'gives')}."
        )
    shown = listed([
        f"{value:,} ({_bare(before)}, now {_bare(after)})"
        for value, before, after in rewrite.differ[:_SHOWN]
    ])  # fmt: skip
    more = ", among others" if len(rewrite.differ) > _SHOWN else ""
    return f"{computes}. The two differ at {name} = {shown}{more}."


def checked_values(rewrite: ValueRewrite) -> str:
    """ "for every `n` from 1 to 1,024 and at 70 larger values checked" """
    larger = f" and at {rewrite.beyond} larger values checked" if rewrite.beyond else ""
    return f"for every {code(rewrite.variable)} from 1 to {rewrite.through:,}{larger}"


def _gave(result: str, verb: str) -> str:
    if result.startswith("raised"):
        return result if verb == "gave" else result.replace("raised", "raises", 1)
    return f"{verb} `{result}`"


def _bare(result: str) -> str:
    return result if result.startswith("raised") else f"`{result}`"


def unchanged_values_sentence(pr: PullRequest, facts: ChangeFacts) -> str:
    """For a PR whose code that runs only rewrites expressions into ones that give the same
    values: that nothing a caller gets changes, and for which values that was computed."""
    if not only_same_values(pr, facts):
        return ""
    rewrites = value_rewrites(pr, facts)
    checked = "; ".join(checked_values(r) for r in rewrites[:_SHOWN])
    return (
        f"The new expression gives what the old one gave {checked}: the PR rewrites how "
        f"{_written(rewrites)} computes a value, and no value checked changes."
    )


def _written(rewrites: list[ValueRewrite]) -> str:
    places = dict.fromkeys(code(r.edit.enclosing or r.edit.file) for r in rewrites)
    return " and ".join(places)
