"""How code words the sentences it writes from the change facts: names as code, lists of
them, the settings of the code that runs, and which tests change with a PR."""

from __future__ import annotations

import re

from bot.core.models import PullRequest
from summarizer.facts import (
    MACRO_BLOCK,
    ChangeFacts,
    Definition,
    Setting,
    SignatureChange,
    short_name,
)
from summarizer.file_kinds import is_support_file, is_test_file, is_tooling_file, runs_code

LIST_CAP = 3  # names in one list of a sentence: more reads as a dump


def code(name: str) -> str:
    return f"`{name}`"


# Text from a PR quoted in a sentence must never become a link or a ping that prdigest did
# not build: a URL, an issue number or a handle keeps a sentence from being quoted.
_UNQUOTABLE = re.compile(r"://|#\d|@\w|\bwww\.", re.IGNORECASE)


def quotable(text: str) -> bool:
    """No link, issue number or handle, and no backtick left open to run a code span on."""
    return not _UNQUOTABLE.search(text) and text.count("`") % 2 == 0


def quoted(text: str) -> str:
    """The PR's own words in double quotes, its own double quotes made single."""
    return '"' + text.replace('"', "'") + '"'


# How a risk says the PR tests none of a change: the insight then says something else.
UNTESTED = "no test in this PR"


def in_place(enclosing: str | None, file: str) -> str:
    """Where a change is, to open its sentence: "In `f`", the definition, or else the file."""
    return f"In {code(enclosing)}" if enclosing else f"In {code(file)}"


def listed(items: list[str]) -> str:
    """`a`, `b` and `c`; past `LIST_CAP` names, "and N more" (never "and 1 more")."""
    return phrase("", items).strip()


def phrase(verb: str, items: list[str]) -> str:
    """ "removes `a`, `b` and `c`": the verb and its list, each item once; "" for none."""
    items = list(dict.fromkeys(items))
    if not items:
        return ""
    # "and 1 more" costs a reader what the name would, and cannot be checked (judge pass 55).
    cap = LIST_CAP + 1 if len(items) == LIST_CAP + 1 else LIST_CAP
    shown, more = items[:cap], len(items) - cap
    last = f"{more} more" if more > 0 else shown.pop()
    return f"{verb} {', '.join(shown)} and {last}" if shown else f"{verb} {last}"


def moved_names(facts: ChangeFacts) -> set[str]:
    """The definitions that moved, by their old and new names: neither removed nor added."""
    return {m.old_name for m in facts.moves} | {m.new_name for m in facts.moves}


def named_definitions(defs: list[Definition], moved: set[str]) -> list[str]:
    """The definitions as code, moved ones left out; a class's own methods are named by the
    class, which is what a reader looks up."""
    tops = [d for d in defs if d.name not in moved]
    classes = {d.name for d in tops if d.kind in ("class", "struct")}
    return [
        f"a {code(d.name)} block" if d.kind == MACRO_BLOCK else code(d.name)
        for d in tops
        if d.name.rsplit(".", 1)[0] not in classes or d.kind in ("class", "struct")
    ]


def running_signatures(facts: ChangeFacts) -> list[SignatureChange]:
    """The signatures of the code that runs, the library's before its scripts': a test
    function's parameters are its fixtures, and nothing outside the tests this PR edits
    calls it."""
    running = [s for s in facts.signatures if not is_support_file(s.file)]
    return sorted(running, key=lambda s: is_tooling_file(s.file))


def settings_of(facts: ChangeFacts, change: str, kinds: tuple[str, ...] = ()) -> list[Setting]:
    """The settings of the code that runs (a test that stops reading a variable changes no
    user's setting), of `kinds` when given."""
    return [
        s
        for s in facts.settings
        if s.change == change
        and s.kind != "CI step"
        and not is_support_file(s.file)
        and (not kinds or s.kind in kinds)
    ]


_ENV_USE = {"environment variable read": "a read", "environment variable set": "a write"}


def setting_named(s: Setting) -> str:
    kind = s.kind.split(" (")[0]
    if kind in _ENV_USE:  # "adds a read of the environment variable `X`"
        return f"{_ENV_USE[kind]} of the environment variable {code(s.name)}"
    # A YAML list item has no name of its own: it is its value.
    return f"the {kind} {code(s.name or s.new or s.old or '')}"


def settings_named(settings: list[Setting]) -> list[str]:
    """Each setting named, a variable both read and written once: "a read and a write of the
    environment variable `X`", not the two said apart (vLLM #32365)."""
    kinds: dict[str, list[str]] = {}
    for s in settings:
        kinds.setdefault(s.name, []).append(s.kind.split(" (")[0])
    both = {n for n, k in kinds.items() if sorted(k) == sorted(_ENV_USE)}
    said: set[str] = set()
    out: list[str] = []
    # Whose flags they are, said once for each file: a benchmark script's flag is not the
    # server's (vLLM #34188).
    flags: dict[str, list[str]] = {}
    for s in settings:
        if _a_flag(s) and s.name not in both:
            flags.setdefault(s.file, []).append(code(s.name))
    for s in settings:
        if _a_flag(s) and s.name not in both:
            if names := flags.pop(s.file, None):
                many = "s" if len(set(names)) > 1 else ""
                out.append(f"the CLI flag{many} {listed(names)} in {code(s.file)}")
        elif s.name not in both:
            out.append(setting_named(s))
        elif s.name not in said:
            said.add(s.name)
            out.append(f"a read and a write of the environment variable {code(s.name)}")
    return out


def _a_flag(s: Setting) -> bool:
    return s.kind.startswith("CLI flag") and bool(s.file)


def moved_setting(s: Setting) -> str:
    """ "the CLI flag `--x` from `a.py` to `b.py`" """
    return f"{setting_named(s)} from {code(s.old)} to {code(s.file)}"


def tests_sentence(pr: PullRequest, facts: ChangeFacts | None = None) -> str:
    """Which tests of this PR check its change, or that none does: what a reviewer asks of a
    change to the code that runs, and the diff answers exactly. With the facts, the test
    functions added, changed and removed are named: their names say what is checked
    (`test_update_block_table_copies_block_idx_to_persistent_buffers`)."""
    tests = [f.filename for f in pr.files if is_test_file(f.filename)]
    if not tests:
        return "No test changes with it in this PR."
    said = f"The PR's only test changes are in {listed([code(t) for t in tests])}"
    # Named by the one file that holds them, where it is one of several: "which together
    # change `t`" read as if each file changed it (vLLM #32642).
    holders = {d.file for d in _test_definitions(facts, ("added", "changed", "removed"))}
    one = len(tests) == 1 or len(holders) == 1
    verbs = ("adds", "changes", "removes") if one else ("add", "change", "remove")
    named = [
        phrase(verb, [code(short_name(d.name)) for d in _test_definitions(facts, (change,))])
        for verb, change in zip(verbs, ("added", "changed", "removed"), strict=True)
    ]  # fmt: skip
    named = [n for n in named if n]
    if not named:
        return f"{said}."
    if len(tests) > 1 and len(holders) == 1:
        return f"{said}; {code(holders.pop())} {' and '.join(named)}."
    which = "which" if len(tests) == 1 else "which together"
    return f"{said}, {which} {' and '.join(named)}."


def _test_definitions(facts: ChangeFacts | None, changes: tuple[str, ...]) -> list[Definition]:
    """The test functions (`test_…`) of the PR's test files that it adds, changes or removes
    (`changes`)."""
    if facts is None:
        return []
    return [
        d for d in facts.definitions
        if d.change in changes and is_test_file(d.file) and short_name(d.name).startswith("test")
    ]  # fmt: skip


def scope_sentence(pr: PullRequest) -> str:
    """How much of the code that runs the PR changes, and where, counted from the diff: the
    size a reviewer weighs a change by, and a sentence no other section says."""
    running = [f for f in pr.files if runs_code(f)]
    if not running:
        return "Outside tests, docs, CI and comments, nothing changes."
    added, removed = sum(f.additions for f in running), sum(f.deletions for f in running)
    counts = [f"{verb} {n} {'line' if n == 1 else 'lines'}"
              for verb, n in (("adds", added), ("removes", removed)) if n]  # fmt: skip
    if len(counts) == 2:
        counts[1] = f"removes {removed}"  # "adds 4 lines and removes 1"
    size = " and ".join(counts) or "changes no lines"
    files = listed([code(f.filename) for f in running])
    # `tools/` counts with CI (the developers' own scripts); a reader who sees one changed
    # took "outside CI" to leave it in (vLLM #35314's profiler help text).
    tools = any(f.filename.startswith("tools/") for f in pr.files)
    outside = "tests, docs, CI and tools" if tools else "tests, docs and CI"
    return f"Outside {outside}, the PR {size}, in {files}."
