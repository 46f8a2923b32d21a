"""A value a function computed for itself that it now takes from its callers.

vLLM #34167 fixes `max_query_len`: `build_attn_metadata` computed it as
`int(query_start_loc_cpu.max())`, the largest cumulative offset, and now takes it as a new
parameter that each caller computes. The small model listed the lines added and never said
what the function no longer does, which is what was broken. The diff shows both halves in
one function: a parameter the signature gains, and a line of its body that gave that name a
value, removed and not written back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.brackets import unclosed
from summarizer.code_hunks import code_hunks
from summarizer.facts import ChangeFacts, line_owner, param_name, short_name
from summarizer.file_kinds import is_support_file
from summarizer.hunks import Hunk, assigns, without_comment
from summarizer.wording import code

_VALUE_CHARS = 80  # an expression longer than this is not quoted: it would be the sentence


@dataclass(frozen=True)
class PassedIn:
    file: str
    function: str  # as the facts name it: `build_attn_metadata`, `Runner.step`
    name: str  # the new parameter, the name the body gave a value
    computed: str  # the value the body gave it: `int(query_start_loc_cpu.max())`


def passed_in(pr: PullRequest, facts: ChangeFacts) -> list[PassedIn]:
    """Each new parameter of a Python function of the code that runs whose name the same
    function's body gave a value on a line the PR removes, and gives none on a line it adds."""
    found: list[PassedIn] = []
    signatures = [
        s for s in facts.signatures if s.file.endswith(".py") and not is_support_file(s.file)
    ]
    by_file: dict[str, list[Hunk]] = {}
    for path, hunk in code_hunks(pr) if signatures else ():  # parsed once, for every signature
        by_file.setdefault(path, []).append(hunk)
    for s in signatures:
        hunks = by_file.get(s.file, [])
        for name in dict.fromkeys(param_name(p) for p in s.added_params):
            if value := _computed(s.file, hunks, s.name, name):
                found.append(PassedIn(s.file, s.name, name, value))
    return found


def _computed(path: str, hunks: list[Hunk], function: str, name: str) -> str:
    """The value the function's removed line gave `name`, where no added line gives it one."""
    gives = assigns(name)
    removed = ""
    for hunk in hunks:
        for new, side in ((False, hunk.old), (True, hunk.new)):
            for row in sorted(side.changed):
                line = without_comment(side.lines[row])
                if not gives.match(side.lines[row]) or line.endswith(","):
                    continue  # `name=value,` is an argument, not a line of the body
                if not _inside(path, hunk, new, row, function):
                    continue
                if new:
                    return ""
                removed = removed or _value(line, name)
    return removed


def _inside(path: str, hunk: Hunk, new: bool, row: int, function: str) -> bool:
    owner = line_owner(path, hunk, new, row) or ""
    return owner == function or short_name(owner) == short_name(function) == owner


def _value(line: str, name: str) -> str:
    value = assigns(name).sub("", line, count=1).strip()
    if not value or unclosed(value) or len(value) > _VALUE_CHARS:
        return ""
    return value


_SPACES = re.compile(r"\s+")
_READ = re.compile(r"^[\w.]+(?:\[[^\[\]]+\])*$")  # `cfg["dtype"]`, `self.x`: read, not computed


def passed_in_sentence(p: PassedIn) -> str:
    """ "`f` now takes `x` from its callers, where it computed it as `expr` itself." """
    value = _SPACES.sub(" ", p.computed)
    how = "read it from" if _READ.match(value) else "computed it as"
    return (
        f"{code(p.function)} now takes {code(p.name)} from its callers, where it {how} "
        f"{code(value)} itself."
    )
