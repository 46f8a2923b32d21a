"""Keeping a year on one disk, and proving the disk takes writes.

A prune drops what nobody reads again, and nothing else:
- the prompts and answers of LLM calls older than PRDIGEST_LLM_LOG_DAYS (their figures stay:
  model, purpose, tokens, duration, error, time), the one table that grows by the gigabyte;
- the patches of PRs merged more than PRDIGEST_DIFF_DAYS ago (90): most of a year's file, and
  GitHub keeps them; a new summary of such a PR reads its diff from GitHub again. The PR and
  its files' names and sizes stay (search and areas read them);
- CODEOWNERS texts read more than a week ago (only the current day's is ever read).

Summaries (every version, superseded ones included), their facts, posts, flags and PRs are
never pruned: a year of summaries is the team's memory, and the posts table is what makes a
post idempotent. The scheduler prunes once a day, batch by batch on the store's writer thread;
`prdigest prune` does the same, and VACUUMs when that gives back a worthwhile share of the file.
"""

from __future__ import annotations

import asyncio
from dataclasses import astuple, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.store.base import Tables, iso
from bot.store.llm_calls import LLMCallTables
from bot.store.prs import DroppedDiffs, PRTables
from bot.store.threads import reads, writes

CODEOWNERS_DAYS = 7
BATCH = 500  # calls thinned per transaction: a few MB, a fraction of a second
# VACUUM (which rewrites the whole file) only when it gives back this share of the file and at
# least this many bytes; otherwise SQLite reuses the free pages for the next rows anyway.
VACUUM_SHARE = 0.2
VACUUM_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Pruned:
    """What a prune dropped (or, dry, would drop)."""

    calls_thinned: int = 0
    body_bytes: int = 0  # the prompts' and answers' own bytes
    codeowners: int = 0  # old CODEOWNERS texts
    diffs: int = 0  # PRs whose patches were dropped
    diff_bytes: int = 0  # the patches' own bytes

    def __add__(self, other: Pruned) -> Pruned:
        return Pruned(
            *(mine + theirs for mine, theirs in zip(astuple(self), astuple(other), strict=True))
        )

    @property
    def nothing(self) -> bool:
        return not (self.calls_thinned or self.codeowners or self.diffs)

    @property
    def full_batch(self) -> bool:
        """Whether a step hit its batch size: there may be more to drop."""
        return self.calls_thinned >= BATCH or self.diffs >= BATCH


@dataclass(frozen=True)
class FileSize:
    """The database file as SQLite sees it: its pages, and those free for reuse."""

    bytes: int
    free_bytes: int

    @property
    def worth_vacuum(self) -> bool:
        return self.free_bytes >= max(VACUUM_BYTES, self.bytes * VACUUM_SHARE)


@dataclass(frozen=True)
class Cutoffs:
    """The instants before which each kind of old data goes, as the tables store time."""

    calls: str  # ISO time: llm_calls.created_at
    codeowners: str  # ISO date: codeowners.fetched_day
    diffs: str | None = None  # ISO time: pull_requests.merged_at; None keeps every diff

    @classmethod
    def at(cls, now: datetime, llm_log_days: int, diff_days: int = 0) -> Cutoffs:
        """The cutoffs `now`; `diff_days` 0 keeps every diff (PRDIGEST_DIFF_DAYS=0)."""
        now = now.astimezone(UTC)
        calls = iso(now - timedelta(days=max(0, llm_log_days)))
        assert calls is not None
        diffs = iso(now - timedelta(days=diff_days)) if diff_days > 0 else None
        return cls(calls, (now - timedelta(days=CODEOWNERS_DAYS)).date().isoformat(), diffs)


class UpkeepTables(Tables):
    aio: Any  # the store from async code (`bot.store.store.OffLoop`)

    @writes
    def prune_step(self, cutoffs: Cutoffs, limit: int = BATCH) -> Pruned:
        """One batch of the prune, as one transaction: at most `limit` calls thinned and
        `limit` PRs' diffs dropped, and the old CODEOWNERS texts."""
        with self.transaction():
            thinned = LLMCallTables.thin_llm_calls(self, cutoffs.calls, limit)
            dropped = self.db.execute(
                "DELETE FROM codeowners WHERE fetched_day < ?", [cutoffs.codeowners]
            ).rowcount
            diffs = (
                PRTables.drop_old_diffs(self, cutoffs.diffs, limit)
                if cutoffs.diffs
                else DroppedDiffs(0, 0)
            )
        return Pruned(thinned.calls, thinned.bytes, dropped, diffs.prs, diffs.bytes)

    @reads
    def prunable(self, cutoffs: Cutoffs) -> Pruned:
        """What a prune at `cutoffs` would drop, without dropping it."""
        bodies = LLMCallTables.llm_bodies_before(self, cutoffs.calls)
        (old,) = self.db.execute(
            "SELECT count(*) FROM codeowners WHERE fetched_day < ?", [cutoffs.codeowners]
        ).fetchone()
        diffs = PRTables.old_diffs(self, cutoffs.diffs) if cutoffs.diffs else DroppedDiffs(0, 0)
        return Pruned(bodies.calls, bodies.bytes, old, diffs.prs, diffs.bytes)

    @reads
    def file_size(self) -> FileSize:
        page = self.db.execute("PRAGMA page_size").fetchone()[0]
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        free = self.db.execute("PRAGMA freelist_count").fetchone()[0]
        return FileSize(page * pages, page * free)

    @writes
    def vacuum(self) -> None:
        """Rewrite the file without its free pages (and fold the WAL back into it)."""
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @writes
    def touch_health(self, name: str, at: datetime) -> None:
        """Rewrite `name`'s row of the health table: proof that the database takes writes."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO health (name, checked_at) VALUES (?, ?)"
                " ON CONFLICT(name) DO UPDATE SET checked_at = excluded.checked_at",
                [name, iso(at)],
            )

    @reads
    def unhealed_replies(self, since: datetime) -> int:
        """Digest replies posted as "Summary unavailable" since `since` and not healed yet:
        those the retries still work on (older ones heal only if their day is built again)."""
        (count,) = self.db.execute(
            "SELECT count(*) FROM posts WHERE kind = 'pr' AND unsummarized = 1"
            " AND message_id IS NOT NULL AND coalesce(posted_at, created_at) >= ?",
            [iso(since)],
        ).fetchone()
        return count


# The batch loops live outside the table family: each batch is one marked write, and the loop
# between batches is the caller's (a command's thread, or the event loop between turns).


def prune(tables: UpkeepTables, cutoffs: Cutoffs) -> Pruned:
    """Prune everything older than `cutoffs`, batch by batch (`prdigest prune`)."""
    total = Pruned()
    while True:
        step = tables.prune_step(cutoffs)
        total += step
        if not step.full_batch:
            return total


async def prune_off_loop(tables: UpkeepTables, cutoffs: Cutoffs) -> Pruned:
    """The same from the event loop (the scheduler's daily prune): each batch on the
    store's writer thread, so the loop never waits on it, a turn of the loop between."""
    total = Pruned()
    while True:
        step = await tables.aio.write(tables.prune_step, cutoffs)
        total += step
        if not step.full_batch:
            return total
        await asyncio.sleep(0)
