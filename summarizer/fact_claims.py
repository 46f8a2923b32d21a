"""Claims about a name that the change facts contradict, sentence by sentence.

The add/remove check (checks.INVERTED) reads only the diff's sides: a name on both sides
passes it. The facts know more, and on the dev days a small model got these wrong where a
reader noticed at once:
- a function that only moved within its file, "adding a new function `find_class_in_ast`";
  a context line's method, "The `update` method is also a new addition";
- a flag that moved from one parser to another, "removes the `--trust-remote-code` argument";
- a keyword passed at a call site, "adds a new parameter `num_tokens_padded`";
- a base class the diff names only in its unchanged lines, "modifying the
  `Qwen3NextGatedDeltaNet` class".

`contradiction` returns what is wrong with one name of a sentence, as one line the model (or
a reader of the log) can act on; checks.py makes it a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.claims import BACKTICKED, lines_with
from summarizer.facts import ChangeFacts, common_dir, file_kind, param_name, short_name
from summarizer.hunks import assigns
from summarizer.prose import COMMENT_LINE, only_prose
from summarizer.relocation import only_relocates
from summarizer.same_values import only_same_values

# "a new `x`", "the new `x` method", "newly added `x`"
_NEW_BEFORE = re.compile(r"\bnew(?:ly added)?\s+(?:[A-Za-z]+\s+){0,1}$", re.IGNORECASE)
# "`x` is a new method", "`x` method is also a new addition"
_NEW_AFTER = re.compile(
    r"^\s*(?:[A-Za-z]+\s+)?(?:is|are)\s+(?:also\s+)?(?:an?\s+)?(?:new|newly)\b", re.IGNORECASE
)
# "modifies the `x` class", "changing `x`", "updates the `x` method"
_CHANGED_BEFORE = re.compile(
    r"\b(?:modif(?:y|ies|ied|ying)|chang(?:e|es|ing)|updat(?:e|es|ing)|alter(?:s|ing)?)"
    r"\s+(?:the\s+)?(?:existing\s+)?(?:(?:test|helper)\s+)?(?:(?:function|method|class)\s+)?$",
    re.IGNORECASE,
)
_PARAMETER = r"(?:parameters?|arguments?|params?|kwargs?|keyword arguments?)"
_PARAMETER_BEFORE = re.compile(rf"\b{_PARAMETER}\s+$", re.IGNORECASE)
_PARAMETER_AFTER = re.compile(rf"^\s*{_PARAMETER}\b", re.IGNORECASE)
# "adds a new parameter to the `f` function", "`f` now takes a new argument"
_PARAMETER_TO = re.compile(rf"\bnew {_PARAMETER} (?:to|for|in|of) (?:the )?$", re.IGNORECASE)
_TAKES_PARAMETER = re.compile(
    rf"^\s*(?:function |method )?(?:now )?(?:takes|accepts|gains|has|gets) (?:an? )?"
    rf"(?:new|additional|extra) {_PARAMETER}\b",
    re.IGNORECASE,
)
_MOVE_WORD = re.compile(r"\bmov(?:e|es|ed|ing)\b|\brelocat", re.IGNORECASE)
_DEF_HEADER = re.compile(r"\b(?:def|class|struct|fn|func|function)\s+([A-Za-z_]\w*)")
_CALL_HEADER = re.compile(r"([A-Za-z_][\w:]*)\s*\(")


@dataclass(frozen=True)
class FactEvidence:
    """What a sentence's names are compared with, prepared once per answer: the facts, the
    diff's normalized lines by side, and the names the change is in (`touched`)."""

    facts: ChangeFacts
    added: tuple[str, ...]
    removed: tuple[str, ...]
    context: tuple[str, ...]
    touched: frozenset[str]
    test_files: tuple[str, ...] = ()  # the PR's changed test files
    tests_added: bool = False  # a test file, or a test function in one, is new
    docs_only: bool = False  # every file is docs or examples, or changes only comments
    relocates: bool = False  # code moved and imports rewritten, no logic new or gone
    same_values: bool = False  # expressions rewritten to give the values they gave


def fact_evidence(
    pr: PullRequest,
    facts: ChangeFacts,
    added: tuple[str, ...],
    removed: tuple[str, ...],
    context: tuple[str, ...],
) -> FactEvidence:
    tests = tuple(f for f in pr.files if file_kind(f) == "tests")
    new_tests = any(f.status == "added" for f in tests) or any(
        d.change == "added" and d.file in {f.filename for f in tests} for d in facts.definitions
    )
    return FactEvidence(
        facts, added, removed, context, _touched(pr, facts),
        tuple(f.filename for f in tests), new_tests or any(_TEST_DEF.search(a) for a in added),
        bool(pr.files) and all(file_kind(f) == "docs" or only_prose(f) for f in pr.files),
        only_relocates(pr, facts), only_same_values(pr, facts),
    )  # fmt: skip


# "sets the environment variable `X`", "`X` environment variable is set", "exports `X`"
_ENV_SET_BEFORE = re.compile(
    r"\b(?:sets?|setting|exports?|exporting|defines?)\s+(?:the\s+|an?\s+)?"
    r"(?:(?:environment|env)\s+(?:variable|var)\s+)?$",
    re.IGNORECASE,
)
_ENV_SET_AFTER = re.compile(
    r"^\s*(?:environment|env)\s+(?:variable|var)\s+(?:is|gets|was)\s+(?:now\s+)?set\b",
    re.IGNORECASE,
)


def called_env_set(span: Span, sentence: str, ev: FactEvidence) -> str:
    """ "sets the environment variable `X`" where the diff only reads `X`: vLLM #35098 checks
    `"HF_XET_HIGH_PERFORMANCE" not in os.environ` and sets a library constant of that name;
    the environment, and every child process, is left as it was."""
    reads = {s.name for s in ev.facts.settings if s.kind == "environment variable read"}
    sets = {s.name for s in ev.facts.settings if s.kind == "environment variable set"}
    if span.code not in reads or span.code in sets:
        return ""
    before_env = _ENV_SET_BEFORE.search(span.before) and re.search(
        r"\b(?:environment|env)\b", span.before + span.after[:30], re.IGNORECASE
    )
    if before_env or _ENV_SET_AFTER.match(span.after):
        return f"says the environment variable `{span.code}` is set, but the diff only reads it"
    return ""


# "removes the lines that bind CPU threads", "removes code responsible for ..."
_ACTING_CODE = re.compile(
    r"\bremov\w*\s+(?:the\s+|some\s+)?(?:lines?|code|logic|calls?|statements?)\s+"
    r"(?:that|which|responsible|used\s+to|to)\b",
    re.IGNORECASE,
)
_STRING_ENTRY = re.compile(r"\s*(?:\"[^\"]*\"|'[^']*')\s*,?\s*")


def called_strings_code(sentence: str, ev: FactEvidence) -> str:
    """ "removes the lines that bind CPU threads and reserve CPU cores" where all the PR
    removes is strings in a list, and it adds nothing (vLLM #35119 drops variable names
    from the list the compile cache ignores): data read as code that acts."""
    if ev.added or not ev.removed or not _ACTING_CODE.search(sentence):
        return ""
    if not all(_STRING_ENTRY.fullmatch(line) for line in ev.removed):
        return ""
    return "says the PR removes code that acts, but all it removes is strings in a list"


# "introduces a new method", "adds new helper functions": a definition called new, unnamed
# (`called_new` reads a named one).
_NEW_DEFINITION = re.compile(
    r"\b(?:add(?:s|ed|ing)?|introduc\w*|creat\w*|defin\w*)\s+(?:an?\s+|two\s+|several\s+)?"
    r"new\s+(?:helper\s+|utility\s+|private\s+)?(?:methods?|functions?|classes?)\b(?!\s*`)",
    re.IGNORECASE,
)


def called_new_definition(sentence: str, ev: FactEvidence) -> str:
    """ "introducing a new method to retrieve per-layer configuration" where the diff defines
    nothing new: vLLM #35396 only looks a method up with `getattr`. Only when no definition
    is added in the facts and no file is new: those the facts may not have parsed."""
    if not _NEW_DEFINITION.search(sentence) or ev.facts.of("added"):
        return ""
    if ev.tests_added or any(f.change == "added" for f in ev.facts.files):
        return ""
    if any(re.match(r"(?:async\s+)?(?:def|class)\s", line) for line in ev.added):
        return ""
    return "calls a function, method or class new, but the diff adds no definition"


# "from `2.10.0` to `2.10.0`", "from 64 to 64": a value said to change into itself.
_SAME_VALUE = re.compile(r"\bfrom\s+(`?)([^\s`]+?)\1\s+to\s+`?\2(?![\w.-]*\w)", re.IGNORECASE)


def called_same_value(sentence: str) -> str:
    """ "changes the torch version from 2.10.0 to 2.10.0": the model read an unchanged line
    as the change (vLLM #34387 pins `torch==2.10.0` on a context line and changes the index
    URL and `amdsmi` around it)."""
    if m := _SAME_VALUE.search(sentence):
        return f"says something changes from {m.group(2)} to {m.group(2)}: that value does not change"
    return ""


# "adds a test", "adds new unit tests", "introduces two regression tests"; not "test cases":
# a parametrized test gains those from a line added to its list.
_TEST_ADDED = re.compile(
    r"\b(?:adds?|added|adding|introduc\w*|writes?|creat\w*)\s+"
    r"(?:(?:a|an|one|two|three|some|several|new|unit|regression|more|additional)\s+)*"
    r"tests?\b(?!\s+cases?)",
    re.IGNORECASE,
)
_TEST_DEF = re.compile(r"(?:\bdef test_\w+|\bTEST(?:_F|_P)?\()")


# "introduces a new configuration option", "a new CLI flag": a setting called new, unnamed.
_NEW_SETTING = re.compile(
    r"\bnew (?:configuration |config |cli |command[- ]line )?(?:options?|flags?|arguments?|"
    r"settings?)\b",
    re.IGNORECASE,
)


def called_new_setting(sentence: str, ev: FactEvidence) -> str:
    """ "introduces a new configuration option" where the PR's settings only move (vLLM #34208
    moved `--trust-remote-code` from one parser to another)."""
    settings = [s for s in ev.facts.settings if s.kind != "CI step"]
    if not _NEW_SETTING.search(sentence) or not settings or _MOVE_WORD.search(sentence):
        return ""
    if any(f"`{s.name}`" in sentence for s in settings):
        return ""  # named: `called_moved` reads the claim about it
    if all(s.change == "moved" for s in settings):
        moved = ", ".join(f"`{s.name}`" for s in settings[:3])
        return f"calls a setting new, but the diff only moves {moved}"
    return ""


# "`x` has been set to `True`", "sets `x` to `True`", "changes the `x` flag to `True`"
_SET_TO = (
    re.compile(
        r"`(?P<name>[A-Za-z_][\w.]*)`[^.]{0,60}?\b(?:is|are|has been|have been|was|were)\s+"
        r"(?:now\s+)?(?:set|changed|updated|switched)\s+to\s+`(?P<value>[^`]+)`"
    ),
    re.compile(
        r"\b(?:sets?|changes?|updates?|switch(?:es)?)\s+(?:the\s+)?(?:[A-Za-z]+\s+){0,2}"
        r"`(?P<name>[A-Za-z_][\w.]*)`(?:\s+[A-Za-z]+){0,2}\s+to\s+`(?P<value>[^`]+)`"
    ),
)


def called_set_to(sentence: str, ev: FactEvidence) -> str:
    """ "`x` has been set to `True`" where no added line has `x`: vLLM #35054 removes the
    line `supports_update_block_table: bool = False`, and the title's "Change ... to True"
    is what the base class gives, not a line of the diff."""
    for pattern in _SET_TO:
        for m in pattern.finditer(sentence):
            name = short_name(m["name"])
            if lines_with(name, ev.added) or not lines_with(name, ev.removed):
                continue
            return (
                f"says `{m['name']}` is set to `{m['value']}`, but the diff only removes the "
                f"line that set `{name}` and sets it nowhere"
            )
    return ""


# "moves the `a/b` directory to `c`"
_MOVES_DIR = re.compile(
    r"\bmov(?:e|es|ed|ing)\s+(?:the\s+)?(?:entire\s+|whole\s+)?`(?P<dir>[\w./-]+)`\s*"
    r"(?:directory|folder|package|tree)?\s+(?:to|into|under)\b"
)


def called_moved_dir(sentence: str, ev: FactEvidence) -> str:
    """ "moves the `vllm/model_executor/layers` directory" where the PR moves files of only
    one folder deep inside it (vLLM #34055 moved `layers/quantization/kernels`)."""
    moved = [f.previous for f in ev.facts.files if f.change in ("moved", "renamed") and f.previous]
    if not moved or not (m := _MOVES_DIR.search(sentence)):
        return ""
    folder, common = m["dir"].strip("/"), common_dir(moved)
    if "/" not in folder or not common.startswith(f"{folder}/"):
        return ""
    return (
        f"says the `{folder}` directory moves, but the PR moves only files under `{common}/` "
        f"({len(moved)} of them)"
    )


# "adding new keys and modifying existing ones", "updates the existing entries"
_MODIFIES_EXISTING = re.compile(
    r"\b(?:modif(?:y|ies|ied|ying)|chang(?:e|es|ed|ing)|updat(?:e|es|ed|ing)|alter(?:s|ed|ing)?)"
    r"\s+(?:the\s+)?existing\b",
    re.IGNORECASE,
)


def called_modified_existing(sentence: str, ev: FactEvidence) -> str:
    """ "modifying existing ones" where the PR removes no line of code: vLLM #35413 only added
    two keys to a mapping, and the small model said twice that it modified others."""
    if not (m := _MODIFIES_EXISTING.search(sentence)):
        return ""
    if any(x.strip() and not COMMENT_LINE.match(x) for x in ev.removed):
        return ""
    return f'says "{m.group(0)}", but the PR removes or rewrites no line: it only adds'


# "the `C` class to include a new method `a` and a new method `b`", "adds a new method `m`
# to the `C` class": the class is what gets them (not "to call the new method `m` of `D`").
_CLASS_THEN_METHODS = re.compile(
    r"`(?P<cls>[A-Z]\w*)` class (?:to include|by adding|with)\b(?P<rest>[^.;]*)"
)
_METHODS_THEN_CLASS = re.compile(
    r"\badds? (?:a )?new methods? (?P<rest>`[\w.]+`(?:(?:,| and) (?:a new method )?`[\w.]+`)*)"
    r" (?:to|in) the `(?P<cls>[A-Z]\w*)` class\b"
)


def called_method_of(sentence: str, ev: FactEvidence) -> str:
    """A new method put in a class the diff does not add it to: vLLM #35047 "modifies the
    `ModelOptQuantConfigBase` class to include a new method `_from_config`", which the diff
    adds to its subclass `ModelOptMixedPrecisionConfig`."""
    claims = [(m["cls"], re.findall(r"\bnew methods? `([\w.]+)`", m["rest"].split(" of ")[0]))
              for m in _CLASS_THEN_METHODS.finditer(sentence)]  # fmt: skip
    claims += [(m["cls"], re.findall(r"`([\w.]+)`", m["rest"]))
               for m in _METHODS_THEN_CLASS.finditer(sentence)]  # fmt: skip
    added = [d.name for d in ev.facts.of("added") if "." in d.name]
    for cls, methods in claims:
        for method in methods:
            owners = {n.rsplit(".", 1)[0] for n in added if short_name(n) == short_name(method)}
            if owners and not any(short_name(o) == cls for o in owners):
                where = sorted(owners)[0]
                return f"puts `{short_name(method)}` in `{cls}`, where the diff adds it to `{where}`"
    return ""


def called_test_added(sentence: str, ev: FactEvidence) -> str:
    """ "The PR also adds a test" where no test file or test function is new."""
    if not _TEST_ADDED.search(sentence) or ev.tests_added:
        return ""
    if ev.test_files:
        return "says a test is added, but the diff only changes existing tests"
    return "says a test is added, but the PR changes no test"


# "changes the default behavior", "affects the behavior of the model by disabling …",
# "affects the performance"
_EFFECT = re.compile(
    r"\b(?:chang|alter|affect|modif)\w* (?:\w+ ){0,2}(?:behaviou?r|performance)\b"
    r"|\b(?:disabl|enabl)(?:es|ed|ing)\b|\bby default\b",
    re.IGNORECASE,
)


def called_effect(sentence: str, ev: FactEvidence) -> str:
    """A change of behaviour claimed for a PR that changes only docs, examples, comments or
    docstrings, or that only moves code: vLLM #34148 reflowed two docstrings and "changes the
    default behavior to disable all multimodal inputs"; #34055 moved 21 modules, and "This
    change affects the performance and the behavior of the model". Or one that rewrites an
    expression into one that gives the same values: #32621 "affects the behavior of the LoRA
    expand kernel by changing the `block_n` parameter"."""
    if not (ev.docs_only or ev.relocates or ev.same_values):
        return ""
    if not (m := _EFFECT.search(BACKTICKED.sub(" ", sentence))):
        return ""
    if ev.docs_only:
        only = "changes only docs, examples, comments or docstrings"
    elif ev.same_values:
        only = "only rewrites expressions into ones that give the same values"
    else:
        only = "only moves code and rewrites the imports that reach it: no line of logic changes"
    return f'says "{m.group(0)}", but the PR {only}'


@dataclass(frozen=True)
class Span:
    """One backticked name of a sentence, with the words around it."""

    code: str
    before: str
    after: str


def spans(sentence: str) -> list[Span]:
    return [
        Span(m.group(1).strip(), sentence[max(0, m.start() - 40) : m.start()], sentence[m.end() :])
        for m in BACKTICKED.finditer(sentence)
    ]


def contradiction(span: Span, side: str, sentence: str, ev: FactEvidence) -> str:
    """What the facts say against the sentence's claim about `span` ("add" or "old" as the
    add/remove check read it, "" for neither); "" when nothing."""
    return (
        called_new(span, ev)
        or (side and called_moved(span.code, side, sentence, ev.facts))
        or called_new_parameter(span, side, ev)
        or called_removed_parameter(span, ev)
        or called_env_set(span, sentence, ev)
        or called_new_signature(span, ev.facts)
        or called_changed(span, ev)
        or called_reworded(span, sentence, ev)
        or called_definition_of_string(span, ev)
        or called_variable_a_definition(span, ev)
    )


# A setting is read by users; a variable the code sets itself is none (vLLM #34153's
# `use_legacy_triton_kernels`, set when an import fails, "a new configuration option").
_KINDS = r"method|function|(?:configuration |config |CLI )(?:option|setting|flag)|option|setting"
_KIND_AFTER = re.compile(rf"^\s+(?P<kind>{_KINDS})\b", re.IGNORECASE)
_KIND_BEFORE = re.compile(rf"\b(?P<kind>{_KINDS})\s+$", re.IGNORECASE)


def called_variable_a_definition(span: Span, ev: FactEvidence) -> str:
    """ "the `get_layer_config` method" where the diff only assigns `get_layer_config` as a
    variable (vLLM #35396 looks up an optional method of the config into a local) and
    defines nothing of that name; "a new configuration option `x`" where `x` is no setting
    the facts know and the diff only assigns it."""
    m = _KIND_AFTER.match(span.after) or _KIND_BEFORE.search(span.before)
    name = span.code.strip().removesuffix("()")
    if not m or not re.fullmatch(r"[A-Za-z_]\w*", name) or _defined(name, ev.facts):
        return ""
    if any(short_name(s.name) == name for s in ev.facts.settings):
        return ""
    lines = (*ev.added, *ev.removed, *ev.context)
    if any(re.search(rf"\bdef\s+{re.escape(name)}\b", x) for x in lines):
        return ""
    local, attribute = assigns(name), assigns(f"self.{name}")
    if not any(local.match(x) or attribute.match(x) for x in ev.added):
        return ""
    return f"calls `{name}` a {m['kind']}, but the diff only assigns it as a variable"


def called_new(span: Span, ev: FactEvidence) -> str:
    """ "a new `x`" where `x` existed before: a definition the facts call changed, or a name
    the diff has only on unchanged lines."""
    if not (_NEW_BEFORE.search(span.before) or _NEW_AFTER.match(span.after)):
        return ""
    name = span.code
    if any(short_name(d.name) == short_name(name) for d in ev.facts.of("added")):
        return ""
    for m in ev.facts.moves:
        if m.renamed and short_name(name) == short_name(m.new_name):
            return f"calls `{name}` new, but the diff renames `{m.old_name}` to it"
    if any(_matches(d.name, name) for d in ev.facts.of("changed")):
        return f"calls `{name}` new, but it existed before this PR: the diff changes it"
    if not lines_with(name, ev.added) and lines_with(name, ev.context):
        return f"calls `{name}` new, but the diff shows it only on unchanged lines"
    if _only_used(short_name(name), ev.added) and not _defined(short_name(name), ev.facts):
        return f"calls `{name}` new, but the diff defines no `{name}`: it only calls it or names it in a string"
    return ""


def _only_used(name: str, added: tuple[str, ...]) -> bool:
    """Every added line that has `name` calls it on an object (`config.f(`, `p->f(`) or
    names it in a string (`getattr(config, "f", None)`): code that uses a method, not one
    that defines it (vLLM #35396 looks up a method the config may have)."""
    return _every_use(name, added, r"(?:\.|->){name}\s*\(|([\"']){name}\1")


def _every_use(name: str, lines: tuple[str, ...], shape: str) -> bool:
    """`name` is on some of `lines`, and each time in `shape` (a pattern, `{name}` in it)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    word = re.compile(rf"(?<![\w]){re.escape(name)}(?!\w)")
    used = re.compile(shape.replace("{name}", re.escape(name)))
    lines = tuple(line for line in lines if word.search(line))
    return bool(lines) and all(len(word.findall(x)) == len(used.findall(x)) for x in lines)


# "`A` and `B` are functions that ...", "the method `A`"
_DEFINITION_AFTER = re.compile(
    r"^(?:\s*(?:,|and)\s*`[^`]+`)*,?\s+(?:is|are)\s+(?:a\s+|the\s+|two\s+)?(?:new\s+)?"
    r"(?:functions?|methods?|class(?:es)?)\b",
    re.IGNORECASE,
)
_DEFINITION_BEFORE = re.compile(r"\b(?:functions?|methods?|class(?:es)?)\s+$", re.IGNORECASE)


def called_definition_of_string(span: Span, ev: FactEvidence) -> str:
    """ "`VLLM_CPU_OMP_THREADS_BIND` and `VLLM_CPU_NUM_OF_RESERVED_CPU` are functions that
    control the binding of CPU threads" where the diff has the two only as strings in a list
    (vLLM #35119): a name read as code that runs."""
    if not (_DEFINITION_AFTER.match(span.after) or _DEFINITION_BEFORE.search(span.before)):
        return ""
    lines = ev.added + ev.removed + ev.context
    if _defined(span.code, ev.facts) or not _every_use(span.code, lines, r"([\"']){name}\1"):
        return ""
    return f"calls `{span.code}` a function, method or class, but the diff has it only as a string"


def called_moved(code: str, side: str, sentence: str, facts: ChangeFacts) -> str:
    """ "removes `--flag`" (or "adds") where the facts say it moved, unless the sentence
    speaks of the move."""
    if _MOVE_WORD.search(sentence):
        return ""
    said = "added" if side == "add" else "removed"
    for s in facts.settings:
        if s.change == "moved" and s.name == code:
            return f"says `{code}` is {said}, but the diff moves it from {s.old} to {s.file}"
    for m in facts.moves:
        if code in (m.old_name, m.new_name, short_name(m.old_name), short_name(m.new_name)):
            if m.renamed:
                return f"says `{code}` is {said}, but the diff renames `{m.old_name}` to `{m.new_name}`"
            return f"says `{code}` is {said}, but the diff moves it to {m.new_file}"
    return ""


def called_new_parameter(span: Span, side: str, ev: FactEvidence) -> str:
    """ "adds a new parameter `p`" where no signature gains `p`: the diff only passes it at a
    call (`f(..., p=p)`), which is what a small model reads as a new parameter."""
    is_parameter = _PARAMETER_BEFORE.search(span.before) or _PARAMETER_AFTER.match(span.after)
    if side != "add" or not is_parameter or not re.fullmatch(r"[A-Za-z_]\w*", span.code):
        return ""
    p = span.code
    if any(p in s.added_params for s in ev.facts.signatures):
        return ""
    passed = re.compile(rf"(?<![\w.]){re.escape(p)}=(?!=)")
    declared = re.compile(rf"\b(?:def|fn|func)\b.*\b{re.escape(p)}\b")
    if any(declared.search(line) for line in ev.added):
        return ""
    if any(passed.search(line) for line in ev.added):
        return (
            f"calls `{p}` a new parameter, but no signature in the diff gains it: a call passes it"
        )
    return ""


_REMOVAL_BEFORE = re.compile(
    r"\b(?:remov(?:e|es|ed|ing|al)|drop(?:s|ped|ping)?|delet(?:e|es|ed|ing|ion))"
    r"(?: of)?(?: the)?\s+$",
    re.IGNORECASE,
)
_REMOVED_AFTER = re.compile(
    rf"^\s*(?:{_PARAMETER}\s+)?(?:is|are|was|were|has been|have been)\s+"
    r"(?:removed|dropped|deleted)\b",
    re.IGNORECASE,
)


def called_removed_parameter(span: Span, ev: FactEvidence) -> str:
    """ "The `quant_config` parameter is removed" where no signature loses it and the diff
    still passes it: vLLM #35156 passes `quant_config=None` to one layer where it passed
    `quant_config=quant_config`, and a small model read the new value as the parameter gone."""
    p = span.code
    if not re.fullmatch(r"[A-Za-z_]\w*", p):
        return ""
    removal = _REMOVAL_BEFORE.search(span.before) or _REMOVED_AFTER.match(span.after)
    keyword = re.compile(rf"(?<![\w.]){re.escape(p)}\s*=(?!=)")
    said_parameter = (
        _PARAMETER_BEFORE.search(span.before)
        or _PARAMETER_AFTER.match(span.after)
        or any(keyword.search(line) for line in ev.removed)
    )
    if not removal or not said_parameter:
        return ""
    if any(p in map(param_name, s.dropped_params) for s in ev.facts.signatures):
        return ""
    passed = sum(len(keyword.findall(line)) for line in ev.added)
    if passed and passed >= sum(len(keyword.findall(line)) for line in ev.removed):
        # As many calls pass it as before: none lost it, one passes another value.
        return f"says `{p}` is removed, but no signature in the diff loses it: a call still passes `{p}=`"
    return ""


def called_new_signature(span: Span, facts: ChangeFacts) -> str:
    """ "adds a new parameter to `f`" where the facts show no signature of `f` changed."""
    if not (_PARAMETER_TO.search(span.before) or _TAKES_PARAMETER.match(span.after)):
        return ""
    name = span.code
    if any(_matches(s.name, short_name(name)) or s.name == name for s in facts.signatures):
        return ""
    if any(_matches(d.name, short_name(name)) for d in facts.of("added")):
        return ""  # a new function's parameters are all new
    return f"says `{name}` gains a parameter, but its signature does not change in the diff"


def called_changed(span: Span, ev: FactEvidence) -> str:
    """ "modifies the `X` class" where the diff shows `X` only on unchanged lines and no
    definition of that name changes: the model read the context as the change."""
    if not _CHANGED_BEFORE.search(span.before):
        return ""
    name = span.code
    if not re.fullmatch(r"[A-Za-z_][\w.:]*", name) or name in ev.touched:
        return ""
    if lines_with(name, ev.added) or lines_with(name, ev.removed):
        if _defined(name, ev.facts):
            return ""
        if _only_called(name, ev):
            return f"says `{name}` is changed, but the diff only changes a call to it"
        if _only_read(name, ev):
            return f"says `{name}` is changed, but the lines the diff changes only read it"
        return ""
    if not lines_with(name, ev.context):
        return ""  # not in the diff at all: the grounding check speaks of it
    return f"says `{name}` is changed, but the diff shows it only on unchanged lines"


def _only_called(name: str, ev: FactEvidence) -> bool:
    """Every changed line that has `name` calls it: `quant_config = make_config(` where
    `return make_config(` was is a change to a call, and "modifies the `make_config`
    function" reads it as a change to the function (vLLM #34906)."""
    called = re.compile(rf"(?<![\w.]){re.escape(name)}\s*\(")
    defines = re.compile(rf"\b(?:def|class|struct|fn|func)\s+{re.escape(name)}\b")
    lines = [
        line for line in (*ev.added, *ev.removed) if re.search(rf"\b{re.escape(name)}\b", line)
    ]
    return bool(lines) and all(called.search(x) and not defines.search(x) for x in lines)


# An assignment's operator: `=`, `*=`, `//=`, not `==`, `<=`, `>=`, `!=`.
_ASSIGNMENT = re.compile(r"(?<![=<>!])(?:\*\*|//|<<|>>|[-+*/%&|^@])?=(?!=)")
_TESTS = re.compile(r"\s*(?:return|if|elif|while|assert)\b")


def _only_read(name: str, ev: FactEvidence) -> bool:
    """Every changed line that has `name` has it on the right of an assignment, or in a
    return or a test, and never as a keyword given a value: vLLM #34813 moved
    `hidden_states *= self.embedding_multiplier`, and "changes the `embedding_multiplier`
    attribute" read the use as a change to the value."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    lines = [x for x in (*ev.added, *ev.removed) if word.search(x)]
    return bool(lines) and all(_reads(name, x, word) for x in lines)


def _reads(name: str, line: str, word: re.Pattern[str]) -> bool:
    if re.search(rf"(?<!\w){re.escape(name)}\s*=(?!=)", line):
        return False  # a keyword given a value, or an assignment to it
    if _TESTS.match(line):
        return True
    assignment = _ASSIGNMENT.search(line)
    return assignment is not None and not word.search(line[: assignment.start()])


def _defined(name: str, facts: ChangeFacts) -> bool:
    """A definition or signature of that name is in the facts: its own lines change."""
    return any(_matches(d.name, name) for d in facts.definitions) or any(
        _matches(s.name, name) for s in facts.signatures
    )


_CODE_CHANGE = re.compile(
    r"\b(?:modif(?:y|ies|ied|ying)|chang(?:e|es|ed|ing)|updat(?:e|es|ed|ing)|alter(?:s|ed|ing)?|"
    r"adjust(?:s|ed|ing)?)\b",
    re.IGNORECASE,
)
_PROSE_WORD = re.compile(r"\b(?:comments?|docstrings?|doc|docs|documentation|wording|typos?)\b", re.I)


def called_reworded(span: Span, sentence: str, ev: FactEvidence) -> str:
    """ "modifies the `MultiModalConfig` class" where only its comments or docstrings change,
    unless the sentence says so."""
    if not _CODE_CHANGE.search(sentence) or _PROSE_WORD.search(sentence):
        return ""
    name = span.code
    if not any(_matches(d.name, name) for d in ev.facts.of("reworded")):
        return ""
    if any(_matches(d.name, name) for d in ev.facts.definitions if d.change != "reworded"):
        return ""
    return f"says `{name}` changes, but only its comments or docstrings do"


def _touched(pr: PullRequest, facts: ChangeFacts) -> frozenset[str]:
    """The names the change is in: definitions (and each part of a qualified one),
    signatures, moves, settings, files, and outside Python the definitions the hunks'
    headers open (a Python hunk's header may name the function above the change: vLLM
    #35354's names the test above the one whose parameters change)."""
    names: set[str] = set()
    for qualified in (
        *(d.name for d in facts.definitions),
        *(s.name for s in facts.signatures),
        *(m.old_name for m in facts.moves),
        *(m.new_name for m in facts.moves),
    ):
        names |= {qualified, *re.split(r"\.|::", qualified)}  # every part of `A.b`
    names |= {s.name for s in facts.settings}
    for f in pr.files:
        path = PurePosixPath(f.filename)
        module = ".".join(path.with_suffix("").parts)  # `vllm.config.multimodal`
        names |= {f.filename, path.name, path.stem, module}
        if path.suffix == ".py":
            continue  # the facts place each change in its own definition, header or not
        for header in re.findall(r"^@@[^@]*@@ ?(.*)$", f.patch or "", re.MULTILINE):
            opened = _DEF_HEADER.search(header) or _CALL_HEADER.search(header)
            if opened:
                names |= {opened.group(1), *opened.group(1).split("::")}
    return frozenset(names)


def _matches(qualified: str, name: str) -> bool:
    return name in (qualified, short_name(qualified))


def mark_fact_names(text: str, facts: ChangeFacts, pr: PullRequest) -> str:
    """`text` with the change's names in backticks where it writes them bare: settings (a
    flag also without its dashes: "trust-remote-code" is `--trust-remote-code`), definitions
    by their own name, and changed files by their base name."""
    names: dict[str, str] = {}
    for s in facts.settings:
        names[s.name] = s.name
        if s.name.startswith("-") and len(s.name.lstrip("-")) >= 4:
            names[s.name.lstrip("-")] = s.name
    for d in facts.definitions:
        names[short_name(d.name)] = short_name(d.name)
    for f in pr.files:
        names[PurePosixPath(f.filename).name] = PurePosixPath(f.filename).name
    names = {k: v for k, v in names.items() if len(k) >= 4}
    if not names:
        return text
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    bare = re.compile(rf"(?<![\w`./-])(?:{alternatives})(?![\w`/-]|\.\w)")
    return bare.sub(lambda m: f"`{names[m.group(0)]}`", text)
