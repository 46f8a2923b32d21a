"""The `posts` table: every message the bot posted or is about to, the single truth for
idempotent posting. Only `bot.chat.posting.DigestPoster` writes it (and flags claim thanks)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace

from bot.core.clock import utcnow
from bot.core.models import PostKind, PostRecord
from bot.store.base import Tables, from_row, iso
from bot.store.threads import reads, writes

# The digest steps that edit a message already sent: their `message_id` is that message's.
EDIT_KINDS = ("parent_edit", "reply_heal", "parent_heal")


@dataclass(frozen=True)
class FailedReply:
    """A digest reply posted as "Summary unavailable", and the pace of its PR's retries."""

    record: PostRecord
    posted_at: str
    attempts: int = 0
    retry_after: str | None = None  # ISO time; None: the first retry is due from `posted_at`


class PostTables(Tables):
    @writes
    def begin_post(
        self, record: PostRecord, kind: str, *, unsummarized: bool = False
    ) -> PostRecord:
        """Write the intent to post before sending, so a crash leaves a trace to reconcile.

        Returns the existing record when one is already there for this digest slot.
        `unsummarized` marks a reply posted without a summary, for healing.
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
                    "unsummarized": 1 if unsummarized else None,
                }
            )
            .last_pk
        )
        return replace(record, id=row_id)

    @writes
    def complete_post(
        self, record_id: int, message_id: str, thread_id: str | None = None
    ) -> PostRecord:
        values = {"message_id": message_id, "posted_at": iso(utcnow())}
        if thread_id is not None:
            values["thread_id"] = thread_id
        self.db["posts"].update(record_id, values)
        return self._post(self.db["posts"].get(record_id))

    @writes
    def mark_attempt(self, record_id: int) -> None:
        self.db["posts"].update(record_id, {"attempted_at": iso(utcnow())})

    @reads
    def post_attempted(self, record_id: int) -> bool:
        return bool(self.db["posts"].get(record_id)["attempted_at"])

    @reads
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

    @reads
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

    @reads
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

    @reads
    def post_by_message(self, platform: str, channel: str, message_id: str) -> PostRecord | None:
        """The message's own record (not the record of an edit made to it)."""
        rows = list(
            self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND message_id = ? AND kind NOT IN (?, ?, ?)",
                [platform, channel, message_id, *EDIT_KINDS],
                order_by="id",
                limit=1,
            )
        )
        return self._post(rows[0]) if rows else None

    @reads
    def post_kind(self, record_id: int) -> PostKind:
        return PostKind(self.db["posts"].get(record_id)["kind"])

    @staticmethod
    def _post(row: dict) -> PostRecord:
        numbers = tuple(json.loads(row.get("numbers") or "[]"))
        return from_row(PostRecord, row, message_id=row["message_id"] or "", numbers=numbers)

    @reads
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

    @writes
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

    # -- healing: replies posted without a summary, edited in place once one exists ----------

    @reads
    def failed_replies(self, platform: str, channel: str, repo: str, day: str) -> list[FailedReply]:
        """The digest's replies sent as "Summary unavailable" and not healed yet."""
        return self._failed(
            "platform = ? AND channel = ? AND repo = ? AND day = ?", [platform, channel, repo, day]
        )

    @reads
    def failed_replies_since(self, platform: str, since: str) -> list[FailedReply]:
        """Every such reply posted since `since` (an ISO time), on one platform."""
        return self._failed("platform = ? AND posted_at >= ?", [platform, since])

    def _failed(self, where: str, args: list) -> list[FailedReply]:
        rows = self.db["posts"].rows_where(
            f"{where} AND kind = 'pr' AND unsummarized = 1 AND message_id IS NOT NULL",
            args,
            order_by="id",
        )
        return [
            FailedReply(
                self._post(row), row["posted_at"] or row["created_at"],
                row["heal_attempts"] or 0, row["heal_after"],
            )
            for row in rows
        ]  # fmt: skip

    @reads
    def unfinished_heals(self, platform: str, since: str) -> list[PostRecord]:
        """Healing steps planned since `since` (an ISO time) but not done: a crash came
        mid-heal."""
        rows = self.db["posts"].rows_where(
            "platform = ? AND created_at >= ? AND kind IN ('reply_heal', 'parent_heal')"
            " AND message_id IS NULL",
            [platform, since],
            order_by="id",
        )
        return [self._post(row) for row in rows]

    @writes
    def plan_heal(
        self, platform: str, channel: str, repo: str, day: str, summaries: dict[int, int]
    ) -> int:
        """Record, in one transaction, the edits that heal this digest before any is made: one
        step per failed reply whose PR now has a summary (`summaries`: PR -> summary id), then
        one edit of the parent, numbered by the replies healed so far. Returns the new steps."""
        with self.transaction():
            failed = self.failed_replies(platform, channel, repo, day)
            planned = {
                r.pr_number
                for r in self.digest_posts_of(platform, channel, repo, day, "reply_heal")
            }
            new = [
                f.record for f in failed
                if f.record.pr_number in summaries and f.record.pr_number not in planned
            ]  # fmt: skip
            for reply in new:
                step = replace(reply, message_id="", summary_id=summaries[reply.pr_number])
                self.begin_post(step, "reply_heal")
            if new:
                parent = PostRecord(
                    platform=platform, channel=channel, repo=repo, day=day,
                    pr_number=len(planned) + len(new), message_id="",
                    tz_name=new[0].tz_name,
                )  # fmt: skip
                self.begin_post(parent, "parent_heal")
        return len(new) + bool(new)

    @reads
    def digest_posts_of(
        self, platform: str, channel: str, repo: str, day: str, kind: str
    ) -> list[PostRecord]:
        return [
            self._post(row)
            for row in self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND repo = ? AND day = ? AND kind = ?",
                [platform, channel, repo, day, kind],
                order_by="id",
            )
        ]

    @writes
    def complete_heal(self, step_id: int, reply_id: int, message_id: str, summary_id: int) -> None:
        """The reply shows its summary now: the step is done, and the reply's record names the
        summary (so a flag on it counts for that summary) and is no longer a failed reply."""
        with self.transaction():
            self.complete_post(step_id, message_id)
            self.db["posts"].update(reply_id, {"summary_id": summary_id, "unsummarized": 0})

    @writes
    def note_heal_attempt(self, record_ids: list[int], retry_after: str) -> None:
        """One more retry of these replies' PRs failed; the next is not before `retry_after`."""
        with self.transaction():
            for record_id in record_ids:
                row = self.db["posts"].get(record_id)
                self.db["posts"].update(
                    record_id,
                    {"heal_attempts": (row["heal_attempts"] or 0) + 1, "heal_after": retry_after},
                )
