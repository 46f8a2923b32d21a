"""The claim check: every identifier and path a summary names must appear in the PR.

A summary that names `foo_bar` when no file, diff line, title or description mentions it has
made something up (or misremembered it), which is exactly what readers flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest, SummarySections

# A name in backticks, as the claim check reads it; and a CommonMark code span of any number of
# backticks, where text is left as written (the scrub, marking names as code).
BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# A file's path written in prose: directories and a name with a suffix (`a/b/c.py`).
FILE_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?![\w/])")


@dataclass(frozen=True)
class ClaimCheck:
    claims: tuple[str, ...]
    ungrounded: tuple[str, ...]

    @property
    def grounded_fraction(self) -> float:
        if not self.claims:
            return 1.0
        return 1 - len(self.ungrounded) / len(self.claims)

    @property
    def ok(self) -> bool:
        return not self.ungrounded


def extract_claims(sections: SummarySections) -> list[str]:
    """Backticked names and bare file paths, in order of first mention, without repeats."""
    text = summary_text(sections)
    paths = [m.group(1) for m in FILE_PATH.finditer(BACKTICKED.sub(" ", text))]
    return list(dict.fromkeys([*backticked_names(sections), *paths]))


def summary_text(sections: SummarySections) -> str:
    """Everything a summary claims: the headline (read first, and alone in the day at a
    glance, so it is held to the same rule) and the four sections."""
    return " ".join([sections.headline, *(text for _, text in sections.items())])


def backticked_names(sections: SummarySections) -> list[str]:
    """The names a summary puts in backticks, in order of first mention, without repeats."""
    text = summary_text(sections)
    return list(
        dict.fromkeys(m.group(1).strip() for m in BACKTICKED.finditer(text) if m.group(1).strip())
    )


def grounded_names(pr: PullRequest, sections: SummarySections, corpus: str = "") -> list[str]:
    """The distinct backticked names of the summary that the PR contains."""
    names = backticked_names(sections)
    missing = set(check_names(names, pr, corpus or pr_corpus(pr)))
    return [name for name in names if name not in missing]


def check_names(names: list[str], pr: PullRequest, corpus: str | None = None) -> list[str]:
    """The names that appear nowhere in the PR."""
    corpus = pr_corpus(pr) if corpus is None else corpus
    return [name for name in names if not _grounded(name, corpus)]


def pr_corpus(pr: PullRequest) -> str:
    parts = [pr.title, pr.body, " ".join(pr.labels)]
    for f in pr.files:
        parts += [f.filename, f.previous_filename or "", f.patch or ""]
    return "\n".join(parts)


def check_claims(
    sections: SummarySections, pr: PullRequest, corpus: str | None = None
) -> ClaimCheck:
    claims = extract_claims(sections)
    return ClaimCheck(tuple(claims), tuple(check_names(claims, pr, corpus)))


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _grounded(claim: str, corpus: str) -> bool:
    core = claim.strip().rstrip(";,.:")
    core = re.sub(r"\(.*\)$", "", core)  # `fn()` / `fn(x, y)` name `fn`
    core = re.sub(r"^(--?|@|\$)", "", core)  # flags, decorators, shell variables
    if _IDENTIFIER.fullmatch(core):
        return _names_in(core, corpus)
    if claim in corpus:
        return True
    if core and core in corpus:
        return True
    if FILE_PATH.fullmatch(core):
        # A file's path is one name: `quantization/quark.py` is not grounded by its parts
        # (vLLM #34157 has `quantization/quark/quark.py`).
        return False
    # `vllm.model_executor.kernels` is grounded by `vllm/model_executor/kernels/...`.
    if "." in core and core.replace(".", "/") in corpus:
        return True
    # `x = 64`, `Foo.bar`, `a/b`: every name-like part must appear.
    parts = [p for p in re.split(r"[^\w]+", core) if len(p) > 1 and not p.isdigit()]
    return bool(parts) and all(p in corpus for p in parts)


def _names_in(name: str, corpus: str) -> bool:
    """`name` stands in the corpus as a whole name, not as a piece of a longer one:
    `test_x_event` is not `test_x_events`, nor `MLAAttention` `BailingMoeV25MLAAttention`
    (a small model cuts and misspells names). A leading underscore may differ:
    `build_metadata` is how a sentence says `_build_metadata`."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?!\w)", corpus) is not None


# What the diff says on each side: the answer checks (summarizer.checks) ask whether a name
# a summary says was added is on the added side, and whether quoted code is in the diff as written.


@dataclass(frozen=True)
class DiffLines:
    """A PR's diff lines by side, without their leading `+`, `-` or space."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    context: tuple[str, ...]


def diff_lines(pr: PullRequest) -> DiffLines:
    """The lines of every hunk (after its `@@` header) of every file, by side."""
    sides: dict[str, list[str]] = {"+": [], "-": [], " ": []}
    for f in pr.files:
        in_hunk = False
        for line in (f.patch or "").splitlines():
            if line.startswith("@@"):
                in_hunk = True
                sides[" "].append(line.rsplit("@@", 1)[-1])  # the enclosing function, if any
            elif in_hunk and line[:1] in sides:
                sides[line[:1]].append(line[1:])
    return DiffLines(tuple(sides["+"]), tuple(sides["-"]), tuple(sides[" "]))


_SPACE_AROUND_PUNCT = re.compile(r"\s*([^\w\s])\s*")


def normalize_code(text: str) -> str:
    """Code with its white space made canonical: `a = f( x )` and `a=f(x)` read the same."""
    return _SPACE_AROUND_PUNCT.sub(r"\1", " ".join(text.split()))


def code_pattern(code: str) -> re.Pattern[str]:
    """Finds `code` (normalized) in normalized text, as a whole: `dtype` is not in `dtypes`."""
    norm = normalize_code(code)
    left = r"(?<!\w)" if norm[:1].isalnum() or norm[:1] == "_" else ""
    right = r"(?!\w)" if norm[-1:].isalnum() or norm[-1:] == "_" else ""
    return re.compile(left + re.escape(norm) + right)


def lines_with(code: str, lines: tuple[str, ...]) -> int:
    """How many of the (normalized) lines contain `code`."""
    if not normalize_code(code):
        return 0
    pattern = code_pattern(code)
    return sum(1 for line in lines if pattern.search(line))


_OPERATOR = re.compile(r"[=<>!+*%&|^?]|\s|\w\(.*\S.*\)")
_NAME_OR_GLOB = re.compile(r"[\w.*/-]+(\s*\(\s*\))?")


def is_expression(span: str) -> bool:
    """Backticked code rather than a name: `64 if n > 1 else 128`, `x = 3`, `f(a, b)`.
    Such code must be in the PR as written (white space aside), not just its names."""
    core = re.sub(r"^(--?|@|\$)", "", span.strip().rstrip(";,.:"))
    return bool(_OPERATOR.search(core)) and not _NAME_OR_GLOB.fullmatch(core)


def code_lines(pr: PullRequest) -> tuple[str, ...]:
    """Every line of the diff, the title and the description, normalized: where quoted code
    must be found as written."""
    sides = diff_lines(pr)
    texts = [*sides.added, *sides.removed, *sides.context, pr.title, *pr.body.splitlines()]
    return tuple(normalize_code(text) for text in texts)
