"""Whether a PR only relocates code: files or definitions moved, imports rewritten to follow
them, and no line of logic new or gone.

On the dev days the small model said of vLLM #34055, which moved 21 kernel modules to a new
package and rewrote the imports that reach them, "This change affects the performance and
the behavior of the model". Nothing that runs differs; a claim of an effect is wrong there,
as it is for a PR that changes only docs.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.claims import normalize_code
from summarizer.facts import ChangeFacts, common_dir, is_import
from summarizer.file_kinds import is_support_file, runs_code
from summarizer.hunks import parse_hunks
from summarizer.prose import prose_lines
from summarizer.wording import code

# A package's export list, which follows its modules: `__all__ = [`, `"FP8Kernel",`, `]`.
_EXPORTS = re.compile(r"""\s*(?:__all__\s*[:=+].*|["'][\w.]+["'],?|[\])]\s*)$""")


def only_relocates(pr: PullRequest, facts: ChangeFacts) -> bool:
    """Files or whole definitions of the code that runs moved, no definition changed where
    it stands, and every other changed line of that code an import, prose, an export list's
    line, or a line the PR removes in one place and adds in another, as often on each side.
    Lines moved from one function to another change what each does (vLLM #34208 moved a
    flag between parsers), so they do not count."""
    running = {f.filename for f in pr.files if runs_code(f)}
    moved = [f for f in facts.files if f.change in ("moved", "renamed") and f.file in running]
    if not (moved or any(m.new_file in running for m in facts.moves)):
        return False
    if facts.signatures or any(
        d.change == "changed" and d.file in running for d in facts.definitions
    ):
        return False
    sides: dict[bool, Counter[str]] = {False: Counter(), True: Counter()}
    for f in pr.files:
        if f.filename in running:
            _count_logic(f.filename, f.patch or "", sides)
    return sides[False] == sides[True]


def _count_logic(path: str, patch: str, sides: dict[bool, Counter[str]]) -> None:
    """Counts the file's changed lines of logic by side (False: removed, True: added)."""
    python = PurePosixPath(path).suffix in (".py", ".pyi")
    for hunk in parse_hunks(patch):
        for new, side in ((False, hunk.old), (True, hunk.new)):
            prose = prose_lines(side.lines, python)
            sides[new].update(
                normalize_code(side.lines[row])
                for row in side.changed
                if not prose[row]
                and not is_import(side.lines, row, hunk.header)
                and not _EXPORTS.match(side.lines[row])
            )


def moved_modules(facts: ChangeFacts) -> tuple[str, int]:
    """The Python modules of the code that runs moved or renamed, with nothing left at their
    old path, said in a phrase ("21 modules from `a/` to `b/`"), and how many: ("", 0) for
    none."""
    kept = {f.file for f in facts.files}
    moved = [
        f for f in facts.files
        if f.change in ("moved", "renamed") and f.previous and f.previous.endswith(".py")
        and f.previous not in kept and not is_support_file(f.previous)
    ]  # fmt: skip
    if not moved:
        return "", 0
    old = common_dir([f.previous or "" for f in moved])
    new = common_dir([f.file for f in moved])
    if len(moved) == 1:
        return f"`{moved[0].previous}` to `{moved[0].file}`", 1
    if old and new and old != new:
        return f"{len(moved)} modules from `{old}/` to `{new}/`", len(moved)
    return f"{len(moved)} modules, {code(moved[0].previous or '')} among them,", len(moved)


def relocation_sentence(facts: ChangeFacts, pr: PullRequest) -> str:
    """What a PR that only relocates code changes for its readers: where it lives."""
    what, count = moved_modules(facts)
    if not count or not only_relocates(pr, facts):
        return ""
    them = "it" if count == 1 else "them"
    return (
        f"Only where the code lives changes: the PR moves {what} and rewrites the imports "
        f"that reach {them}; no line of logic is new or gone."
    )
