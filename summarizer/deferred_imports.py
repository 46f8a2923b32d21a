"""A package the new code imports when it runs, not when its module loads.

`from flashinfer.gdn_prefill import chunk_gated_delta_rule` inside `fi_chunk_gated_delta_rule`
(vLLM #32846) is how a package stays optional: the module loads without it, and the first call
that takes that path is where a missing or too-old install shows, as an `ImportError` at that
call rather than at start-up, on the machines that take it. A reviewer asks which installs
take the path, and whether any test does. Imports of the standard library, of the PR's own
package and relative ones are not such a dependency, nor a package the same file imports at
its top (it is loaded already); an import the PR moves from elsewhere was deferred before.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.code_hunks import IF_LINE, code_hunks, indent_of
from summarizer.facts import line_owner, short_name
from summarizer.file_kinds import is_test_file, is_tooling_file
from summarizer.hunks import Hunk
from summarizer.wording import UNTESTED, code

_IMPORT = re.compile(r"^(?P<indent>\s+)(?:from\s+(?P<from>[\w.]+)\s+import\s+(?P<names>.*)|import\s+(?P<module>[\w.]+))")
_TOP_IMPORT = re.compile(r"^(?:from|import)\s+(?P<top>\w+)")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\s+as\s+\w+)?")


@dataclass(frozen=True)
class DeferredImport:
    file: str
    enclosing: str  # the definition that imports it when it runs
    module: str  # `flashinfer.gdn_prefill`
    names: tuple[str, ...]  # what it takes from the module; () for `import module`
    condition: str = ""  # the one-line `if` the import is under, in that definition
    # The module imports the package at its top where it is installed (under an `if` or a
    # `try`): an install without it never reaches this call, only a version that lacks
    # the module does (vLLM #34153 imports `triton_kernels` under `if has_triton_kernels()`).
    guarded_at_top: bool = False


def deferred_imports(pr: PullRequest) -> list[DeferredImport]:
    """Each import the PR adds inside a definition of the code that runs (Python), of a
    package outside the standard library and the PR's own packages, not moved from
    elsewhere in the PR; the library's before its scripts'."""
    own = {PurePosixPath(f.filename).parts[0] for f in pr.files}
    hunks = list(code_hunks(pr))
    removed = " ".join(h.old.lines[r] for _, h in hunks for r in h.old.changed)
    # What a file imports at its top is read once per file, not once per hunk or import.
    loaded = cache(lambda path: own | _loaded(path, hunks))
    guarded = cache(lambda path: _guarded(path, hunks))
    found = [
        replace(d, guarded_at_top=d.module.split(".")[0] in guarded(path))
        for path, hunk in hunks
        for d in _hunk_imports(path, hunk, loaded(path))
        if f" {d.module} " not in f" {removed} "
    ]
    return sorted(found, key=lambda d: is_tooling_file(d.file))


def _guarded(path: str, hunks: list[tuple[str, Hunk]]) -> set[str]:
    """The packages the file imports indented but in no definition: under an `if` or a
    `try` at its top, in the lines the diff shows of it."""
    return {
        m.group("from").split(".")[0] if m.group("from") else m.group("module").split(".")[0]
        for p, hunk in hunks if p == path
        for row, line in enumerate(hunk.new.lines)
        if (m := _IMPORT.match(line)) and not line_owner(path, hunk, True, row)
    }  # fmt: skip


def _loaded(path: str, hunks: list[tuple[str, Hunk]]) -> set[str]:
    """The packages the file imports at its top, in the lines the diff shows of it."""
    return {
        m.group("top")
        for p, hunk in hunks if p == path
        for line in hunk.new.lines if (m := _TOP_IMPORT.match(line))
    }  # fmt: skip


def _hunk_imports(path: str, hunk: Hunk, own: set[str]) -> list[DeferredImport]:
    side, found = hunk.new, []
    for row in sorted(side.changed):
        m = _IMPORT.match(side.lines[row])
        if m is None:
            continue
        module = m.group("from") or m.group("module")
        top = module.split(".")[0]
        if not top or top in own or top in sys.stdlib_module_names or top == "__future__":
            continue
        owner = line_owner(path, hunk, True, row)
        if not owner:
            continue  # under an `if` or `try` at the module's top: loaded with the module
        names = _names(m.group("names") or "", side.lines[row + 1 :])
        found.append(DeferredImport(path, owner, module, names, _condition(side.lines, row)))
    return found


def _names(first: str, after: list[str]) -> tuple[str, ...]:
    """The names `from module import ...` takes, over the lines of a parenthesised list."""
    text = first
    if text.lstrip().startswith("(") and ")" not in text:
        for line in after:
            text += " " + line
            if ")" in line:
                break
    text = text.split("#")[0].strip().strip("()")
    return tuple(n.split()[0] for n in _NAME.findall(text))


def _condition(lines: list[str], row: int) -> str:
    """The one-line `if` right above the import's level, within its definition: when it runs."""
    indent = indent_of(lines[row])
    for line in reversed(lines[:row]):
        if not line.strip() or indent_of(line) >= indent:
            continue
        m = IF_LINE.match(line)
        return m.group("cond").strip() if m else ""
    return ""


def deferred_import_sentence(d: DeferredImport, pr: PullRequest, more: int = 0) -> str:
    """ "`f` imports `g` from `pkg.mod` when it runs, not when its module loads: ..." """
    what = f"{code(d.names[0])} from {code(d.module)}" if d.names else code(d.module)
    when = f" (when {code(d.condition)})" if d.condition else ""
    package = d.module.split(".")[0]
    others = f" (and {more} more such import{'s' if more > 1 else ''})" if more else ""
    tested = "" if _tested(d, pr) else f", and {UNTESTED} calls it"
    if d.guarded_at_top:
        who = f"a version of `{package}` that lacks {code(d.module)}"
    else:
        who = f"an install without `{package}`, or with a version that lacks it,"
    return (
        f"{code(d.enclosing)} imports {what} when it runs{when}, not when its module loads"
        f"{others}: {who} gets an `ImportError` at that call rather than at start-up{tested}."
    )


def _tested(d: DeferredImport, pr: PullRequest) -> bool:
    name = short_name(d.enclosing)
    return any(is_test_file(f.filename) and name in (f.patch or "") for f in pr.files)
