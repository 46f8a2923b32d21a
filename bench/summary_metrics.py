"""What a reader would score in a summary, counted by code: the figures of bench/quality.py.

Every function reads one (PullRequest, SummarySections, ChangeType): a summary the model made
now, one stored by an earlier run, or a real report's reference sections, so the three are
measured by the same rules. Nothing here calls a model or touches a database.

- grounded identifiers: the distinct backticked names of the summary that the PR contains
  (the claim check's `backticked_names` and `check_names`);
- risk names code: the risk section has a grounded backticked name, or a changed file's path
  or base name (`utils.py`) as a word;
- findings: whether `check_answer` finds empty risk boilerplate, an unsupported performance
  claim or an inverted add/remove claim (each PR counted once per kind);
- type agreement with the reference, and TRIVIAL recall: of the PRs the reference calls
  TRIVIAL, the share typed TRIVIAL.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from bot.core.models import ChangeType, PullRequest, SummarySections
from summarizer.checks import FindingKind, check_answer
from summarizer.claims import grounded_names, pr_corpus

COUNTED = (FindingKind.EMPTY_RISK, FindingKind.UNSUPPORTED_PERFORMANCE, FindingKind.INVERTED)


@dataclass(frozen=True)
class Scores:
    """One PR's summary, scored."""

    number: int
    grounded: tuple[str, ...]  # distinct backticked names found in the PR
    risk_names_code: bool
    kinds: frozenset[FindingKind]  # of COUNTED, those `check_answer` finds
    change_type: ChangeType
    reference_type: ChangeType | None = None
    seconds: float | None = None  # the LLM calls' time; None when no model ran

    @property
    def type_agrees(self) -> bool | None:
        return None if self.reference_type is None else self.change_type == self.reference_type


def risk_names_code(pr: PullRequest, sections: SummarySections, corpus: str = "") -> bool:
    """The risk section names an identifier or file of the PR: a grounded backticked name,
    or a changed file's path or base name standing as a word."""
    risks = sections.potential_risks
    only_risks = SummarySections("", "", risks, "")
    if grounded_names(pr, only_risks, corpus):
        return True
    paths = {f.filename for f in pr.files} | {f.previous_filename or "" for f in pr.files}
    names = {p for p in paths if p} | {PurePosixPath(p).name for p in paths if p}
    return any(re.search(rf"(?<![\w/.-]){re.escape(n)}(?![\w/-])", risks) for n in names)


def finding_kinds(
    pr: PullRequest, sections: SummarySections, change_type: ChangeType
) -> frozenset[FindingKind]:
    """The kinds of COUNTED that `check_answer` finds in the summary."""
    return frozenset(f.kind for f in check_answer(pr, sections, change_type)) & set(COUNTED)


def score(
    pr: PullRequest,
    sections: SummarySections,
    change_type: ChangeType,
    reference_type: ChangeType | None = None,
    seconds: float | None = None,
) -> Scores:
    corpus = pr_corpus(pr)
    return Scores(
        number=pr.number,
        grounded=tuple(grounded_names(pr, sections, corpus)),
        risk_names_code=risk_names_code(pr, sections, corpus),
        kinds=finding_kinds(pr, sections, change_type),
        change_type=change_type,
        reference_type=reference_type,
        seconds=seconds,
    )


@dataclass
class Totals:
    """A day's (or all days') figures over the summaries that were made."""

    prs: int  # PRs asked for, summarized or not
    scores: list[Scores] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # every PR's, failed ones too

    @property
    def summarized(self) -> int:
        return len(self.scores)

    def count(self, kind: FindingKind) -> int:
        return sum(1 for s in self.scores if kind in s.kinds)

    def row(self) -> dict[str, str]:
        """The table's cells: counts as `n/of`, means and seconds rounded."""
        n = self.summarized
        grounded = sum(len(s.grounded) for s in self.scores)
        typed = [s for s in self.scores if s.type_agrees is not None]
        trivial = [s for s in self.scores if s.reference_type == ChangeType.TRIVIAL]
        return {
            "PRs": f"{n}/{self.prs}",
            "ids/PR": f"{grounded / n:.1f}" if n else "-",
            "none": f"{sum(1 for s in self.scores if not s.grounded)}",
            "risk→code": _share(sum(1 for s in self.scores if s.risk_names_code), n),
            "empty risk": _share(self.count(FindingKind.EMPTY_RISK), n),
            "perf": _share(self.count(FindingKind.UNSUPPORTED_PERFORMANCE), n),
            "inverted": _share(self.count(FindingKind.INVERTED), n),
            "type": _share(sum(1 for s in typed if s.type_agrees), len(typed)),
            "TRIVIAL recall": _share(
                sum(1 for s in trivial if s.change_type == ChangeType.TRIVIAL), len(trivial)
            ),
            "s median": f"{statistics.median(self.seconds):.1f}" if self.seconds else "-",
            "s max": f"{max(self.seconds):.1f}" if self.seconds else "-",
        }


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} {part / whole:.0%}" if whole else "-"


def totals_of(prs: int, scores: list[Scores], seconds: list[float] | None = None) -> Totals:
    if seconds is None:
        seconds = [s.seconds for s in scores if s.seconds is not None]
    return Totals(prs=prs, scores=list(scores), seconds=list(seconds))


def merge(parts: list[Totals]) -> Totals:
    return Totals(
        prs=sum(t.prs for t in parts),
        scores=[s for t in parts for s in t.scores],
        seconds=[x for t in parts for x in t.seconds],
    )


def table(rows: list[tuple[str, Totals]]) -> str:
    """A plain-text table, one line per (label, totals), columns as wide as their cells."""
    cells = [{"day": label} | totals.row() for label, totals in rows]
    if not cells:
        return ""
    columns = list(cells[0])
    widths = {c: max(len(c), *(len(row[c]) for row in cells)) for c in columns}
    lines = ["  ".join(c.rjust(widths[c]) for c in columns)]
    lines += ["  ".join(row[c].rjust(widths[c]) for c in columns) for row in cells]
    return "\n".join(lines)


def pr_line(s: Scores) -> str:
    """One PR's scores on one line, for reading a run PR by PR."""
    agrees = {True: "=", False: "≠", None: " "}[s.type_agrees]
    reference = s.reference_type.value if s.reference_type else ""
    kind = f"{s.change_type.value:11} {agrees} {reference:11}"
    found = ", ".join(sorted(k.value for k in s.kinds)) or "-"
    risk = "risk→code" if s.risk_names_code else "risk vague"
    seconds = f"{s.seconds:6.1f}s " if s.seconds is not None else ""
    return f"#{s.number:<6} {seconds}{kind} ids {len(s.grounded):2}  {risk:10}  {found}"
