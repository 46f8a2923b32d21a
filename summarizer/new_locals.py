"""A name the PR introduces to hold a value, and the value it holds.

vLLM #35429 adds `mq_connect_ip = get_ip()` and passes `connect_ip=mq_connect_ip` where it
passed `self.parallel_config.master_addr`. "`master_addr` becomes `mq_connect_ip`" is exact
and says nothing: the fix is that the address is now the local node's (`get_ip()`), and the
line that says so is a few rows up. A reader of the edit wants the value with the name.
"""

from __future__ import annotations

import re

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.hunks import AUGMENTED, without_comment

# `name = value` as formatted Python writes an assignment: spaces around `=`, where a keyword
# argument in a call has none (`timeout=self.cfg.timeout,`).
_ASSIGNED = re.compile(r"^(?P<side>[+\- ])\s*(?P<name>[A-Za-z_]\w*)(?:: [^=]+)? = (?P<value>.+)$")
_VALUE_CHARS = 60  # a longer value is a sentence of its own, not a gloss on a name


def new_local_value(pr: PullRequest, path: str, name: str) -> str:
    """What `name` is set to, where the PR's added lines of the Python file `path` give it a
    value once, on one line, and no other line of the file's diff binds it (an assignment,
    `+=`, `for … in`, `as`, `:=`); "" otherwise. Lines outside the diff are not seen."""
    file = next((f for f in pr.files if f.filename == path), None)
    if file is None or not file.patch or not path.endswith(".py"):
        return ""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return ""
    lines = file.patch.splitlines()
    values = [
        (m["side"], m["value"]) for x in lines if (m := _ASSIGNED.match(x)) and m["name"] == name
    ]
    if len(values) != 1 or values[0][0] != "+" or _bound_otherwise(name, lines):
        return ""
    value = without_comment(values[0][1])
    whole = value and not unclosed(value) and value[-1] not in ",\\"
    return value if whole and len(value) <= _VALUE_CHARS else ""


def _bound_otherwise(name: str, lines: list[str]) -> bool:
    n = re.escape(name)
    other = rf"\b{n}\s*(?:{AUGMENTED}|:=)|\bfor\s+(?:\w+\s*,\s*)*{n}\b|\bas\s+{n}\b"
    return any(re.search(other, x) for x in lines)
