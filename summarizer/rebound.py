"""A name the code already used, rebound by a line the PR adds: every read below it changes.

vLLM #35396 adds `config = layer_config` to `NemotronHMLPDecoderLayer.__init__`, after the
lines that pick a per-layer config: the `config.intermediate_size` reads below now read that
config. One added line, no definition changed, and the facts say only "the class changes";
the reads of the name that follow are in the hunk, unchanged, and are what now differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Side

_REBIND = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<other>[A-Za-z_][\w.]*)\s*$")


@dataclass(frozen=True)
class Rebound:
    file: str
    enclosing: str | None
    name: str
    other: str  # what it is bound to now
    read: str  # the first read of it below, as written


def rebound_names(pr: PullRequest) -> list[Rebound]:
    """Each added `name = other` of the Python code that runs, where the hunk shows `name`
    read above it (it held a value already) and read below it."""
    found = []
    for path, hunk in code_hunks(pr):
        side = hunk.new
        for row in sorted(side.changed):
            m = _REBIND.match(side.lines[row])
            if not m or m["name"] == m["other"]:
                continue
            word = re.compile(rf"(?<![\w.]){m['name']}\b(?!\s*=[^=])")
            if _read(side, range(row), word) and (
                below := _read(side, range(row + 1, len(side.lines)), word)
            ):
                where = line_owner(path, hunk, True, row)
                found.append(Rebound(path, where, m["name"], m["other"], below))
    return found


def _read(side: Side, rows: range, word: re.Pattern[str]) -> str:
    """The first read of the name on an unchanged line of `rows` (`config.intermediate_size`),
    or ""."""
    for r in rows:
        text = side.lines[r]
        if r not in side.changed and is_code_line(text) and (m := word.search(text)):
            read = re.match(r"[\w.]+", text[m.start() :])
            return read.group(0) if read else ""
    return ""


def rebound_sentence(r: Rebound) -> str:
    where = f"In `{r.enclosing}`" if r.enclosing else f"In `{r.file}`"
    return (
        f"{where}, the PR rebinds `{r.name}` to `{r.other}`: the code below it that reads "
        f"`{r.name}`, from `{r.read}` on, now reads `{r.other}`."
    )
