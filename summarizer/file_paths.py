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

# A file's path: directories and a file name with a suffix (`a/b/c.py`), as a word of prose.
_PATH = re.compile(r"(?<![\w./-])(?:[\w.-]+/)+[\w.-]+\.\w{1,5}(?![\w/-])")
_CLOSE = 0.9  # difflib's ratio of a misspelled path to the one it means, at least


def repaired_paths(text: str, pr: PullRequest) -> str:
    """The text with each path that names no changed file, but can mean only one, replaced
    by that file's path."""
    names = {f.filename for f in pr.files}

    def meant(m: re.Match[str]) -> str:
        path = m.group(0)
        if path in names or any(n.endswith(f"/{path}") for n in names):
            return path
        return path_meant(path, pr) or path

    return _PATH.sub(meant, text)


def path_meant(path: str, pr: PullRequest) -> str:
    """The one changed file a misspelled path can only mean: the same path with another
    suffix, the same file name in another directory, or a path a letter or two off. "" when
    none or several."""
    wanted = PurePosixPath(path)
    rules: tuple[Callable[[PurePosixPath], bool], ...] = (
        lambda p: p.with_suffix("") == wanted.with_suffix(""),
        lambda p: p.name == wanted.name,
        lambda p: SequenceMatcher(None, str(p), path).ratio() >= _CLOSE,
    )
    for same in rules:
        found = {f.filename for f in pr.files if same(PurePosixPath(f.filename))}
        if len(found) == 1:
            return found.pop()
        if found:
            return ""
    return ""
