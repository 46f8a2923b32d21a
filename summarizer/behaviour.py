"""What a change does to cases that worked before, said as the concern a reviewer raises.

The facts say what changed; a reviewer's question is who now gets something different.
Thirteen changes answer it by themselves, exactly, from the diff:
- a default flipped (vLLM #34924): everyone who never set the variable gets the new value on
  upgrade, and setting the old one back is the way out;
- a branch's condition edited (#35354): the cases only the dropped part caught no longer
  take the branch (summarizer/conditions.py);
- lines that ran every time put under a new `if` (#35125): the cases where it does not hold
  skip them now (summarizer/guards.py); or kept under the `else:` of a new `if` (#35098),
  which the cases where it holds skip (summarizer/new_branches.py);
- a cache added or removed (#35099): a value computed once is not computed again when what
  it reads changes (summarizer/caching.py);
- strings written as the members of an enum of their names (#34254): a value no member has
  now raises at the conversion, and the comparisons assume the members' values
  (summarizer/enum_names.py);
- a sequence now sorted into itself (#34190): what relied on the order it was given in sees
  another (summarizer/ordering.py);
- a computed value returned now a constant (#34087): the cases the expression told apart
  now all get the constant (summarizer/constant_returns.py);
- a function of the module now called at import (#34108): what it does happens when the
  module is imported, and its error fails the import (summarizer/import_time.py);
- a feature check that asks for other names (#33985): an install with only the old ones
  passed it and now fails it (summarizer/feature_probes.py);
- a broad error swallowed (#33985's `contextlib.suppress(Exception)`): a failure there no
  longer shows (summarizer/swallowed_errors.py);
- a read that could fail made one that falls back (#34110's `getattr(config,
  "norm_topk_prob", True)`): an object without it gets the default where it raised before
  (summarizer/tolerant_reads.py);
- a new early exit in code that was there (#35063's `return None` when the state is
  `None`): that case skips the code below it, which it ran before
  (summarizer/new_branches.py);
- a new case that gives a name another value (#33197's `max_num_tokens_padded` for small
  batches): the code below reads the new value in that case (summarizer/new_branches.py).
New code that imports a package only when it runs (#32846's `flashinfer.gdn_prefill`) is
said here too, but it is a risk of new code, not of cases that worked: `finishing.fact_risk`
puts it after a changed signature or value (summarizer/deferred_imports.py).
On the dev days the reader scored every true but shallow risk 1 and wanted this kind of
concern for a 2; it is written here, never guessed by the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.build_branches import build_change
from summarizer.caching import CacheChange, caches_changed
from summarizer.checks import flipped_defaults
from summarizer.condition_chains import chains_changed
from summarizer.conditions import ConditionChange, conditions_changed
from summarizer.constant_returns import constant_returns
from summarizer.deferred_imports import deferred_import_sentence, deferred_imports
from summarizer.enum_names import enum_names, enum_sentence
from summarizer.facts import ChangeFacts
from summarizer.feature_probes import probes_changed
from summarizer.guards import guarded_lines, new_guards
from summarizer.import_time import import_time_calls
from summarizer.listed_items import listed_items, listed_sentence
from summarizer.new_branches import NewBranch, new_branches
from summarizer.ordering import now_sorted
from summarizer.swallowed_errors import swallowed_errors
from summarizer.tolerant_reads import tolerant_reads, tolerant_sentence
from summarizer.unguarded import unguarded, unguarded_sentence
from summarizer.wording import code, in_place, listed

_VALUE_CHARS = 60  # a value longer than this is not quoted: it would be the sentence
_PART_CHARS = 100  # a condition part longer than this is not quoted: it would be the sentence


@dataclass(frozen=True)
class BehaviourRisk:
    sentence: str
    names: tuple[str, ...]  # the identifiers it is about


def behaviour_risk(facts: ChangeFacts, pr: PullRequest) -> BehaviourRisk | None:
    """The first of: a default flipped, a condition edited, a returned value made constant,
    lines put under a new `if`, a cache added or removed, strings made enum members, a
    sequence now sorted, a call moved to import time, a feature check asking for other
    names, an error swallowed, a read that falls back to a default, a new early exit, a new
    case that gives a name another value. The PR's new `if` blocks are read once, for the
    three risks that draw on them."""
    first = (
        default_risk(facts) or condition_risk(pr) or build_risk(pr, facts)
        or listed_risk(pr, matched=True)
        or constant_return_risk(pr) or guard_risk(pr) or unguarded_risk(pr)
    )  # fmt: skip
    if first:
        return first
    branches = new_branches(pr, facts)
    return (
        _kept_code_risk(branches) or cache_risk(pr) or enum_risk(pr) or order_risk(pr)
        or import_time_risk(pr) or probe_risk(pr) or swallowed_risk(pr) or tolerant_risk(facts)
        or _exit_risk(branches) or _assignment_risk(branches)
    )  # fmt: skip


def build_risk(pr: PullRequest, facts: ChangeFacts) -> BehaviourRisk | None:
    """Builds that now compile another branch of a `#if` block, or the only ones that
    compile a new block (summarizer/build_branches.py)."""
    change = build_change(pr, facts)
    return BehaviourRisk(change.risk, change.names) if change and change.risk else None


def default_risk(facts: ChangeFacts) -> BehaviourRisk | None:
    """An environment variable whose default the PR changes."""
    if not (flipped := flipped_defaults(facts)):
        return None
    s = flipped[0]
    old = s.old.strip("\"'")
    return BehaviourRisk(
        f"`{s.name}` now defaults to `{s.new}`, not `{s.old}`: a deployment that never set "
        f"it gets the new behaviour when it upgrades, and setting `{s.name}={old}` keeps the "
        "old one.",
        (s.name,),
    )


def condition_risk(pr: PullRequest) -> BehaviourRisk | None:
    # Wrapped chains are read only where no one-line condition answers.
    for read in (conditions_changed, chains_changed):
        for c in read(pr):
            if any(len(p) > _PART_CHARS for p in c.dropped or c.added):
                continue
            return BehaviourRisk(_condition_sentence(c), tuple(n for n in (c.enclosing,) if n))
    return None


def _condition_sentence(c: ConditionChange) -> str:
    where = in_place(c.enclosing, c.file)
    if c.returned:
        return _returned_sentence(c, where)
    if c.chained:
        return _chain_sentence(c, where)
    act = c.action or "takes the branch below it"
    quoted = " or ".join(code(p) for p in (c.dropped or c.added))
    if c.operator == "or":
        case = f"a case where only {quoted} holds"
        now = f"now also {act}" if c.added else f"no longer {act}"
    else:
        case = f"a case where {quoted} does not hold"
        now = f"no longer {act}" if c.added else f"now also {act}"
    did = _values_did(c) or (
        "adds that part to the condition" if c.added else "drops that part of the condition"
    )
    check = "check" if c.action.startswith("raises") else "branch"
    after = (
        f"such a case went past that {check} before"
        if now.startswith("now")
        else f"such a case now goes past that {check}"
    )
    return f"{where}, {case} {now}: the PR {did}, and {after}."


def _values_did(c: ConditionChange) -> str:
    """ "adds `MLAAttention` to the types `layer` is checked against" """
    if not c.values:
        return ""
    verb, to = ("adds", "to") if c.added else ("drops", "from")
    kind = "types" if (c.added or c.dropped)[0].startswith("isinstance(") else "values"
    against = "checked against" if kind == "types" else "compared with"
    values = listed([code(v) for v in c.values])
    return f"{verb} {values} {to} the {kind} {code(c.subject)} is {against}"


def _returned_sentence(c: ConditionChange, where: str) -> str:
    """A returned `and`/`or` chain: which cases now get a false value, or a true one."""
    quoted = " or ".join(code(p) for p in (c.dropped or c.added))
    if c.operator == "and" and c.added:
        return (
            f"{where}, the value returned now also requires {quoted}: a case where that does "
            "not hold now gets a false value where it could get a true one before."
        )
    if c.operator == "and":
        return (
            f"{where}, the value returned no longer requires {quoted}: a case where that does "
            "not hold can now get a true value where it got a false one before."
        )
    if c.added:
        return (
            f"{where}, the value returned is now also true where only {quoted} holds: such a "
            "case got a false value before."
        )
    return (
        f"{where}, the value returned is no longer true where only {quoted} holds: such a "
        "case now gets a false value."
    )


def _chain_sentence(c: ConditionChange, where: str) -> str:
    """A wrapped `and`/`or` chain whose head the hunk does not show: what the part does to
    the chain's value, which holds whatever the chain decides."""
    quoted = " or ".join(code(p) for p in (c.dropped or c.added))
    did = f"adds {quoted} to" if c.added else f"drops {quoted} from"
    if c.operator == "and":
        then = (
            "a case where it does not hold now makes the chain false, where it could make it "
            "true before" if c.added
            else "a case where it does not hold can now make the chain true, where it made it "
            "false before"
        )  # fmt: skip
    else:
        then = (
            "a case where only it holds now makes the chain true, where it made it false before"
            if c.added
            else "a case where only it held made the chain true before, and now makes it false"
        )  # fmt: skip
    return f"{where}, the PR {did} an `{c.operator}` chain: {then}."


def listed_risk(pr: PullRequest, *, matched: bool) -> BehaviourRisk | None:
    """Items added to or dropped from a literal: of the values a condition matches
    (`matched`: a case that now takes the branch, or no longer does), or of a list, set or
    mapping that code looks values up in."""
    if not (found := [x for x in listed_items(pr) if bool(x.subject) == matched]):
        return None
    x = found[0]
    names = tuple(n for n in (x.subject or x.holder, x.enclosing) if n)
    return BehaviourRisk(listed_sentence(found), names)


def guard_risk(pr: PullRequest) -> BehaviourRisk | None:
    """Lines that ran every time and now run only under a new `if`."""
    if not (guards := new_guards(pr)):
        return None
    g = guards[0]
    where = in_place(g.enclosing, g.file)
    return BehaviourRisk(
        f"{where}, {guarded_lines(g)} ran every time before and now run only if "
        f"{code(g.condition)}: a case where it does not hold now skips them.",
        tuple(n for n in (g.enclosing, g.condition) if n),
    )


def _kept_code_risk(branches: list[NewBranch]) -> BehaviourRisk | None:
    """Code that ran every time, kept under the `else:` of a new `if`: the cases where the
    condition holds skip it now, and run the new code instead."""
    kept = [b for b in branches if b.otherwise]
    if not kept:
        return None
    b = kept[0]
    one = len(b.otherwise) == 1
    lines = (
        f"{code(b.otherwise[0])} ran every time before and now runs" if one
        else f"the {len(b.otherwise)} lines starting {code(b.otherwise[0])} ran every time "
        "before and now run"
    )  # fmt: skip
    # "skips it and calls `x` instead": what "it" is stays next to it (a reader found
    # "calls `x` in its place, and skips it" garbled, vLLM #35098).
    them = "it" if one else "them"
    return BehaviourRisk(
        f"{in_place(b.enclosing, b.file)}, {lines} only where {code(b.condition)} does not "
        f"hold: a case where it holds skips {them} and {b.action} instead.",
        tuple(n for n in (b.enclosing,) if n),
    )


def unguarded_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A statement taken out of its branch, to run in every case."""
    if not (found := unguarded(pr)):
        return None
    return BehaviourRisk(unguarded_sentence(found[0]), tuple(n for n in (found[0].enclosing,) if n))


def cache_risk(pr: PullRequest) -> BehaviourRisk | None:
    changes = caches_changed(pr)
    if cached := [c for c in changes if c.cached]:
        return BehaviourRisk(_cached_sentence(cached[0]), (cached[0].name,))
    if uncached := [c for c in changes if not c.cached]:
        names = [code(c.name) for c in uncached]
        shown = listed(names)
        kinds = {c.decorator for c in uncached}
        verb = "caches" if len(names) == 1 else "cache"
        return BehaviourRisk(
            f"{shown} no longer {verb} {'its' if len(names) == 1 else 'their'} result "
            f"(`@{sorted(kinds)[0]}` removed): each call runs the body again.",
            tuple(c.name for c in uncached[:3]),
        )
    return None


def _cached_sentence(c: CacheChange) -> str:
    reads = listed([code(r) for r in c.reads]) if c.reads else "what it reads"
    verb = "changes" if len(c.reads) <= 1 else "change"
    if c.decorator == "cached_property":
        owner = code(c.name.split(".")[0]) if "." in c.name else "object"
        return (
            f"{code(c.name)} is now computed once per {owner} object and kept "
            f"(`@cached_property`): if {reads} {verb} after the first read, it still "
            "returns the old value."
        )
    return (
        f"{code(c.name)} now keeps its result for each set of arguments (`@{c.decorator}`): "
        "a later call with the same arguments gets that result, even if what it reads has "
        "changed since."
    )


def enum_risk(pr: PullRequest) -> BehaviourRisk | None:
    """Strings written as the members of an enum of their names (summarizer/enum_names.py)."""
    if not (names := enum_names(pr)):
        return None
    return BehaviourRisk(enum_sentence(names), (names.enum,))


def order_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A sequence now sorted into itself: what relied on its order as given sees another."""
    if not (found := now_sorted(pr)):
        return None
    n = found[0]
    where = f"In {code(n.owner)}, " if n.owner else ""
    by = f" by `{n.key}`" if n.key else ""
    way = ", in reverse" if n.reverse else ""
    used = f"`{n.read_by}` reads it" if n.read_by else "it is used"
    return BehaviourRisk(
        f"{where}`{n.name}` is now sorted{by}{way} before {used}: code below that relied "
        "on the order it was given in (which item comes first) now sees another.",
        tuple(x for x in (n.owner, n.name) if x),
    )


def constant_return_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A computed value returned that is now a constant."""
    if not (found := constant_returns(pr)):
        return None
    c = found[0]
    where = in_place(c.enclosing, c.file)
    other = {"True": "False", "False": "True", "true": "false", "false": "true"}[c.new]
    if c.boolean:
        case = (
            f"`{c.old[4:].strip()}` holds" if c.old.startswith("not ")
            else f"`{c.old}` is {other.lower()}"
        )  # fmt: skip
        then = f"a case where {case} now gets `{c.new}`, where it got `{other}` before"
    else:
        then = f"whatever `{c.old}` held is no longer read there"
    return BehaviourRisk(
        f"{where}, the value returned is now always `{c.new}`; it was `{c.old}`: {then}.",
        tuple(n for n in (c.enclosing,) if n),
    )


def import_time_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A function of the module the PR now calls at module level, when it is imported."""
    if not (found := import_time_calls(pr)):
        return None
    c = found[0]
    return BehaviourRisk(
        f"`{c.line}` is at module level, so `{c.function}` now runs when `{c.file}` is "
        f"imported, in every process that imports it, before any caller asks: whatever it "
        "does happens then, and an error it raises fails the import.",
        (c.function,),
    )


def probe_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A `hasattr` check that now asks for names it did not: what had only the old ones."""
    if not (found := probes_changed(pr)):
        return None
    p = found[0]
    where = in_place(p.enclosing, p.file)
    new = next(n for n in p.after if n not in p.before)
    old = next((n for n in p.before if n not in p.after), p.before[0])
    asked = listed([code(n) for n in p.after])
    return BehaviourRisk(
        f"{where}, the check on `{p.subject}` now asks for {asked}, where it asked for "
        f"{listed([code(n) for n in p.before])}: a `{p.subject}` that has `{old}` but not "
        f"`{new}` passed the check before and now fails it, so the code takes its path for "
        "one that lacks the feature.",
        (p.subject, new),
    )


def swallowed_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A broad `suppress`, or a broad `except` that only passes, the PR adds."""
    if not (found := swallowed_errors(pr)):
        return None
    s = found[0]
    where = in_place(s.enclosing, s.file)
    what = f"an error raised by `{s.guarded}`" if s.guarded else "an error raised in that block"
    return BehaviourRisk(
        f"{where}, {what} is now swallowed (`{s.how}`): a failure there raises nothing and "
        "logs nothing, so it goes unseen.",
        tuple(n for n in (s.enclosing,) if n),
    )


# What the case no longer reaches, by how it leaves. A raise is the raises' own risk.
_SKIPPED = {
    "returns": "the call now returns at once, where it went on to the code below before: a "
    "caller gets {value} for that case, and what that code did is skipped",
    "skips": "the loop now skips that item, where it ran the code below for it before",
    "stops": "the loop now stops there, where it went on to the items after it before",
}


def tolerant_risk(facts: ChangeFacts) -> BehaviourRisk | None:
    """A read that raised on a missing attribute or key, now one that gets a default."""
    if not (found := tolerant_reads(facts)):
        return None
    t = found[0]
    return BehaviourRisk(tolerant_sentence(t), tuple(n for n in (t.enclosing,) if n))


def exit_risk(facts: ChangeFacts, pr: PullRequest) -> BehaviourRisk | None:
    """A new `if` that returns, skips or stops, above code that was there before."""
    return _exit_risk(new_branches(pr, facts))


def _exit_risk(branches: list[NewBranch]) -> BehaviourRisk | None:
    exits = [b for b in branches if b.exits and b.skips_old]
    # In place of other code than an `assert`, what that case did before is not known.
    exits = [b for b in exits if b.action.split()[0] in _SKIPPED and _replaced_known(b)]
    if not exits:
        return None
    b = exits[0]
    verb, _, rest = b.action.partition(" ")
    value = rest if rest.startswith("`") else "nothing (`None`)"
    then = _SKIPPED[verb].format(value=value)
    if b.replaces:  # vLLM #35063: the case stopped with an error before, and now goes quiet
        then = (
            f"the call now {b.action} where `{b.replaces}` stopped it with an `AssertionError` "
            f"before: a caller gets {value} for that case, with no error to show why"
        )
    return BehaviourRisk(
        f"{in_place(b.enclosing, b.file)}, when {code(b.condition)}, {then}.",
        tuple(n for n in (b.enclosing,) if n),
    )


def _assignment_risk(branches: list[NewBranch]) -> BehaviourRisk | None:
    """A new `if` whose one statement gives a name that was there another value, above old
    code that reads it: in that case the code below works on the new value."""
    for b in branches:
        if b.exits or not b.target or not b.skips_old or not _quotable(b.value):
            continue
        where, when = in_place(b.enclosing, b.file), f"when {code(b.condition)}"
        name, value = code(b.target), code(b.value)
        if re.search(rf"(?<![\w.]){re.escape(b.target)}(?!\w)", b.value):
            return BehaviourRisk(
                f"{where}, {when}, {name} now becomes {value} before the code below reads it: "
                f"that code gets the changed {name} in that case, and the one it got before "
                "otherwise.",
                tuple(n for n in (b.enclosing,) if n),
            )
        if b.overrides:
            return BehaviourRisk(
                f"{where}, {when}, {name} is now {value}, not the value "
                f"{code(b.overrides)} gave it above: the code below reads the new value in that "
                "case.",
                tuple(n for n in (b.enclosing,) if n),
            )
    return None


def _quotable(value: str) -> bool:
    return bool(value) and len(value) <= _VALUE_CHARS and not unclosed(value)


def _replaced_known(b: NewBranch) -> bool:
    return not b.replaces or b.replaces.startswith("assert ")


def deferred_import_risk(pr: PullRequest) -> BehaviourRisk | None:
    """A package outside the PR's own that new code imports only when it runs."""
    if not (found := deferred_imports(pr)):
        return None
    d = found[0]
    more = len({x.module for x in found}) - 1
    return BehaviourRisk(deferred_import_sentence(d, pr, more), (d.enclosing,))
