"""What code adds to a checked answer before it is stored: the PR's names marked as code, and,
where the model named nothing of the change, one sentence written from the change facts.

A small model often describes the right change in words ("decouples the TimingContext from
the InputProcessingContext") without marking a name as code, or writes a "what changed" and a
risk section that name nothing a reader could look up. The facts (summarizer/facts.py) are
exact, so a sentence built from them is true by construction: it says what was added,
removed or changed, and which callers or settings a reader should check. The model's own text
stays; only its boilerplate risk sentences give way to the sentence from the facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from bot.core.models import ChangeType, PullRequest, SummarySections
from summarizer.attributes import (
    attributes_dropped,
    attributes_set,
    inherited_sentence,
    overrides_dropped,
    set_sentence,
)
from summarizer.behaviour import behaviour_risk, deferred_import_risk, listed_risk
from summarizer.bug_story import story_sentence
from summarizer.build_branches import BuildChange, build_change
from summarizer.call_arguments import (
    ChangedArgument,
    PassedValue,
    added_arguments,
    argument_sentence,
    changed_arguments,
    changed_positionals,
    passed_values,
    places_rewritten,
    required_params,
)
from summarizer.changed_exits import ChangedExits, changed_exits, exits_risk, exits_sentence
from summarizer.checks import (
    adds_running_definitions,
    boilerplate_sentences,
    called_unused,
    names_pr_code,
    shaped_like_code,
    split_sentences,
    tidy,
)
from summarizer.claims import (
    CODE_SPAN,
    code_pattern,
    diff_lines,
    grounded_names,
    normalize_code,
    pr_corpus,
)
from summarizer.code_hunks import (
    CONDITION_CHARS,
    block_head,
    code_hunks,
    file_hunks,
    if_condition,
    swaps_by_file,
)
from summarizer.condition_chains import chains_changed
from summarizer.conditions import ConditionChange, condition_edit_sentence, conditions_changed
from summarizer.dispatch import Dispatch, dispatch_risk_sentence, dispatch_sentence, dispatches
from summarizer.facts import (
    MACRO_BLOCK,
    ChangeFacts,
    Definition,
    Deletion,
    Move,
    MovedLines,
    SignatureChange,
    common_dir,
    param_name,
    short_name,
)
from summarizer.file_kinds import is_support_file, is_test_file, is_tooling_file, runs_code
from summarizer.file_paths import path_repair
from summarizer.glued_strings import glued_sentence, glued_strings
from summarizer.guards import NewGuard, guard_sentence, new_guards
from summarizer.hunks import Hunk, assigns
from summarizer.insight import interface_sentence
from summarizer.line_edits import OPTION_LINE, LineEdit, core
from summarizer.listed_items import ListedItems, listed_change_sentence, listed_items, says_items
from summarizer.log_calls import broken_sentence, log_fixes, log_risk
from summarizer.new_branches import NewBranch, branch_sentence, new_branches
from summarizer.new_locals import new_local_value
from summarizer.new_returns import new_returns
from summarizer.passed_in import PassedIn, passed_in, passed_in_sentence
from summarizer.prose import COMMENT_LINE
from summarizer.raises import RaiseAdded, raises_added
from summarizer.rationale import reason_sentence
from summarizer.reach import reach, reach_clause
from summarizer.rebound import rebound_names, rebound_sentence
from summarizer.relocation import moved_modules
from summarizer.repetition import restates
from summarizer.rewrapped import RewrappedAssignment, rewrapped_assignments
from summarizer.same_values import rewrite_sentence, value_rewrite
from summarizer.small_bodies import bodies_sentence
from summarizer.support_risks import support_risk
from summarizer.unguarded import Unguarded, taken_out_sentence, unguarded
from summarizer.wording import (
    UNTESTED,
    code,
    in_place,
    listed,
    moved_names,
    moved_setting,
    named_definitions,
    phrase,
    quotable,
    quoted,
    running_signatures,
    scope_sentence,
    settings_named,
    settings_of,
    tests_sentence,
)

# A "what changed" that names fewer grounded names than this gets the sentence from the facts.
NAMED_ENOUGH = 3


def finish(
    sections: SummarySections,
    pr: PullRequest,
    facts: ChangeFacts | None,
    change_type: ChangeType = ChangeType.SUBSTANTIAL,
    small_model: bool = False,
) -> SummarySections:
    """The sections with the PR's names marked as code, a facts sentence leading a "what
    changed" that names too little, and a risk from the facts where the model's names none.
    A `small_model`'s sentences that say no more than code's go (see `_beyond`)."""
    if facts is None:
        return sections
    corpus = pr_corpus(pr)
    sections = names_marked(sections, facts, pr)
    what = _what_changed(sections.what_changed, pr, facts, corpus, small_model)
    risks = risk_text(sections.potential_risks, facts, pr, change_type, corpus)
    interface = interface_sentence(facts, pr)
    # The model's impact, once the checks cut it, may be what "what changed" says (#35080).
    own = "" if restates(sections.technical_impact, what) else sections.technical_impact
    if small_model and interface:  # a facts sentence can take its place: keep what it adds
        own = _beyond(own, f"{what} {interface}")
    impact = own or interface or sections.technical_impact
    insights = sections.key_insights or _insight(pr, facts, interface, f"{risks} {impact}")
    return replace(
        sections,
        headline=sections.headline or pr.title,  # one the facts contradict gives way
        what_changed=what.strip(),
        technical_impact=impact,
        potential_risks=risks,
        key_insights=insights,
    )


@dataclass(frozen=True)
class _CodeSays:
    """What code says exactly of a change, each piece for "what changed"."""

    edits: list[LineEdit]
    guards: list[NewGuard]
    branches: list[NewBranch]
    listed: list[ListedItems]
    rewrapped: list[RewrappedAssignment]
    routed: list[Dispatch]
    condition: ConditionChange | None
    build: BuildChange | None
    same_conditions: tuple[str, ...] = ()  # other definitions the same condition edit is in
    raised: RaiseAdded | None = None  # a new error with its message, in code that was there
    taken_out: Unguarded | None = None  # a statement taken out of its branch
    passed: PassedIn | None = None  # a value a function now takes from its callers
    exits: ChangedExits | None = None  # the returns a function takes out and puts in

    def told(self) -> set[str | None]:
        """The definitions these pieces say: not "changed" again in the facts' sentence."""
        told = {e.enclosing for e in self.edits} | {g.enclosing for g in self.guards}
        told |= {b.enclosing for b in self.branches}
        told |= {x.enclosing for x in [*self.listed, *self.rewrapped][:1]}
        told |= {d.enclosing for d in self.routed[:1]}
        told |= set(self.build.names if self.build else ())
        told |= {self.raised.owner} if self.raised else set()
        told |= {self.taken_out.enclosing} if self.taken_out else set()
        told |= {self.passed.function} if self.passed else set()
        told |= {self.exits.function} if self.exits else set()
        return told | ({self.condition.enclosing, *self.same_conditions} if self.condition else set())


def _what_changed(
    what: str, pr: PullRequest, facts: ChangeFacts, corpus: str, small_model: bool = False
) -> str:
    """The model's "what changed" led by what code says exactly, less a small model's
    sentences that say no more than code's; what a short new function does; what was broken
    and why, in the author's words."""
    model = what.strip()
    what = _code_led(what, pr, facts, corpus)
    if small_model and model and what.strip() != model and what.strip().endswith(model):
        said = what.strip()[: -len(model)]
        what = f"{said}{_beyond(model, said)}"
    # A new function named but not said: its body, where a statement or two, says it (#35098).
    if bodies := bodies_sentence(pr, facts, what):
        what = f"{what.strip()} {bodies}"
    return _with_author_words(what, pr)


def _beyond(model: str, said: str) -> str:
    """The small model's sentences that name something code's own sentences (`said`) do not:
    the others restate them, or guess at a purpose, and on the dev days a guessed purpose was
    the built-in model's commonest wrong mechanism (vLLM #35289 "to handle multiple shard IDs
    for BNB", backwards; #35063 "ensures that the state is properly reset after each
    `sample_tokens` call"). A hosted model's reasons are kept: they are its value."""
    kept = []
    for sentence in split_sentences(model):
        names = [m.group(0).strip("`") for m in CODE_SPAN.finditer(sentence)]
        new = [n for n in names if f"`{n}`" not in said and not _is_path(n)]
        if new:
            kept.append(sentence)
    return " ".join(kept)


_FILE_NAME = re.compile(r"[\w.-]+\.(?:py|cu|cuh|cpp|h|hpp|md|txt|yaml|yml|toml|json)")


def _is_path(name: str) -> bool:
    """A file or a directory: where a sentence puts a change, not something it says of it."""
    return "/" in name or bool(_FILE_NAME.fullmatch(name))


def _code_led(what: str, pr: PullRequest, facts: ChangeFacts, corpus: str) -> str:
    """The model's "what changed", led by what code says exactly: the lines a fix turns on,
    the lines put under a new `if` or taken out of one, the new case, the list item, the
    value rewritten, the values a new chain routes, the condition edited, the builds that
    compile which lines, the logging call that could not format its message; a facts
    sentence where the model names too little, or the move it missed."""
    says = _code_says(what, pr, facts)
    named = grounded_names(pr, SummarySections(what, "", "", ""), corpus)
    # Named already by the model, or by a sentence of its edits: not "changed" again.
    sentence = change_sentence(_without_passed(facts, says.passed), told=says.told() | set(named))
    if says.listed and not says_items(sentence, says.listed):
        what = f"{listed_change_sentence(says.listed)} {what}"
    if says.routed:
        what = f"{dispatch_sentence(says.routed[0])} {what}"
    if says.rewrapped:
        r = says.rewrapped[0]
        place = _rewrapped_place(r)
        what = f"{place}, {r.subject} becomes `{r.new}` where it was `{r.old}`. {what}"
    if fixes := log_fixes(pr):  # said after the edit that quotes the call
        what = f"{broken_sentence(fixes[0])} {what}"
    if says.edits:
        # The line a fix turns on, quoted: what a small model most often tells backwards.
        what = f"{edit_sentence(says.edits, pr)} {what}"
    if says.passed:
        # What the function no longer computes is what a fix of that value fixed (#34167).
        what = f"{passed_in_sentence(says.passed)} {what}"
    if says.build and says.build.directive not in what:
        what = f"{says.build.sentence} {what}"
    if r := says.raised:
        # The rule a new check enforces, in its author's words (vLLM #34973).
        what = f"{in_place(r.owner, r.file)}, a new check raises `{r.error}`: {quoted(r.message)} {what}"
    if says.condition:
        what = f"{condition_edit_sentence(says.condition, says.same_conditions)} {what}"
    if says.guards and says.guards[0].condition not in what:
        # Lines re-added one level deeper read as new code (vLLM #35125's "adds a try-except").
        what = f"{guard_sentence(says.guards[0])} {what}"
    if says.taken_out and (moved := taken_out_sentence(says.taken_out)):
        what = f"{moved} {what}"
    if says.exits:
        what = f"{exits_sentence(says.exits)} {what}"
    if says.branches:
        # The case a fix adds, and what it does then: what a small model calls "adds support".
        what = f"{branch_sentence(says.branches[0])} {what}"
    if sentence and len(named) < NAMED_ENOUGH:
        what = f"{sentence} {what}"
    elif (moves := move_sentence(facts)) and not _MOVE_WORD.search(what):
        # A move read as an addition (or a removal) is the mechanism told wrong.
        what = f"{moves} {what}"
    return what


def _code_says(what: str, pr: PullRequest, facts: ChangeFacts) -> _CodeSays:
    """The pieces code says of the change that the model's `what` does not say already,
    each line said once: by the piece that says most of it."""
    edits = edits_to_say(facts, pr, what)
    guards = new_guards(pr)
    branches = [] if guards else _branches_to_say(pr, facts, what)
    # A line of the new case is said by its sentence, not again as a line added.
    edits = [e for e in edits if e.old or not any(b.says(e.new) for b in branches[:1])]
    # A line of a list is a PR's whole mechanism more often than it looks (vLLM #35081); its
    # items are said with the list, not again as lines added.
    listed = [] if branches else _listed_to_say(pr, facts)
    listed = [] if listed and says_items(what, listed) else listed
    edits = [e for e in edits if e.old or not (listed and says_items(e.new, listed))]
    conditions = [] if branches or guards else [*conditions_changed(pr), *chains_changed(pr)]
    condition = _condition_to_say(conditions, what)
    if build := build_change(pr, facts):
        # Which builds compile which lines: two lines added side by side do not say.
        edits = [e for e in edits if e.old or e.new.strip() not in build.lines]
    if condition and any(p in e.new for e in edits for p in condition.added or condition.dropped):
        condition = None  # the edit's sentence quotes the part already
    # A value rewritten where the new case is not is a second change said (vLLM #34140's
    # `"audio"` entry, now every audio): in the same definition it is the case's detail.
    said_in = {x.enclosing for x in [*branches, *listed][:1]}
    rewrapped = [r for r in _rewrapped_to_say(pr, facts, what) if r.enclosing not in said_in]
    routed = [] if branches else [d for d in dispatches(pr, facts) if code(d.subject) not in what]
    same = _same_edit(conditions, condition) if condition else ()
    raised = None if branches else _raise_to_say(pr, facts, what)
    # Moved out of a branch: "changes the multiplier" said of a line that only moved (#34813).
    out = None if branches or guards else next(iter(unguarded(pr)), None)
    passed = next((p for p in passed_in(pr, facts) if p.computed not in what), None)
    if passed:  # the new parameter's line is said by the sentence that says where it came from
        edits = [e for e in edits if e.old or not _declares(e.new, passed.name)]
    says = _CodeSays(
        edits, guards, branches, listed, rewrapped, routed, condition, build, same, raised,
        out if out and out.statement not in what else None, passed,
    )  # fmt: skip
    return replace(says, exits=_exits_to_say(pr, facts, what, says))


def _exits_to_say(
    pr: PullRequest, facts: ChangeFacts, what: str, says: _CodeSays
) -> ChangedExits | None:
    """The first function whose returns the PR rewrites other than in place, that no other
    piece says and whose returns the model's words do not quote (vLLM #33839)."""
    told = says.told()
    for c in changed_exits(pr, facts):
        if c.function not in told and not any(s in what for s in c.statements()):
            return c
    return None


def _without_passed(facts: ChangeFacts, passed: PassedIn | None) -> ChangeFacts:
    """The facts less a signature change that is only the parameter `passed` says."""
    if passed is None:
        return facts
    kept = [
        s for s in facts.signatures
        if not (s.name == passed.function and not s.removed_params
                and [param_name(p) for p in s.added_params] == [passed.name])
    ]  # fmt: skip
    return replace(facts, signatures=tuple(kept))


def _rewrapped_place(r: RewrappedAssignment) -> str:
    """ "In `f`", and the `if` the value stands under: the runs that get it at all."""
    return f"{in_place(r.enclosing, r.file)}{_under_if(r.condition)}"


def _under_if(condition: str) -> str:
    return f", under `if {condition}:`" if condition else ""


def _declares(line: str, name: str) -> bool:
    """The line is a parameter `name` of a signature: `name: int,`, `name,`."""
    return bool(re.match(rf"\s*{re.escape(name)}\s*(?::[^=]*)?,?\s*$", line))


def _with_author_words(what: str, pr: PullRequest) -> str:
    """What was broken, as the PR's new test tells it, then the why, in the author's words:
    after the what, each unless the text quotes it already."""
    if story := story_sentence(pr, what):
        what = f"{what.strip()} {story}"
    if reason := reason_sentence(pr, what):
        what = f"{what.strip()} {reason}"
    return what


def _condition_to_say(conditions: list[ConditionChange], what: str) -> ConditionChange | None:
    """The first condition the PR edits in place by whole parts, short enough to quote,
    whose parts the model's words do not quote already."""
    squeezed = " ".join(what.split())
    for c in conditions:
        parts = c.added or c.dropped
        if c.values or any(len(p) > CONDITION_CHARS for p in parts):
            continue
        return None if all(p in squeezed for p in parts) else c
    return None


_MESSAGE_WORDS = 5  # a shorter message ("bad value") says no rule


def _raise_to_say(pr: PullRequest, facts: ChangeFacts, what: str) -> RaiseAdded | None:
    """The first error the PR newly raises, with a message of a few words, in a definition
    that was there (new code's raises meet no caller yet), whose error the model's words do
    not name."""
    new = {d.name for d in facts.of("added")}
    for r in raises_added(pr):
        words = len(re.findall(r"[A-Za-z]{2,}", r.message))
        if r.owner and r.owner not in new and words >= _MESSAGE_WORDS and quotable(r.message):
            return None if r.error in what or is_support_file(r.file) else r
    return None


def _same_edit(conditions: list[ConditionChange], c: ConditionChange) -> tuple[str, ...]:
    """The other definitions whose condition the PR edits by the same parts (vLLM #35250
    gates two methods on `on_gfx950()`)."""
    return tuple(dict.fromkeys(
        o.enclosing for o in conditions
        if o.enclosing and o.enclosing != c.enclosing
        and (o.added, o.dropped, o.returned) == (c.added, c.dropped, c.returned)
    ))  # fmt: skip


def _rewrapped_to_say(
    pr: PullRequest, facts: ChangeFacts, what: str
) -> list[RewrappedAssignment]:
    """A value rewritten over several lines that the model's words do not name, where the
    PR adds no definition (beside new code it is a detail)."""
    if adds_running_definitions(pr, facts):
        return []
    return [r for r in rewrapped_assignments(pr) if f"`{r.name}`" not in what][:1]


def _listed_to_say(pr: PullRequest, facts: ChangeFacts) -> list[ListedItems]:
    """Items added to or dropped from a literal, where the PR adds no definition: beside
    new code, a registry's entry is how it is reached, not what the PR does."""
    return [] if adds_running_definitions(pr, facts) else listed_items(pr)


def _branches_to_say(pr: PullRequest, facts: ChangeFacts, what: str) -> list[NewBranch]:
    """The new cases the model's text does not already quote the condition of."""
    squeezed = " ".join(what.split())
    return [b for b in new_branches(pr, facts) if b.condition not in squeezed]


def _insight(pr: PullRequest, facts: ChangeFacts, interface: str, said: str) -> str:
    """key_insights written by code, where the model's were all padding: which tests change
    with the PR, or else what callers see, or else how much code changes where: the first
    that the other sections do not say already (a sentence said twice reads as a fault)."""
    tests = "" if UNTESTED in said else tests_sentence(pr, facts)
    candidates = [tests, interface, scope_sentence(pr)]
    return next((c for c in candidates if c and c not in said), candidates[-1])


def fillable(facts: ChangeFacts | None, pr: PullRequest) -> frozenset[str]:
    """The sections `finish` writes a sentence for from the facts (or, for the headline,
    takes the PR's title) when the model's own sentences are all found wrong: these may be
    emptied, never left blank."""
    if facts is None:
        return frozenset()
    fields = set()
    if change_sentence(facts) or move_sentence(facts) or edits_to_say(facts, pr, ""):
        fields.add("what_changed")
    if fact_risk(facts, pr) is not None:
        fields.add("potential_risks")
    if interface_sentence(facts, pr):
        fields.add("technical_impact")
    fields.add("key_insights")  # which tests change with the PR: the diff always says
    fields.add("headline")  # the PR's own title
    return frozenset(fields)


# -- names marked as code --------------------------------------------------------------------


def names_marked(
    sections: SummarySections, facts: ChangeFacts, pr: PullRequest
) -> SummarySections:
    """The sections with the PR's names marked as code, as readers will see them: checked
    so, since "removing the TimingContext" is only a claim about `TimingContext` once marked.
    A garbled path of a changed file is put right first (summarizer/file_paths.py)."""
    repaired = path_repair(pr)
    sections = replace(sections, **{
        field: repaired(getattr(sections, field)) for field, _ in SummarySections.HEADINGS
    })  # fmt: skip
    return mark_code(sections, code_names(facts, pr) + diff_names(sections, pr))



def code_names(facts: ChangeFacts, pr: PullRequest) -> list[str]:
    """The names of the change a reader would look up, longest first: definitions (qualified
    and by their own name), settings, and changed files (by path and by base name). Plain
    words (`register`) are left out: marked in prose they would read as code by accident."""
    names: set[str] = set()
    for d in (*facts.definitions, *facts.signatures):
        names |= {d.name, short_name(d.name)}
    for m in facts.moves:
        names |= {m.old_name, m.new_name, short_name(m.old_name), short_name(m.new_name)}
    names |= {s.name for s in facts.settings}
    for f in pr.files:
        names |= {f.filename, PurePosixPath(f.filename).name}
    return sorted((n for n in names if _worth_marking(n)), key=lambda n: (-len(n), n))


_IDENTIFIER = re.compile(r"(?<![\w`./-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w`/-])")


def diff_names(sections: SummarySections, pr: PullRequest) -> list[str]:
    """Identifiers the model wrote in prose that the diff's own lines hold: `snake_case`,
    `CamelCase` or `dotted.names` (a model's name like Qwen3.5 is not one of them)."""
    patches = "\n".join(f.patch or "" for f in pr.files)
    found = set()
    for text in (sections.what_changed, sections.technical_impact, sections.potential_risks,
                 sections.key_insights):  # fmt: skip
        for word in _IDENTIFIER.findall(CODE_SPAN.sub(" ", text)):
            if _identifier_shaped(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", patches):
                found.add(word)
    return sorted(found, key=lambda n: (-len(n), n))


def _identifier_shaped(word: str) -> bool:
    return len(word) >= 4 and bool(
        re.search(r"[a-z0-9]_[a-z0-9]|^_[a-z]", word)
        or re.search(r"[a-z][A-Z]", word)
        or re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", word)
    )


def _worth_marking(name: str) -> bool:
    return len(name) >= 4 and (
        shaped_like_code(name)
        or name.startswith("--")
        or bool(re.fullmatch(r"[A-Z][A-Z0-9_]+", name))
    )


def mark_code(sections: SummarySections, names: list[str]) -> SummarySections:
    """Each bare mention of one of `names` in backticks; code spans stay as written."""
    if not names:
        return sections
    pattern = re.compile(
        r"(?<![\w`./-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w`/-]|\.\w)"
    )

    def marked(text: str) -> str:
        out, last = [], 0
        for span in CODE_SPAN.finditer(text):
            out += [pattern.sub(r"`\1`", text[last : span.start()]), span.group(0)]
            last = span.end()
        out.append(pattern.sub(r"`\1`", text[last:]))
        return "".join(out)

    return replace(
        sections,
        what_changed=marked(sections.what_changed),
        technical_impact=marked(sections.technical_impact),
        potential_risks=marked(sections.potential_risks),
        key_insights=marked(sections.key_insights),
    )


# -- the sentence of what changed ------------------------------------------------------------


def change_sentence(facts: ChangeFacts, told: set[str | None] | None = None) -> str:
    """ "The diff removes `a` and `b`; adds `c`; changes the signature of `d`." from the facts,
    or "" when they hold no definition, signature, move or setting. Definitions in `told` are
    not named as changed: a sentence of their edits says more."""
    facts = _code_that_runs_first(facts)
    moved = moved_names(facts)
    strings = _strings_removed(facts)
    lines = _lines_removed(facts)
    said_params = _params_said(facts)
    # "from `f`" says `f` changes
    told = (told or set()) | {d.enclosing for d in (*strings, *lines)}
    phrases = [
        _moves_phrase(facts, across_files=False),
        phrase("removes", named_definitions(facts.of("removed"), moved)),
        phrase("adds", named_definitions(facts.of("added"), moved)),
        # Callers' signatures first: one whose parameters were only retyped is named last.
        phrase("changes the signature of", [
            code(s.name) for s in sorted(facts.signatures, key=lambda s: s.retyped_only)
            if s not in said_params and s.name not in {p.name for p in said_params}
        ]),  # fmt: skip
        *(_params_phrase(s) for s in said_params),
        phrase("removes", settings_named(settings_of(facts, "removed"))),
        phrase("removes", [_strings_named(d) for d in strings]),
        phrase("removes", [f"the line {code(d.text or '')} from {_place(d.file, d.enclosing)}"
                           for d in lines]),
        phrase("adds", settings_named(settings_of(facts, "added"))),
        phrase("changes", [
            code(d.name) for d in facts.of("changed")
            if _plain_change(d, facts) and not {d.name, short_name(d.name)} & told
        ]),  # fmt: skip
        phrase("rewords only comments or docstrings in", [
            code(d.name) for d in facts.of("reworded")
        ]),  # fmt: skip
    ]
    # A class is named only when nothing else is: the hunk showed it, not the method changed.
    kept = [p for p in phrases if p][:3] or [phrase("changes", _changed_classes(facts, told))]
    return f"The diff {'; '.join(kept)}." if kept[0] else ""


def _strings_removed(facts: ChangeFacts) -> list[Deletion]:
    """Strings a list loses, with nothing in their place: names it holds as data, which a
    small model read as code ("removes the lines that bind CPU threads", vLLM #35119)."""
    return [
        d for d in facts.deletions
        if d.entries and all(e[:1] in "\"'" for e in d.entries) and not is_support_file(d.file)
    ]  # fmt: skip


_PARAM_PHRASES = 2  # more would crowd out what else the sentence says


def _params_said(facts: ChangeFacts) -> list[SignatureChange]:
    """The signatures said by their parameters, one per name, at most `_PARAM_PHRASES`."""
    said: dict[str, SignatureChange] = {}
    for s in facts.signatures:
        if _params_only(s) and s.name not in said and len(said) < _PARAM_PHRASES:
            said[s.name] = s
    return list(said.values())


def _params_only(s: SignatureChange) -> bool:
    """Parameters only removed, or only added, by name: the parameters say it all."""
    gone, new = s.dropped_params, s.new_params
    return bool(gone) != bool(new) and set(s.removed_params) == set(gone) and set(
        s.added_params
    ) == set(new)


def _params_phrase(s: SignatureChange) -> str:
    """ "removes the parameter `x` from `f`", "adds the parameters `a` and `b` to `f`" """
    names = [code(param_name(p)) for p in (s.dropped_params or s.new_params)]
    noun = "parameter" if len(names) == 1 else "parameters"
    if s.dropped_params:
        return f"removes the {noun} {listed(names)} from {code(s.name)}"
    return f"adds the {noun} {listed(names)} to {code(s.name)}"


_LINES_REMOVED_AT_MOST = 2


def _lines_removed(facts: ChangeFacts) -> list[Deletion]:
    """Single lines of code removed with nothing in their place, where the PR removes no
    more of them: each is the change, and "changes `C`" would hide it (vLLM #35054 removed
    `supports_update_block_table: bool = False` from a class, and nothing else)."""
    single = [
        d for d in facts.deletions
        if d.lines == 1 and not d.entries and d.text and not is_support_file(d.file)
        and not COMMENT_LINE.match(d.text)
    ]  # fmt: skip
    if facts.of("added") or facts.of("removed"):
        return []  # beside definitions added or removed, a line removed is a detail
    # A parameter's line is said by the signature it leaves (vLLM #34687's `seq_lens_cpu`).
    signed = {s.name for s in facts.signatures}
    single = [d for d in single if d.enclosing not in signed]
    return single if len(single) == len(facts.deletions) <= _LINES_REMOVED_AT_MOST else []


def _strings_named(d: Deletion) -> str:
    """ "the strings `"A"` and `"B"` from `f` (`a.py`)" """
    kind = "strings" if len(d.entries) > 1 else "string"
    return f"the {kind} {listed([code(e) for e in d.entries])} from {_place(d.file, d.enclosing)}"


def _code_that_runs_first(facts: ChangeFacts) -> ChangeFacts:
    """The facts' definitions and signatures of the code that runs, when it has any: a test's
    helpers named as what the diff adds hide the change they test (vLLM #34874)."""
    # Comments reworded in the code that runs are not what such a PR is about (vLLM #34274
    # gives a CI command another test to run, and rewords a comment in passing).
    defs = [d for d in facts.definitions if not is_support_file(d.file) and d.change != "reworded"]
    signatures = running_signatures(facts)
    if not defs and not signatures:
        return facts
    return replace(facts, definitions=tuple(defs), signatures=tuple(signatures))


# Lines edited in place are the mechanism only of a small change: in a larger one they are
# details of a rewrite that the definitions and settings say better.
_EDITS_AT_MOST = 4
_EDIT_CHARS = 200  # the sentence's quoted code, at most: one long edit, or two short ones
_EDITS_SAID = 2


def edits_to_say(facts: ChangeFacts, pr: PullRequest, what: str) -> list[LineEdit]:
    """The edits worth a sentence: those of the code that runs (of the tests, docs or tools
    when the PR touches nothing else), when there are few, and the model quoted none of
    them already."""
    edits = _small_edits(facts, pr)
    if not edits or any(_quotes(what, e) for e in edits):
        return []
    # The same replacement twice in one definition is said once, with its count.
    cores: dict[tuple[str, str | None, str, str], LineEdit] = {}
    for e in edits:
        old, new = _readable_core(e)
        if not new or (e.imported and not e.old):
            continue  # a name newly imported: what it names is the change (vLLM #35400)
        key = (e.file, e.enclosing, old, new)
        same = cores.get(key)
        places = e.places + (same.places if same else 0)
        cores[key] = replace(e, old=old, new=new, places=places)
    said: list[LineEdit] = []
    chars = 0
    for e in cores.values():
        chars += len(e.old) + len(e.new)
        if said and (chars > _EDIT_CHARS or len(_said_together(said + [e])) > _EDITS_SAID):
            break
        said.append(_recounted(e, pr))
    return said


def _said_together(edits: list[LineEdit]) -> list[list[LineEdit]]:
    """The edits as a sentence says them: statements added one after another in the same
    place are one clause ("in `f`, `a` and `b` are added")."""
    clauses: list[list[LineEdit]] = []
    for e in edits:
        last = clauses[-1][-1] if clauses else None
        if last and not (e.old or last.old) and (e.file, e.enclosing) == (last.file, last.enclosing):
            clauses[-1].append(e)
        else:
            clauses.append([e])
    return clauses


def _recounted(e: LineEdit, pr: PullRequest) -> LineEdit:
    """A replacement repeated outside any definition, counted on the file's lines: the diff
    pairs removed and added lines by position, and one whose neighbours were added pairs
    with another (vLLM #34055's 8 imports read "6 places")."""
    f = next((f for f in pr.files if f.filename == e.file), None)
    if e.places < 2 or e.enclosing is not None or f is None:
        return e
    sides = diff_lines(replace(pr, files=(f,)))
    added = set(sides.added)
    count = sum(e.old in x and x.replace(e.old, e.new) in added for x in sides.removed)
    return replace(e, places=max(e.places, count))


_BARE_VALUE = re.compile(r"\s*(?:[\d.]+[\w.+-]*|True|False|None|true|false|nullptr)\s*")


def _readable_core(e: LineEdit) -> tuple[str, str]:
    """The edit's core, or its quoted lines where the core is cut inside an expression; ("",
    "") where both are: "`return` becomes `quant_config =`" tells a reader nothing (vLLM
    #34906), and neither do the lines `return f(` and `quant_config = f(`."""
    if e.prose:
        return core(e)  # words of the docs: `--flag 2` is not cut at its dashes
    if OPTION_LINE.fullmatch(e.old) and OPTION_LINE.fullmatch(e.new):
        return e.old, e.new  # "`test/rocm7.0` becomes `rocm7.1`" leaves out which option
    pairs = [core(e), (e.old, e.new)]
    if all(_BARE_VALUE.fullmatch(part) for part in pairs[0] if part):
        # "`6.4.3` becomes `7.0.2`" leaves out whose version it is: `amdsmi==6.4.3` says.
        pairs.reverse()
    for old, new in pairs:
        if e.new.strip() and not new.strip():
            continue  # a flag dropped from a command: "`x` becomes ``" says nothing; lines do
        # An item of a list or call (`x=1,`, `, "plotly"`) stands on its own, and so does a
        # call whose arguments follow (`self.gate = GateLinear(`).
        if not any(_cut(part.strip().strip(",").removesuffix("(")) for part in (old, new) if part):
            return old, new
    return "", ""


def _small_edits(facts: ChangeFacts, pr: PullRequest) -> list[LineEdit]:
    """The edits of the code that runs (of the tests, docs or tools when the PR touches
    nothing else), when there are few enough to be the change's mechanism."""
    # A name added to an import says what the other edits use, not what changes.
    kept = [e for e in facts.edits if e.old or not e.imported]
    runs = [e for e in kept if not is_support_file(e.file)]
    edits = runs or (kept if not any(runs_code(f) for f in pr.files) else [])
    # Statements added one after another are one step: the sentence says them together.
    return edits if len(_said_together(edits)) <= _EDITS_AT_MOST else []


def _quotes(text: str, e: LineEdit) -> bool:
    """The text quotes the edit's new side, its core or its readable core (an empty core,
    as where a token is dropped, quotes nothing)."""
    squeezed = normalize_code(text)
    news = {core(e)[1], _readable_core(e)[1]}
    # As a whole: a test file `test_mq_connect_ip.py` does not quote `mq_connect_ip` (#35429).
    return any(normalize_code(new) and code_pattern(new).search(squeezed) for new in news)


def edit_sentence(edits: list[LineEdit], pr: PullRequest | None = None) -> str:
    """ "In `update`, `len(self.x)` becomes `self.n()`; in `RequestState`, …." A name the
    PR's lines set just for this (`pr` shows them) is said with its value, and an edit with
    the unchanged `if` it stands under."""
    values = {e.new: new_local_value(pr, e.file, e.new) for e in edits if e.old and pr}
    # The line that sets such a name is said with it, not again as a line added.
    glossed = {f"{name} = {value}" for name, value in values.items() if value}
    edits = [e for e in edits if e.old or e.new.strip() not in glossed]
    arguments = changed_arguments(pr) if pr is not None else []  # read once, for every edit
    hunks = list(code_hunks(pr)) if pr is not None else []  # parsed once, for every edit
    parts, last = [], ""
    for clause in _said_together(edits):
        e = clause[0]
        where = _edit_place(e) + _under(e, hunks)
        places = f" ({e.places} places)" if e.places > 1 else ""
        added = listed([f"`{a.new}`" for a in clause])
        verb = "is added" if len(clause) == 1 else "are added"
        was = f"`{e.old}` becomes `{e.new}`" if e.old else f"{added} {verb}"
        if e.old and (value := values.get(e.new)):
            was = f"{was}, which the PR sets to `{value}`"
        elif e.old and (passed := _argument_said(e, arguments)):
            was = passed
        if e.old and e.imported:  # a name imported in place of another is no rename (#34687)
            was = f"`{e.new}` is imported in place of `{e.old}`"
        # The place said once for the clauses that follow in it: "in `f`, a becomes b; c is added"
        parts.append(was if where == last and not places else f"in {where}{places}, {was}")
        last = where
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}."


_MOVE_WORD = re.compile(r"\bmov(?:e|es|ed|ing)\b", re.I)


def move_sentence(facts: ChangeFacts) -> str:
    """ "The diff moves the CLI flag `--x` from `a.py` to `b.py`." when the facts hold a
    move; "" otherwise. Lines moved are named by where they went only when no definition or
    setting says it already."""
    moves = _moves_phrase(facts, across_files=True)
    return f"The diff {moves}." if moves else ""


def _moves_phrase(facts: ChangeFacts, *, across_files: bool) -> str:
    """ "renames `a` to `b`; moves `c` to `d.py`", or ""."""
    renames = [f"{code(m.old_name)} to {code(m.new_name)}" for m in facts.moves if m.renamed]
    moves = _moves_said(facts, across_files=across_files)
    said = [phrase("renames", renames), phrase("moves", moves)]
    return "; ".join(p for p in said if p)


def _moves_said(facts: ChangeFacts, *, across_files: bool) -> list[str]:
    """What moved: definitions and settings by name, else lines run in another order and,
    `across_files`, lines moved to another file. Lines moved between two hunks of one file are
    bookkeeping: leading with them buries the change."""
    said = [
        f"{code(m.old_name)} to {code(m.new_file)}{_as_name(m)}" for m in facts.moves if not m.renamed
    ]
    said += [moved_setting(s) for s in settings_of(facts, "moved")]
    # Lines taken out into a definition the PR adds are its body: what the new method does.
    extracted = {d.name for d in facts.of("added")}
    return said or [
        _moved_lines(m)
        for m in facts.moved_lines
        if (m.reordered and not is_support_file(m.old_file))
        or (across_files and m.old_file != m.new_file)
        or (m.new_enclosing in extracted and not is_support_file(m.new_file))
    ]


def _as_name(m: Move) -> str:
    """ " as `split_audio`" where the move also gave it another name of its own."""
    return f" as {code(m.new_name)}" if short_name(m.new_name) != short_name(m.old_name) else ""


def _moved_lines(m: MovedLines) -> str:
    if m.reordered:  # the same code run before (or after) what it used to follow
        first = f" starting {code(m.text)}" if len(m.text) <= 60 else ""
        when = "earlier" if m.earlier else "later"
        if m.passed and len(m.passed) <= 60:
            when = f"{'before' if m.earlier else 'after'} {code(m.passed)}"
        return f"{m.lines} unchanged lines{first} {when} in {_place(m.old_file, m.old_enclosing)}"
    return (
        f"{m.lines} unchanged lines from {_place(m.old_file, m.old_enclosing)} to "
        f"{_place(m.new_file, m.new_enclosing)}"
    )


def _place(path: str, enclosing: str | None) -> str:
    return f"{code(enclosing)} (`{path}`)" if enclosing else f"`{path}`"


def _changed_classes(facts: ChangeFacts, told: set[str | None] | None) -> list[str]:
    said = {n for n in told or set() if n}
    return [
        code(d.name) for d in facts.of("changed")
        if d.kind == "class" and not any(n == d.name or n.startswith(f"{d.name}.") for n in said)
    ]  # fmt: skip


def _plain_change(d: Definition, facts: ChangeFacts) -> bool:
    """A changed body worth naming: not a class (its methods say more), not one whose new
    signature the sentence names already."""
    return d.kind != "class" and d.name not in {s.name for s in facts.signatures}


# -- the risk from the facts -----------------------------------------------------------------


@dataclass(frozen=True)
class FactRisk:
    """What a reviewer would check first, written from the facts."""

    sentence: str
    names: tuple[str, ...]  # the identifiers it is about
    # Something callers, scripts or inputs relied on is gone, moved or reordered: worth saying
    # even beside a risk of the model's own that names other code.
    breaks: bool = False
    # An exact old and new (a value, a signature, a line edited in place): what a reviewer
    # checks first, so it leads a model's risk that does not quote it.
    exact: bool = False


def _without_boilerplate(
    risks: str, change_type: ChangeType, pr: PullRequest | None = None, corpus: str = ""
) -> str:
    """The risk text without its boilerplate sentences ("test thoroughly"); given `pr`, a
    sentence that also names code of it stays (its boilerplate is half of what it says)."""
    kept = risks
    for boiler in boilerplate_sentences(risks, change_type):
        if pr is None or not names_pr_code(boiler, pr, corpus):
            kept = kept.replace(boiler, "", 1)
    return tidy(kept)


# "may break the model if `X` is not implemented correctly", "could potentially affect existing
# code", "safe as long as …": on the dev days, the built-in model's risk was this in most PRs.
# Beside a risk written from the facts it only dilutes a true sentence with an empty one.
_HEDGE = re.compile(
    r"\b(?:may|might|could|can|would|will)\s+(?:\w+\s+){0,2}(?:break|affect|impact|cause|"
    r"lead to|result in|introduce|change)\b"
    r"|\bas long as\b|\b(?:does|do|will) not introduce\b|\bensure that\b"
    r"|\bnot (?:be )?(?:used|implemented|handled|configured|tested|set|enabled|defined) "
    r"(?:correctly|properly)\b"
    r"|\bin (?:all|some|certain) (?:cases|scenarios)\b"
    # That it changes behaviour is what every PR does, not a risk (vLLM #30950: "The PR
    # changes the behavior of the logging and performance metrics systems").
    r"|\b(?:changes|modifies|alters|affects) the (?:behaviou?r|functionality) of\b(?![^.:;]*[:;])"
    r"|\bunexpected (?:behaviou?r|results|issues|errors)\b"
    # A risk named but not said (vLLM #34990: "introduces a potential risk to the code
    # interpreter MCP implementation"), unless a condition follows ("a new risk if …").
    r"|\b(?:introduces?|poses?|creates?|carries|adds?) an? (?:\w+ )?risk\b(?! (?:if|when|that)\b)"
    # A verdict on a name, not a risk of it (#32621: "`block_n` is a critical parameter").
    r"|\bis an? (?:critical|crucial|key|important|essential|vital) (?:parameter|component|part"
    r"|piece|setting|value|function)\b"
    r"|\brequire additional (?:setup|maintenance|work|effort)\b|\bmay not be sufficient\b",
    re.IGNORECASE,
)


def risk_text(
    risks: str, facts: ChangeFacts, pr: PullRequest, change_type: ChangeType, corpus: str
) -> str:
    """The risk section: the facts' risk first where the model's names none of its code;
    beside it, only the model's sentences that name this PR's code and hedge nothing."""
    risk = fact_risk(facts, pr)
    if risk is None:
        rest = _without_boilerplate(risks, change_type, pr, corpus)
        # "It does not introduce any new bugs" beside a real risk is still a false promise.
        return rest if re.search(r"\w", rest) else risks
    # The facts' risk already there (a summary finished before) stays as it was written.
    said, rest = risk.sentence in risks, risks.replace(risk.sentence, "", 1)
    kept = " ".join(
        s for s in split_sentences(_without_boilerplate(rest, change_type))
        if names_pr_code(s, pr, corpus) and not _HEDGE.search(s)
    )  # fmt: skip
    if said or _needs_fact_risk(kept, risk, pr, corpus):
        return f"{risk.sentence} {kept}".strip()
    return kept


def _needs_fact_risk(risks: str, risk: FactRisk, pr: PullRequest, corpus: str) -> bool:
    if not names_pr_code(risks, pr, corpus):
        return True
    return (risk.breaks or risk.exact) and not any(name in risks for name in risk.names)


def risk_sentence(facts: ChangeFacts, pr: PullRequest) -> str:
    risk = fact_risk(facts, pr)
    return risk.sentence if risk else ""


def fact_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """What a reviewer would check first, from the facts: callers of what was removed, users
    of a removed, moved or changed setting, callers of a changed signature, code that now
    runs in another order, or the changed code's callers; for a change of tests, docs or CI
    only, that runtime code is untouched. Who now gets something different (a default, a
    condition, a cache, an order: summarizer/behaviour.py) follows what breaks, and takes the
    place of a plainer changed value or definition."""
    first = (
        _breaking_risk(facts, pr)
        or _required_param_risk(facts, pr)
        or _attribute_risk(pr)
        or _raise_risk(facts, pr)
    )
    # A defect in the PR's own new text is what a reviewer would flag before anything else.
    if glued := glued_strings(pr):
        defect = FactRisk(glued_sentence(glued[0]), (), exact=True)
        first = _joined(defect, first) if first else defect
    # Who now gets something different (summarizer/behaviour.py) is worth a second sentence
    # beside what breaks, and says more than the changed code's plain name or value.
    if found := behaviour_risk(facts, pr):
        behaviour = FactRisk(found.sentence, found.names, exact=True)
        return _joined(first, behaviour) if first else behaviour
    if logged := log_risk(pr):
        return FactRisk(logged, (), exact=True)
    return first or _changed_risk(facts, pr)


def _joined(first: FactRisk, then: FactRisk) -> FactRisk:
    return FactRisk(
        f"{first.sentence} {then.sentence}",
        tuple(dict.fromkeys(first.names + then.names)),
        breaks=first.breaks or then.breaks,
        exact=first.exact or then.exact,
    )


def _breaking_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """What callers, scripts or inputs relied on that is gone, moved or reordered: the first
    of a definition renamed or removed, modules moved, a parameter or setting gone, a setting
    moved, lines run in another order."""
    gone = (
        _definitions_gone_risk(facts, pr)
        or _moved_modules_risk(facts)
        or _parameter_or_setting_gone_risk(facts, pr)
        or _reordered_risk(facts)
    )
    # An interface every subclass implements, re-signed, breaks the ones outside the diff
    # first: a reader of vLLM #35083 missed it beside the nine names it removed.
    if overridden := _overridden_signature_risk(facts):
        # A parameter gone from one of those classes is that risk again, said smaller.
        again = gone and any(short_name(n) in overridden.names for n in gone.names)
        return _joined(overridden, gone) if gone and not again else overridden
    return gone


_OVERRIDES = 3  # classes that re-sign the same method alike: an interface, not one method


def _overridden_signature_risk(facts: ChangeFacts) -> FactRisk | None:
    """A public method whose parameters the PR changes alike in `_OVERRIDES` classes or more,
    dropping some: each subclass and caller outside the diff still has the old ones."""
    alike: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[SignatureChange]] = {}
    for s in running_signatures(facts):
        method = short_name(s.name)
        if s.kind == "method" and not method.startswith("_") and s.removed_params:
            key = (method, _names(s.removed_params), _names(s.added_params))
            alike.setdefault(key, []).append(s)
    found = [(key, sigs) for key, sigs in alike.items() if len(sigs) >= _OVERRIDES]
    if not found:
        return None
    (method, old, new), sigs = max(found, key=lambda f: len(f[1]))
    # What it drops and what it takes instead: the parameters both keep are not said.
    instead = f", and takes {listed([code(p) for p in new])} instead" if new else ""
    return FactRisk(
        f"A subclass outside this diff that overrides `{method}`, or a caller of it, breaks: in "
        f"the {len(sigs)} classes here it no longer takes {listed([code(p) for p in old])}"
        f"{instead}.",
        (method,), breaks=True, exact=True,
    )  # fmt: skip


def _names(params: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(param_name(p) for p in params if param_name(p) not in ("self", "cls"))


def _definitions_gone_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    # A test's helpers have no callers outside the tests this PR already edits.
    if renamed := [m for m in facts.moves if m.renamed and not is_support_file(m.old_file)]:
        # The name renamed in the most files is the one most callers reach: #33724's op, in
        # its C++ source, its header and its Python binding, before a helper of one file.
        m = max(renamed, key=lambda r: sum(x.old_name == r.old_name for x in renamed))
        return FactRisk(
            f"Code outside this diff that still uses {code(m.old_name)} breaks: the PR renames "
            f"it to {code(m.new_name)}.",
            (m.old_name, m.new_name), breaks=True,
        )  # fmt: skip
    moved = {m.old_name for m in facts.moves}
    # A function nested in a function (`table.sort_key`) has no caller outside its parent,
    # a private method (`Adapter._to_keys`) none outside its class, and a special one
    # (`__post_init__`) none by name: a reader scored "code outside this diff that still
    # uses `LoadStoreOp.__post_init__` breaks" boilerplate (vLLM #34175).
    removed = list(dict.fromkeys(
        d.name for d in facts.of("removed")
        if d.name not in moved and not d.nested
        and not is_support_file(d.file) and d.kind != MACRO_BLOCK and not _internal(d.name)
    ))  # fmt: skip
    if not removed:
        return None
    them = "them" if len(removed) > 1 else "it"
    return FactRisk(
        f"Code outside this diff that still uses {listed([code(n) for n in removed])} "
        f"breaks: the PR removes {them}{_gone_for_good(removed, facts, pr)}.",
        tuple(removed), breaks=True,
    )  # fmt: skip


def _gone_for_good(removed: list[str], facts: ChangeFacts, pr: PullRequest) -> str:
    """What the diff itself says of definitions it removes: that no line it shows names them
    any more, and that they were scripts beside the library, not the library (vLLM #35418's
    benchmark mocks, which a reader wanted called dead code)."""
    shown = [line for _, h in file_hunks(pr) for line in h.new.lines]
    names = {short_name(n) for n in removed}
    left = any(re.search(rf"\b{re.escape(n)}\b", line) for n in names for line in shown)
    them = "them" if len(removed) > 1 else "it"
    said = "" if left else f", and no line the diff shows names {them} any more"
    files = {d.file for d in facts.of("removed") if d.name in removed}
    if all(is_tooling_file(f) for f in files):
        where = listed([code(f) for f in sorted(files)])
        said += f"; {'they stood' if len(removed) > 1 else 'it stood'} in {where}, a script beside the library"
    return said


def _internal(name: str) -> bool:
    """A private method or a special one: `Cls._helper`, `__post_init__`."""
    last = name.rsplit(".", 1)[-1]
    return (last.startswith("__") and last.endswith("__")) or ("." in name and last[:1] == "_")


def _parameter_or_setting_gone_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    if params := [(s, p) for s in running_signatures(facts) for p in s.dropped_params]:
        s, p = params[0][0], param_name(params[0][1])
        return FactRisk(
            f"A caller that still passes `{p}` to `{s.name}` breaks: the parameter is gone.",
            (p, s.name), breaks=True,
        )  # fmt: skip
    if settings := settings_of(facts, "removed", ("config field", "CLI flag")):
        names = [code(s.name) for s in settings]
        if called_unused(pr):
            # It had no effect to lose (vLLM #35060): what still names it is what breaks.
            they = "it" if len(names) == 1 else "them"
            return FactRisk(
                f"By the PR's title {listed(names)} {'was' if they == 'it' else 'were'} "
                "unused: what can still break is a configuration, script or CI job that sets "
                f"{they}, which now names a setting that is gone.",
                tuple(s.name for s in settings), breaks=True,
            )  # fmt: skip
        return FactRisk(
            f"A configuration, script or CI job that still sets {listed(names)} no longer has "
            "the effect it had.",
            tuple(s.name for s in settings), breaks=True,
        )  # fmt: skip
    if not (moved_settings := settings_of(facts, "moved")):
        return None
    s = moved_settings[0]
    kind = s.kind.split(" (")[0]
    # Which parsers include which is a call graph the diff does not show: say both
    # outcomes, each true of the code it applies to.
    return FactRisk(
        f"The {kind} `{s.name}` is now defined in `{s.file}`, not `{s.old}`: code that "
        "read it from the old place without the new one loses it, and code that already "
        "defined it where it now arrives defines it twice.",
        (s.name,), breaks=True,
    )  # fmt: skip


def _reordered_risk(facts: ChangeFacts) -> FactRisk | None:
    reordered = [m for m in facts.moved_lines if m.reordered and not is_support_file(m.old_file)]
    if not reordered:
        return None
    m = reordered[0]
    where = f" in {code(m.old_enclosing)}" if m.old_enclosing else ""
    when = "before" if m.earlier else "after"
    # The code they now pass, named: what a reader checks for what it handled first.
    passed = f" {code(m.passed[:60])}, the code" if m.passed else " the code"
    follow, then = (
        ("they used to follow", "an input that both handle now meets them first")
        if m.earlier
        else ("they used to precede", "an input that both handle now meets that code first")
    )
    if m.raises and m.passed_raises:
        # Two checks swapped: which error a bad input gets is what a user sees change.
        now, was = (m.raises, m.passed_raises) if m.earlier else (m.passed_raises, m.raises)
        then = f'an input that both reject now gets "{now}" where it got "{was}"'
    return FactRisk(
        f"The lines starting {code(m.text[:60])}{where} now run {when}{passed} "
        f"{follow}: {then}.",
        tuple(n for n in (m.old_enclosing,) if n), breaks=True,
    )  # fmt: skip


def _moved_modules_risk(facts: ChangeFacts) -> FactRisk | None:
    """Python modules of the code that runs moved or renamed, with nothing left at their old
    path: an import of the old path outside this diff fails (vLLM #34055 moved 21 of them)."""
    what, count = moved_modules(facts)
    if not count:
        return None
    them = "it" if count == 1 else "them"
    # The error is named in plain words: a name the PR does not contain reads as unverified.
    return FactRisk(
        f"The PR moves {what}: code outside this diff that imports {them} from the old "
        "path fails with an ImportError.",
        (), breaks=True,
    )  # fmt: skip


def _required_param_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """A module-level Python function that gains a parameter with no default: a call the
    diff does not show fails, and the calls it shows say what each passes."""
    for s in facts.signatures:
        if s.kind != "function" or "." in s.name or not s.file.endswith(".py"):
            continue
        names = [*required_params(s.new_params), *s.lost_defaults]
        if is_support_file(s.file) or not names:
            continue
        if not _asks_callers(s):
            continue
        p = names[0]
        return FactRisk(
            f"`{s.name}` now requires `{p}`, with no default: a call outside this diff that "
            f"does not pass it fails with a TypeError.{_passed_sentence(passed_values(pr, p))}",
            (s.name, p), breaks=True,
        )  # fmt: skip
    return None


def _passed_sentence(passed: list[PassedValue]) -> str:
    """Where the diff passes the new parameter, and the one constant among computed values."""
    if not passed:
        return ""
    by_place: dict[str, list[str]] = {}
    for v in passed:
        by_place.setdefault(code(v.owner or v.file), []).append(code(v.value[:80]))
    places = "; ".join(f"in {where}, {listed(values)}" for where, values in by_place.items())
    said = f" The PR passes it in {len(passed)} place{'s' if len(passed) > 1 else ''}: {places}."
    constants = [v for v in passed if v.constant]
    if len(constants) == 1 < len(passed):
        c = constants[0]
        said += f" Only {code(c.owner or c.file)} passes a constant, `{c.value}`."
    return said


def _attribute_risk(pr: PullRequest) -> FactRisk | None:
    """Code outside the diff that reads (or sets) an attribute the class no longer declares
    (summarizer/attributes.py)."""
    if not (dropped := attributes_dropped(pr)):
        return None
    a = dropped[0]
    if a.now_property:
        sentence = (
            f"{code(a.qualified)} is now a property, no longer an attribute the object sets: "
            "code outside this diff that assigns to it fails, and each read computes it anew."
        )
    else:
        sentence = (
            f"Code outside this diff that reads {code(a.qualified)} breaks: the PR no longer "
            "sets that attribute."
        )
    return FactRisk(sentence, (a.qualified, a.name), breaks=True)


def _raise_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """A caller of code that existed before now meets an error where it did not: the first
    such raise (summarizer/raises.py). One in a definition the PR adds breaks no caller."""
    added = {d.name for d in facts.of("added")}
    # Nor one in a file the PR adds (vLLM #34302's new `.cu` entry point): none reached it.
    new_files = {f.filename for f in pr.files if f.status == "added"}
    raises = [
        r for r in raises_added(pr)
        if r.enclosing not in added and r.owner not in added and r.file not in new_files
    ]  # fmt: skip
    if not raises:
        return None
    r = raises[0]
    where = f"{code(r.enclosing)} (`{r.file}`)" if r.enclosing else code(r.file)
    others = len(raises) - 1
    more = f" (and {others} more new raise{'s' if others > 1 else ''})" if others else ""
    names = tuple(n for n in (r.enclosing, r.error) if n)
    if r.missing:  # the case failed before too: only the error it meets changes
        return FactRisk(
            f"{where} now raises {code(r.error)} where {code(r.missing)} is missing{more}: "
            f"the read of {code(r.missing)} below raised `AttributeError` in that case "
            "before, so only the error a caller meets, and its message, change.",
            names, exact=True,
        )  # fmt: skip
    return FactRisk(
        f"{where} now raises {code(r.error)} where it did not before{more}: a caller or "
        "configuration that reached that line now stops with an error.",
        names, breaks=True,
    )  # fmt: skip


def _changed_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """What changed, from the most exact kind of change to the least: a value, a signature
    callers must match, a line edited in place, an argument passed; then the code's own
    shape (a listed item, an attribute), the definitions, the data files, the files."""
    return (
        _setting_or_signature_risk(facts)
        or _edited_risk(facts, pr)
        or _passed_risk(facts, pr)
        or _code_shape_risk(facts, pr)
    )


def _exits_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """What a caller now gets, case by case, of the first function whose returns the PR
    rewrites other than in place (vLLM #35230: where no `</think>` is found, the reasoning
    parser now returns `model_output, None`, where it returned `None, model_output`)."""
    for c in changed_exits(pr, facts):
        if said := exits_risk(c):
            return FactRisk(said, (short_name(c.function),), exact=True)
    return None


def _setting_or_signature_risk(facts: ChangeFacts) -> FactRisk | None:
    if changed_values := [s for s in settings_of(facts, "changed") if s.old and s.new]:
        s = changed_values[0]
        return FactRisk(
            f"Anything that relied on `{s.name}` being `{s.old}` now gets `{s.new}`.",
            (s.new,), exact=True,
        )  # fmt: skip
    # Parameters added with defaults ask nothing of a caller, and a kernel's constexprs are
    # its launcher's (`required_params`).
    demanding = [
        s for s in running_signatures(facts)
        if _asks_callers(s, kwargs_took=False) and not _called_by_python(s.name)
    ]  # fmt: skip
    if not demanding:
        return None
    s = demanding[0]
    new = f" `{s.new}`"
    if len(s.new) > 100 and (s.new_params or s.dropped_params):
        new = ", which " + " and ".join(
            f"{verb} {listed([code(param_name(p)) for p in params])}"
            for verb, params in (("drops", s.dropped_params), ("adds", s.new_params))
            if params
        )  # fmt: skip
    return FactRisk(
        f"Every caller of `{s.name}` must match its new signature{new}.", (s.name,), exact=True
    )


def _edited_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """The first line edited in place whose value changes, or a value now put through a call."""
    # An edit whose old or new core is empty (an argument appended) has no value to compare,
    # and nor has a name imported in place of another (vLLM #34687).
    valued = [
        e for e in facts.edits
        if e.old and all(core(e)) and not any(map(_cut, core(e))) and not is_support_file(e.file)
        and not e.imported
    ]  # fmt: skip
    if valued:  # the PR's added lines are read only when an edit may be a value named
        named = _named_constants(pr)
        valued = [e for e in valued if core(e) not in named]
    if edits := valued[:1]:
        return (
            _hook_risk(edits[0], facts, pr)
            or _same_result_risk(edits[0], facts, pr)
            or _edit_risk(edits[0], pr, facts)
        )
    # A new function imported in place of the old one, in a speed-up, is what it replaces in
    # its callers (vLLM #35330's `compute_maxsim_scores`).
    swaps = (e for e in facts.edits if e.old and e.imported and not is_support_file(e.file))
    return next(filter(None, (_same_result_risk(e, facts, pr) for e in swaps)), None) or (
        _applied_risk(facts)
    )


def _passed_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """An argument a call now passes, by keyword or by position; a package new code imports."""
    if argument := _argument_risk(facts, pr):
        return argument
    if positional := changed_positionals(pr):
        a = positional[0]
        more = places_rewritten(pr, a.old, a.new) - 1
        calls = f"{more} more call{'s' * (more > 1)}"
        also = f" The PR makes the same change in {calls}." if more else ""
        where = code(a.owner) if a.owner else "A call"
        return FactRisk(argument_sentence(a, where) + also, (a.new,), exact=True)
    if deferred := deferred_import_risk(pr):  # new code's dependency, said before its names
        return FactRisk(deferred.sentence, deferred.names, exact=True)
    return None


def _code_shape_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    running = {f.filename for f in pr.files if runs_code(f)}
    changed = [
        d for d in facts.definitions if d.change in ("changed", "added") and d.file in running
    ]  # fmt: skip
    # An item added to a registry, or an attribute a new object is set to, is how new code is
    # reached: the new code is the concern. In code that was there, what a lookup of the item
    # or a read of the attribute now finds is exact.
    if not adds_running_definitions(pr, facts) and (shaped := _code_that_was_there_risk(pr, facts)):
        return shaped
    # What a caller now gets, case by case, says more than "changes, and no test covers it".
    if exits := _exits_risk(facts, pr):
        return exits
    if changed:
        return _definitions_risk(changed, pr, facts)
    if data := _data_files_risk(pr, running):
        return data
    if pr.files and not running:
        # A skip, a tolerance or an install dropped is what a tests-only PR risks (#34990).
        if said := support_risk(pr):
            return FactRisk(said, (), exact=True)
        named = listed([code(f.filename) for f in pr.files])
        verb = "changes" if len(pr.files) == 1 else "change"
        return FactRisk(
            f"Only {named} {verb} here: tests, docs, CI or comments, not the code that runs "
            "in production.",
            (),
        )
    return None


def _code_that_was_there_risk(pr: PullRequest, facts: ChangeFacts) -> FactRisk | None:
    """A value rewritten over several lines, an assertion turned into a dispatch, a name
    rebound, an item listed, an attribute set or inherited: exact, in code that was there."""
    if rewritten := rewrapped_assignments(pr):
        r = rewritten[0]
        return FactRisk(
            f"{_rewrapped_place(r)}, {r.subject} is now `{r.new}`, where it was "
            f"`{r.old}`: the code below that reads it gets the new value.",
            (r.name,), exact=True,
        )  # fmt: skip
    if asserted := [d for d in dispatches(pr, facts) if d.asserted]:
        return FactRisk(dispatch_risk_sentence(asserted[0]), (asserted[0].subject,), exact=True)
    if rebound := rebound_names(pr):
        return FactRisk(rebound_sentence(rebound[0]), (rebound[0].name,), exact=True)
    if items := listed_risk(pr, matched=False):
        return FactRisk(items.sentence, items.names, exact=True)
    if now_set := attributes_set(pr):
        return FactRisk(set_sentence(now_set[0]), (now_set[0].owner,), exact=True)
    if inherited := overrides_dropped(pr):
        return FactRisk(inherited_sentence(inherited[0]), (inherited[0].owner,), exact=True)
    return None


_DATA_FILE = re.compile(r"\.(?:json|ya?ml|csv|toml|txt)$", re.IGNORECASE)


_APPLIED = re.compile(r"\.\w+(?:\(.*\))?")
_GIVES = re.compile(r"^(?:return\s+(?P<returned>.+)|(?P<target>[\w.]+)\s*=\s*(?P<value>.+))$")


def _applied_risk(facts: ChangeFacts) -> FactRisk | None:
    """A value returned or assigned that now goes through a call first: `return out` becoming
    `return out.to(x.dtype)` (vLLM #35369) gives callers what the call makes of it."""
    for e in facts.edits:
        old, new = core(e)
        m = _GIVES.match(e.new)
        if old or not _APPLIED.fullmatch(new) or not m or is_support_file(e.file):
            continue
        given = m["returned"] or m["value"]
        before = given.removesuffix(new)
        if not before or f"{before}{new}" != given or len(given) > 80:
            continue
        what = "the value returned" if m["returned"] else code(m["target"])
        reader = "a caller" if m["returned"] else "code below that reads it"
        return FactRisk(
            f"In {_edit_place(e)}, {what} now goes through {code(new)}: {reader} gets "
            f"{code(given)}, where it got {code(before)} as computed.",
            (given,), exact=True,
        )  # fmt: skip
    return None


def _data_files_risk(pr: PullRequest, running: set[str]) -> FactRisk | None:
    """Data files added alone (vLLM #35457's tuned MoE configs, one JSON per shape and
    GPU): no code changes with them, so they apply only where existing code looks up a file
    of that name, and what a reader checks is that the names match what it looks up."""
    added = [f for f in pr.files if f.filename in running]
    if not added or any(f.status != "added" or not _DATA_FILE.search(f.filename) for f in added):
        return None
    names = listed([code(PurePosixPath(f.filename).name) for f in added])
    folder = common_dir([f.filename for f in added])
    where = f" in `{folder}/`" if folder else ""
    one = len(added) == 1
    them, they = ("it", "it takes") if one else ("them", "they take")
    return FactRisk(
        f"The PR only adds the data file{'' if one else 's'} {names}{where}, and no code "
        f"changes with {them}: {they} effect only where code that was there looks up a file of "
        "that name, so a name that does not match is silently never read.",
        (),
    )  # fmt: skip


def _argument_risk(facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """A keyword argument added on its own line to a call that was there: the callee got its
    own default before (the call ran without it) and now gets this value. An argument for a
    parameter the PR itself adds had no default to fall back to, and is left out."""
    new_here = _new_parameters(facts)
    # `HAS_BIAS=` is a Triton kernel's constexpr, which its heuristics may have set.
    added = [
        a for a in added_arguments(pr)
        if a.call_kept and a.name not in new_here and not a.name.isupper() and not a.quoted
    ]  # fmt: skip
    if not added:
        return None
    a = added[0]
    same = [b for b in added if (b.name, b.value) == (a.name, a.value)]
    owners = [code(w) for w in dict.fromkeys(b.owner or b.file for b in same)]
    callees = {b.callee for b in same}
    # The callee named, where every call calls the same one: the reader looks up its default.
    of = f" of `{a.callee}`" if len(callees) == 1 and a.callee else ""
    calls = f"{len(same)} calls{of} that" if len(same) > 1 else f"a call{of} that"
    return FactRisk(
        f"{listed(owners)} now pass{'es' if len(owners) == 1 else ''} `{a.name}={a.value}` to "
        f"{calls} did not pass `{a.name}` before: the callee used its own default for it "
        f"there, and now gets this value.{_when_sentence(a.value)}",
        tuple(n for n in (a.name, a.callee) if n), exact=True,
    )  # fmt: skip


# `x if pad_attn else None`: one conditional expression, its test a plain name or attribute.
_CONDITIONAL = re.compile(r"(?P<then>.+?)\s+if\s+(?P<test>[\w.()]+)\s+else\s+(?P<other>[\w.]+)")


def _when_sentence(value: str) -> str:
    """Who the new value reaches, where it is a conditional (vLLM #34187): only the calls
    where its test holds; the others pass what the `else` gives."""
    if not (m := _CONDITIONAL.fullmatch(value)) or " if " in m["then"]:
        return ""
    return (
        f" Only where `{m['test']}` holds does it pass `{m['then']}`; elsewhere it passes "
        f"`{m['other']}`."
    )


def _new_parameters(facts: ChangeFacts) -> set[str]:
    """Names the PR itself gives a callee (a parameter, a config field, a definition): an
    argument passed for one of them had no default to fall back to before."""
    names = {param_name(p) for s in facts.signatures for p in s.added_params}
    names |= {short_name(s.name) for s in facts.settings if s.change == "added"}
    return names | {short_name(d.name) for d in facts.of("added")}


# A compared core cut inside an expression ("`IMG_START + repl_features +`") is no value.
_CUT = re.compile(r"^\s*[.+\-*/%,)\]}&|]|[.+\-*/%,(\[{&|=]\s*$")


def _cut(text: str) -> bool:
    return bool(_CUT.search(text))


def _called_by_python(name: str) -> bool:
    """A hook Python itself calls (`__post_init__` with a dataclass's `InitVar`s, `__exit__`):
    no caller's code passes its arguments (vLLM #34120 adds an `InitVar` and its parameter)."""
    short = name.rsplit(".", 1)[-1]
    return short.startswith("__") and short.endswith("__") and short not in _CALLED_DUNDERS


_CALLED_DUNDERS = ("__init__", "__new__", "__call__")


def _asks_callers(s: SignatureChange, kwargs_took: bool = True) -> bool:
    """Whether the new signature asks something of callers; with `kwargs_took`, a parameter
    `**kwargs` took before (the callers that passed it still do) asks nothing new."""
    if kwargs_took and s.new_params and not s.dropped_params and "**" in s.old:
        return False
    if s.dropped_params or required_params(s.new_params) or s.lost_defaults:
        return True
    # A return type changed asks callers to read the result anew; a parameter retyped
    # (`KVCache` to `torch.Tensor`) or given a default asks nothing of them.
    return not (s.added_params or s.removed_params)


def _definitions_risk(
    changed: list[Definition], pr: PullRequest, facts: ChangeFacts
) -> FactRisk:
    """The changed definitions of the first file, and the tests that change with them."""
    path = changed[0].file
    names = [d.name for d in changed if d.file == path]
    # A class is not said beside its own method: the method says where.
    beside = [d for d in changed if d.file == path and d.name in names
              and not any(o.startswith(f"{d.name}.") for o in names)][:3]  # fmt: skip
    # A definition the PR adds is new, not changed: callers before it had none.
    new = [code(d.name) for d in beside if d.change == "added"]
    edited = [code(d.name) for d in beside if d.change != "added"]
    parts = [
        f"{listed(names)} {verbs[len(names) > 1]}"
        for names, verbs in ((new, ("is new", "are new")), (edited, ("changes", "change")))
        if names
    ]
    if not any(is_test_file(f.filename) for f in pr.files):
        # Untested is the concern a reviewer raises of it, said as the fact it is; where the
        # new code is called from, under which `if`, says who would meet a mistake in it.
        them = "it" if len(beside) == 1 else "them"
        found = reach(pr, [d for d in changed if d.change == "added"])
        scope = reach_clause(found) if found else _new_case_clause(pr, facts)
        shows = (
            f"{scope}, so a mistake there shows only in such a run" if scope
            else "a mistake there shows only when that code runs"
        )  # fmt: skip
        return FactRisk(
            f"In `{path}`, {' and '.join(parts)}, and {UNTESTED} covers {them}: {shows}.",
            tuple(d.name for d in beside),
        )  # fmt: skip
    return FactRisk(
        f"In `{path}`, {' and '.join(parts)}. {tests_sentence(pr, facts)}",
        tuple(d.name for d in beside),
    )


def _new_case_clause(pr: PullRequest, facts: ChangeFacts) -> str:
    """ "the new code in `f` runs only where `x` holds": of a new `if` block that is the
    PR's new code in a definition that was there (vLLM #34906's biases, for a MoE that has
    them), which says who meets a mistake in it."""
    branches = [b for b in new_branches(pr, facts) if not b.exits and not b.otherwise]
    if not branches:
        return ""
    b = branches[0]
    where = f"`{b.enclosing}`" if b.enclosing else f"`{b.file}`"
    return f"the new code in {where} runs only where `{b.condition}` holds"


_ASSIGNED = re.compile(r"([\w.]+|\"[\w.]+\"|'[\w.]+')\s*[=:]\s*(.+)")
# A C/C++ type alias, and the scalar types one names: a type has a range and a size, not a
# value, so "whatever depended on the value of `uint32_t`" would say nothing (vLLM #35275).
_ALIAS = re.compile(r"\s*(?:using\s+(\w+)\s*=\s*(.+?)|typedef\s+(.+?)\s+(\w+))\s*;?\s*")
_SCALAR_TYPE = re.compile(
    r"(?:unsigned\s+|signed\s+)?(?:u?int(?:8|16|32|64)_t|u?intptr_t|s?size_t|ptrdiff_t|int|long"
    r"(?:\s+long)?|short|char|float|double|half|bool|at::Half|at::BFloat16|__half|__nv_bfloat16)"
)
# A PR meant to change nothing but its speed or its shape: what it replaces must give the
# same result wherever it stood.
_SAME_RESULT = re.compile(
    r"\b(?:perf|performance|optimi[sz]\w*|speed\w*|faster|refactor\w*|clean ?up|"
    r"simplif\w*|consolidat\w*|dedup\w*|lazy|lazily)\b",
    re.IGNORECASE,
)
_REFACTOR = re.compile(r"refactor|clean|simplif|consolidat|dedup", re.IGNORECASE)


def _hook_risk(edit: LineEdit, facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """An expression replaced by a call of a new method whose one `return` is that same
    expression: the value stays, and the method is a hook a subclass overrides (vLLM
    #33012's `_is_last_rank`, for TPU). Where it is a function, the value simply stays."""
    old, new = core(edit)
    m = re.fullmatch(r"(self\.)?(\w+)\(\)", new)
    if not m or m[2] not in {short_name(d.name) for d in facts.of("added")}:
        return None
    if [value for _, value in new_returns(pr, m[2])] != [old]:
        return None
    where = f" in {code(edit.enclosing)}" if edit.enclosing else f" in `{edit.file}`"
    same = f"`{new}` replaces `{old}`{where}, and the new `{m[2]}` returns `{old}`"
    if not m[1]:
        return FactRisk(f"{same}: the value is the same, now computed in one place.", (m[2],))
    return FactRisk(
        f"{same}: the value is the same until a subclass overrides `{m[2]}`; an override then "
        f"decides `{edit.new.strip()}` here.",
        (m[2],), exact=True,
    )  # fmt: skip


def _same_result_risk(edit: LineEdit, facts: ChangeFacts, pr: PullRequest) -> FactRisk | None:
    """An expression replaced by a call of a definition the PR adds, in a PR titled as a
    speed-up or a refactor: the new call must return what the old expression did, in every
    place (vLLM #32975's `self.num_output_tokens()` for `len(self.output_token_ids)`)."""
    if not (meant := _SAME_RESULT.search(pr.title)):
        return None
    old, new = core(edit)
    added = {short_name(d.name) for d in facts.of("added")}
    # Called there, or passed as the function to call (`run(compute_maxsim_scores, …)`).
    called = [
        n for n in added
        if (re.search(rf"\b{re.escape(n)}\s*\(", new) or new.strip() == n) and n not in old
    ]  # fmt: skip
    if not called:
        return None
    kind = "refactor" if _REFACTOR.match(meant.group(0)) else "speed-up"
    kind = "lazy import" if meant.group(0).lower().startswith("lazy") else kind
    where, places = _swap_places(edit, old, new, pr)
    # What each new body returns, beside what it replaces, is what a reader compares.
    returns = listed([
        f"{code(value)} in {code(owner)}" if owner else code(value)
        for owner, value in new_returns(pr, called[0])
    ])  # fmt: skip
    returned = f", and returns {returns}" if returns else ""
    # The `;` ends what "replaces" applies to: the new name is no name replaced.
    return FactRisk(
        f"`{new}` replaces `{old}`{where}{places}; `{called[0]}` is new in this PR{returned}: "
        f"as a {kind}, it must return what `{old}` did in each place; where it does not, the "
        "code there now gets another value.",
        (called[0],), exact=True,
    )  # fmt: skip


def _swap_places(edit: LineEdit, old: str, new: str, pr: PullRequest) -> tuple[str, str]:
    """Where the swap is made and how often, counted in the diff: in the edit's definition
    when the file has no other place of it, else in the file; and in the PR's other files."""
    counts = swaps_by_file(pr, old, new)
    here = max(counts.pop(edit.file, 0), edit.places)
    where = f" in {code(edit.enclosing)}" if edit.enclosing else ""
    if here > edit.places:  # places beyond the edit's own may be in other definitions
        where = f" in `{edit.file}`"
    places = f" ({here} places)" if here > 1 else ""
    if counts:
        # Counted as written: a reader of vLLM #34651 took "8 places" for every variant.
        n = sum(counts.values())
        others = f"{len(counts)} other file{'s' if len(counts) > 1 else ''}"
        places += f", and written the same in {n} more place{'s' if n > 1 else ''}, in {others}"
    return where, places


def _retyped_risk(edit: LineEdit, old: str, new: str) -> FactRisk | None:
    """A scalar type swapped for another: what is declared with it changes range and size."""
    if not (_SCALAR_TYPE.fullmatch(old) and _SCALAR_TYPE.fullmatch(new)):
        return None
    a, b = _ALIAS.fullmatch(edit.old), _ALIAS.fullmatch(edit.new)
    alias = a and b and (a.group(1) or a.group(4))
    if alias and alias == (b.group(1) or b.group(4)):
        return FactRisk(
            f"`{alias}` now stands for `{new}`, not `{old}`: every value declared as "
            f"`{alias}` now has the range and size of `{new}`, in each file that uses it.",
            (alias, new), exact=True,
        )  # fmt: skip
    where = _edit_place(edit)
    return FactRisk(
        f"{where} now declares `{new}` where it declared `{old}`: what it holds there now has "
        f"the range and size of `{new}`.",
        (new,), exact=True,
    )  # fmt: skip


# Files a build or an install is made from: what their lines set, every build gets.
_BUILD_FILE = re.compile(
    r"(?:^|/)(?:Dockerfile[\w.-]*|[\w.-]*requirements[\w.-]*\.(?:txt|in)|pyproject\.toml|"
    r"requirements/[\w.-]+\.(?:txt|in)|"
    r"setup\.cfg|CMakeLists\.txt|[\w.-]+\.cmake)$"
)
_BUILT_LINE_CHARS = 80


def _build_file_risk(edit: LineEdit) -> FactRisk | None:
    """A line of a Dockerfile or a requirements file edited: every image built (or install
    made) from that file gets the new line (vLLM #34032's `TRITON_BRANCH` for every ROCm base
    image; #34387's `amdsmi==7.0.2`)."""
    if not _BUILD_FILE.search(edit.file):
        return None
    old, new = (re.sub(r"^(?:ARG|ENV)\s+", "", x.strip()) for x in (edit.old, edit.new))
    if max(len(old), len(new)) > _BUILT_LINE_CHARS:
        return None
    made = "image built" if "Dockerfile" in edit.file else "build or install made"
    return FactRisk(
        f"Every {made} from `{edit.file}` now gets `{new}`, where it got `{old}`.",
        (new,), exact=True,
    )  # fmt: skip


def _renamed_target_risk(edit: LineEdit, old: str, new: str, where: str) -> FactRisk | None:
    """The name an assignment sets, renamed (vLLM #30357's `self._emulate = (` becoming
    `self.emulate = (`): what changes is which name holds the value, not the value."""
    if not (re.fullmatch(r"[\w.]+", old) and re.fullmatch(r"[\w.]+", new)):
        return None
    if not (assigns(old).match(edit.old) and assigns(new).match(edit.new)):
        return None
    return FactRisk(
        f"{where} now sets `{new}` where it set `{old}`: code outside this diff that reads "
        f"`{old}` no longer finds it set here.",
        (new,), exact=True,
    )  # fmt: skip


_EQUALITY = re.compile(r"^(?P<op>==|!=)\s*(?P<value>.+)$")


def _compared_risk(
    old: str, new: str, where: str, pr: PullRequest, facts: ChangeFacts
) -> FactRisk | None:
    """`== "attn_head"` becoming `== QuantizationStrategy.ATTN_HEAD` (vLLM #34254): what is
    compared with, said as such. Whether the two are equal (a `str` enum's member equals its
    string) is not in the diff, so no more is said."""
    a, b = _EQUALITY.match(old), _EQUALITY.match(new)
    if not (a and b and a["op"] == b["op"]):
        return None
    return FactRisk(
        f"{where} now compares with `{b['value']}` where it compared with `{a['value']}`. "
        f"{tests_sentence(pr, facts)}",
        (b["value"],), exact=True,
    )  # fmt: skip


def _argument_edited(
    edit: LineEdit, old: str, new: str, arguments: list[ChangedArgument]
) -> ChangedArgument | None:
    """The keyword argument of `arguments` (the PR's) the edit changes the value of."""
    return next(
        (
            a for a in arguments
            if a.owner == edit.enclosing and old in f"{a.name}={a.old}"
            and new in f"{a.name}={a.new}"
        ),
        None,
    )  # fmt: skip


def _argument_said(edit: LineEdit, arguments: list[ChangedArgument]) -> str:
    """A keyword's new value said as the call's, and which call: "`quant_config` becomes
    `None`" read as the whole block's (vLLM #35156), where one call, the gate's, changes."""
    a = _argument_edited(edit, edit.old, edit.new, arguments)
    if a is None or a.position or not (a.callee or a.beside):
        return ""
    call = f"the call to `{a.callee}`" if a.callee else f"the call that also passes `{a.beside}`"
    return f"`{a.name}={a.old}` becomes `{a.name}={a.new}` in {call}"


def _under(edit: LineEdit, hunks: list[tuple[str, Hunk]]) -> str:
    """ ", under `if x:`": the `if` a Python edit made in one place stands under, when its hunk
    shows it. Which runs reach the edit is what a reader asks first (vLLM #34396's only with
    a tuned-config folder)."""
    if edit.places > 1 or not edit.file.endswith(".py") or not edit.new.strip():
        return ""
    # An edit is its changed part: the one line of the file that holds it, or no place said.
    found = [
        (hunk, row)
        for path, hunk in hunks if path == edit.file
        for row in sorted(hunk.new.changed) if edit.new in hunk.new.lines[row]
    ]  # fmt: skip
    if len(found) != 1:
        return ""
    side, row = found[0][0].new, found[0][1]
    # An `if` the PR edits too is a change said on its own, not the place of this one.
    if (head := block_head(side, row)) is None or head in side.changed:
        return ""
    return _under_if(if_condition(side, row))


def _edit_place(edit: LineEdit) -> str:
    """Where an edit stands, for a risk's subject: its definition, else its file."""
    return code(edit.enclosing or edit.file)


_CONSTANT_NAMED = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::[^=]+)?=\s*(.+?)\s*;?\s*")


def _named_constants(pr: PullRequest) -> set[tuple[str, str]]:
    """(value, name) of each name the PR gives a value to (`num_stages_rocm = 2`): a `2`
    replaced by `num_stages_rocm` is the same value named, and "whatever depended on the
    value of `2` now gets `num_stages_rocm`" would say nothing (vLLM #34846)."""
    named = (_CONSTANT_NAMED.fullmatch(line) for line in diff_lines(pr).added)
    return {(m.group(2), m.group(1)) for m in named if m}


# A string that is one web address and nothing else: a link a message gives. A file path
# is not one: code may open it.
_LINK = re.compile(r"""(["'])https?://[\w.-]+(?:/[\w.#%~+-]*)*\1""")


def _edit_risk(edit: LineEdit, pr: PullRequest, facts: ChangeFacts) -> FactRisk:
    old, new = core(edit)
    if retyped := _retyped_risk(edit, old, new):
        return retyped
    where = _edit_place(edit)
    if rewrite := value_rewrite(edit):  # what it gives, computed, not "whatever depended on"
        sentence = f"{rewrite_sentence(rewrite, where)} {tests_sentence(pr, facts)}"
        return FactRisk(sentence, (rewrite.new,), exact=True)
    if argument := _argument_edited(edit, old, new, changed_arguments(pr)):  # its call, said
        sentence = argument_sentence(argument, where)
        if value := new_local_value(pr, edit.file, argument.new):
            sentence = f"{sentence} The PR sets `{argument.new}` to `{value}` in a line it adds."
        return FactRisk(sentence, (new,), exact=True)
    if built := _build_file_risk(edit):
        return built
    a, b = _ASSIGNED.fullmatch(old), _ASSIGNED.fullmatch(new)
    if a and b and a.group(1) == b.group(1):  # a value given a new value
        return FactRisk(
            f"Anything that relied on `{a.group(1)}` being `{a.group(2)}` now gets "
            f"`{b.group(2)}`.",
            (b.group(2),), exact=True,
        )  # fmt: skip
    if renamed := _renamed_target_risk(edit, old, new, where):
        return renamed
    if compared := _compared_risk(old, new, where, pr, facts):
        return compared
    if _LINK.fullmatch(old) and _LINK.fullmatch(new):
        # A link or path a message gives (vLLM #35314): a reader follows it, no code reads it.
        return FactRisk(
            f"{where} now points its readers to `{new}`, where it pointed to `{old}`: a link "
            "that does not resolve misleads whoever follows it, and changes nothing that runs.",
            (new,), exact=True,
        )  # fmt: skip
    return FactRisk(
        f"{where} now uses `{new}` where it used `{old}`: whatever depended on the value "
        f"of `{old}` there now gets the value of `{new}`. {tests_sentence(pr, facts)}",
        (new,), exact=True,
    )  # fmt: skip
