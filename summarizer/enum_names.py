"""String literals the PR replaces by the members of an enum named for them.

vLLM #34254 compares `strategy == QuantizationStrategy.ATTN_HEAD` where it compared with
`"attn_head"`, and converts the configured string with `QuantizationStrategy(...)` first.
Read token by token, with each member put back as the string it names and each conversion
unwrapped, the new lines are the old ones: the comparisons are the same, so such a PR is
TRIVIAL (the real report calls it so). What a reviewer still asks is said as the risk: the
conversion raises `ValueError` for a value no member has, and the comparisons hold as before
only if each member's value is the string it replaced; the diff cannot show that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.models import PullRequest
from summarizer.claims import diff_lines
from summarizer.code_hunks import code_hunks
from summarizer.facts import line_owner
from summarizer.file_kinds import runs_code
from summarizer.hunks import without_comment
from summarizer.wording import code, in_place, listed

_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\w+|\S")
_CLASS = re.compile(r"^[A-Z][a-z]\w*$")  # CamelCase: `QuantizationStrategy`
_MEMBER = re.compile(r"^[A-Z][A-Z0-9_]*$")  # `ATTN_HEAD`
_IMPORT = re.compile(r"^\s*(?:import\s|from\s+\S+\s+import\s)")
_OPENERS, _CLOSERS = frozenset("([{"), frozenset(")]}")
_SHOWN = 2  # members named in the risk, at most


@dataclass(frozen=True)
class EnumNames:
    enum: str  # `QuantizationStrategy`
    members: tuple[str, ...]  # the members put in place of strings, in diff order
    converts: bool  # a value is now converted with `Enum(...)` before it is compared
    enclosing: str | None
    file: str


def enum_names(pr: PullRequest) -> EnumNames | None:
    """The PR's code that runs changes only by string literals written as the members of one
    enum of the same names (and values converted to it): None where anything else changes."""
    running = replace(pr, files=tuple(f for f in pr.files if runs_code(f)))
    if not running.files or any(not f.filename.endswith(".py") for f in running.files):
        return None
    sides = diff_lines(running)
    old, new = _tokens(sides.removed), _tokens(sides.added)
    enums = {new[i] for i in range(len(new) - 2) if _member_at(new, i)}
    if len(enums) != 1:
        return None
    (enum,) = enums
    strings, members, converts = _as_strings(new, enum)
    if not members or _plain(strings) != _plain(old):
        return None
    file, enclosing = _where(running, f"{enum}.{members[0]}")
    return EnumNames(enum, tuple(dict.fromkeys(members)), converts, enclosing, file)


def _tokens(lines: tuple[str, ...]) -> list[str]:
    kept = (without_comment(line) for line in lines if not _IMPORT.match(line))
    return [t for line in kept if not line.startswith("#") for t in _TOKEN.findall(line)]


def _member_at(tokens: list[str], i: int) -> bool:
    return bool(_CLASS.match(tokens[i]) and tokens[i + 1] == "." and _MEMBER.match(tokens[i + 2]))


def _as_strings(tokens: list[str], enum: str) -> tuple[list[str], list[str], bool]:
    """The tokens with `Enum.MEMBER` written as `"member"` and `Enum(x)` as `x`; the members
    replaced, and whether a conversion was unwrapped."""
    out: list[str] = []
    members: list[str] = []
    dropped: set[int] = set()  # the closing brackets of unwrapped conversions
    i = 0
    while i < len(tokens):
        if i + 2 < len(tokens) and tokens[i] == enum and _member_at(tokens, i):
            members.append(tokens[i + 2])
            out.append(f'"{tokens[i + 2].lower()}"')
            i += 3
        elif tokens[i] == enum and i + 1 < len(tokens) and tokens[i + 1] == "(":
            if (close := _closing(tokens, i + 1)) is None:
                return out, [], False
            dropped.add(close)
            i += 2
        else:
            if i not in dropped:
                out.append(tokens[i])
            i += 1
    return out, members, bool(dropped)


def _closing(tokens: list[str], opening: int) -> int | None:
    depth = 0
    for i in range(opening, len(tokens)):
        if tokens[i] in _OPENERS:
            depth += 1
        elif tokens[i] in _CLOSERS:
            depth -= 1
        if depth == 0:
            return i
    return None


def _plain(tokens: list[str]) -> list[str]:
    """Strings compared by their text whatever the quotes; a trailing comma is no change."""
    plain = [f'"{t[1:-1].lower()}"' if t[:1] in "\"'" else t for t in tokens]
    return [t for i, t in enumerate(plain) if not (t == "," and plain[i + 1 : i + 2] in _ENDS)]


_ENDS = [[")"], ["]"], ["}"]]


def _where(pr: PullRequest, member: str) -> tuple[str, str | None]:
    """The file and the definition of the first added line that names `member`."""
    for path, hunk in code_hunks(pr):
        for row in sorted(hunk.new.changed):
            if member in hunk.new.lines[row].replace(" ", ""):
                return path, line_owner(path, hunk, True, row)
    return pr.files[0].filename, None


def _quoted(member: str) -> str:
    return '"' + member.lower() + '"'


def enum_sentence(names: EnumNames) -> str:
    """The risk of strings written as members: the conversion's error, the values assumed."""
    shown = [f"{code(f'{names.enum}.{m}')} is {code(_quoted(m))}" for m in names.members[:_SHOWN]]
    where = in_place(names.enclosing, names.file)
    converted = (
        f"{where}, a value is now converted with {code(f'{names.enum}(...)')} before it is "
        "compared: one that is no member's value raises `ValueError` there. "
        if names.converts
        else f"{where}, "
    )
    lead = "The" if names.converts else "the"
    return (
        f"{converted}{lead} comparisons with {code(names.enum)} members give the old "
        f"results only if {listed(shown)}; the diff does not show the enum's values."
    )
