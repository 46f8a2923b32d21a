"""Work a PR moves to import time: a module-level line that calls a function of the module.

`_GCN_ARCH = _get_gcn_arch()` at the top of `vllm/platforms/rocm.py` (vLLM #34108) makes the
GPU query run when the module is imported, before any caller asks for it, in every process
that imports it. That is the point of such a change (a plain bool that torch.compile can
trace), and also what a reviewer checks: what the function does at that moment (a device
query, initialising CUDA), and that an error it raises now fails the import.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.hunks import Hunk

# A name bound at column 0 to the result of calling a bare function name.
_BOUND = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=\s*(?P<call>(?P<func>[a-z_]\w*)\(.*)$")
_DEF = r"^\s*(?:async\s+)?def\s+{}\s*\("


@dataclass(frozen=True)
class ImportTimeCall:
    file: str
    line: str  # the line as the diff has it: `_GCN_ARCH = _get_gcn_arch()`
    function: str  # the function it calls at import: `_get_gcn_arch`


def import_time_calls(pr: PullRequest) -> list[ImportTimeCall]:
    """Each module-level line the PR adds to the Python code that runs that binds a name to a
    call of a function defined in the same file (a library's factory, `getLogger`, is not
    the module's own work), and that it does not move from elsewhere in the file."""
    by_file: dict[str, list[Hunk]] = defaultdict(list)
    for path, hunk in code_hunks(pr):
        by_file[path].append(hunk)
    return [call for path, hunks in by_file.items() for call in _file_calls(path, hunks)]


def _file_calls(path: str, hunks: list[Hunk]) -> list[ImportTimeCall]:
    bound = [
        (h.new.lines[row].rstrip(), m)
        for h in hunks for row in sorted(h.new.changed)
        if (m := _BOUND.match(h.new.lines[row].rstrip()))
    ]  # fmt: skip
    if not bound:
        return []
    lines = [line for h in hunks for line in h.new.lines + h.old.lines]
    removed = {h.old.lines[r].strip() for h in hunks for r in h.old.changed}
    found = []
    for line, m in bound:
        defined = re.compile(_DEF.format(re.escape(m["func"])))
        if line.strip() not in removed and any(defined.match(x) for x in lines):
            found.append(ImportTimeCall(path, line, m["func"]))
    return found
