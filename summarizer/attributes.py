"""Attributes a class no longer sets: what code outside the diff reads, and the diff hides.

A public attribute declared in `__init__` (`self.output_messages: list[...] = []`) is part of
a class's interface as much as a method is, and the facts' definitions do not see it go. On
the dev days a reader named it the risk the summary missed: vLLM #34183 drops
`Request.get_hash_new_full_blocks` (its test moves to `update_block_hashes()`), and #34188
turns `SimpleContext.output_messages` into a property, so code that assigned or appended to it
breaks. Only a declaration the diff removes counts, and only when nothing the diff shows sets
the attribute again or still reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import ChangedFile, PullRequest
from summarizer.checks import runs_code
from summarizer.facts import line_owner
from summarizer.hunks import Hunk, parse_hunks

# `self.name: Type = value`: a declaration, not a reassignment somewhere in a method.
_DECLARED = re.compile(r"^\s*self\.([A-Za-z]\w*)\s*:\s*[^=]+=(?!=)")
_CLASS = re.compile(r"class\s+\w+")
_PROPERTY = re.compile(r"^\s*def\s+([A-Za-z]\w*)\s*\(\s*self\s*\)")


@dataclass(frozen=True)
class DroppedAttribute:
    file: str
    owner: str  # the class
    name: str
    now_property: bool  # the PR defines a property of the same name in its place

    @property
    def qualified(self) -> str:
        return f"{self.owner}.{self.name}"


def attributes_dropped(pr: PullRequest) -> list[DroppedAttribute]:
    out: list[DroppedAttribute] = []
    for f in pr.files:
        if f.filename.endswith(".py") and f.patch and runs_code(f):
            out += _dropped_in(f)
    return out


def _dropped_in(f: ChangedFile) -> list[DroppedAttribute]:
    hunks = parse_hunks(f.patch or "")
    declared: dict[str, str] = {}  # name -> class, for declarations removed from `__init__`
    for hunk in hunks:
        for row in sorted(hunk.old.changed):
            m = _DECLARED.match(hunk.old.lines[row])
            owner = (line_owner(f.filename, hunk, False, row) or "").split(".")
            # In `__init__`, or in a method of the class whose `def` is above the hunk.
            in_init = owner[1:] == ["__init__"] or (
                len(owner) == 1 and _CLASS.match(hunk.header) is not None
            )
            if m and owner[0] and in_init:
                declared.setdefault(m.group(1), owner[0])
    if not declared:
        return []
    kept, properties = _still_there(hunks)
    return [
        DroppedAttribute(f.filename, owner, name, name in properties)
        for name, owner in declared.items()
        if name not in kept or name in properties
    ]


def _still_there(hunks: list[Hunk]) -> tuple[set[str], set[str]]:
    """The attributes the diff's new side still sets or reads (`self.x` on an added or an
    unchanged line), and the properties it adds (`@property` over `def x(self)`)."""
    kept: set[str] = set()
    properties: set[str] = set()
    for hunk in hunks:
        lines = hunk.new.lines
        for row, line in enumerate(lines):
            kept.update(re.findall(r"\bself\.([A-Za-z]\w*)", line))
            m = _PROPERTY.match(line)
            if m and row in hunk.new.changed and row and lines[row - 1].strip() == "@property":
                properties.add(m.group(1))
    return kept, properties
