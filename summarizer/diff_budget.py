"""Choosing which parts of a PR's diff go into the prompt, under a token budget.

Files are taken by value (`rank_files`): source before config, tests and docs, and within
each the largest change first; lock files, generated, vendored and binary files are left out;
oversized patches are cut hunk by hunk. Every file that is cut or left out is accounted for,
so the model (and the reader of the coverage line) knows what it did not see.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.models import ChangedFile
from summarizer.tokens import count_tokens

LOCK_FILES = {
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "poetry.lock",
    "uv.lock",
    "pipfile.lock",
    "cargo.lock",
    "gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "pdm.lock",
    "bun.lockb",
}
BINARY_SUFFIXES = {
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".zip", ".gz", ".tgz", ".bz2",
    ".xz", ".whl", ".so", ".dll", ".dylib", ".exe", ".bin", ".pt", ".pth", ".onnx", ".gguf",
    ".safetensors", ".npy", ".npz", ".pkl", ".woff", ".woff2", ".ttf", ".otf", ".mp3", ".mp4",
    ".wav", ".parquet",
}  # fmt: skip
_GENERATED = re.compile(
    r"(_pb2(_grpc)?\.pyi?$|\.pb\.go$|\.min\.(js|css)$|\.map$|\.snap$|(^|/)generated/|"
    r"(^|/)__generated__/|\.generated\.)"
)
_VENDORED = re.compile(r"(^|/)(vendor|vendored|third_party|thirdparty|3rdparty|node_modules)/")
_TESTS = re.compile(r"(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.test\.")
_DOCS = re.compile(r"(^|/)(docs?|examples?)/|\.(md|rst|txt|adoc)$|(^|/)(README|CHANGELOG)[^/]*$")
_CONFIG = re.compile(
    r"(^|/)\.(github|buildkite|circleci|gitlab)/|\.(ya?ml|toml|ini|cfg|json)$|"
    r"(^|/)(Dockerfile[^/]*|Makefile|CMakeLists\.txt|requirements[^/]*|setup\.py)$"
)

# Files that get some diff before the budget runs out get at least this many tokens each:
# below it a patch fragment says too little to be worth the space.
MIN_SHARE = 160


@dataclass(frozen=True)
class FileDiff:
    file: ChangedFile
    text: str  # the patch as it goes into the prompt (maybe cut); "" when left out
    tokens: int
    note: str | None = None  # why it was cut or left out; None when shown whole


@dataclass(frozen=True)
class DiffSelection:
    files: tuple[FileDiff, ...]  # every changed file, in the prompt's order

    @property
    def shown(self) -> list[FileDiff]:
        return [f for f in self.files if f.text]

    @property
    def omitted(self) -> list[FileDiff]:
        return [f for f in self.files if not f.text]

    @property
    def tokens(self) -> int:
        return sum(f.tokens for f in self.files)


def exclusion_reason(f: ChangedFile) -> str | None:
    path = f.filename
    # posixpath, not PurePosixPath: this runs for every file of PRs of thousands, and the
    # names GitHub lists need no normalizing.
    name = posixpath.basename(path).lower()
    if name in LOCK_FILES or name.endswith(".lock"):
        return "lock file"
    if _VENDORED.search(path):
        return "vendored"
    if _GENERATED.search(path):
        return "generated"
    if posixpath.splitext(name)[1] in BINARY_SUFFIXES:
        return "binary"
    if f.patch is None:
        return "binary or too large for GitHub to show" if f.status != "renamed" else "renamed"
    if not f.patch.strip():
        return "no textual change"
    return None


def priority(path: str) -> int:
    """0 source, 1 build/CI/config, 2 tests, 3 docs and examples."""
    if _TESTS.search(path):
        return 2
    if _DOCS.search(path):
        return 3
    if _CONFIG.search(path):
        return 1
    return 0


TIERS = ("source", "config", "tests", "docs")


def file_kind(f: ChangedFile) -> str:
    """What a file is, in a word: its exclusion (lock file, vendored, generated, binary...)
    or its tier (source, config, tests, docs)."""
    return exclusion_reason(f) or TIERS[priority(f.filename)]


def changed_lines(f: ChangedFile) -> int:
    return f.additions + f.deletions


def rank_files(files: Sequence[ChangedFile]) -> list[ChangedFile]:
    """The files in the order their diffs are worth reading: the ones that can be shown
    (hand-written source, then config, tests and docs; the most changed lines first within
    each), then those left out (lock, generated, vendored, binary). GitHub's order only breaks
    ties, so what a huge PR lists first does not crowd out what it changes most."""

    def value(item: tuple[int, ChangedFile]) -> tuple[bool, int, int, int]:
        i, f = item
        return (exclusion_reason(f) is not None, priority(f.filename), -changed_lines(f), i)

    return [f for _, f in sorted(enumerate(files), key=value)]


@dataclass(frozen=True)
class Candidates:
    """A PR's files sorted once for `fit_diff`: those that can be shown, in `rank_files`
    order with their patch's tokens, and those left out with the reason why."""

    ranked: tuple[tuple[ChangedFile, int], ...]
    left_out: tuple[FileDiff, ...]


def candidates(files: Sequence[ChangedFile]) -> Candidates:
    ranked: list[tuple[ChangedFile, int]] = []
    left_out: list[FileDiff] = []
    for f in rank_files(files):
        reason = exclusion_reason(f)
        if reason:
            left_out.append(FileDiff(f, "", 0, f"not shown: {reason}"))
        else:
            ranked.append((f, count_tokens(f.patch or "")))
    return Candidates(tuple(ranked), tuple(left_out))


def select_diff(files: Sequence[ChangedFile], budget: int) -> DiffSelection:
    """The diff worth reading most that fits in `budget` tokens; every file accounted for."""
    return fit_diff(candidates(files), budget)


def fit_diff(files: Candidates, budget: int) -> DiffSelection:
    """Fit the diff into `budget` tokens, fairly: small patches whole, big ones cut to a share,
    in `rank_files` order, so whatever does not fit is the least worth reading."""
    cap = _water_level([t for _, t in files.ranked], budget)
    chosen: list[FileDiff] = []
    remaining = budget
    for f, tokens in files.ranked:
        share = min(tokens, max(cap, MIN_SHARE), remaining)
        # The file most worth reading gets some diff even from a small budget.
        least = MIN_SHARE if any(c.text for c in chosen) else MIN_SHARE // 3
        if share < min(tokens, least):
            chosen.append(FileDiff(f, "", 0, "not shown: over the prompt budget"))
            continue
        if share >= tokens:
            chosen.append(FileDiff(f, f.patch or "", tokens))
            remaining -= tokens
            continue
        text, used = cut_patch(f.patch or "", share)
        if not text:
            chosen.append(FileDiff(f, "", 0, "not shown: over the prompt budget"))
            continue
        chosen.append(FileDiff(f, text, used, f"cut to {used} of {tokens} tokens"))
        remaining -= used
    return DiffSelection(tuple(chosen) + files.left_out)


def _water_level(sizes: list[int], budget: int) -> int:
    """The largest cap c with sum(min(size, c)) <= budget (so every file gets a fair share)."""
    if sum(sizes) <= budget:
        return max(sizes, default=0)
    low, high = 0, max(sizes)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(s, mid) for s in sizes) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def cut_patch(patch: str, limit: int) -> tuple[str, int]:
    """The hunks of `patch` worth reading most that fit in `limit` tokens, in file order.

    Hunks are ranked by value (`hunk_value`): definitions and signatures, then changed logic;
    imports and blank or comment lines count for little. Each kept hunk keeps at most
    `CONTEXT_LINES` unchanged lines around its changes; a hunk larger than what is left keeps
    its first lines. What was left out is said in a bracketed note that the prompt tells the
    model is not part of the change.
    """
    hunks = [_compact(h) for h in split_hunks(patch)]
    costs = [count_tokens(h + "\n") for h in hunks]
    room = limit - 16  # for the note
    keep: dict[int, str] = {}
    for i in sorted(range(len(hunks)), key=lambda i: (-hunk_value(hunks[i]), i)):
        if costs[i] <= room:
            keep[i], room = hunks[i], room - costs[i]
        elif room >= MIN_SHARE // 4 and not keep:
            keep[i], room = _head(hunks[i], room), 0
    if not keep:
        return "", 0
    text = "\n".join(keep[i] for i in sorted(keep))
    left = sum(h.count("\n") + 1 for h in hunks) - (text.count("\n") + 1)
    if left > 0:
        text += f"\n[... {left} more diff lines of this file not shown ...]"
    return text, count_tokens(text)


CONTEXT_LINES = 2  # unchanged lines kept on each side of a change: enough to place it
_DEFINITION = re.compile(
    r"^[+-]\s*(?:async\s+def|def|class|struct|template|__global__|(?:static\s+)?inline)\b"
    r"|^[+-]\s*[\w:<>,*&\s]+\s+[\w:~]+\([^;]*\)\s*(?:const\s*)?\{?\s*$"
)
_LOW_VALUE = re.compile(r"^[+-]\s*(?:$|#|//|/\*|\*|import\s|from\s\S+\s+import\s|#include\b)")


def split_hunks(patch: str) -> list[str]:
    """`patch` as its hunks, each from its `@@` line (any text before the first is one)."""
    hunks: list[list[str]] = []
    for line in patch.split("\n"):
        if line.startswith("@@") or not hunks:
            hunks.append([])
        hunks[-1].append(line)
    return ["\n".join(h) for h in hunks if any(line.strip() for line in h)]


def hunk_value(hunk: str) -> float:
    """What a hunk is worth to a reader: each changed line of logic 1, a definition or a
    signature 8, an import, comment or blank line 0.1; then per token, a little, so that
    among hunks of equal worth the cheaper comes first."""
    value = 0.0
    for line in hunk.split("\n")[1:]:
        if not line.startswith(("+", "-")):
            continue
        if _DEFINITION.match(line):
            value += 8
        elif _LOW_VALUE.match(line):
            value += 0.1
        else:
            value += 1
    return value


def _compact(hunk: str) -> str:
    """The hunk with unchanged lines far from any change dropped (its header says where)."""
    lines = hunk.split("\n")
    changed = [i for i, line in enumerate(lines) if line.startswith(("+", "-")) and i]
    if not changed:
        return hunk
    keep = {0} | {
        j for i in changed for j in range(i - CONTEXT_LINES, i + CONTEXT_LINES + 1) if j > 0
    }
    out, gap = [], False
    for j, line in enumerate(lines):
        if j in keep:
            out.append(line)
            gap = False
        elif not gap:
            out.append(" ...")
            gap = True
    return "\n".join(out).rstrip(" .\n") if out[-1] == " ..." else "\n".join(out)


def _head(hunk: str, limit: int) -> str:
    """What of a hunk too big for `limit` is worth most: its header, then its definition
    lines, then its other changed lines, then the rest, each in order, kept in file order
    with " ..." where lines were skipped (a deleted file shows its definitions, not its
    license header and imports)."""
    lines = hunk.split("\n")

    def rank(i: int) -> int:
        line = lines[i]
        if i == 0 or _DEFINITION.match(line):
            return 0
        if line.startswith(("+", "-")) and not _LOW_VALUE.match(line):
            return 1
        return 2

    kept, used = set(), 0
    for i in sorted(range(len(lines)), key=lambda i: (rank(i), i)):
        cost = count_tokens(lines[i] + "\n") + 1
        if used + cost > limit:
            continue
        kept.add(i)
        used += cost
    out = []
    for i, line in enumerate(lines):
        if i in kept:
            out.append(line)
        elif out and out[-1] != " ...":
            out.append(" ...")
    return "\n".join(out)
