"""The claim check: every identifier and path a summary names must appear in the PR.

A summary that names `foo_bar` when no file, diff line, title or description mentions it has
made something up (or misremembered it), which is exactly what readers flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest, SummarySections

_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?![\w/])")


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
    paths = [m.group(1) for m in _PATH.finditer(_BACKTICKED.sub(" ", text))]
    return list(dict.fromkeys([*backticked_names(sections), *paths]))


def summary_text(sections: SummarySections) -> str:
    """Everything a summary claims: the headline (read first, and alone in the day at a
    glance, so it is held to the same rule) and the four sections."""
    return " ".join([sections.headline, *(text for _, text in sections.items())])


def backticked_names(sections: SummarySections) -> list[str]:
    """The names a summary puts in backticks, in order of first mention, without repeats."""
    text = summary_text(sections)
    return list(
        dict.fromkeys(m.group(1).strip() for m in _BACKTICKED.finditer(text) if m.group(1).strip())
    )


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


def _grounded(claim: str, corpus: str) -> bool:
    if claim in corpus:
        return True
    core = claim.strip().rstrip(";,.:")
    core = re.sub(r"\(.*\)$", "", core)  # `fn()` / `fn(x, y)` name `fn`
    core = re.sub(r"^(--?|@|\$)", "", core)  # flags, decorators, shell variables
    if core and core in corpus:
        return True
    # `vllm.model_executor.kernels` is grounded by `vllm/model_executor/kernels/...`.
    if "." in core and core.replace(".", "/") in corpus:
        return True
    # `x = 64`, `Foo.bar`, `a/b`: every name-like part must appear.
    parts = [p for p in re.split(r"[^\w]+", core) if len(p) > 1 and not p.isdigit()]
    return bool(parts) and all(p in corpus for p in parts)
