"""Attributes a class no longer sets, or now sets: what code outside the diff reads, and the
diff hides.

A public attribute declared in `__init__` (`self.output_messages: list[...] = []`) is part of
a class's interface as much as a method is, and the facts' definitions do not see it go. On
the dev days a reader named it the risk the summary missed: vLLM #34183 drops
`Request.get_hash_new_full_blocks` (its test moves to `update_block_hashes()`), and #34188
turns `SimpleContext.output_messages` into a property, so code that assigned or appended to it
breaks. Only a declaration the diff removes counts, and only when nothing the diff shows sets
the attribute again or still reads it.

An attribute a method of code that was there now sets is the other way round, and as often
the whole fix: #35080 sets `self.truncate` in `MRotaryEmbedding.__init__`, which code outside
the diff read and failed on; #34198 sets the `chunk_gated_delta_rule` that
`Qwen3_5GatedDeltaNet`'s inherited forward uses. Code that reads it now gets the value where
it raised `AttributeError`, unless a base class set it: that is what a reviewer checks.

A class attribute a subclass no longer sets is inherited instead: #35054 drops
`supports_update_block_table: bool = False` from `Mamba1AttentionMetadataBuilder`, which now
gets its base class's value. Who reads it now sees that value, not the one the PR removes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.models import ChangedFile, PullRequest
from summarizer.brackets import unclosed
from summarizer.code_hunks import block_head
from summarizer.facts import line_owner
from summarizer.file_kinds import runs_code
from summarizer.hunks import Hunk, Side, parse_hunks
from summarizer.wording import code

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


_SETS = re.compile(
    r"^(?P<indent>\s*)self\.(?P<name>[A-Za-z]\w*)\s*(?::[^=]+)?=(?!=)\s*(?P<value>.+?)\s*$"
)
_VALUE_CHARS = 60  # a longer value is not quoted: the attribute's name says which
_LINE_CHARS = 80  # nor a longer declaration
_GET_WITHOUT_DEFAULT = re.compile(r"(?P<mapping>[\w.]+)\.get\((?P<key>[^,()]+)\)")
_BLOCK = re.compile(r"^\s*(?:if|elif|else|for|while|with|try|except|finally)\b")


@dataclass(frozen=True)
class SetAttribute:
    file: str
    owner: str  # the class
    name: str
    value: str  # as assigned, "" when too long to quote
    default: str  # the default of the new parameter the value is, or ""
    reader: str = ""  # the definition whose added lines read it, if any


def attributes_set(pr: PullRequest) -> list[SetAttribute]:
    """Each attribute a method of code that was there now sets at its top level, which no
    line the PR removes set: in diff order."""
    out: list[SetAttribute] = []
    for f in pr.files:
        if f.filename.endswith(".py") and f.patch and runs_code(f):
            hunks = parse_hunks(f.patch)
            was_set = {
                m["name"]
                for h in hunks
                for r in h.old.changed
                if (m := _SETS.match(h.old.lines[r]))
            }
            found = [a for h in hunks for a in _set_in(f.filename, h) if a.name not in was_set]
            out += [replace(a, reader=_new_reader(f.filename, hunks, a.name)) for a in found]
    return out


def _new_reader(path: str, hunks: list[Hunk], name: str) -> str:
    """The definition whose lines the PR adds read `self.name`, if any: then the attribute
    serves new code, and no older reader raised for its lack (vLLM #35352)."""
    read = re.compile(rf"\bself\.{name}\b(?!\s*(?::[^=]+)?=[^=])")
    for h in hunks:
        for row in sorted(h.new.changed):
            if read.search(h.new.lines[row]):
                return line_owner(path, h, True, row) or path
    return ""


def _set_in(path: str, hunk: Hunk) -> list[SetAttribute]:
    if not (set(range(len(hunk.new.lines))) - hunk.new.changed):
        return []  # all new: a new definition, which its own risk says
    found = []
    for row in sorted(hunk.new.changed):
        m = _SETS.match(hunk.new.lines[row])
        if not m or _under_block(hunk.new, row):
            continue
        owner = next(
            (p for p in (line_owner(path, hunk, True, row) or "").split(".") if p[:1].isupper()), ""
        )
        if owner:
            value = (
                m["value"] if len(m["value"]) <= _VALUE_CHARS and not unclosed(m["value"]) else ""
            )
            found.append(SetAttribute(path, owner, m["name"], value, _default(hunk, m["value"])))
    return found


def _under_block(side: Side, row: int) -> bool:
    """Whether the line is in the body of an `if`, a loop, a `with` or a `try`: set in some
    cases only, which summarizer/new_branches.py says."""
    head = block_head(side, row)
    return head is not None and bool(_BLOCK.match(side.lines[head]))


def _default(hunk: Hunk, value: str) -> str:
    """The default of the parameter named `value` that the hunk adds: `truncate: bool = True`."""
    if not value.isidentifier():
        return ""
    # Annotated, as a signature's parameter is: `name=value,` would be a call's argument.
    param = re.compile(rf"^\s*{value}\s*:[^=]+=\s*(?P<default>[^,]+?),?\s*$")
    for row in hunk.new.changed:
        if (m := param.match(hunk.new.lines[row])) and not unclosed(m["default"]):
            return m["default"]
    return ""


def set_sentence(a: SetAttribute) -> str:
    """ "`C` now sets `self.x = v`: code that reads `x` on it gets that value, where …" """
    said = code(f"self.{a.name} = {a.value}" if a.value else f"self.{a.name}")
    default = f", `{a.default}` unless a caller passes `{a.value}`" if a.default else ""
    sentence = (
        f"{code(a.owner)} now sets {said}{default}, which the PR's new code in "
        f"{code(a.reader)} reads."
        if a.reader
        else f"{code(a.owner)} now sets {said}{default}: code that reads `{a.name}` on it gets "
        "that value, where before it raised `AttributeError` unless a base class set it."
    )
    # `self.vocab.get("<think>")` is `None` for a vocabulary without it (vLLM #35352).
    if m := _GET_WITHOUT_DEFAULT.fullmatch(a.value):
        sentence += f" Where `{m['mapping']}` has no `{m['key']}`, it is `None`."
    return sentence


_CLASS_BODY = re.compile(r"^ {4}(?P<name>[A-Za-z]\w*)\s*(?::[^=]+)?=(?!=)\s*(?P<value>.+?)\s*$")
_HEADER = re.compile(r"^class\s+(?P<name>\w+)\s*(?P<bases>\(.*)?:?\s*$")


@dataclass(frozen=True)
class DroppedOverride:
    file: str
    owner: str  # the class
    line: str  # the removed line, stripped
    value: str
    based: bool  # the class names a base (its header opens a bracket)


def overrides_dropped(pr: PullRequest) -> list[DroppedOverride]:
    """Each attribute a top-level class of code that was there no longer sets in its body,
    which nothing the diff adds sets again: in diff order."""
    out: list[DroppedOverride] = []
    for f in pr.files:
        if f.filename.endswith(".py") and f.patch and runs_code(f):
            hunks = parse_hunks(f.patch)
            still = {
                m["name"] for h in hunks for line in h.new.lines if (m := _CLASS_BODY.match(line))
            }
            out += [o for h in hunks for o in _overrides_in(f.filename, h, still)]
    return out


def _overrides_in(path: str, hunk: Hunk, still: set[str]) -> list[DroppedOverride]:
    header = _HEADER.match(hunk.header)
    if header is None or len(hunk.old.changed) == len(hunk.old.lines):
        return []  # not in a class's body, or the whole class goes: its own risk says it
    found = []
    for row in sorted(hunk.old.changed):
        m = _CLASS_BODY.match(hunk.old.lines[row])
        if m and m["name"] not in still and not m["name"].startswith("__"):
            line = hunk.old.lines[row].strip()
            based = _based(header["bases"])
            found.append(DroppedOverride(path, header["name"], line, m["value"], based))
    return found


def _based(bases: str | None) -> bool:
    """Whether a class header names a base: `class A(B):`, or `class A(` wrapped."""
    return bases is not None and bases.replace(" ", "") not in ("", "()", "():")


def inherited_sentence(o: DroppedOverride) -> str:
    name = o.line.split("=")[0].split(":")[0].strip()
    said = code(name) if unclosed(o.line) or len(o.line) > _LINE_CHARS else code(o.line)
    if not o.based:
        return (
            f"{code(o.owner)} no longer sets {said}: code that reads `{name}` on it now raises "
            "`AttributeError`."
        )
    was = "" if unclosed(o.value) or len(o.value) > _VALUE_CHARS else f", where it got `{o.value}`"
    # A subclass sets a class attribute to override its base's; the reader of #35054 called
    # a hedge that no base might set it noise.
    return (
        f"{code(o.owner)} no longer sets {said} itself: code that reads `{name}` on it now gets "
        f"the value its base class sets{was}."
    )
