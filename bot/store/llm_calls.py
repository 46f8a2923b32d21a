"""The `llm_calls` table: every prompt and response, as llm logs them.

A summarizer's answer (and its failure) carries the calls that made it; whoever keeps the
answer writes them, a summary's in the transaction that stores it (`save_summary`).

Prompts and answers are kept for PRDIGEST_LLM_LOG_DAYS, then thinned: the row stays with its
figures (model, purpose, tokens, duration, error, time, PR) and loses its `messages` and
`response`, 10 KB a call that a busy repository would otherwise pile up by the gigabyte."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlite_utils import Database

from bot.core.clock import utcnow
from bot.core.models import Usage
from bot.ports.summarizer import LLMCall
from bot.store.base import Tables, iso
from bot.store.threads import reads, writes


def insert_calls(db: Database, calls: Iterable[LLMCall]) -> None:
    """Write `calls`, inside the caller's transaction when there is one."""
    rows = [_row(call) for call in calls]
    if rows:
        db["llm_calls"].insert_all(rows)


def _row(call: LLMCall) -> dict:
    return {
        "repo": call.repo,
        "number": call.number,
        "model": call.model,
        "prompt_version": call.prompt_version,
        "purpose": call.purpose,
        "messages": json.dumps(call.messages),
        "response": call.response,
        "error": call.error,
        "prompt_tokens": call.usage.prompt_tokens,
        "completion_tokens": call.usage.completion_tokens,
        "duration_ms": call.duration_ms,
        "created_at": iso(call.created_at or utcnow()),
    }


# Still holding a body, oldest first: the partial index idx_llm_calls_bodies serves it.
_WITH_BODY = "(messages IS NOT NULL OR response IS NOT NULL)"


@dataclass(frozen=True)
class Thinned:
    """Calls whose prompt and answer were (or would be) dropped, and those bodies' bytes."""

    calls: int = 0
    bytes: int = 0


class LLMCallTables(Tables):
    @writes
    def log_llm_calls(self, calls: Iterable[LLMCall]) -> None:
        """Write the calls of an answer kept nowhere else (a failure, a re-check that changed
        nothing), all or none."""
        with self.transaction():
            insert_calls(self.db, calls)

    @writes
    def log_llm_call(
        self,
        *,
        repo: str,
        number: int,
        model: str,
        prompt_version: str,
        purpose: str,
        messages: list[dict],
        response: str | None,
        error: str | None,
        usage: Usage,
        duration_ms: int,
    ) -> int:
        """Write one call from its parts; its row id."""
        call = LLMCall(
            repo, number, model, prompt_version, purpose, messages, response, error, usage,
            duration_ms,
        )  # fmt: skip
        return self.db["llm_calls"].insert(_row(call)).last_pk

    @reads
    def llm_call_count(self) -> int:
        return self.db["llm_calls"].count

    @reads
    def recent_call_seconds(self, model: str, purpose: str, limit: int) -> list[float]:
        """How long the last `limit` answered calls of `model` for `purpose` took, newest
        first: a measure of this machine's speed with that model."""
        rows = self.db.execute(
            "SELECT duration_ms FROM llm_calls"
            " WHERE model = ? AND purpose = ? AND error IS NULL AND duration_ms > 0"
            " ORDER BY id DESC LIMIT ?",
            [model, purpose, limit],
        )
        return [ms / 1000 for (ms,) in rows.fetchall()]

    @writes
    def thin_llm_calls(self, before: str, limit: int = 500) -> Thinned:
        """Drop the prompts and answers of at most `limit` calls made before `before` (an ISO
        time), oldest first, keeping each call's figures and id: one short transaction, so a
        caller thinning a year goes batch by batch and never holds the write lock for long.

        Each row is deleted and written again without its body rather than updated: SQLite
        merges the pages a delete leaves nearly empty, while an update that shrinks a 10 KB
        row to 200 bytes leaves it alone on its page (a year of those is 45 MB of nothing)."""
        with self.transaction():
            sizes = dict(self._with_body(before, limit))
            if not sizes:
                return Thinned()
            marks = ", ".join("?" * len(sizes))
            rows = list(
                self.db.query(f"SELECT * FROM llm_calls WHERE id IN ({marks})", list(sizes))
            )
            self.db.execute(f"DELETE FROM llm_calls WHERE id IN ({marks})", list(sizes))
            self.db["llm_calls"].insert_all(
                ({**row, "messages": None, "response": None} for row in rows), pk="id"
            )
        return Thinned(len(sizes), sum(sizes.values()))

    @reads
    def llm_bodies_before(self, before: str) -> Thinned:
        """What thinning at `before` would drop: calls and bytes (`prdigest prune --dry-run`)."""
        rows = self._with_body(before, -1)
        return Thinned(len(rows), sum(size for _, size in rows))

    def _with_body(self, before: str, limit: int) -> list[tuple[int, int]]:
        return self.db.execute(
            "SELECT id, coalesce(length(CAST(messages AS BLOB)), 0)"
            " + coalesce(length(CAST(response AS BLOB)), 0) FROM llm_calls"
            f" WHERE created_at < ? AND {_WITH_BODY} ORDER BY created_at LIMIT ?",
            [before, limit],
        ).fetchall()
