"""A name the PR introduces to hold a value, and the value it holds.

vLLM #35429 adds `mq_connect_ip = get_ip()` and passes `connect_ip=mq_connect_ip` where it
passed `self.parallel_config.master_addr`. "`master_addr` becomes `mq_connect_ip`" is exact
and says nothing: the fix is that the address is now the local node's (`get_ip()`), and the
line that says so is a few rows up. A reader of the edit wants the value with the name.
"""

from __future__ import annotations

import re

from bot.core.models import PullRequest

_ASSIGNED = re.compile(
    r"^[+\- ]\s*(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)\s*(?P<value>.*?)\s*;?$"
)
_VALUE_CHARS = 60  # a longer value is a sentence of its own, not a gloss on a name


def new_local_value(pr: PullRequest, path: str, name: str) -> str:
    """What `name` is set to, where the PR's added lines of `path` give it a value once, on
    one line, and no other line of the file's diff assigns it; "" otherwise."""
    file = next((f for f in pr.files if f.filename == path), None)
    if file is None or not file.patch or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return ""
    values = [
        (line[0], m["value"])
        for line in file.patch.splitlines()
        if (m := _ASSIGNED.match(line)) and m["name"] == name
    ]
    if len(values) != 1 or values[0][0] != "+":
        return ""
    value = values[0][1]
    whole = value and value.count("(") == value.count(")") and value[-1] not in "([{,\\"
    return value if whole and len(value) <= _VALUE_CHARS else ""
