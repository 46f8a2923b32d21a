"""A result the PR now caches, or no longer caches: the staleness a reviewer asks about.

`@property` becoming `@cached_property` (vLLM #35099) is one line, and a small model calls it
"improves efficiency". The question a reviewer asks is the other side of it: the value is now
computed once and kept, so a later change to what it reads is not seen. A cache decorator
removed is the reverse: the body runs on every call again. Both are read from the decorator
lines the diff changes, and the `def` they stand on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.models import PullRequest
from summarizer.claims import diff_lines
from summarizer.code_hunks import block_rows, code_hunks
from summarizer.facts import line_owner
from summarizer.file_kinds import runs_code
from summarizer.hunks import Hunk, Side

_CACHE = re.compile(
    r"^\s*@(?:functools\.)?(?P<kind>cached_property|cache|lru_cache)\b(?:\((?P<args>.*)\))?\s*$"
)
_PROPERTY = re.compile(r"^\s*@property\s*$")
_DEF = re.compile(r"^(?P<indent>\s*)(?:async\s+)?def\s+(?P<name>\w+)\s*\(")
_SELF_READ = re.compile(r"\bself\.(\w+)\b(?!\s*\()")
_DECORATORS_ABOVE_DEF = 4  # a cache decorator is at most this many lines above its def


@dataclass(frozen=True)
class CacheChange:
    file: str
    name: str  # the definition, qualified by its class (`ModelConfig.is_encoder_decoder`)
    decorator: str  # `cached_property`, `cache` or `lru_cache`
    cached: bool  # True: now cached; False: no longer cached
    reads: tuple[str, ...] = ()  # `self.hf_config`: what a cached method reads, as the diff shows


def caches_changed(pr: PullRequest) -> list[CacheChange]:
    """Each definition of the Python code that runs that gains or loses a cache decorator
    while it stays defined, in diff order."""
    found = [c for path, hunk in code_hunks(pr) for c in _hunk_caches(path, hunk)]
    return list(dict.fromkeys(found))


def _hunk_caches(path: str, hunk: Hunk) -> list[CacheChange]:
    added, removed = _decorated(hunk.new), _decorated(hunk.old)
    found: list[CacheChange] = []
    for name, (kind, row) in added.items():
        if removed.get(name, ("",))[0] != kind and _kept(hunk.new, row, hunk.old, name):
            reads = _reads(hunk.new, row) if kind == "cached_property" else ()
            found.append(CacheChange(path, _qualified(path, hunk, row, name), kind, True, reads))
    for name, (kind, row) in removed.items():
        if name in added or _returns_a_name(hunk.new, name):
            continue  # a body that now reads a value computed elsewhere costs nothing to run
        if _kept(hunk.old, row, hunk.new, name):
            qualified = _qualified(path, hunk, row, name, new=False)
            found.append(CacheChange(path, qualified, kind, False))
    return found


_RETURNS_NAME = re.compile(r"^\s*return\s+[A-Za-z_][\w.]*\s*$")


def _returns_a_name(side: Side, name: str) -> bool:
    """The def's body, as this side shows it, is `return NAME`: a value computed elsewhere
    (vLLM #34108's `on_gfx9` now returns `_ON_GFX9`, resolved once at import)."""
    if (row := _def_row(side, name)) is None:
        return False
    body = [b for b in side.lines[row + 1 : row + 4] if b.strip()]
    return bool(body) and bool(_RETURNS_NAME.match(body[0]))


def _def_row(side: Side, name: str) -> int | None:
    """The row of this side's `def name(`, if the side shows it."""
    return next(
        (
            row
            for row, line in enumerate(side.lines)
            if (d := _DEF.match(line)) and d["name"] == name
        ),
        None,
    )


def _decorated(side: Side) -> dict[str, tuple[str, int]]:
    """Definitions whose cache decorator is a changed line of this side: name -> (kind, row
    of the def)."""
    found: dict[str, tuple[str, int]] = {}
    for row in sorted(side.changed):
        if not (m := _CACHE.match(side.lines[row])):
            continue
        for below in range(row + 1, min(row + 1 + _DECORATORS_ABOVE_DEF, len(side.lines))):
            if d := _DEF.match(side.lines[below]):
                found.setdefault(d.group("name"), (m.group("kind"), below))
                break
    return found


def _kept(side: Side, row: int, other: Side, name: str) -> bool:
    """The def stands on both sides: its line unchanged, or edited with its name kept. One
    added, removed or renamed whole is the facts' to say, not a cache change."""
    if row not in side.changed:
        return True
    return _def_row(other, name) is not None


def _qualified(path: str, hunk: Hunk, row: int, name: str, new: bool = True) -> str:
    side = hunk.new if new else hunk.old
    if not (d := _DEF.match(side.lines[row])) or not d.group("indent"):
        return name
    owner = line_owner(path, hunk, new, row)
    return f"{owner.split('.')[0]}.{name}" if owner and owner != name else name


def _reads(side: Side, row: int) -> tuple[str, ...]:
    """The `self.` attributes the def's body reads, in the lines the hunk shows of it."""
    reads: list[str] = []
    for line in (side.lines[r] for r in block_rows(side, row)):
        if not line.lstrip().startswith("#"):
            reads.extend(f"self.{a}" for a in _SELF_READ.findall(line))
    return tuple(dict.fromkeys(reads))[:3]


_FUNCTOOLS_IMPORT = re.compile(r"^\s*(?:from\s+functools\s+import\s|import\s+functools\b)")


def only_caches_added(pr: PullRequest) -> bool:
    """The code that runs changes only by results now kept: cache decorators added (or put in
    place of `@property`), and their import. The value each call gives is the same; only how
    often it is computed changes, so the PR is TRIVIAL (vLLM #35099)."""
    changes = caches_changed(pr)
    if not changes or not all(c.cached for c in changes):
        return False
    running = replace(pr, files=tuple(f for f in pr.files if runs_code(f)))
    sides = diff_lines(running)
    lines = [line for line in (*sides.added, *sides.removed) if line.strip()]
    return any(_CACHE.match(line) for line in sides.added) and all(
        _CACHE.match(line) or _PROPERTY.match(line) or _FUNCTOOLS_IMPORT.match(line)
        for line in lines
        if not line.lstrip().startswith("#")
    )
