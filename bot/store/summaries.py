"""The `summaries` table: every version of every PR's summary."""

from __future__ import annotations

import json

from bot.core.clock import utcnow
from bot.core.models import ChangeType, PRSummary, SummarySections, Usage
from bot.store.base import Tables, from_row, iso, or_default, parse_time


class SummaryTables(Tables):
    def save_summary(self, summary: PRSummary) -> PRSummary:
        row = {
            "repo": summary.repo,
            "number": summary.number,
            "revision_sha": summary.revision_sha,
            "prompt_version": summary.prompt_version,
            "model": summary.model,
            "revision": summary.revision,
            "change_type": summary.change_type.value,
            "what_changed": summary.sections.what_changed,
            "technical_impact": summary.sections.technical_impact,
            "potential_risks": summary.sections.potential_risks,
            "key_insights": summary.sections.key_insights,
            "headline": summary.sections.headline,
            "files_covered": summary.files_covered,
            "files_total": summary.files_total,
            "prompt_tokens": summary.usage.prompt_tokens,
            "completion_tokens": summary.usage.completion_tokens,
            "created_at": iso(summary.created_at or utcnow()),
            "grounded_fraction": summary.grounded_fraction,
            "unverified": json.dumps(list(summary.unverified)),
            "change_note": summary.change_note,
            "facts": summary.facts or None,
        }
        with self.transaction():
            # --refresh writes the same key again: the new text replaces the old in place.
            existing = self._summary_rows(
                "repo = ? AND number = ? AND revision_sha = ? AND prompt_version = ?"
                " AND model = ? AND revision = ?",
                [
                    summary.repo,
                    summary.number,
                    summary.revision_sha,
                    summary.prompt_version,
                    summary.model,
                    summary.revision,
                ],
            )
            if existing:
                summary_id = existing[0]["id"]
                self.db["summaries"].update(summary_id, row)
            else:
                summary_id = self.db["summaries"].insert(row).last_pk
        return self.get_summary_by_id(summary_id)  # type: ignore[return-value]

    def get_summary(
        self, repo: str, number: int, revision_sha: str, prompt_version: str, model: str
    ) -> PRSummary | None:
        """The current (not superseded) summary for this exact PR state, prompt and model."""
        rows = self._summary_rows(
            "repo = ? AND number = ? AND revision_sha = ? AND prompt_version = ? AND model = ?"
            " AND superseded_by IS NULL",
            [repo, number, revision_sha, prompt_version, model],
            order_by="revision DESC",
        )
        return self._summary(rows[0]) if rows else None

    def get_summary_by_id(self, summary_id: int) -> PRSummary | None:
        rows = self._summary_rows("id = ?", [summary_id])
        return self._summary(rows[0]) if rows else None

    def latest_summary(self, repo: str, number: int) -> PRSummary | None:
        """The newest current summary of a PR, whatever model or prompt made it."""
        rows = self._summary_rows(
            "repo = ? AND number = ? AND superseded_by IS NULL",
            [repo, number],
            order_by="id DESC",
        )
        return self._summary(rows[0]) if rows else None

    def supersede(self, old_id: int, new_id: int) -> None:
        self.db["summaries"].update(old_id, {"superseded_by": new_id})

    def _summary_rows(self, where: str, args: list, order_by: str | None = None) -> list[dict]:
        return list(self.db["summaries"].rows_where(where, args, order_by=order_by, limit=1))

    @staticmethod
    def _summary(row: dict) -> PRSummary:
        sections = SummarySections(
            *(row[name] for name, _ in SummarySections.HEADINGS), headline=row["headline"] or ""
        )
        return from_row(
            PRSummary,
            row,
            change_type=ChangeType(row["change_type"]),
            sections=sections,
            usage=Usage(row["prompt_tokens"] or 0, row["completion_tokens"] or 0),
            created_at=parse_time(row["created_at"]),
            superseded=row["superseded_by"] is not None,
            grounded_fraction=or_default(row.get("grounded_fraction"), 1.0),
            unverified=tuple(json.loads(row.get("unverified") or "[]")),
            facts=row.get("facts") or "",
        )

    def revised_version(self, summary_id: int) -> PRSummary | None:
        """The summary that superseded this one, if a flag led to a revision."""
        rows = self._summary_rows(
            "id = (SELECT superseded_by FROM summaries WHERE id = ?)", [summary_id]
        )
        return self._summary(rows[0]) if rows else None
