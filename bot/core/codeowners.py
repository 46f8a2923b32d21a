"""A repository's CODEOWNERS file, read as GitHub reads it: who owns a path.

GitHub uses the first of `CODEOWNERS_LOCATIONS` that exists on the base branch (reading it
is the GitHub source's job; this module parses its text). Each line is a pattern followed by
owners; for a path, the LAST line whose pattern matches decides its owners, even a line that
lists none: a pattern with no owners makes the path unowned.

Patterns follow gitignore's rules as GitHub applies them (the semantics of the reference
implementation `hmarr/codeowners`, whose pattern corpus is checked against GitHub):

- a leading `/` anchors the pattern to the repository root; so does a `/` in the middle
  (`vllm/v1/attention` is `/vllm/v1/attention`);
- a pattern with no `/` (other than a trailing one) matches at any depth: `*.cu` matches
  `csrc/attention/attention_kernels.cu`, and `rocm/` matches any directory named `rocm`;
- a pattern names a file or a directory, and a directory owns everything below it:
  `/vllm/v1/attention` matches `vllm/v1/attention/backends/flashinfer.py`;
- a trailing `/` matches a directory only: `docs/` and `docs/**` match everything under it,
  never a file named `docs`;
- `*` matches within one path segment (`docs/*` matches `docs/README.md`, not
  `docs/design/arch.md`), `?` one character of a segment, and `**` any number of
  directories (`/vllm/**/*rocm*` matches `vllm/platforms/rocm.py`);
- `\\` escapes the next character (`\\*`, `\\ ` for a space in a name);
- matching is case-sensitive, as GitHub's paths are; owners compare case-insensitively.

What GitHub does not support in CODEOWNERS, and this parser therefore does not either: `!`
negation, `[ ]` character ranges (brackets in a name must be escaped, `\\[id\\]`), and
escaping a leading `#` with `\\` (GitHub still does not read `\\#file` as a pattern). Such a
line, and a line with an owner that is not `@user`, `@org/team` or an email address, is
invalid: GitHub skips it, and so does `parse_codeowners`, which lists it in
`CodeOwners.invalid` with the reason. Comments are lines starting with `#`, and anything
after a word that starts with `#`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from bot.core.errors import UserInputError

# Where GitHub looks, in this order; the first that exists is the repository's CODEOWNERS.
CODEOWNERS_LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")

_USER = re.compile(r"@[A-Za-z0-9][A-Za-z0-9_-]*")
_TEAM = re.compile(r"@[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9_.-]+")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_PATTERN_WORD = re.compile(r"(?:\\.|[^\s\\])+")  # the pattern: up to the first unescaped space


def is_owner(text: str) -> bool:
    """`@user`, `@org/team` or an email address, as CODEOWNERS writes an owner."""
    return any(rx.fullmatch(text) for rx in (_USER, _TEAM, _EMAIL))


def check_owner(text: str) -> str:
    """The owner as written, or UserInputError with a one-line reason (and a likely fix)."""
    value = text.strip()
    if is_owner(value):
        return value
    shown = value[:60]
    if value.startswith("<@") or value.startswith("<!"):
        raise UserInputError(
            f"{shown!r} is a chat mention: write the GitHub owner as CODEOWNERS does, like @alice"
        )
    if not value.startswith("@") and is_owner("@" + value):
        raise UserInputError(f"{shown!r} is not an owner (did you mean @{value}?)")
    raise UserInputError(f"{shown!r} is not an owner: use @user, @org/team or an email address")


def owner_key(owner: str) -> str:
    """What two spellings of one owner have in common: GitHub compares them ignoring case."""
    return owner.strip().casefold()


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The regular expression a repository path must fully match for this CODEOWNERS pattern.

    UserInputError for a pattern GitHub rejects: empty, `!` negation, `[ ]` ranges, `***`,
    or a leading `#`.
    """
    _check_pattern(pattern)
    if pattern == "/":
        return re.compile(r"(?!)")  # the root itself: no file
    segments = pattern.split("/")
    if segments[0] == "":
        segments = segments[1:]  # anchored at the root
    elif (len(segments) == 1 or (len(segments) == 2 and segments[1] == "")) and segments[0] != "**":
        segments = ["**", *segments]  # one name: at any depth
    if len(segments) > 1 and segments[-1] == "":
        segments[-1] = "**"  # a trailing slash: everything below the directory

    out: list[str] = []
    need_slash = False
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        if segment == "**":
            if i == 0 and i == last:
                out.append(".+")
            elif i == 0:
                out.append("(?:.+/)?")
                need_slash = False
            elif i == last:
                out.append("/.*")
            else:
                out.append("(?:/.+)?")
                need_slash = True
            continue
        if need_slash:
            out.append("/")
        if segment == "*":
            # A lone `*` is one name and nothing below it: `docs/*` is not `docs/a/b.md`.
            out.append("[^/]+")
        else:
            out.append(_segment(segment))
            if i == last:
                out.append("(?:/.*)?")  # a file, or a directory and everything in it
        need_slash = True
    return re.compile("".join(out))


def _check_pattern(pattern: str) -> None:
    if not pattern:
        raise UserInputError("empty pattern")
    if pattern.startswith("!"):
        raise UserInputError("GitHub does not support ! (negation) in CODEOWNERS")
    if pattern.startswith("#") or pattern.startswith("\\#"):
        raise UserInputError("GitHub does not read a pattern starting with # (even as \\#)")
    if "***" in pattern:
        raise UserInputError("a pattern cannot contain ***")
    unescaped = re.sub(r"\\.", "", pattern)
    if "[" in unescaped or "]" in unescaped:
        raise UserInputError(
            "GitHub does not support [ ] ranges in CODEOWNERS: escape brackets as \\[ and \\]"
        )


def _segment(segment: str) -> str:
    out: list[str] = []
    chars = iter(segment)
    for ch in chars:
        if ch == "\\":
            out.append(re.escape(next(chars, "\\")))
        elif ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    """One valid line: its pattern and owners (none: the paths it matches are unowned)."""

    pattern: str
    owners: tuple[str, ...]
    line: int
    regex: re.Pattern[str] = field(compare=False, repr=False)

    def matches(self, path: str) -> bool:
        return self.regex.fullmatch(path) is not None


@dataclass(frozen=True)
class InvalidLine:
    """A line GitHub skips, and why: shown to whoever set the filter up, never fatal."""

    line: int
    text: str
    reason: str


@dataclass(frozen=True)
class CodeOwners:
    """The parsed file. `owners_of` is what GitHub would request reviews from for a path."""

    rules: tuple[Rule, ...] = ()
    invalid: tuple[InvalidLine, ...] = ()

    def rule_for(self, path: str) -> Rule | None:
        """The line that decides `path`: the last one whose pattern matches it."""
        path = path.lstrip("/")
        return next((rule for rule in reversed(self.rules) if rule.matches(path)), None)

    def owners_of(self, path: str) -> tuple[str, ...]:
        """The owners of `path` as written in the file; () when it has none."""
        rule = self.rule_for(path)
        return rule.owners if rule else ()

    def owned_by(self, paths: Iterable[str], owners: Iterable[str]) -> bool:
        """Whether any of `paths` is owned by any of `owners` (compared ignoring case)."""
        wanted = {owner_key(o) for o in owners}
        if not wanted:
            return False
        return any(any(owner_key(o) in wanted for o in self.owners_of(path)) for path in paths)

    @cached_property
    def all_owners(self) -> tuple[str, ...]:
        """Every owner the file names, once each (first spelling), in file order."""
        seen: dict[str, str] = {}
        for rule in self.rules:
            for owner in rule.owners:
                seen.setdefault(owner_key(owner), owner)
        return tuple(seen.values())


def parse_codeowners(text: str) -> CodeOwners:
    """Parse a CODEOWNERS file's text. Never raises: invalid lines are skipped and listed."""
    rules: list[Rule] = []
    invalid: list[InvalidLine] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            rules.append(_rule(line, number))
        except UserInputError as exc:
            invalid.append(InvalidLine(line=number, text=line, reason=str(exc)))
    return CodeOwners(rules=tuple(rules), invalid=tuple(invalid))


def _rule(line: str, number: int) -> Rule:
    word = _PATTERN_WORD.match(line)
    if word is None:  # a line that is only a backslash and spaces
        raise UserInputError("no pattern")
    pattern = word.group(0)
    regex = compile_pattern(pattern)
    owners: list[str] = []
    for token in line[word.end() :].split():
        if token.startswith("#"):
            break  # a comment to the end of the line
        owners.append(check_owner(token))
    return Rule(pattern=pattern, owners=tuple(owners), line=number, regex=regex)
