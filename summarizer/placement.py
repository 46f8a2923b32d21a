"""Which definition each changed line lies in, and claims that put a change somewhere else.

The built-in model names the right pieces and the wrong place. On the dev days, read against
the diffs: "The `Scheduler` class is also modified to call `update_block_hashes` in the
`append_output_token_ids` method" (that method is `Request`'s; `Scheduler` calls it in its
session update), "to include `target_channels=1` in the `get_replacement` function" (it is
added in `get_data_parser`), "removes two methods and a function from the
`LMCacheMPWorkerAdapter` class" (one of the three is that class's). The facts know the place
of every changed line; a sentence that says otherwise is a finding.

A place is judged only where the code is sure of it: a name whose changed lines all lie in
known definitions, in a sentence that does not negate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.claims import BACKTICKED, code_pattern, normalize_code
from summarizer.facts import ChangeFacts, line_owner, short_name
from summarizer.hunks import parse_hunks
from summarizer.prose import prose_lines


@dataclass(frozen=True)
class PlacedLine:
    """A changed line (either side) and the definition it lies in."""

    file: str
    text: str  # normalized (claims.normalize_code)
    where: tuple[str, ...]  # the owner's parts, `("Request", "update_block_hashes")`; () unknown


def placed_lines(pr: PullRequest) -> tuple[PlacedLine, ...]:
    out: list[PlacedLine] = []
    for f in pr.files:
        for hunk in parse_hunks(f.patch or ""):
            for new, side in ((False, hunk.old), (True, hunk.new)):
                for row in sorted(side.changed):
                    if text := side.lines[row].strip():
                        owner = line_owner(f.filename, hunk, new, row)
                        out.append(PlacedLine(f.filename, normalize_code(text), _parts(owner)))
    return tuple(out)


def _parts(name: str | None) -> tuple[str, ...]:
    return tuple(p for p in re.split(r"\.|::", name or "") if p)


# "… in the `f` method", "from the `C` class", "to `g`": a place a sentence puts what it
# names before it.
_PLACE = re.compile(
    r"\b(?:in|from|to|into|inside|within)\s+(?:the\s+)?`(?P<place>[^`\n]+)`"
    r"(?:\s+(?P<kind>method|function|class|kernel|struct|constructor)\b)?"
)
_NEGATED = re.compile(r"\b(?:not|never|without|no)\b|n't\b", re.IGNORECASE)


def names_a_place(sentence: str) -> bool:
    return _PLACE.search(sentence) is not None


def misplaced(sentence: str, lines: Sequence[PlacedLine], facts: ChangeFacts | None) -> str:
    """Why the sentence puts a change of the PR where the diff does not make it; "" when
    it does not, or the code cannot be sure."""
    if _NEGATED.search(sentence):
        return ""
    start = 0
    for m in _PLACE.finditer(sentence):
        before, start = sentence[start : m.start()], m.end()
        if facts is not None and (why := _misfiled(before, m.group("place"), lines, facts)):
            return why
        if facts is not None and (added := _ADDED_AFTER.match(sentence, m.end())):
            # "… in `a.py` by adding a new function `f`": the place before what is added.
            if why := _misfiled(f"adds `{added['thing']}`", m.group("place"), lines, facts):
                return why
        place = _parts(m.group("place").strip().rstrip("()"))
        if not place or not _a_definition(place, lines):
            continue  # a file, a folder, or a name the diff does not change
        for thing in (t.group(1).strip() for t in BACKTICKED.finditer(before)):
            if _elsewhere(thing, place, lines):
                return f"puts `{thing}` in `{'.'.join(place)}`, where the diff does not change it"
        if facts is not None and (why := _miscounted(before, place, facts)):
            return why
    return ""


# "… by adding a new function `f`", right after the place a sentence names.
_ADDED_AFTER = re.compile(
    r"\s+(?:file\s+|module\s+)?by\s+(?:adding|introducing|defining)\s+(?:an?\s+)?(?:new\s+)?"
    r"(?:(?:function|method|class|helper)\s+)?`(?P<thing>[^`\n]+)`"
)
_ADDS = re.compile(r"\b(?:adds|added|adding|introduces|introduced|introducing|defines)\b", re.I)


def _misfiled(before: str, place: str, lines: Sequence[PlacedLine], facts: ChangeFacts) -> str:
    """ "adds `_make_paged_kv_metadata` … to the `vllm/v1/attention/backends/flashinfer.py`
    file" where the diff defines it only in a test file (vLLM #34687): a definition put in a
    file of the PR that none of its own changes are in. A small model's spaces in a path
    ("flash infer.py") are read past."""
    path = _pr_file(place, {line.file for line in lines})
    if not path or not _ADDS.search(before):
        return ""  # "moves `f` from `a.py`" and "the change to `a.py`" place nothing new
    for thing in (t.group(1).strip().rstrip("()") for t in BACKTICKED.finditer(before)):
        defs = [d for d in facts.definitions if thing in (d.name, short_name(d.name))]
        if defs and all(d.file != path for d in defs):
            return f"puts `{thing}` in `{path}`, where the diff has it in `{defs[0].file}`"
    return ""


def _pr_file(place: str, files: set[str]) -> str:
    squeezed = "".join(place.split())
    if "/" not in squeezed and "." not in squeezed:
        return ""  # a name, not a file
    return next((f for f in sorted(files) if f == squeezed or f.endswith(f"/{squeezed}")), "")


def diff_lines_read(pr: PullRequest) -> tuple[tuple[str, bool], ...]:
    """Every line the diff shows (hunk headers, and both sides, unchanged lines included),
    each with whether it is prose (blank, a comment or a docstring): read once per answer."""
    out: list[tuple[str, bool]] = []
    for f in pr.files:
        python = f.filename.endswith((".py", ".pyi"))
        for hunk in parse_hunks(f.patch or ""):
            out.append((hunk.header, False))
            for side in (hunk.old, hunk.new):
                out += zip(side.lines, prose_lines(side.lines, python), strict=True)
    return tuple(out)


def commented_place(sentence: str, lines: Sequence[tuple[str, bool]]) -> str:
    """A method or function the sentence puts a change in that the diff (`diff_lines_read`)
    names only inside comments: read off a comment ("mirrors
    Request.append_output_token_ids"), it is a guess at where the change is."""
    if _NEGATED.search(sentence):
        return ""
    for m in _PLACE.finditer(sentence):
        place = _parts(m.group("place").strip().rstrip("()"))
        if (
            place
            and m.group("kind") in ("method", "function")
            and _commented_only(place[-1], lines)
        ):
            return f"puts a change in `{place[-1]}`, which the diff names only in a comment"
    return ""


def _commented_only(name: str, lines: Sequence[tuple[str, bool]]) -> bool:
    word = re.compile(rf"(?<![\w.]){re.escape(name)}\b|\.{re.escape(name)}\b")
    named = [prose for line, prose in lines if word.search(line)]
    return bool(named) and all(named)


def _a_definition(place: tuple[str, ...], lines: Sequence[PlacedLine]) -> bool:
    return any(_inside(line.where, place) for line in lines)


def _inside(where: tuple[str, ...], place: tuple[str, ...]) -> bool:
    """`where` lies in `place`: `("Request", "f")` is in `Request`, in `f`, in `Request.f`."""
    n = len(place)
    return any(where[i : i + n] == place for i in range(len(where) - n + 1))


def _elsewhere(thing: str, place: tuple[str, ...], lines: Sequence[PlacedLine]) -> bool:
    """What the sentence names changes in the diff, only outside `place`: neither a line in
    `place` mentions it, nor is one of them inside it, nor is `place` a member of it."""
    own = _parts(thing.rstrip("()"))
    if not own or any(not re.fullmatch(r"[A-Za-z_~]\w*", p) for p in own):
        own = ()  # code, not a name: it is known by its text alone
    needle = code_pattern(own[-1] if own else thing)
    mentioned = [line for line in lines if needle.search(line.text)]
    defined = [line for line in lines if own and _inside(line.where, own)]
    if not mentioned and not defined:
        return False  # not in the diff
    # Mentioned where the code cannot place the line, in a file that has `place`: it may be
    # in it after all.
    files = {line.file for line in lines if _inside(line.where, place)}
    if any(not line.where and line.file in files for line in mentioned):
        return False
    if not own and any(not line.where for line in mentioned):
        return False
    if any(_inside(line.where, place) for line in (*mentioned, *defined)):
        return False
    # A member of `place`, or `place` a member of it: "`Request` … in the `f` method".
    return not own or not any(
        _inside(line.where, own + place) or _inside(line.where, place + own) for line in lines
    )


_COUNTED = re.compile(
    r"\b(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:new\s+)?"
    r"(?:methods?|functions?|classes)\b",
    re.IGNORECASE,
)
_NUMBERS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())
}
_NUMBERS |= {"a": 1, "an": 1}
_CHANGE = {"removed": r"\b(?:remov|delet|drop)", "added": r"\b(?:add|introduc)"}


def _miscounted(before: str, place: tuple[str, ...], facts: ChangeFacts) -> str:
    """ "removes two methods and a function from the `C` class" where fewer of the removed
    definitions are `C`'s."""
    claimed = sum(
        int(n) if n.isdigit() else _NUMBERS[n.lower()]
        for n in (m.group("n") for m in _COUNTED.finditer(before))
    )
    change = next((c for c, verb in _CHANGE.items() if re.search(verb, before, re.I)), None)
    if not claimed or change is None:
        return ""
    there = [d for d in facts.of(change) if _inside(_parts(d.name)[:-1], place)]
    if claimed <= len(there):
        return ""
    name = ".".join(place)
    return f"says {claimed} definitions are {change} in `{name}`; the diff has {len(there)} there"
