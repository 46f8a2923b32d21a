"""What a method the PR adds returns, where its whole body is one `return`.

vLLM #32975 replaces `len(self.output_token_ids)` with a new `self.num_output_tokens()`, in a
PR titled as a speed-up: the new call must give what the old expression gave. Each class
the PR gives the method says its own answer (`len(self.token_ids)` in one,
`len(self.token_ids) - self.prompt_len` in another), and a reader compares those, not the
name.
"""

from __future__ import annotations

import re

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.code_hunks import code_hunks
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Side, without_comment

_RETURN = re.compile(r"^\s*return\s+(?P<value>.+)$")
_VALUE_CHARS = 60  # a longer value is not quoted: it would be the sentence
_SHOWN = 3  # bodies said, at most


def new_returns(pr: PullRequest, name: str) -> list[tuple[str | None, str]]:
    """(owner class, value) of each added `def name(` of the Python code that runs whose body
    is one `return value` the PR adds, in diff order; the owner is None outside a class."""
    found: list[tuple[str | None, str]] = []
    head = re.compile(rf"^\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(")
    for path, hunk in code_hunks(pr):
        side = hunk.new
        for row in sorted(side.changed):
            if head.match(side.lines[row]) and (value := _only_return(side, row)):
                # The def's line lies in its class; the body's, in the method itself.
                owner = line_owner(path, hunk, True, row + 1) or ""
                found.append((owner.rpartition(".")[0] or None, value))
    return list(dict.fromkeys(found))[:_SHOWN]


def _only_return(side: Side, row: int) -> str:
    """The value of the body below the `def` at `row` when that body is one added `return`
    (its signature on one line, the body the next code line, nothing after it in the block)."""
    if not side.lines[row].rstrip().endswith(":"):
        return ""
    body = [r for r in range(row + 1, len(side.lines)) if is_code_line(side.lines[r])]
    if not body or body[0] not in side.changed:
        return ""
    m = _RETURN.match(without_comment(side.lines[body[0]]))
    depth = len(side.lines[body[0]]) - len(side.lines[body[0]].lstrip())
    after = body[1] if len(body) > 1 else None
    if after is not None and len(side.lines[after]) - len(side.lines[after].lstrip()) >= depth:
        return ""  # more statements in the body
    if not m or unclosed(m["value"]) or len(m["value"]) > _VALUE_CHARS:
        return ""
    return m["value"].strip()
