"""The `posts` table: every message the bot posted or is about to, the single truth for
idempotent posting. Only `bot.chat.posting.DigestPoster` writes it (and flags claim thanks)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

from bot.core.clock import utcnow
from bot.core.models import PostKind, PostRecord
from bot.store.base import Tables, from_row, iso


class PostTables(Tables):
    def begin_post(self, record: PostRecord, kind: str) -> PostRecord:
        """Write the intent to post before sending, so a crash leaves a trace to reconcile.

        Returns the existing record when one is already there for this digest slot.
        """
        if PostKind(kind).is_digest_slot:
            existing = self.digest_post(
                record.platform, record.channel, record.repo, record.day, kind, record.pr_number
            )
            if existing:
                return existing
        row_id = (
            self.db["posts"]
            .insert(
                {
                    "platform": record.platform,
                    "channel": record.channel,
                    "repo": record.repo,
                    "day": record.day,
                    "kind": kind,
                    "pr_number": record.pr_number,
                    "message_id": record.message_id or None,
                    "thread_id": record.thread_id,
                    "summary_id": record.summary_id,
                    "tz_name": record.tz_name,
                    "numbers": json.dumps(list(record.numbers)) if record.numbers else None,
                    "created_at": iso(utcnow()),
                }
            )
            .last_pk
        )
        return replace(record, id=row_id)

    def complete_post(
        self, record_id: int, message_id: str, thread_id: str | None = None
    ) -> PostRecord:
        values = {"message_id": message_id, "posted_at": iso(utcnow())}
        if thread_id is not None:
            values["thread_id"] = thread_id
        self.db["posts"].update(record_id, values)
        return self._post(self.db["posts"].get(record_id))

    def mark_attempt(self, record_id: int) -> None:
        self.db["posts"].update(record_id, {"attempted_at": iso(utcnow())})

    def post_attempted(self, record_id: int) -> bool:
        return bool(self.db["posts"].get(record_id)["attempted_at"])

    def digest_post(
        self, platform: str, channel: str, repo: str, day: str, kind: str, pr_number: int = 0
    ) -> PostRecord | None:
        rows = list(
            self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND repo = ? AND day = ? AND kind = ?"
                " AND pr_number = ?",
                [platform, channel, repo, day, kind, pr_number],
                limit=1,
            )
        )
        return self._post(rows[0]) if rows else None

    def digest_posts(self, platform: str, channel: str, repo: str, day: str) -> list[PostRecord]:
        return [
            self._post(row)
            for row in self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND repo = ? AND day = ?"
                " AND kind IN ('parent', 'pr', 'empty', 'group', 'parent_edit')",
                [platform, channel, repo, day],
                order_by="id",
            )
        ]

    def earlier_reply(
        self, platform: str, channel: str, repo: str, number: int, before_day: str
    ) -> PostRecord | None:
        """The newest message of an earlier day's digest in this channel about PR `number`: its
        own reply, or the grouped reply that listed it."""
        rows = list(
            self.db.query(
                "SELECT * FROM posts WHERE platform = ? AND channel = ? AND repo = ? AND day < ?"
                " AND day != '' AND message_id IS NOT NULL AND ((kind = 'pr' AND pr_number = ?)"
                " OR (kind = 'group' AND EXISTS (SELECT 1 FROM json_each(posts.numbers)"
                " WHERE value = ?))) ORDER BY day DESC, kind = 'group' LIMIT 1",
                [platform, channel, repo, before_day, number, number],
            )
        )
        return self._post(rows[0]) if rows else None

    def post_by_message(self, platform: str, channel: str, message_id: str) -> PostRecord | None:
        rows = list(
            self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND message_id = ?",
                [platform, channel, message_id],
                limit=1,
            )
        )
        return self._post(rows[0]) if rows else None

    def post_kind(self, record_id: int) -> PostKind:
        return PostKind(self.db["posts"].get(record_id)["kind"])

    @staticmethod
    def _post(row: dict) -> PostRecord:
        numbers = tuple(json.loads(row.get("numbers") or "[]"))
        return from_row(PostRecord, row, message_id=row["message_id"] or "", numbers=numbers)

    def unfinished_digests(self, platform: str, since_day: str) -> list[PostRecord]:
        """Digest parents (from `since_day` on) with a reply slot begun but never completed."""
        rows = self.db.query(
            "SELECT * FROM posts AS parent WHERE parent.platform = ? AND parent.kind = 'parent'"
            " AND parent.day >= ? AND parent.tz_name IS NOT NULL AND (parent.message_id IS NULL"
            " OR EXISTS (SELECT 1 FROM posts AS reply WHERE reply.platform = parent.platform"
            " AND reply.channel = parent.channel AND reply.repo = parent.repo"
            " AND reply.day = parent.day AND reply.kind IN ('pr', 'group', 'parent_edit')"
            " AND reply.message_id IS NULL))"
            " ORDER BY parent.id",
            [platform, since_day],
        )
        return [self._post(row) for row in rows]

    def claim_flag_ack(self, platform: str, channel: str, summary_id: int) -> bool:
        """True for exactly one caller per (platform, channel, summary)."""
        try:
            self.db["posts"].insert(
                {
                    "platform": platform,
                    "channel": channel,
                    "repo": "",
                    "day": "",
                    "kind": PostKind.FLAG_ACK,
                    "pr_number": 0,
                    "summary_id": summary_id,
                    "created_at": iso(utcnow()),
                }
            )
        except sqlite3.IntegrityError:
            return False
        return True
