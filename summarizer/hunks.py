"""A unified diff's hunks, each side a fragment of its file: which lines it shows, and which
of them changed. Everything that reads a diff by its lines (the facts, the prose check, the
placement of a change, the raises) reads it through `parse_hunks`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A patch is read up to PATCH_CHARS: the work per PR stays bounded for a PR of huge files.
PATCH_CHARS = 60_000
LINE_CHARS = 400  # longer lines are minified or generated; they hold no definition worth naming

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")


@dataclass
class Side:
    """One side of a hunk as a fragment of the file: its lines and which of them changed."""

    lines: list[str] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)

    def add(self, text: str, changed: bool) -> None:
        if changed:
            self.changed.add(len(self.lines))
        self.lines.append(text if len(text) <= LINE_CHARS else "")

    @property
    def source(self) -> bytes:
        return "\n".join(self.lines).encode("utf-8", "replace") + b"\n"


@dataclass
class Hunk:
    header: str
    old: Side = field(default_factory=Side)
    new: Side = field(default_factory=Side)


def parse_hunks(patch: str) -> list[Hunk]:
    """The hunks of a unified diff (GitHub's `patch`, from its first `@@`)."""
    hunks: list[Hunk] = []
    last_line_only: str | None = None  # a last line removed only to add its newline back
    for line in patch[:PATCH_CHARS].splitlines():
        head = _HUNK.match(line)
        if head:
            hunks.append(Hunk(head.group(1).strip()))
        elif not hunks:
            continue
        elif line.startswith("\\"):  # "\ No newline at end of file"
            old = hunks[-1].old
            if old.lines and len(old.lines) - 1 in old.changed:
                last_line_only = old.lines[-1]
        elif line.startswith("-"):
            hunks[-1].old.add(line[1:], True)
        elif line.startswith("+"):
            if line[1:] == last_line_only:
                hunks[-1].old.changed.discard(len(hunks[-1].old.lines) - 1)
            hunks[-1].new.add(line[1:], line[1:] != last_line_only)
            last_line_only = None
        else:
            hunks[-1].old.add(line[1:], False)
            hunks[-1].new.add(line[1:], False)
    return hunks


def indent_of(line: str) -> int:
    """How deep a line is indented: its leading white space."""
    return len(line) - len(line.lstrip())


def assigns(name: str) -> re.Pattern[str]:
    """A line that gives `name` a value: `name = …`, `name: T = …` (not `name == …`)."""
    return re.compile(rf"^\s*{re.escape(name)}\s*(?::[^=]+)?=(?!=)")


# An augmented assignment's operator: `+=`, `//=`, `<<=` (not `==`, `<=`).
AUGMENTED = r"(?:[-+*/%&|^@]|//|\*\*|<<|>>)="


def without_comment(code: str) -> str:
    """A line of Python without its trailing `# comment` (one after the last quote only)."""
    return re.sub(r"\s+#[^\"']*$", "", code).strip()
