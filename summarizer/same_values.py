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

from bot.core.models import PullRequest
from summarizer.facts import ChangeFacts
from summarizer.file_kinds import runs_code
from summarizer.line_edits import LineEdit, core
from summarizer.wording import code

_HIGH = 1024  # the variable's values checked: 0 to this (sizes, counts, slices, ranks)
_LOW = 16  # values checked, at least, for anything to be said
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
    high: int = _HIGH  # the values checked are 0 to this: above it, one side is not known

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
        differ, high = _differences(old_tree, new_tree, variable)
        if high >= _LOW:
            return ValueRewrite(edit, old, new, variable, differ, high)
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
    return text.strip().rstrip(",;").strip()


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
        if isinstance(child, ast.Constant) and type(child.value) not in (int, bool):
            raise _Unknown
        if isinstance(child, ast.Call) and (child.keywords or _callee(child) not in _PURE):
            raise _Unknown
        if isinstance(child, ast.BinOp) and type(child.op) not in _BINARY:
            raise _Unknown


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _variables(tree: ast.expr) -> set[str]:
    """The names the expression reads (`self.n` as one), helpers called aside."""
    callees = {id(c.func) for c in ast.walk(tree) if isinstance(c, ast.Call)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in callees or isinstance(node, ast.Call):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)) and not _inside_attribute(node, tree):
            found.add(ast.unparse(node))
    return found


def _inside_attribute(node: ast.AST, tree: ast.expr) -> bool:
    return any(isinstance(p, ast.Attribute) and p.value is node for p in ast.walk(tree))


def _differences(
    old: ast.expr, new: ast.expr, variable: str
) -> tuple[tuple[tuple[int, str, str], ...], int]:
    """The values where old and new differ, and the last value checked: the values run up
    from 0 until one side cannot be known (`next_power_of_2(0)`), at most to `_HIGH`."""
    differ = []
    for value in range(_HIGH + 1):
        try:
            before, after = _result(old, variable, value), _result(new, variable, value)
        except _Unknown:
            return tuple(differ), value - 1
        if before != after:
            differ.append((value, before, after))
    return tuple(differ), _HIGH


def _result(tree: ast.expr, variable: str, value: int) -> str:
    try:
        return repr(_evaluate(tree, variable, value))
    except ZeroDivisionError:
        return "raised `ZeroDivisionError`"
    except (ValueError, OverflowError, TypeError) as e:
        raise _Unknown from e


def _evaluate(node: ast.expr, variable: str, value: int) -> int | float | bool:
    match node:
        case ast.Constant(value=constant):
            return constant
        case ast.Name() | ast.Attribute():
            return value
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _evaluate(left, variable, value), _evaluate(right, variable, value)
            return _BINARY[type(op)](a, b)
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


def _bool_op(op: ast.boolop, values: list[ast.expr], variable: str, value: int) -> int | bool:
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
    """What the rewrite does to the values, as computed: the same for every count, or where
    it differs."""
    old, new, name = code(rewrite.old), code(rewrite.new), code(rewrite.variable)
    if not rewrite.differ:
        return (
            f"{where} now computes {new} where it computed {old}, and the two give the same "
            f"value for every {name} from 0 to {rewrite.high:,}: the PR rewrites how the value is "
            "written, not the value."
        )
    if rewrite.same_from_one:
        (_, before, after) = rewrite.differ[0]
        return (
            f"{where} now computes {new} where it computed {old}; the two give the same value "
            f"for every {name} from 1 to {rewrite.high:,}. Only {name} = 0 differs: the old "
            f"{_gave(before, 'gave')}, the new {_gave(after, 'gives')}."
        )
    shown = "; ".join(
        f"{name} = {value}: {_bare(before)}, now {_bare(after)}"
        for value, before, after in rewrite.differ[:_SHOWN]
    )
    return (
        f"{where} now computes {new} where it computed {old}. Of the values of {name} from 0 "
        f"to {rewrite.high:,}, {len(rewrite.differ):,} give another result ({shown})."
    )


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
    ranges = " and ".join(f"{code(r.variable)} from 1 to {r.high:,}" for r in rewrites[:_SHOWN])
    return (
        f"For every {ranges}, the new expression gives what the old one gave: the PR rewrites "
        f"how {_written(rewrites)} computes a value, not the value."
    )


def _written(rewrites: list[ValueRewrite]) -> str:
    places = dict.fromkeys(code(r.edit.enclosing or r.edit.file) for r in rewrites)
    return " and ".join(places)
