"""What `prdigest flags` shows: flagged summaries, their revisions, and whether they held."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.models import Flag, PRSummary
from bot.store.store import Store


@dataclass(frozen=True)
class FlaggedSummary:
    summary: PRSummary
    flags: list[Flag]
    revised: PRSummary | None  # the version that replaced it, if any
    pr_url: str
    merge_sha: str
    held: bool = True  # nobody flagged the revised version

    @property
    def flaggers(self) -> list[str]:
        return list(dict.fromkeys(f.user for f in self.flags))

    @property
    def status(self) -> str:
        if self.revised is None:
            return "not revised"
        return "revision held" if self.held else "revision flagged too"

    def as_regression_case(self) -> dict:
        """One line of the regression set: the PR, its diff, the bad and the revised summary."""

        def text(summary: PRSummary | None) -> dict | None:
            if summary is None:
                return None
            return {
                **{heading: body for heading, body in summary.sections.items()},
                "type": summary.change_type.value,
                "model": summary.model,
                "prompt_version": summary.prompt_version,
                "revision": summary.revision,
            }

        return {
            "repo": self.summary.repo,
            "number": self.summary.number,
            "diff": {"url": f"{self.pr_url}/files", "merge_commit_sha": self.merge_sha},
            "flaggers": self.flaggers,
            "flagged_at": self.flags[0].created_at.isoformat()
            if self.flags[0].created_at
            else None,
            "bad_summary": text(self.summary),
            "revised_summary": text(self.revised),
            "change_note": self.revised.change_note if self.revised else None,
        }


def flagged_summaries(
    store: Store, since: datetime, repo: str | None = None
) -> list[FlaggedSummary]:
    found = []
    for summary_id in store.flagged_summary_ids(since, repo):
        summary = store.get_summary_by_id(summary_id)
        if summary is None:
            continue
        revised = store.revised_version(summary_id)
        pr = store.get_pr(summary.repo, summary.number)
        found.append(
            FlaggedSummary(
                summary=summary,
                flags=store.flags_of(summary_id),
                revised=revised,
                pr_url=pr.url if pr else f"https://github.com/{summary.repo}/pull/{summary.number}",
                merge_sha=summary.revision_sha,
                held=revised is not None and not store.flags_of(revised.id),
            )
        )
    return found
