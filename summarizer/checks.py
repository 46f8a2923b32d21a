"""Answers checked against the PR: what a reader would call wrong, found by code.

A summary can pass the claim check (every name it uses is in the PR) and still be wrong:
- it says a name was added when the diff removes it, or the reverse (INVERTED);
- it says a name was added or removed that the diff shows only on unchanged lines, the hunk's
  context (UNCHANGED);
- it quotes code that is not in the PR as written, as in `64 if n > 1 else 64` for a diff that
  says `else 128` (UNGROUNDED_CODE);
- it claims a speed or memory gain nothing in the PR speaks of (UNSUPPORTED_PERFORMANCE);
- its risk section is boilerplate ("no known risk", "should be tested thoroughly") and names
  nothing of this PR (EMPTY_RISK);
- it says the change leaves behaviour alone when the change facts show a setting removed or
  moved, a definition removed, a parameter gone or code reordered (NO_EFFECT_CLAIMED);
- it calls new what existed before, added or removed what moved, a keyword passed at a call a
  new parameter, changed what the diff shows only on unchanged lines or only reads, or puts a
  new method in a class the diff does not add it to (CONTRADICTS_FACTS, see
  summarizer/fact_claims.py); says a test is added where only existing tests change; or
  claims a change of behaviour for a PR of docs and docstrings only, of code only moved, or of
  expressions rewritten to give the same values;
- it pads: advice that asks developers for care, praise, risk boilerplate outside the risk
  section (FILLER); or it claims a benefit, or spells out an acronym, that nothing in the PR
  shows (INVENTED; see summarizer/filler.py).

Each finding names its section and sentence, so the caller can regenerate once with
`findings_hint` or drop the sentences with `remove_sentences`. `decide_type` keeps a tiny or
test-only PR TRIVIAL unless the model's reason names code that the diff changes.

Everything is computed from the PR's unified diff (lines after `@@`, `+` added, `-` removed):
nothing here depends on how the prompt was built.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum
from functools import cached_property
from pathlib import PurePosixPath

from bot.core.models import ChangeType, PullRequest, SummarySections
from bot.core.reverts import is_revert
from summarizer.caching import only_caches_added
from summarizer.claims import (
    BACKTICKED,
    check_names,
    code_lines,
    diff_lines,
    is_expression,
    lines_with,
    normalize_code,
    pr_corpus,
)
from summarizer.conditions import ConditionChange
from summarizer.enum_names import enum_names
from summarizer.fact_claims import (
    FactEvidence,
    called_effect,
    called_method_of,
    called_modified_existing,
    called_moved_dir,
    called_new_definition,
    called_new_setting,
    called_reworded,
    called_same_value,
    called_set_to,
    called_strings_code,
    called_test_added,
    contradiction,
    fact_evidence,
    mark_fact_names,
    spans,
)
from summarizer.facts import ChangeFacts, Setting, short_name
from summarizer.file_kinds import (
    is_support_file,
    is_test_file,
    runs_code,
)
from summarizer.filler import (
    effect_how,
    invented_benefit,
    invented_expansion,
    invented_setting,
    padding,
)
from summarizer.gated_claims import enables_what_it_gates, gates_added
from summarizer.hunks import indent_of, parse_hunks
from summarizer.listed_items import ListedItems, listed_items, turned_backwards
from summarizer.placement import (
    PlacedLine,
    commented_place,
    diff_lines_read,
    misplaced,
    names_a_place,
    placed_lines,
)
from summarizer.prose import COMMENT_LINE, only_prose
from summarizer.repetition import sentences
from summarizer.same_values import only_same_values


class FindingKind(StrEnum):
    INVERTED = "inverted"  # says added where the diff removes, or the reverse
    UNCHANGED = "unchanged"  # says added or removed what the diff shows only on unchanged lines
    UNGROUNDED_CODE = "ungrounded_code"  # quotes code or a name the PR does not contain
    UNSUPPORTED_PERFORMANCE = "unsupported_performance"  # a gain nothing in the PR shows
    EMPTY_RISK = "empty_risk"  # risk boilerplate naming nothing of this PR
    NO_EFFECT_CLAIMED = "no_effect_claimed"  # "no behaviour change" where the facts show one
    CONTRADICTS_FACTS = "contradicts_facts"  # new, added, removed or changed: the facts differ
    FILLER = "filler"  # advice to "developers" or praise: nothing about this PR
    INVENTED = "invented"  # a benefit or an acronym's meaning nothing in the PR shows
    UNANCHORED = "unanchored"  # a small model's sentence that names nothing of the PR
    CUT_QUOTE = "cut_quote"  # a code span left open: the sentence was cut mid-quote


@dataclass(frozen=True)
class Finding:
    """One thing a reader would call wrong, in one sentence of one section."""

    kind: FindingKind
    section: str  # a SummarySections field: "what_changed", ..., or "headline"
    sentence: str
    explanation: str  # one line the model can act on: `says `x` is added, but ...`
    # The sentence without its wrong clause, when the rest stands on its own; "" to drop it.
    trimmed: str = ""


FIELDS = ("headline", "what_changed", "technical_impact", "potential_risks", "key_insights")


@dataclass(frozen=True)
class _Evidence:
    """What the PR says, prepared once for all the sentences of an answer."""

    pr: PullRequest
    corpus: str  # title, description, labels, file names and patches (the claim check's)
    added: tuple[str, ...]  # normalized added lines
    removed: tuple[str, ...]  # normalized removed lines
    context: tuple[str, ...]  # normalized unchanged lines and hunk headers' enclosing names
    lines: tuple[str, ...]  # every normalized diff, title and description line
    terms: frozenset[str]  # the words of the title, file names and changed lines
    said: tuple[str, ...]  # the author's own words: title, description, changed comments

    @cached_property
    def placed(self) -> tuple[PlacedLine, ...]:
        """The changed lines, each with the definition it is in: read only for a sentence
        that names a place."""
        return placed_lines(self.pr)

    @cached_property
    def listed(self) -> tuple[ListedItems, ...]:
        """The items the PR adds to or drops from a literal: read once an answer, not once a
        sentence."""
        return tuple(listed_items(self.pr))

    @cached_property
    def gates(self) -> tuple[ConditionChange, ...]:
        """The returned conditions the PR only adds a requirement to: read once an answer."""
        return tuple(gates_added(self.pr))

    @cached_property
    def read(self) -> tuple[tuple[str, bool], ...]:
        """Every diff line with whether it is prose: read only for a sentence that names a
        method or function as a place."""
        return diff_lines_read(self.pr)


def split_sentences(text: str) -> list[str]:
    """The sentences of a section, with a `?` or `!` inside code (`a ? b : c`) kept in its
    sentence as a `.` is."""
    masked = BACKTICKED.sub(lambda m: m.group(0).replace("?", "\x01").replace("!", "\x02"), text)
    return [s.replace("\x01", "?").replace("\x02", "!") for s in sentences(masked)]


def _evidence(pr: PullRequest) -> _Evidence:
    sides = diff_lines(pr)
    return _Evidence(
        pr=pr,
        corpus=pr_corpus(pr),
        added=tuple(normalize_code(line) for line in sides.added),
        removed=tuple(normalize_code(line) for line in sides.removed),
        context=tuple(normalize_code(line) for line in sides.context),
        lines=code_lines(pr),
        terms=frozenset(
            _terms(
                " ".join([pr.title, *(f.filename for f in pr.files), *sides.added, *sides.removed])
            )
        ),
        said=(
            pr.title,
            pr.body or "",
            *(line for line in (*sides.added, *sides.removed) if _commented(line)),
        ),
    )


def check_answer(
    pr: PullRequest,
    sections: SummarySections,
    change_type: ChangeType,
    facts: ChangeFacts | None = None,
    *,
    small_model: bool = False,
) -> list[Finding]:
    """Every finding, in the order of the answer's sections and sentences.

    The type matters only to the risk check: a TRIVIAL answer may call its risk low for any
    stated reason; a SUBSTANTIAL one not "as with any change" (see `_empty_risk`). Without
    `facts`, no claim is checked against them. A `small_model`'s sentences must each name
    something of the PR (see `_unanchored`)."""
    evidence = _evidence(pr)
    effect = behaviour_change(facts) if facts is not None else ""
    against = None
    if facts is not None:
        against = fact_evidence(pr, facts, evidence.added, evidence.removed, evidence.context)
    findings: list[Finding] = []
    for field in FIELDS:
        for sentence in split_sentences(getattr(sections, field)):
            findings += _inverted(field, sentence, evidence)
            findings += _ungrounded(field, sentence, evidence)
            findings += _performance(field, sentence, evidence)
            findings += _no_effect(field, sentence, effect, pr)
            findings += _misplaced(field, sentence, evidence, facts)
            findings += _revert_claimed(field, sentence, evidence)
            findings += _no_change_claimed(field, sentence, evidence)
            findings += _guard_called_new(field, sentence, evidence)
            findings += _flag_backwards(field, sentence, evidence)
            findings += _comment_only_effect(field, sentence, evidence)
            if field != "headline":
                findings += _padded(field, sentence, evidence)
            if small_model:
                findings += _unanchored(field, sentence, evidence)
            if against is not None and field != "headline":
                findings += _contradicted(field, sentence, against)
            if facts is not None:
                findings += _miscounted(field, sentence, facts)
    if against is not None and sections.headline:
        findings += _headline_contradicted(sections.headline, evidence, against)
    findings += _empty_risk(sections.potential_risks, evidence, change_type)
    return findings


_REVERT_WORD = re.compile(r"\brevert(?:s|ed|ing)?\b", re.IGNORECASE)
# "adding a try-except block", "introduces a new try/except"
_ADDS_TRY = re.compile(
    r"\b(?:adds?|added|adding|introduc\w+|new)\b[^.]{0,30}?\btry\b(?:[- /]?(?:except|catch))?",
    re.IGNORECASE,
)


def _guard_called_new(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """A `try` block said to be added where the PR only moves one that was there a level
    deeper, under a new `if` (vLLM #35125: "The changes include adding a try-except block";
    summarizer/guards.py says what happened)."""
    if not _ADDS_TRY.search(BACKTICKED.sub(" ", sentence)) or not _try_moved_deeper(evidence.pr):
        return []
    why = "says a `try` block is added, but the diff only puts the one that was there under a new `if`"
    return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]


def _flag_backwards(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """A flag said to go the way the PR does not turn it (summarizer/listed_items.py: vLLM
    #35081 "disables chunked prefill for POWER", where it drops POWER from the CPUs that
    get it disabled), or something said enabled where the PR only adds a requirement to the
    predicate that decides it (summarizer/gated_claims.py: #35250)."""
    why = turned_backwards(sentence, evidence.listed)
    if why := why or enables_what_it_gates(sentence, evidence.gates):
        return [Finding(FindingKind.INVERTED, field, sentence, why)]
    return []


_EFFECT = re.compile(r"\b(?:affect\w*|behaviou?r\w*|functionality|alter\w*)\b", re.IGNORECASE)


def _comment_only_effect(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """A file whose change is only comments or docstrings said to affect what the code does
    (vLLM #32365: "the modification of `vllm/v1/worker/cpu_worker.py` will affect the
    behavior of the CPU worker", where the PR adds one comment there)."""
    if not _EFFECT.search(sentence):
        return []
    for f in evidence.pr.files:
        name = PurePosixPath(f.filename).name
        if (f.filename in sentence or f"`{name}`" in sentence) and f.patch and only_prose(f):
            why = f"says `{f.filename}` affects what the code does, but the PR changes only comments there"
            return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]
    return []


def _try_moved_deeper(pr: PullRequest) -> bool:
    """A hunk removes a `try:` and adds one back deeper, and adds no other."""
    for f in pr.files:
        for hunk in parse_hunks(f.patch or ""):
            old = [indent_of(hunk.old.lines[r]) for r in hunk.old.changed if _is_try(hunk.old.lines[r])]
            new = [indent_of(hunk.new.lines[r]) for r in hunk.new.changed if _is_try(hunk.new.lines[r])]
            if old and len(new) == len(old) and all(n > o for o, n in zip(old, new, strict=True)):
                return True
    return False


def _is_try(line: str) -> bool:
    return line.strip() == "try:"


def _revert_claimed(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """A PR called a revert that is none: vLLM #35033, "Bring back Llama-4 bug fixes", lands
    them again, and the built-in model wrote "Reverts Llama-4 bug fixes", backwards. Only a
    PR whose title, description or changed lines speak of a revert may be called one."""
    if not _REVERT_WORD.search(BACKTICKED.sub(" ", sentence)):
        return []
    pr = evidence.pr
    said = (pr.title, pr.body or "", *evidence.added, *evidence.removed)
    if is_revert(pr) or any(_REVERT_WORD.search(text) for text in said):
        return []
    why = "calls the PR a revert, which nothing in its title, description or diff says"
    return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]


# "does not change any code in `tests/x.py`", "No changes to the code": said by the small model
# of a PR whose only file is that one (vLLM #34990 adds a skip marker to it).
_NO_CHANGE = re.compile(
    r"\b(?:does not|doesn't|did not|didn't) (?:change|modify|touch|alter)\b"
    r"(?P<rest>(?:[^.;]|\.(?=\S))*)",  # a path's dots do not end the sentence
    re.IGNORECASE,
)
_NOTHING_CHANGED = re.compile(r"^\s*no (?:code )?changes?(?: (?:to|in) the code)?\.?\s*$", re.I)


def _no_change_claimed(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """The PR said to change nothing, or nothing in a file it changes."""
    pr = evidence.pr
    changed = {f.filename for f in pr.files if f.additions or f.deletions}
    if field == "headline" and _NOTHING_CHANGED.match(sentence) and changed:
        why = f"says nothing changed, where the PR changes `{sorted(changed)[0]}`"
        return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]
    m = _NO_CHANGE.search(sentence)
    named = [p for p in changed if m and f"`{p}`" in m["rest"]]
    if not named:
        return []
    why = f"says the PR does not change `{named[0]}`, which it changes"
    return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]


# A count of definitions a sentence gives: "removes two private functions" (vLLM #35068,
# where the PR removes three). Numbers a reader sees are code's, never the model's.
_COUNTED = re.compile(
    r"\b(?P<verb>adds?|added|adding|introduc\w+|remov\w+|delet\w+|drop\w*)\s+(?:the\s+)?"
    r"(?P<n>two|three|four|five|six|seven|eight|nine|ten|\d+)\s+"
    r"(?:(?:new|private|public|unused|helper|redundant)\s+)*"
    r"(?P<kind>functions|methods|classes|kernels)\b",
    re.IGNORECASE,
)
_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_COUNTED_KINDS = {
    "functions": ("function", "method"), "methods": ("method",),
    "classes": ("class", "struct"), "kernels": ("kernel",),
}  # fmt: skip


def _miscounted(field: str, sentence: str, facts: ChangeFacts) -> list[Finding]:
    """A number of definitions added or removed that the facts do not give."""
    m = _COUNTED.search(sentence)
    if m is None:
        return []
    n = int(m["n"]) if m["n"].isdigit() else _NUMBERS[m["n"].lower()]
    change = "added" if m["verb"].lower().startswith(("add", "intro")) else "removed"
    kinds = _COUNTED_KINDS[m["kind"].lower()]
    # A function nested in another is part of its parent's body, not one more counted.
    found = [d for d in facts.of(change) if d.kind in kinds and not d.nested]
    names = {short_name(d.name) for d in facts.of(change)}
    listed = [c for c in re.findall(r"`([^`]+)`", sentence[m.end() :]) if c in names]
    if len(listed) == n:
        return []  # "adds two functions: `a` and `b`" counts its own list, which names check
    strict = [d for d in found if d.kind == kinds[0]]  # "functions" may leave methods out
    if not found or n in (len(found), len(strict)):
        return []
    verb = "adds" if change == "added" else "removes"
    why = f"says the PR {verb} {m['n']} {m['kind']}; it {verb} {len(found)}"
    return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]


# --- 1. INVERTED: added where the diff removes, removed where it adds -------------------------

_ADD, _OLD, _NEUTRAL, _NONE = "add", "old", "neutral", "none"
_VERBS = {
    _ADD: "add adds added adding introduce introduces introduced introducing",
    _OLD: "remove removes removed removing drop drops dropped dropping delete deletes deleted "
    "deleting eliminate eliminates eliminated eliminating",
    "replace": "replace replaces replaced replacing swap swaps swapped swapping",
    "rename": "rename renames renamed renaming",
    _NEUTRAL: "change changes changed changing switch switches switched switching convert "
    "converts converted converting update updates updated updating migrate migrates "
    "migrated migrating",
}
_VERB_MODE = {word: mode for mode, words in _VERBS.items() for word in words.split()}
# Words that may stand between a verb and its object without changing what it applies to:
# "removes the unused `x` argument and the `y` import".
_FILLER = set(
    "the a an its their this these those that's new old unused redundant dead duplicate "
    "duplicated explicit extra separate hardcoded hard-coded default optional private public "
    "internal existing custom obsolete stale legacy deprecated unneeded unnecessary corresponding "
    "file files module modules "
    "argument arguments parameter parameters param params field fields function functions "
    "method methods class classes call calls import imports option options flag flags "
    "attribute attributes variable variables constant constants property properties keyword "
    "kwarg kwargs decorator decorators entry entries key keys value values setting settings "
    "assignment assignments statement statements helper helpers line lines and or both also "
    "now explicitly directly simply entirely completely it them use uses using usage "
    "cli env environment config missing absent two three four five six several some few "
    "multiple many".split()
)
_NEGATION = {"not", "never", "without", "n't", "no", "nor"}
_TOKEN = re.compile(r"`([^`\n]+)`|([A-Za-z][\w'-]*)|([;:()\[\]!?])")
_PHRASES = [
    (re.compile(r"\b(?:instead of|rather than|in place of)\b", re.I), " insteadof "),
    (re.compile(r"\bno longer\b", re.I), " nolonger "),
    (re.compile(r"\bpreviously (?=missing|absent|unset|undefined)", re.I), " "),
    (re.compile(r"\b(?:previously|formerly|used to)\b", re.I), " previously "),
    # "The removal of `x`" claims what "removes `x`" does (vLLM #35083 said it of a class
    # the PR adds).
    (re.compile(r"\b(?:removal|deletion|elimination)\s+of\b", re.I), " removes "),
    (re.compile(r"\b(?:addition|introduction)\s+of\b", re.I), " adds "),
    # "removes `a` from `f.py`, as well as `b` from `g.py`": the verb goes on past the place
    # (vLLM #35418 said so of a class that only its unchanged lines name).
    (re.compile(r"\bas well as\b", re.I), " aswellas "),
]


def _named_changes(sentence: str) -> list[tuple[str, str]]:
    """(code, "add" or "old") for each backticked name the sentence says was added or
    removed: `adds `x``, `removes `x``, `replaces `a` with `b``, `changes `a` to `b``,
    `renames `a` to `b``, `uses `b` instead of `a``, `no longer calls `a``, `previously
    used `a``. Anything else between a verb and a name ("adds a check for `x`", "removes
    `y`, which calls `z`") ends what the verb applies to."""
    text = sentence
    for pattern, marker in _PHRASES:
        text = pattern.sub(marker, text)
    verb, mode, negated, previous = "", _NONE, False, ""
    renamed_to = False  # a rename's "to" was read: a name after its target is the next old one
    claims: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(text):
        code, word = m.group(1), (m.group(2) or "").lower()
        if code is not None:
            if renamed_to and verb == "rename" and mode == _ADD and previous in ("`", "and"):
                mode = _OLD  # "renames `a` to `b`, `c` to `d`": `c` is the next old name
            if mode in (_ADD, _OLD):
                claims.append((code.strip(), mode))
            previous = "`"
            continue
        if not word:  # ; : ( ) [ ] end a clause
            verb, mode = "", _NONE
        elif word in _NEGATION or word.endswith("n't"):
            verb, mode, negated = "", _NONE, True
        elif word in _NOUNS and previous in _DETERMINERS:
            verb, mode = "", _NONE  # "the change to `x`" is a change of `x`, not into it
        elif word in _VERB_MODE:
            # "no longer adds `x`" keeps `x` on the old side; "removes `a` and adds `b`" not.
            after_no_longer = mode == _OLD and verb in ("", "previously")
            verb, renamed_to = _VERB_MODE[word], False
            mode = _verb_start(verb, mode if after_no_longer else _NONE, negated,
                               adjective=previous in _DETERMINERS)  # fmt: skip
            negated = False
        elif word == "aswellas":
            mode = verb if verb in (_ADD, _OLD) else mode
        elif word in ("now", "insteadof", "nolonger", "previously"):
            verb = "previously" if word == "previously" else ""
            mode = _ADD if word == "now" else _OLD
            mode = _NONE if negated else mode
        elif word in _PREPOSITIONS:
            mode = _preposition(verb, word) if verb else _NONE
            renamed_to = verb == "rename" and mode == _ADD
        elif word not in _FILLER and not (verb == "previously" and word in _PAST_USE):
            verb, mode = "", _NONE
        previous = word
    return claims


_DETERMINERS = {"the", "a", "an", "this", "its", "their", "newly"}
_NOUNS = {"change", "changes", "update", "updates"}
_PREPOSITIONS = {"to", "with", "by", "for", "from", "into", "as", "on"}
# "Previously, it used `a`", "previously called `a`", "was set to `a`".
_PAST_USE = {"used", "called", "was", "were", "had", "relied", "set", "passed", "read", "it"}


def _verb_start(verb: str, mode: str, negated: bool, adjective: bool) -> str:
    if negated:
        return _NONE
    if adjective and verb == "rename":  # "the renamed `x`" is the new name
        return _ADD
    if mode == _OLD and verb == _ADD:  # "no longer adds `x`"
        return _OLD
    return {"replace": _OLD, "rename": _OLD}.get(verb, verb if verb in (_ADD, _OLD) else _NONE)


def _preposition(verb: str, word: str) -> str:
    """What the names after `word` are: "replaces `a` with `b`", "changes `a` to `b`",
    "changes the default from `a`", "renames `a` to `b`"; otherwise a place or a purpose
    ("removes `x` from `Foo`", "adds a check for `y`"), which claims nothing."""
    if verb == "replace" and word in ("with", "by", "for"):
        return _ADD
    if verb in ("rename", _NEUTRAL) and word in ("to", "into", "as"):
        return _ADD
    if verb == _NEUTRAL and word == "from":
        return _OLD
    if verb == "previously" and word in ("to", "on"):  # "was set to `a`", "relied on `a`"
        return _OLD
    return _NONE


def _inverted(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    findings = []
    for code, side in _named_changes(sentence):
        added, removed = lines_with(code, evidence.added), lines_with(code, evidence.removed)
        if side == _ADD and removed and not added:
            why = f"says `{code}` is added, but the diff removes it ({_times(removed)})"
        elif side == _OLD and added and not removed:
            why = f"says `{code}` is removed or replaced, but the diff adds it ({_times(added)})"
        elif not (added or removed) and (kept := lines_with(code, evidence.context)):
            said = "added" if side == _ADD else "removed"
            why = f"says `{code}` is {said}, but the diff shows it unchanged ({_times(kept)})"
            findings.append(Finding(FindingKind.UNCHANGED, field, sentence, why))
            continue
        elif side == _ADD and added and not removed and _only_quoted(code, evidence.added) and (
            kept := lines_with(code, evidence.context)
        ):
            # vLLM #34739 guards `os.sched_setaffinity(...)` and names it in the error message.
            why = (
                f"says `{code}` is added, but the diff adds it only inside a string; the code "
                f"that uses it is unchanged ({_times(kept)})"
            )
            findings.append(Finding(FindingKind.UNCHANGED, field, sentence, why))
            continue
        else:
            continue
        findings.append(Finding(FindingKind.INVERTED, field, sentence, why))
    return findings


_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def _only_quoted(code: str, lines: tuple[str, ...]) -> bool:
    """`code`, a name, is on `lines` only inside their string literals."""
    if "\"" in code or "'" in code:
        return False
    return not lines_with(code, tuple(_STRING.sub('""', line) for line in lines))


def _times(n: int) -> str:
    return "in 1 place" if n == 1 else f"in {n} places"


# --- 2. UNGROUNDED_CODE: quoted code the PR does not contain --------------------------------


def _ungrounded(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    if sentence.count("`") % 2:
        # A span cut open (`ARG TRITON_BRANCH=` and the end of the answer, vLLM #34032)
        # would pair its backtick with the next sentence's, code sentences included.
        why = "leaves a code span open: it was cut off mid-quote"
        return [Finding(FindingKind.CUT_QUOTE, field, sentence, why)]
    findings = []
    for m in BACKTICKED.finditer(sentence):
        code = m.group(1).strip()
        if not code or _general_knowledge(code):
            continue
        if is_expression(code):
            missing = _missing_names(code, evidence.corpus)
            near = "" if missing else _misquoted(code, evidence)
            if missing:
                why = f"quotes `{code}`, but `{missing[0]}` appears nowhere in the PR"
            elif near and not _hypothetical(sentence[: m.start()]):
                why = f"quotes `{code}`, but the diff has `{near}`"
            else:
                continue
        elif check_names([code], evidence.pr, evidence.corpus):
            why = f"names `{code}`, which appears nowhere in the PR"
        else:
            continue
        findings.append(Finding(FindingKind.UNGROUNDED_CODE, field, sentence, why))
    return findings


_BUILTINS = frozenset(dir(builtins)) | {"self", "cls", "nullptr", "NULL", "null", "true", "false"}


def _general_knowledge(code: str) -> bool:
    """Names every reader knows and no diff needs to show: `None`, `AttributeError`,
    `__init__`, `self`. Saying what was broken often names them."""
    core = re.sub(r"\(\s*\)$", "", code.strip())
    return core in _BUILTINS or bool(re.fullmatch(r"__\w+__", core))


def _missing_names(code: str, corpus: str) -> list[str]:
    """The names in quoted code that the PR does not contain."""
    names = re.findall(r"[A-Za-z_]\w*", code)
    return [n for n in names if len(n) > 1 and not _general_knowledge(n) and n not in corpus]


def _hypothetical(before: str) -> bool:
    """The words just before the code make it an example or a condition, not a quote:
    "edge cases like `n = 0`", "if `a > b`"."""
    words = re.findall(r"[\w.]+", before.lower())[-3:]
    return bool(
        {"if", "when", "unless", "like", "e.g.", "e.g", "eg", "such", "whether"} & set(words)
    )


_CODE_TOKEN = re.compile(r"\w+|[^\w\s]")
# This share of a quote's tokens, in order, in one line, but not all of them: vLLM #32621's
# `max(64, next_power_of_2((64 // num_slices)))` has 11 of its 14 in the diff's line.
MISQUOTE = 0.7
# What a misquote gets wrong to be wrong: a value or a piece of logic, not a name or a colon
# (names are checked as names; "ZMQError: msg" is how one writes the error the diff raises).
_LOGIC = frozenset("if else and or not is in None True False nullptr < > = ! + - * / % & |".split())


def _misquoted(code: str, evidence: _Evidence) -> str:
    """The line an expression misquotes, or "" when it is quoted right or quotes nothing.

    A quote is right when its tokens appear in order in one line of the PR (arguments may
    be left out, `"..."` stands for anything). It misquotes a line that holds most of its
    tokens in order but differs in a value or in logic: `64 if n > 1 else 64` against
    `64 if n > 1 else 128`. Code close to no line at all (an example, a command) is left
    alone."""
    tokens = _CODE_TOKEN.findall(normalize_code(re.sub(r"\.\.\.|…", " ", code)))
    if len(tokens) < 4:
        return ""
    names = {t for t in tokens if t[0].isalpha() or t[0] == "_"}
    best, best_missing = "", tokens
    for line in evidence.lines:
        if names and not any(name in line for name in names):
            continue
        missing = _unmatched(tokens, _CODE_TOKEN.findall(line))
        if not missing:
            return ""
        if len(missing) < len(best_missing):
            best, best_missing = line, missing
    wrong = [t for t in best_missing if t in _LOGIC or t.isdigit()]
    close = len(tokens) - len(best_missing) >= MISQUOTE * len(tokens)
    return best.strip()[:100] if close and wrong else ""


def _unmatched(quote: list[str], line: list[str]) -> list[str]:
    """The quote's tokens left over when it is matched, in order, against the line."""
    blocks = SequenceMatcher(None, quote, line, autojunk=False).get_matching_blocks()
    matched = {i for block in blocks for i in range(block.a, block.a + block.size)}
    return [token for i, token in enumerate(quote) if i not in matched]


# --- 3. UNSUPPORTED_PERFORMANCE: a gain nothing in the PR speaks of --------------------------

_GAIN = re.compile(
    r"\b(?:faster|quicker|speed(?:s|ing)?[ -]?ups?|speedups?|more efficient(?:ly)?"
    r"|optimi[sz](?:es|ing)\b"
    r"|(?:improv|boost|enhanc)\w*(?: [\w']+){0,3} (?:performance|speed|latency|throughput|"
    r"efficiency)"
    r"|(?:increas|rais|higher)\w*(?: \w+){0,2} (?:throughput|speed|efficiency)"
    r"|(?:reduc|lower|cut|sav|minimi[sz]|decreas)\w*(?: \w+){0,3} (?<!maintenance )"
    r"(?<!cognitive )(?<!code )(?<!review )(?:overhead|latency|"
    r"memory (?:usage|use|footprint|consumption)|allocations|cpu time|gpu time|"
    r"computational cost|compute cost)"
    r"|performance (?:gains?|improvements?|boosts?|benefits?)"
    r"|(?:lower|reduced) latency|higher throughput)\b",
    re.IGNORECASE,
)
# What a PR that is about speed or memory says somewhere: its tag, its benchmark, its tuning.
_PERF_WORDS = re.compile(
    r"\b(?:perf|performance|speed\w*|fast|faster|fastest|latency|throughput|optimi[sz]\w*"
    r"|benchmark\w*|cach(?:e|ed|es|ing)|overhead|memory|tun(?:e|ed|ing)|efficien\w*"
    r"|slow\w*|profil\w*|vectori[sz]\w*|tflops|flops|bandwidth|mfu)\b",
    re.IGNORECASE,
)


def _performance(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    claim = _GAIN.search(BACKTICKED.sub(" ", sentence))
    # A headline says what the PR is for, which its author says: a line about a cache among
    # a new model's 1,400 does not make "Improves model performance" its point (vLLM #35102).
    supported = _perf_said(evidence.pr) if field == "headline" else _perf_supported(evidence)
    if not claim or supported:
        return []
    why = f'claims a performance gain ("{claim.group(0)}") that nothing in the PR shows'
    return [Finding(FindingKind.UNSUPPORTED_PERFORMANCE, field, sentence, why, _without_claim(
        sentence, claim.group(0)))]  # fmt: skip


def _without_claim(sentence: str, claim: str) -> str:
    """The sentence up to the trailing clause that holds `claim` (", potentially improving
    performance", " and improves throughput": a gain tacked on to a true sentence), when
    enough is left to say something (six words); "" when the claim is the sentence's point."""
    at = sentence.find(claim)
    if at < 0:
        return ""
    cuts = [m.start() for m in re.finditer(r",\s|\s(?:and|thus|thereby)\s", sentence[:at])]
    if not cuts or len(sentence[: cuts[-1]].split()) < 6:
        return ""
    return sentence[: cuts[-1]].rstrip(" ,") + "."


# A module or folder of benchmark tools (`vllm/benchmarks/serve.py`, `vllm.benchmarks.datasets`)
# is where a PR is, not what it is about: a fix to a benchmark's CLI makes nothing faster.
_BENCH_PLACE = re.compile(r"[\w./-]*\bbench(?:mark)?s?[./][\w./-]*", re.IGNORECASE)


# A cache that is a feature of its own, named: a fix to prefix caching is about which blocks
# are shared, not about speed (vLLM #29387, "Avoid prefix cache hit in the same schedule step").
_CACHE_FEATURE = re.compile(
    r"\b(?:prefix|kv|encoder|compile|compilation)[ _-]?cach(?:e|ed|es|ing)\b", re.IGNORECASE
)


def _perf_supported(evidence: _Evidence) -> bool:
    """The title, description or changed lines speak of speed or memory. Unchanged context
    lines do not count: they are not what the PR is about; nor do file names (a PR to the
    benchmark tools' CLI is not about speed), nor, in the changed lines, a word inside an
    identifier: in vLLM `kv_cache` and `gpu_memory_utilization` are on every other line; nor
    a cache named as a feature (prefix caching, the KV cache)."""
    changed = (*evidence.added, *evidence.removed)
    return _perf_said(evidence.pr) or any(_speaks_of_perf(t) for t in changed)


def _perf_said(pr: PullRequest) -> bool:
    """The PR's title or description speaks of speed or memory."""
    return any(
        _speaks_of_perf(_BENCH_PLACE.sub(" ", t).replace("_", " ")) for t in (pr.title, pr.body)
    )


def _speaks_of_perf(text: str) -> bool:
    return bool(_PERF_WORDS.search(_CACHE_FEATURE.sub(" ", text)))


# --- 3b. FILLER and INVENTED: padding, and benefits or meanings nothing shows ---------------


def _padded(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """Advice, praise, risk boilerplate outside the risk section and a setting the PR is not
    in (summarizer/filler.py) go whole; an invented benefit or acronym meaning takes its clause with it, or the
    sentence when it is the point."""
    # The risk section's padding is its own finding (EMPTY_RISK), and gives way to the facts.
    if field != "potential_risks" and (why := padding(sentence) or _risk_boilerplate(sentence)):
        return [Finding(FindingKind.FILLER, field, sentence, why)]
    if why := invented_setting(sentence, evidence.corpus):
        return [Finding(FindingKind.INVENTED, field, sentence, why)]
    findings = []
    why, claim = invented_benefit(sentence, evidence.said)
    if why:
        trimmed = _without_claim(sentence, claim)
        findings.append(Finding(FindingKind.INVENTED, field, sentence, why, trimmed))
    why, expanded = invented_expansion(sentence, evidence.corpus)
    if why and not findings:
        findings.append(Finding(FindingKind.INVENTED, field, sentence, why, expanded))
    return findings


# Where a sentence that names nothing is the small model's own reasoning. The headline is
# checked against the facts on its own; the risk section has its boilerplate check.
_ANCHORED = ("what_changed", "technical_impact", "key_insights")


def _unanchored(field: str, sentence: str, evidence: _Evidence) -> list[Finding]:
    """A small model's sentence that names no identifier, setting or file of the PR, or its
    trailing purpose clause (", ensuring that …") that names none. Read against the diffs of
    the dev days, these were the built-in model's guesses at a cause or an effect ("by
    reducing the number of tokens processed at once", "may require adjustments to the
    training loop"), wrong far more often than right; a hosted model's are not held to this.
    The facts' sentences take an emptied section's place."""
    if field not in _ANCHORED:
        return []
    why = "says something that names no function, class, setting or file of the PR"
    if not _anchored(sentence, evidence):
        return [Finding(FindingKind.UNANCHORED, field, sentence, why)]
    if (how := effect_how(sentence)) and not _anchored(how, evidence):
        # Without its guess at how, "affects the behavior of X" is padding: the sentence goes.
        return [Finding(FindingKind.UNANCHORED, field, sentence, f"{why} in how it says")]
    cut = next(reversed(list(_PURPOSE.finditer(sentence))), None)
    if cut is None or len(sentence[: cut.start()].split()) < 6:
        return []
    if _anchored(sentence[cut.start() :], evidence):
        return []
    head = sentence[: cut.start()].rstrip(" ,") + "."
    # What is left may be padding once its clause goes: "The change affects the behavior of
    # the `RMSNormGated` layer, as it now correctly applies …" (vLLM #35369).
    kept = "" if padding(head) else head
    return [Finding(FindingKind.UNANCHORED, field, sentence, f"{why} in its last clause", kept)]


# Where a sentence turns from what changed to why or to what follows.
_PURPOSE = re.compile(
    r",\s+(?:which|ensuring|allowing|making|thereby|resulting|leading|improving|reducing|"
    r"preventing|so that|as it|because)\b|\s+(?:to ensure|in order to|so that|to make sure)\b",
    re.IGNORECASE,
)


def _anchored(text: str, evidence: _Evidence) -> bool:
    return names_pr_code(text, evidence.pr, evidence.corpus, word_stems=False)


def _risk_boilerplate(sentence: str) -> str:
    # "It does not introduce new bugs" says no more in key_insights than as a risk.
    if _BOILERPLATE.search(sentence) and not _REASON.search(sentence):
        return "is risk boilerplate, outside the risk section"
    return ""


def _commented(line: str) -> bool:
    """A comment or a docstring's first line: what the code's author says in its own words."""
    return bool(COMMENT_LINE.match(line)) or line.lstrip().startswith(('"""', "'''"))


# --- 4. NO_EFFECT_CLAIMED: "no behaviour change" where the facts show one ---------------------

_NO_EFFECT = re.compile(
    r"\b(?:no|not|n't|without)(?: \w+){0,3} (?:behaviou?r(?:al)?|functional(?:ity)?|runtime)"
    r"(?: \w+){0,2} (?:changes?|effects?|impact|differences?)\b"
    r"|\b(?:does|do|will|should)(?: not|n't)(?: \w+){0,2} (?:change|alter|affect|modify|impact)"
    r"(?: \w+){0,3} (?:behaviou?r|functionality|what)\b"
    r"|\bpurely (?:cosmetic|stylistic)\b|\bno(?:-| )op\b|\bno functional\b",
    re.IGNORECASE,
)


def behaviour_change(facts: ChangeFacts) -> str:
    """What in the facts changes what runs, as one phrase; "" when nothing does (a move of
    definitions, a change of bodies code cannot judge, a comment)."""
    for s in facts.settings:
        if s.kind != "CI step" and not is_support_file(s.file):
            if s.change == "removed":
                return f"the PR removes the {s.kind} `{s.name}`"
            if s.change == "moved":
                return f"the PR moves the {s.kind} `{s.name}` out of {s.old}"
    if flipped := flipped_defaults(facts):
        s = flipped[0]
        return f"the PR changes the default of `{s.name}` from {s.old} to {s.new}"
    removed = [
        d for d in facts.of("removed")
        if not is_support_file(d.file) and d.name not in {m.old_name for m in facts.moves}
    ]  # fmt: skip
    if removed:
        return f"the PR removes `{removed[0].name}`"
    for sig in facts.signatures:
        if sig.dropped_params and not is_support_file(sig.file):
            return f"the PR removes the parameter `{sig.dropped_params[0]}` of `{sig.name}`"
    for m in facts.moved_lines:
        if m.reordered and not is_support_file(m.old_file):
            return f"the PR reorders the lines starting `{m.text[:60]}`"
    return ""


def _no_effect(field: str, sentence: str, effect: str, pr: PullRequest) -> list[Finding]:
    plain = BACKTICKED.sub(" ", sentence)
    if (claim := _NO_CODE.search(plain)) and (source := _running_file(pr)):
        why = f'says "{claim.group(0)}", but the PR changes the code of `{source}`'
        return [Finding(FindingKind.NO_EFFECT_CLAIMED, field, sentence, why)]
    claim = _NO_EFFECT.search(plain) if effect else None
    if not claim:
        return []
    why = f'says "{claim.group(0)}", but {effect}'
    return [Finding(FindingKind.NO_EFFECT_CLAIMED, field, sentence, why)]


# "No changes to the code", "the PR does not change any code": said of a PR that flips a
# default in `envs.py` (vLLM #34924), where the code that runs is what changed.
_NO_CODE = re.compile(
    r"\bno (?:changes? to (?:the |any )?code|code changes?)\b"
    r"|\b(?:does|do)(?: not|n't) change (?:any |the )?code\b",
    re.IGNORECASE,
)


def _running_file(pr: PullRequest) -> str:
    return next((f.filename for f in pr.files if runs_code(f)), "")


# --- 5. CONTRADICTS_FACTS: new, added, removed or changed where the facts say otherwise ------


def _contradicted(field: str, sentence: str, against: FactEvidence) -> list[Finding]:
    claimed = dict(_named_changes(sentence))
    found = [contradiction(s, claimed.get(s.code, ""), sentence, against) for s in spans(sentence)]
    found += [
        called_test_added(sentence, against),
        called_same_value(sentence),
        called_new_definition(sentence, against),
        called_effect(sentence, against),
        called_new_setting(sentence, against),
        called_strings_code(sentence, against),
        called_set_to(sentence, against),
        called_moved_dir(sentence, against),
        called_modified_existing(sentence, against),
        called_method_of(sentence, against),
    ]
    return [
        Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)
        for why in dict.fromkeys(found)
        if why
    ]


def _misplaced(
    field: str, sentence: str, evidence: _Evidence, facts: ChangeFacts | None
) -> list[Finding]:
    if not names_a_place(sentence):
        return []
    if why := misplaced(sentence, evidence.placed, facts) or commented_place(sentence, evidence.read):
        return [Finding(FindingKind.CONTRADICTS_FACTS, field, sentence, why)]
    return []


def _headline_contradicted(
    headline: str, evidence: _Evidence, against: FactEvidence
) -> list[Finding]:
    """The headline's own words, past the title it echoes, with the change's names marked as
    code (a headline has no backticks): "Revert #34208: Remove trust-remote-code flag from
    serve.py", where the flag moves to serve.py, gives way to the title."""
    title = evidence.pr.title
    if headline.strip(" .").lower() in title.lower():
        return []  # a part of the title: the author's words, not the model's claim
    own = headline.replace(title, " ").replace(_TITLE_TAGS.sub("", title), " ")
    marked = mark_fact_names(own, against.facts, evidence.pr)
    found = _inverted("headline", marked, evidence) + _contradicted("headline", marked, against)
    # "Update usage of `--flag` in `MultiModalConfig`": the title's verb, the model's place.
    whole = mark_fact_names(headline, against.facts, evidence.pr)
    found += [
        Finding(FindingKind.CONTRADICTS_FACTS, "headline", headline, why)
        for why in (called_reworded(s, whole, against) for s in spans(marked))
        if why
    ]
    found += _framed_backwards(own, evidence.pr)
    return [replace(f, sentence=headline) for f in found]


_FRAMED = {
    _OLD: re.compile(r"\b(?:remov|delet|drop|deprecat|eliminat)\w*", re.IGNORECASE),
    _ADD: re.compile(r"\b(?:add(?:s|ed|ing|itions?)?|introduc\w*)\b", re.IGNORECASE),
}


def _framed_backwards(own: str, pr: PullRequest) -> list[Finding]:
    """The headline's own words frame the whole PR by the smaller side of its diff: "Token
    Base IPC API Removals" for a PR whose code gains 376 lines and loses 90."""
    code_files = [f for f in pr.files if not is_support_file(f.filename)]
    added = sum(f.additions for f in code_files)
    removed = sum(f.deletions for f in code_files)
    for side, larger, smaller, few, many in (
        (_OLD, added, removed, "removes", "adds"),
        (_ADD, removed, added, "adds", "removes"),
    ):
        word = _FRAMED[side].search(own)
        if word and larger >= 20 and larger >= 3 * smaller:
            why = f'says "{word.group(0)}", but the code {few} {smaller} lines and {many} {larger}'
            return [Finding(FindingKind.CONTRADICTS_FACTS, "headline", own, why)]
    return []


_TITLE_TAGS = re.compile(r"^(?:\s*\[[^\]]*\])+\s*")  # "[Bugfix][ROCm] "


# --- 6. EMPTY_RISK: boilerplate that names nothing of this PR --------------------------------

_BOILERPLATE = re.compile(
    r"\bno (?:\w+ ){0,2}risks?\b(?! (?:that|of|if|when))"
    r"|\b(?:minimal|low|negligible|little|minor|limited) risks?\b(?! (?:that|of|if|when))"
    r"|\brisks? (?:\w+ ){0,2}(?:minimal|low|negligible|small|limited)\b"
    r"|\bthorough(?:ly)? (?:test|review|validat)\w*|\b(?:test|tested|testing) thoroughly\b"
    r"|\b(?:should|must|need to|needs to) (?:be )?(?:\w+ )?(?:tested|test it|monitored)\b"
    r"|\b(?:extensive|careful|proper|adequate) (?:testing|review|validation)\b"
    r"|\bmonitor\w* (?:\w+ ){0,2}(?:issues|regressions|problems)\b"
    r"|\bunlikely to (?:cause|introduce|break)\b|\b(?:not|n't)(?: \w+){0,3} risks?\b"
    r"|\b(?:change|update|fix|pr)s? (?:is|are) (?:\w+ )?safe\b|^\W*(?:none|n/a|no risks?)\W*$"
    r"|\b(?:does|do|will|should) not (?:\w+ )?introduce (?:\w+ ){0,2}(?:bugs|issues|risks|problems)\b"
    r"|\bcareful(?:ly)? (?:review|test|check|monitor)\w*"
    r"|\b(?:review|check|validat|verif|test)\w* (?:\w+ ){0,3}(?:thoroughly|carefully)\b"
    r"|\b(?:may|might|could|can) introduce (?:new |potential )?(?:bugs|issues|errors|problems)\b"
    r"|\bif not (?:\w+ )?(?:implemented|handled|tested|done|configured) (?:correctly|properly)\b",
    re.IGNORECASE,
)
# A low-risk statement with its reason is not boilerplate: "The change is mechanical (a
# rename), so the risk is low"; "minimal risk since this only affects debug logging". "As with
# any change" is not a reason.
_REASON = re.compile(r"\b(?:since|because|as|given|so|mechanical)\b", re.IGNORECASE)
_NO_REASON = re.compile(r"\bas (?:with )?(?:any|all|every)\b", re.IGNORECASE)
_CODE_LIKE = re.compile(r"[A-Za-z_][\w./:-]*\w")
# Words any risk section may use about any PR: they make nothing specific. Compared by their
# first six letters, as are the PR's own words.
_GENERIC = frozenset(
    w[:6]
    for w in """change behavior behaviour issues risks known minimal developers ensure should
    could might would potential unexpected compatibility performance existing regression edge
    cases configuration functionality thorough review monitor testing tested update introduce
    affect other there these those which their about additional significant however careful
    properly correct errors break future parts codebase system users environment different
    scenarios certain specific verify validate since because minor overall impact unless
    problems failures failure implementation approach logic handling support value values
    missing default usage where while without within""".split()
)


def _empty_risk(text: str, evidence: _Evidence, change_type: ChangeType) -> list[Finding]:
    """The risk section says nothing but boilerplate: a boilerplate sentence without its
    reason, and nothing else in the section names an identifier, a file or a term of the PR.
    A TRIVIAL change may call its risk low for any stated reason; a SUBSTANTIAL one not "as
    with any change"."""
    said = split_sentences(text)
    boiler = boilerplate_sentences(text, change_type)
    if not boiler or names_pr_code(text, evidence.pr, evidence.corpus):
        return []
    if any(_terms(s) & evidence.terms for s in said if s not in boiler):
        return []
    why = "the risk section is boilerplate and names no identifier or file of this PR"
    return [Finding(FindingKind.EMPTY_RISK, "potential_risks", s, why) for s in boiler]


def boilerplate_sentences(text: str, change_type: ChangeType) -> list[str]:
    """The risk text's boilerplate sentences that give no reason ("test thoroughly")."""
    return [
        s for s in split_sentences(text) if _BOILERPLATE.search(s) and not _reasoned(s, change_type)
    ]


def _reasoned(sentence: str, change_type: ChangeType) -> bool:
    if not _REASON.search(sentence):
        return False
    if change_type == ChangeType.TRIVIAL:
        return True
    # For a change of behaviour, "mechanical" is a claim, not a reason: on the dev days the
    # built-in model called every PR "a mechanical change that is safe".
    reasons = {m.group(0).lower() for m in _REASON.finditer(sentence)}
    return reasons != {"mechanical"} and not _NO_REASON.search(sentence)


def _terms(text: str) -> set[str]:
    """The specific words of a text, by their first six letters: "prefixes" is "prefix"."""
    words = re.findall(r"[a-z]{5,}", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
    return {w[:6] for w in words} - _GENERIC


def names_pr_code(
    text: str, pr: PullRequest, corpus: str | None = None, *, word_stems: bool = True
) -> bool:
    """The text names an identifier or file of the PR: a grounded backticked name, or a bare
    word shaped like code (`snake_case`, `CamelCase`, `v1.2`, `a/b.py`) or a changed file's
    name that the PR contains. Without `word_stems`, a file's stem that is a plain word
    ("detokenizer", of `detokenizer.py`) does not count: in prose it is the word."""
    corpus = pr_corpus(pr) if corpus is None else corpus
    quoted = [m.group(1).strip() for m in BACKTICKED.finditer(text)]
    if any(q and not check_names([q], pr, corpus) for q in quoted):
        return True
    files = {PurePosixPath(f.filename).name for f in pr.files}
    stems = {name.split(".")[0] for name in files if len(name.split(".")[0]) >= 4}
    files |= {stem for stem in stems if word_stems or shaped_like_code(stem)}
    for word in _CODE_LIKE.findall(BACKTICKED.sub(" ", text)):
        if word in files or (shaped_like_code(word) and re.search(
            rf"(?<!\w){re.escape(word)}(?!\w)", corpus
        )):  # fmt: skip
            return True
    return False


def shaped_like_code(word: str) -> bool:
    return bool(
        "_" in word
        or re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z]\d|\d[A-Za-z]", word)
        or re.search(r"\w[./]\w", word)
    )


# --- Acting on findings ----------------------------------------------------------------------


def remove_sentences(
    sections: SummarySections, findings: list[Finding], may_empty: frozenset[str] = frozenset()
) -> SummarySections:
    """The sections without the sentences found wrong. One of `may_empty` may be left empty:
    the caller fills it from the change facts (finishing.fillable), which beats a sentence
    about a name the PR lacks. Another that would be left empty keeps the sentences whose only
    fault is such a name (shown with its "Unverified" note, in the model's own words); with
    none, it is kept whole (never an empty section)."""
    changes = {}
    for field in FIELDS:
        found = [f for f in findings if f.section == field]
        if not found:
            continue
        text = getattr(sections, field)
        kept = _without(text, found)
        if not re.search(r"\w", kept) and field not in may_empty:
            unknown_only = {
                f.sentence for f in found
                if all(g.kind == FindingKind.UNGROUNDED_CODE for g in found if g.sentence == f.sentence)
            }  # fmt: skip
            kept = _without(text, [f for f in found if f.sentence not in unknown_only])
        if not re.search(r"\w", kept) and field not in may_empty:
            kept = _trimmed_only(text, found)  # kept whole, but not with a clause known wrong
        if re.search(r"\w", kept):
            changes[field] = kept
        elif field in may_empty:
            changes[field] = ""
    return replace(sections, **changes) if changes else sections


def _trimmed_only(text: str, found: list[Finding]) -> str:
    """The text with only the wrong clauses cut (an acronym's invented expansion, a claimed
    gain), each sentence kept: a section that cannot go keeps no clause known to be wrong
    (vLLM #35392's "UMD (Universal Module Definition)")."""
    for f in found:
        if f.trimmed and f.sentence in text:
            text = text.replace(f.sentence, f.trimmed, 1)
    return tidy(text)


def _without(text: str, found: list[Finding]) -> str:
    wrong: dict[str, str] = {}  # each wrong sentence, and what stands in its place
    for f in found:
        # A sentence wrong twice over is dropped, not trimmed.
        same = wrong.get(f.sentence, f.trimmed) == f.trimmed
        wrong[f.sentence] = f.trimmed if same else ""
    for sentence, trimmed in list(wrong.items()):
        if not trimmed and (after := _next_sentence(text, sentence)) and _REFERS_BACK.match(after):
            wrong.setdefault(after, "")  # "The new function checks …": what it names is gone
    for sentence, trimmed in wrong.items():
        text = text.replace(sentence, trimmed, 1)
    return tidy(text)


# A sentence that names what the one before it introduced only by pointing back at it.
_REFERS_BACK = re.compile(
    r"(?:The|This|That|These|Those)\s+(?:new\s+)?(?:function|method|class|helper|parameter|"
    r"attribute|functions|methods|classes|helpers|parameters|attributes)\b"
)


def _next_sentence(text: str, sentence: str) -> str:
    """The sentence right after `sentence` in `text`, or ""."""
    parts = split_sentences(text)
    index = next((i for i, p in enumerate(parts) if p.strip() == sentence.strip()), -1)
    return parts[index + 1] if 0 <= index < len(parts) - 1 else ""


def tidy(text: str) -> str:
    """White space and bullets left over from removed sentences, and a first sentence that
    answered the removed one ("However, it may break …") made to stand on its own."""
    lines = [re.sub(r"[ \t]{2,}", " ", line).rstrip() for line in text.splitlines()]
    lines = [line for line in lines if not re.fullmatch(r"\s*(?:[-*•]|\d+[.)])?\s*", line)]
    text = _ALSO.sub(r"\1", "\n".join(lines).strip(), count=1)
    if standalone := _CONNECTIVE.sub("", text, count=1):
        return standalone[:1].upper() + standalone[1:] if standalone != text else text
    return text


# "It also includes qwen …" left first: also than what? (vLLM #34031)
_ALSO = re.compile(r"^((?:it|this(?: change| PR)?|the (?:PR|change)) )also ", re.IGNORECASE)
_CONNECTIVE = re.compile(
    r"^(?:however|therefore|thus|additionally|also|moreover|furthermore|in addition|"
    r"as a result|still|but|and)\b,?\s+(?=[\w`])",
    re.IGNORECASE,
)


_FIXES = {
    FindingKind.INVERTED: "describe what the diff does, not its reverse",
    FindingKind.UNCHANGED: "describe the lines the diff changes, not the unchanged ones",
    FindingKind.UNGROUNDED_CODE: "quote code only as the diff writes it",
    FindingKind.UNSUPPORTED_PERFORMANCE: "say nothing about performance unless the PR shows it",
    FindingKind.NO_EFFECT_CLAIMED: "say what the change does to behaviour",
    FindingKind.CONTRADICTS_FACTS: "follow the change facts",
    FindingKind.FILLER: "say something about this PR's code, or nothing",
    FindingKind.INVENTED: "claim only what the PR shows",
    FindingKind.UNANCHORED: "name the function, class or file each sentence is about",
    FindingKind.CUT_QUOTE: "close every code span you open",
}


def findings_hint(findings: list[Finding]) -> str:
    """One short instruction for a regeneration: each fault once, with what to do instead."""
    parts: list[str] = []
    for finding in findings:
        if finding.kind == FindingKind.EMPTY_RISK:
            part = (
                "Your risk section is boilerplate: name the identifier or file at risk and "
                "why, or say the change is mechanical and why."
            )
        else:
            part = f"Your summary {finding.explanation}: {_FIXES[finding.kind]}."
        if part not in parts:
            parts.append(part)
    return " ".join(parts[:5])


# --- The type: code features together with the model -----------------------------------------

TINY_CHANGE = 10  # changed lines, at most, of a PR that is TRIVIAL unless shown otherwise



# A line that changes no logic: a comment, an import, a log message, a string, a literal
# dictionary entry, a version pin. A tiny PR made only of such lines is TRIVIAL.
_PASSIVE = re.compile(
    r"^\s*(?:$|#|//|/\*|\*|import\s|from\s+\S+\s+import\s|#include\s"
    r"|(?:logger|logging|log|LOG)\.\w+\(|print\(|printf\(|std::cout\b"
    r"|[rbfuRBFU]*([\"']).*\1[\s,)]*$"
    r"|[\"'][\w.-]+[\"']\s*:\s*(?:[\"'][^\"']*[\"']|[\d.]+|True|False|None)\s*,?\s*$"
    r"|[\w.\-\[\]]+\s*(?:==|>=|<=|~=|@)\s*\S+\s*$"
    # A requirements file's pip options: where the pins come from.
    r"|-[rc]\s+\S+\s*$|--(?:extra-index-url|index-url|find-links|trusted-host)\b)"
)
# `"sum",` on a line of its own is a value a call is given (a reduction op, a device), not a
# message: a word a program compares, where a message has spaces (a `"--flag"` is a label).
_VALUE_STRING = re.compile(r"^\s*([\"'])\w[\w.\-]{0,39}\1\s*,?\s*\)?\s*$")


def _passive(line: str) -> bool:
    return bool(_PASSIVE.search(line)) and not _VALUE_STRING.match(line)


def decide_type(
    pr: PullRequest,
    model_type: ChangeType,
    model_reason: str | None = None,
    facts: ChangeFacts | None = None,
) -> ChangeType:
    """The type shown: a revert is SUBSTANTIAL; a PR that only touches tests, docs or CI, a
    tiny one that defines nothing, or a clean-up that only deletes code (`facts` show it) is
    TRIVIAL unless the model's reason names code that the diff changes outside those files;
    a default flipped, or new definitions in the code that runs, are SUBSTANTIAL whatever the
    model says, and code rewritten to compute the same (`keeps_results`) TRIVIAL; otherwise
    the model's type."""
    if is_revert(pr) or (facts is not None and flipped_defaults(facts)):
        return ChangeType.SUBSTANTIAL
    if model_type == ChangeType.TRIVIAL:
        # New code is never tiny: on the dev days the small model called a PR of 7 new
        # definitions TRIVIAL (vLLM #30357), and no PR the real report calls TRIVIAL adds one.
        new_code = facts is not None and adds_running_definitions(pr, facts)
        return ChangeType.SUBSTANTIAL if new_code else model_type
    if facts is not None and keeps_results(pr, facts):
        return ChangeType.TRIVIAL  # computed, so no reason the model gives outweighs it
    if not (looks_trivial(pr) or (facts is not None and only_moves_or_deletes(pr, facts))):
        return model_type
    return model_type if _reason_checks_out(model_reason or "", pr) else ChangeType.TRIVIAL


def keeps_results(pr: PullRequest, facts: ChangeFacts) -> bool:
    """The code that runs computes what it did: expressions rewritten to the same values, a
    result now cached (vLLM #35099), or strings written as the enum members of their names
    (#34254)."""
    return only_same_values(pr, facts) or only_caches_added(pr) or enum_names(pr) is not None


def adds_running_definitions(pr: PullRequest, facts: ChangeFacts) -> bool:
    """The PR adds a function, class, method or kernel to the code that runs."""
    running = {f.filename for f in pr.files if runs_code(f)}
    return any(d.change == "added" and d.file in running for d in facts.definitions)


def flipped_defaults(facts: ChangeFacts) -> list[Setting]:
    """Variables of the code that runs that now have another default: every user who never
    set one gets the change on upgrade, however small the diff (vLLM #34924, one line)."""
    return [
        s for s in facts.settings
        if s.kind == "environment variable default" and s.change == "changed" and s.old and s.new
        and not is_support_file(s.file)
    ]  # fmt: skip


def looks_trivial(pr: PullRequest) -> bool:
    """Only tests, docs or CI; or at most `TINY_CHANGE` lines of the other files, none of
    which defines anything or changes logic (comments, imports, log messages, strings, pins)."""
    if not pr.files:
        return False  # nothing to judge by: the model's word stands
    source = tuple(f for f in pr.files if not is_support_file(f.filename))
    if not source:
        # A fix to tests or CI that were failing is work a reader acts on; the others (a
        # skip, a relaxed check, a doc) are not. On the dev days the title told them apart.
        return not (_FIX.search(pr.title) or _big_new_tests(pr))
    if all(only_prose(f) for f in source):
        return True  # comments and docstrings, however many
    if sum(f.additions + f.deletions for f in source) > TINY_CHANGE:
        return False
    sides = diff_lines(replace(pr, files=source))
    return all(_passive(line) for line in (*sides.added, *sides.removed))


_FIX = re.compile(r"\b(?:bug ?fix|fix(?:es|ed|ing)?|broken|failing|flaky)\b", re.I)
BIG_NEW_TESTS = 100  # added test or example lines that make such a PR a feature of its own
_EXAMPLE = re.compile(r"^examples?/")


def _big_new_tests(pr: PullRequest) -> bool:
    """Code that runs, in tests or examples, written at length: a suite, a worked example."""
    runnable = (f for f in pr.files if is_test_file(f.filename) or _EXAMPLE.search(f.filename))
    return sum(f.additions for f in runnable) >= BIG_NEW_TESTS


def only_moves_or_deletes(pr: PullRequest, facts: ChangeFacts) -> bool:
    return only_deletes(pr, facts) or only_moves(pr, facts)


def only_moves(pr: PullRequest, facts: ChangeFacts) -> bool:
    """Code moved unchanged (a flag from one parser to another) and nothing else: every
    non-blank changed line of the source files is one of the moved lines' two sides. Lines
    reordered within their code (a check now run first) change what runs, and do not count."""
    moved = sum(
        m.lines
        for m in facts.moved_lines
        if not is_support_file(m.new_file) and not m.reordered
    )
    if not moved:
        return False
    source = replace(pr, files=tuple(f for f in pr.files if not is_support_file(f.filename)))
    sides = diff_lines(source)
    changed = sum(1 for line in (*sides.added, *sides.removed) if line.strip())
    return changed <= 2 * moved


def only_deletes(pr: PullRequest, facts: ChangeFacts) -> bool:
    """A clean-up: code lines removed (at least three) with at most one written in their
    place, and nothing added, re-signed or made configurable. On the dev days each such PR
    removed dead code or an unused field; one that removes a setting (a flag, a config
    field) changes what users can do, and is not counted here."""
    source = [f for f in pr.files if not is_support_file(f.filename)]
    if not source:
        return False
    added = sum(f.additions for f in source)
    removed = sum(f.deletions for f in source)
    # A field its own PR calls unused is dead code too (vLLM #35060's `disable_by_batch_size`).
    unused = called_unused(pr)
    settings = [s for s in facts.settings if not (unused and s.kind == "config field")]
    return (
        added <= 1
        and removed >= 3
        and not settings
        and not facts.signatures
        and not facts.of("added")
    )


_UNUSED = re.compile(r"\b(?:unused|dead|obsolete|no longer used|never used|redundant)\b", re.I)


def called_unused(pr: PullRequest) -> bool:
    """The PR's title calls what it removes unused, dead or obsolete."""
    return bool(_UNUSED.search(pr.title))


def _reason_checks_out(reason: str, pr: PullRequest) -> bool:
    """The reason names an identifier or a file that a line of logic the diff adds outside
    tests, docs and CI holds: a comment, a docstring, an import or a deleted line is no
    reason."""
    source = replace(pr, files=tuple(f for f in pr.files if runs_code(f)))
    if not source.files:
        return False
    added = [line for line in diff_lines(source).added if not _passive(line)]
    lines = tuple(normalize_code(line) for line in added)
    if not lines:
        return False
    names = [m.group(1).strip() for m in BACKTICKED.finditer(reason)]
    names += [w for w in _CODE_LIKE.findall(BACKTICKED.sub(" ", reason)) if shaped_like_code(w)]
    return any(len(name) > 2 and lines_with(name, lines) for name in names)
