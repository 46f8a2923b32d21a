"""A changed file's path as the model garbled it, put right where only one file is meant.

The built-in model writes the PR's paths from memory: `selective_scan.cpp` for
`selective_scan.h` (vLLM #35275), `quantization/quark.py` for `quantization/quark/quark.py`
(#34157), `test_harmon.py` for `test_harmony.py` (#34990). The claim check rightly finds such a
path nowhere in the PR, and the sentence around it, often the one that says the mechanism,
went with it. Where the path can mean only one changed file, the file is plain and the path
is what is wrong: it is replaced before anything is checked, and the sentence stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.claims import FILE_PATH, pr_corpus

_SLIPS = 2  # characters a misspelled path may leave out or add, at most


def repaired_paths(text: str, pr: PullRequest) -> str:
    """The text with each path that the PR has nowhere (not a file's path before or after
    it, not in its body or diff), but can mean only one changed file, replaced by that
    file's path."""
    return path_repair(pr)(text)


def path_repair(pr: PullRequest) -> Callable[[str], str]:
    """`repaired_paths` for one PR, its names and text gathered once for every section."""
    names = {n for f in pr.files for n in (f.filename, f.previous_filename) if n}
    corpus = pr_corpus(pr)

    def meant(m: re.Match[str]) -> str:
        path = m.group(0)
        if path in corpus or any(n.endswith(f"/{path}") for n in names):
            return path
        return path_meant(path, pr) or path

    return lambda text: FILE_PATH.sub(meant, text)


def path_meant(path: str, pr: PullRequest) -> str:
    """The one changed file a misspelled path can only mean: the same path with another
    suffix; the same file name one directory down (`quantization/quark.py` for
    `quantization/quark/quark.py`); the path in another case or with other separators in its
    names (`reasoningParser.py`, `a-gemm.cu`); or with a character or two left out or added
    (`test_harmon.py`), never replaced (`qwen2.py` is not `qwen3.py`). "" when none or
    several."""
    wanted = PurePosixPath(path)
    rules: tuple[Callable[[PurePosixPath], bool], ...] = (
        lambda p: p.with_suffix("") == wanted.with_suffix(""),
        lambda p: p.name == wanted.name and str(p.parent).startswith(f"{wanted.parent}/"),
        lambda p: _key(str(p)) == _key(path) or _slipped(str(p), path),
    )
    for same in rules:
        found = {f.filename for f in pr.files if same(PurePosixPath(f.filename))}
        if len(found) == 1:
            return found.pop()
        if found:
            return ""
    return ""


def _key(path: str) -> str:
    """A path as written in any case and with any separator in names: `a-gemm` is `a_gemm`,
    `reasoningParser` is `reasoning_parser`."""
    return re.sub(r"[-_]", "", path.lower())


def _slipped(real: str, written: str) -> bool:
    """`written` is `real` with at most `_SLIPS` characters left out or put in."""
    ops = SequenceMatcher(None, real, written, autojunk=False).get_opcodes()
    edits = [(tag, i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
    return (
        bool(edits)
        and all(t in ("insert", "delete") for t, _, _ in edits)
        and (sum(a + b for _, a, b in edits) <= _SLIPS)
    )
