"""A one-line assignment rewritten as one wrapped over several lines: the value, changed.

The pairing of edited lines (summarizer/line_edits.py) pairs a line with a line; vLLM #34396
replaces `intermediate_size = layer.intermediate_size_per_partition` with a conditional
expression over five lines, and no pair is found. Joined, the new lines are one assignment of
the same name, and what the code below reads is the new value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.code_hunks import code_hunks, if_condition
from summarizer.facts import line_owner
from summarizer.line_edits import rows_by_block


@dataclass(frozen=True)
class RewrappedAssignment:
    """`name = old` on one line, now `name = (…)` over several: the value, rewritten."""

    file: str
    enclosing: str | None
    name: str  # a name, or a dictionary's quoted key (`"audio"`)
    old: str
    new: str  # the new value, its lines joined
    # The `if` it stands under, when the hunk shows it: which runs get the new value at all
    # (vLLM #34396's only where `envs.VLLM_TUNED_CONFIG_FOLDER` is set).
    condition: str = ""

    @property
    def subject(self) -> str:
        """How a sentence names what was given the value: `x`, or the `"audio"` entry."""
        return f"the `{self.name}` entry" if self.name[0] in "\"'" else f"`{self.name}`"


# `name = value`, or a dictionary entry written on its own line: `"audio": value,` (vLLM #34140
# now passes every audio where it passed the first).
_ASSIGNMENT = re.compile(
    r"^\s*(?:(?P<name>[\w.]+)\s*(?::[^=]+)?=(?!=)|(?P<key>\"[\w.-]+\"|'[\w.-]+')\s*:)"
    r"\s*(?P<value>.+?)\s*(?(key),?)\s*$"
)
_REWRAPPED_CHARS = 140  # a longer value is not quoted: it would be the sentence


def rewrapped_assignments(pr: PullRequest) -> list[RewrappedAssignment]:
    """Each one-line assignment of the code that runs that the PR replaces, in its change
    block, by one assignment of the same name wrapped over several lines (vLLM #34396's
    `intermediate_size`, now a conditional expression): the pairing of lines misses it."""
    found = []
    for path, hunk in code_hunks(pr):
        removed, added = rows_by_block(hunk.old), rows_by_block(hunk.new)
        for block, olds in removed.items():
            news = added.get(block, [])
            if len(olds) == 1 and len(news) > 1:
                old = _ASSIGNMENT.match(hunk.old.lines[olds[0]])
                new = _one_statement([hunk.new.lines[r] for r in news])
                if old and new and new[0] == _target(old) and not unclosed(old["value"]):
                    where = line_owner(path, hunk, True, news[0])
                    found.append(
                        RewrappedAssignment(
                            path, where, _target(old), old["value"], new[1],
                            if_condition(hunk.new, news[0]),
                        )  # fmt: skip
                    )
    return found


def _one_statement(lines: list[str]) -> tuple[str, str] | None:
    """(name, value) when the lines are one assignment whose brackets close on its last line."""
    text = ""
    for i, line in enumerate(lines):
        text = f"{text} {line.strip()}".strip()
        if bool(unclosed(text)) != (i < len(lines) - 1) or "#" in line:
            return None
    m = _ASSIGNMENT.match(text)
    if not m:
        return None
    name = _target(m)
    value = re.sub(r",?\s*([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", m["value"]))
    if value.startswith("(") and value.endswith(")") and _closes_last(value):
        value = value[1:-1]  # the brackets a formatter adds to wrap an expression
    return (name, value) if len(value) <= _REWRAPPED_CHARS else None


def _target(m: re.Match[str]) -> str:
    return m["name"] or m["key"]


def _closes_last(value: str) -> bool:
    """The bracket that opens `value` is the one that closes it."""
    return all(unclosed(value[:i]) for i in range(1, len(value)))
