"""A feature check that now asks for other names: the installs that passed it and now fail.

`hasattr(_flashinfer_comm, "trtllm_allreduce_fusion")` becomes `hasattr(_flashinfer_comm,
"allreduce_fusion") and hasattr(_flashinfer_comm, "create_allreduce_fusion_workspace")`
(vLLM #33985): a FlashInfer that has the old entry point and not the new ones passed the
check and now fails it, and the code takes the path it takes when FlashInfer lacks the
feature. Nothing raises: the fusion is simply off. That is the question a reviewer asks of
such a change, and the diff answers it exactly.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import changed_runs, line_owner
from summarizer.file_kinds import is_tooling_file
from summarizer.hunks import Hunk, Side

_HASATTR = re.compile(r"\bhasattr\(\s*(?P<subject>[A-Za-z_][\w.]*)\s*,\s*[\"'](?P<name>\w+)[\"']\s*\)")
_OWN_STATE = frozenset({"self", "cls"})  # an object asking about itself, not about an install


@dataclass(frozen=True)
class ProbeChange:
    file: str
    enclosing: str | None
    subject: str  # what is probed: `_flashinfer_comm`
    before: tuple[str, ...]  # the names the check asked for
    after: tuple[str, ...]  # the names it asks for now


def probes_changed(pr: PullRequest) -> list[ProbeChange]:
    """Each `hasattr` check of the Python code that runs whose names the PR changes for the
    same subject, with at least one name it did not ask for before, in diff order."""
    found = [p for path, hunk in code_hunks(pr) for p in _hunk_probes(path, hunk)]
    # The library's own code first: a benchmark script's check decides no user's path.
    return sorted(found, key=lambda p: is_tooling_file(p.file))


def _hunk_probes(path: str, hunk: Hunk) -> list[ProbeChange]:
    old, new = _asked(hunk.old), _asked(hunk.new)
    found = []
    for subject, (after, row) in new.items():
        before = old.get(subject, ((), 0))[0]
        if not before or subject in _OWN_STATE or not set(after) - set(before):
            continue
        owner = line_owner(path, hunk, True, row)
        found.append(ProbeChange(path, owner, subject, before, after))
    return found


def _asked(side: Side) -> dict[str, tuple[tuple[str, ...], int]]:
    """For each subject the changed lines probe: the names asked for, and the first row.
    A run of changed lines is read as one text: a formatter wraps `hasattr(` calls."""
    names: dict[str, list[str]] = defaultdict(list)
    rows: dict[str, int] = {}
    for run in changed_runs(side):
        first, text = run[0], " ".join(side.lines[r].strip() for r in run)
        for m in _HASATTR.finditer(text):
            rows.setdefault(m["subject"], first)
            if m["name"] not in names[m["subject"]]:
                names[m["subject"]].append(m["name"])
    return {s: (tuple(n), rows[s]) for s, n in names.items()}

