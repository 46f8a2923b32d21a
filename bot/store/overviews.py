"""The `day_overviews` table: a day's highlights as code kept them, under what they came from."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.core.clock import utcnow
from bot.ports.summarizer import LLMCall
from bot.store.base import Tables, iso
from bot.store.llm_calls import insert_calls
from bot.store.threads import reads, writes


class OverviewTables(Tables):
    @writes
    def save_overview(
        self, repo: str, day: str, tz_name: str, inputs: str, highlights: list[int],
        picked_by: str, model: str, calls: Sequence[LLMCall] = (),
    ) -> None:  # fmt: skip
        """Store a day's highlights and, in the same transaction, the call that ranked them."""
        with self.transaction():
            self._save_overview(repo, day, tz_name, inputs, highlights, picked_by, model)
            insert_calls(self.db, calls)

    def _save_overview(
        self, repo: str, day: str, tz_name: str, inputs: str, highlights: list[int],
        picked_by: str, model: str,
    ) -> None:  # fmt: skip
        self.db["day_overviews"].upsert(
            {
                "repo": repo,
                "day": day,
                "tz_name": tz_name,
                "inputs": inputs,
                "highlights": json.dumps(highlights),
                "picked_by": picked_by,
                "model": model,
                "created_at": iso(utcnow()),
            },
            pk=("repo", "day", "tz_name", "inputs"),
        )

    @reads
    def get_overview(
        self, repo: str, day: str, tz_name: str, inputs: str
    ) -> tuple[list[int], str] | None:
        """The highlights chosen from exactly these inputs, and how they were picked."""
        rows = list(
            self.db["day_overviews"].rows_where(
                "repo = ? AND day = ? AND tz_name = ? AND inputs = ?",
                [repo, day, tz_name, inputs],
                limit=1,
            )
        )
        if not rows:
            return None
        return list(json.loads(rows[0]["highlights"])), rows[0]["picked_by"]
