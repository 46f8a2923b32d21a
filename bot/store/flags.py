"""The `flags` and `revision_attempts` tables: who flagged which summary, and the re-checks."""

from __future__ import annotations

from datetime import datetime

from bot.core.clock import utcnow
from bot.core.models import Flag
from bot.store.base import Tables, from_row, iso, parse_time
from bot.store.threads import reads, writes


class FlagTables(Tables):
    @writes
    def start_revision(self, summary_id: int, user: str) -> int:
        return (
            self.db["revision_attempts"]
            .insert({"summary_id": summary_id, "user": user, "started_at": iso(utcnow())})
            .last_pk
        )

    @writes
    def finish_revision(
        self, attempt_id: int, outcome: str, new_summary_id: int | None = None
    ) -> None:
        self.db["revision_attempts"].update(
            attempt_id, {"outcome": outcome, "new_summary_id": new_summary_id}
        )

    @reads
    def unposted_revisions(self, platform: str, since: datetime) -> list[tuple[int, int, int]]:
        """(flag id, old summary id, new summary id) of revisions whose correction was never
        posted on `platform`: the process stopped between saving the new version and posting."""
        rows = self.db.query(
            "SELECT max(f.id) AS flag_id, a.summary_id, a.new_summary_id"
            " FROM revision_attempts AS a JOIN flags AS f"
            " ON f.summary_id = a.summary_id AND f.user = a.user AND f.platform = ?"
            " WHERE a.outcome = 'revised' AND a.started_at >= ? AND NOT EXISTS ("
            "  SELECT 1 FROM posts AS p WHERE p.platform = ? AND p.kind = 'revision'"
            "  AND p.summary_id = a.new_summary_id AND p.message_id IS NOT NULL)"
            " GROUP BY a.id ORDER BY a.id",
            [platform, iso(since), platform],
        )
        return [(r["flag_id"], r["summary_id"], r["new_summary_id"]) for r in rows]

    @reads
    def get_flag(self, flag_id: int) -> Flag | None:
        rows = list(self.db["flags"].rows_where("id = ?", [flag_id], limit=1))
        return self._flag(rows[0]) if rows else None

    @reads
    def revisions_since(self, summary_id: int, since: datetime) -> int:
        """Re-checks begun since `since`: running or finished, but not failed or cancelled
        (an LLM error must not use up the hour's one re-check)."""
        return self.db["revision_attempts"].count_where(
            "summary_id = ? AND started_at >= ? AND coalesce(outcome, '') NOT IN ('failed', 'cancelled')",
            [summary_id, iso(since)],
        )

    @reads
    def flagged_summary_ids(self, since: datetime, repo: str | None = None) -> list[int]:
        """Summaries with any flag (active or removed) since `since`, oldest first."""
        where, args = "created_at >= ?", [iso(since)]
        if repo:
            where, args = where + " AND repo = ?", [*args, repo]
        rows = self.db.query(
            f"SELECT summary_id, min(id) AS first FROM flags WHERE {where}"
            " GROUP BY summary_id ORDER BY first",
            args,
        )
        return [row["summary_id"] for row in rows]

    @reads
    def flags_of(self, summary_id: int) -> list[Flag]:
        """Every flag ever put on one summary version, removed ones included."""
        return [
            self._flag(row)
            for row in self.db["flags"].rows_where("summary_id = ?", [summary_id], order_by="id")
        ]

    @reads
    def revision_flagger(self, new_summary_id: int) -> str | None:
        """Who flagged the summary that `new_summary_id` revised."""
        rows = list(
            self.db["revision_attempts"].rows_where(
                "new_summary_id = ?", [new_summary_id], order_by="id", limit=1
            )
        )
        return rows[0]["user"] if rows else None

    @reads
    def user_flags_since(self, user: str, since: datetime) -> int:
        return self.db["flags"].count_where("user = ? AND created_at >= ?", [user, iso(since)])

    @writes
    def add_flag(self, flag: Flag) -> tuple[Flag, bool]:
        """Record a flag; returns (flag, True) when new, (existing, False) when already there."""
        existing = self._active_flag(flag.platform, flag.channel, flag.message_id, flag.user)
        if existing:
            return existing, False
        row_id = (
            self.db["flags"]
            .insert(
                {
                    "platform": flag.platform,
                    "channel": flag.channel,
                    "message_id": flag.message_id,
                    "user": flag.user,
                    "repo": flag.repo,
                    "number": flag.number,
                    "summary_id": flag.summary_id,
                    "emoji": flag.emoji,
                    "created_at": iso(utcnow()),
                }
            )
            .last_pk
        )
        return self._flag(self.db["flags"].get(row_id)), True

    @writes
    def remove_flag(self, platform: str, channel: str, message_id: str, user: str) -> Flag | None:
        existing = self._active_flag(platform, channel, message_id, user)
        if existing is None:
            return None
        self.db["flags"].update(existing.id, {"removed_at": iso(utcnow())})
        return existing

    @reads
    def active_flags(self, summary_id: int) -> list[Flag]:
        return [
            self._flag(row)
            for row in self.db["flags"].rows_where(
                "summary_id = ? AND removed_at IS NULL", [summary_id], order_by="id"
            )
        ]

    @reads
    def flag_count_since(self, since: datetime, repo: str) -> int:
        return self.db["flags"].count_where("created_at >= ? AND repo = ?", [iso(since), repo])

    def _active_flag(self, platform: str, channel: str, message_id: str, user: str) -> Flag | None:
        rows = list(
            self.db["flags"].rows_where(
                "platform = ? AND channel = ? AND message_id = ? AND user = ? AND removed_at IS NULL",
                [platform, channel, message_id, user],
                limit=1,
            )
        )
        return self._flag(rows[0]) if rows else None

    @staticmethod
    def _flag(row: dict) -> Flag:
        return from_row(Flag, row, created_at=parse_time(row["created_at"]))
