"""A sequence the PR now sorts where the code used it in the order it was given.

`hf_weights_files = sorted(hf_weights_files, key=_natural_sort_key)` is one line (vLLM #34190),
and the whole fix: every rank must see the files in one order. The concern a reviewer raises
is the same line read the other way: whatever relied on the order as given (which file comes
first, which rank loads which) now sees another. Only a sequence sorted into itself counts:
`x = sorted(x)` or `x.sort()`, in code that was there before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import DEF_LINE, code_hunks
from summarizer.facts import line_owner

_SORTED_INTO = re.compile(r"^\s*(?P<name>[\w.]+)\s*=\s*sorted\(\s*(?P=name)\s*(?P<rest>[,)].*)$")
_SORT_CALL = re.compile(r"^\s*(?P<name>[\w.]+)\.sort\((?P<rest>.*)$")
_KEY = re.compile(r"\bkey\s*=\s*(?:lambda\b[^,)]*|[\w.]+)")


@dataclass(frozen=True)
class NowSorted:
    file: str
    name: str  # the sequence, `hf_weights_files`
    owner: str | None  # the definition it is sorted in
    key: str  # `_natural_sort_key`, or "" for the natural order
    reverse: bool
    read_by: str = ""  # the first line below that reads it, as the diff shows it


def now_sorted(pr: PullRequest) -> list[NowSorted]:
    """Each sequence the Python code that runs now sorts into itself, in a definition the
    hunk shows was there (its `def` line, when shown, unchanged)."""
    found: list[NowSorted] = []
    for path, hunk in code_hunks(pr):
        side = hunk.new
        if any(DEF_LINE.match(side.lines[r]) for r in side.changed):
            continue  # a definition added or re-signed here: its order was never given
        for row in sorted(side.changed):
            line = side.lines[row]
            if m := _SORTED_INTO.match(line) or _SORT_CALL.match(line):
                key = _KEY.search(m["rest"])
                found.append(NowSorted(
                    path, m["name"], line_owner(path, hunk, True, row),
                    key.group(0).split("=", 1)[1].strip() if key else "",
                    "reverse=True" in m["rest"].replace(" ", ""),
                    _read_by(side.lines[row + 1 :], m["name"]),
                ))  # fmt: skip
    return found


def _read_by(below: list[str], name: str) -> str:
    """The first line below that uses `name`, when short enough to quote whole."""
    uses = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    for line in below:
        if uses.search(line):
            text = line.strip()
            return text if len(text) <= 60 else ""
    return ""
