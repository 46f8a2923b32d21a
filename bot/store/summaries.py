"""The `summaries` table: every version of every PR's summary, and the one cache rule
(`current_summary`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.clock import utcnow
from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage
from bot.ports.summarizer import LLMCall, SummaryWriter
from bot.store.base import Tables, from_row, iso, or_default, parse_time
from bot.store.llm_calls import insert_calls
from bot.store.threads import reads, writes


@dataclass(frozen=True)
class CurrentSummary:
    """A PR's current summary, and whether it spares a call (see `current_summary`)."""

    summary: PRSummary
    up_to_date: bool  # the configured model and prompt version wrote it (or none is configured)


class SummaryTables(Tables):
    @writes
    def save_summary(self, summary: PRSummary, calls: Sequence[LLMCall] = ()) -> PRSummary:
        """Store a summary (a --refresh replaces its own key's in place) and, in the same
        transaction, the LLM calls that made it: no summary is ever kept without its calls."""
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
            insert_calls(self.db, calls)
        return self.get_summary_by_id(summary_id)  # type: ignore[return-value]

    @reads
    def current_summary(
        self, pr: PullRequest, writer: SummaryWriter | None
    ) -> CurrentSummary | None:
        """The one cache rule, for digests, `/digest`'s cost estimate, `/prsummary` and
        `prdigest summary` alike: this PR's current summary is the newest one of its present
        state (`revision_sha`) that no revision superseded, `writer`'s when it wrote one.

        It is up to date when `writer` (the configured model and prompt version) wrote it, or
        when there is no writer: a digest reuses it, so the cost estimate counts it as free.
        One by another model is still the PR's summary to show, but a digest writes it again.
        """
        return self._current(pr.repo, pr.number, pr.revision_sha, writer)

    @reads
    def get_summary(
        self, repo: str, number: int, revision_sha: str, prompt_version: str, model: str
    ) -> PRSummary | None:
        """This PR state's current summary if `model` with `prompt_version` wrote it."""
        current = self._current(repo, number, revision_sha, SummaryWriter(model, prompt_version))
        return current.summary if current is not None and current.up_to_date else None

    def _current(
        self, repo: str, number: int, revision_sha: str, writer: SummaryWriter | None
    ) -> CurrentSummary | None:
        model, prompt_version = (writer.model, writer.prompt_version) if writer else (None, None)
        rows = list(
            self.db.query(
                "SELECT * FROM summaries WHERE repo = ? AND number = ? AND revision_sha = ?"
                " AND superseded_by IS NULL"
                " ORDER BY (model = ? AND prompt_version = ?) DESC, id DESC LIMIT 1",
                [repo, number, revision_sha, model, prompt_version],
            )
        )
        if not rows:
            return None
        summary = self._summary(rows[0])
        return CurrentSummary(summary, writer is None or writer.wrote(summary))

    @reads
    def get_summary_by_id(self, summary_id: int) -> PRSummary | None:
        rows = self._summary_rows("id = ?", [summary_id])
        return self._summary(rows[0]) if rows else None

    @reads
    def latest_summary(self, repo: str, number: int) -> PRSummary | None:
        """The newest summary of a PR that no revision superseded, whatever state, model or
        prompt made it: for looking at its history (a revision's outcome), never to spare a
        call (that is `current_summary`)."""
        rows = self._summary_rows(
            "repo = ? AND number = ? AND superseded_by IS NULL",
            [repo, number],
            order_by="id DESC",
        )
        return self._summary(rows[0]) if rows else None

    @writes
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

    @reads
    def revised_version(self, summary_id: int) -> PRSummary | None:
        """The summary that superseded this one, if a flag led to a revision."""
        rows = self._summary_rows(
            "id = (SELECT superseded_by FROM summaries WHERE id = ?)", [summary_id]
        )
        return self._summary(rows[0]) if rows else None
