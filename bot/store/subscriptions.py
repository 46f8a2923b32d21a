"""The `subscriptions` and `subscription_starts` tables: chat subscriptions, and when the
scheduler first saw each one."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

from sqlite_utils import Database

from bot.core.clock import utcnow
from bot.core.models import Subscription, TrivialStyle
from bot.core.post_times import subscription_key
from bot.store.base import Tables, from_row
from bot.store.store import Store
from bot.store.threads import reads, writes


class SubscriptionStore(Tables):
    """Chat subscriptions in `store.db`, and when the scheduler first saw each subscription."""

    def __init__(self, store: Store):
        self.store = store
        self.path = store.path

    @property
    def db(self) -> Database:  # type: ignore[override]
        return self.store.db

    def connection(self, *, read: bool) -> contextlib.AbstractContextManager:
        return self.store.connection(read=read)

    @writes
    def add(self, sub: Subscription, *, created_by: str | None = None) -> tuple[Subscription, bool]:
        """Save a subscription; (saved, True) when new, (saved, False) when its time changed."""
        existing = self.get(sub.platform, sub.channel, sub.repo)
        row = {
            "platform": sub.platform,
            "channel": sub.channel,
            "repo": sub.repo,
            "post_time": sub.post_time,
            "tz_name": sub.tz_name,
            "display_name": sub.display_name,
            "trivial_style": sub.trivial_style,
            "filters": sub.filters,
            "quiet": sub.quiet,
            "schedule": sub.schedule,
            "weekday": sub.weekday,
        }
        if existing is not None:
            self.db["subscriptions"].update(existing.id, row)
            return self._get_by_id(existing.id), False
        row |= {"created_by": created_by, "created_at": utcnow().isoformat()}
        return self._get_by_id(self.db["subscriptions"].insert(row).last_pk), True

    @writes
    def remove(self, platform: str, channel: str, repo: str) -> Subscription | None:
        existing = self.get(platform, channel, repo)
        if existing is None:
            return None
        with self.transaction():
            self.db["subscriptions"].delete(existing.id)
            # Subscribing again later starts afresh: no catch-up of the days in between.
            self.db["subscription_starts"].delete_where("key = ?", [subscription_key(existing)])
        return existing

    @reads
    def get(self, platform: str, channel: str, repo: str) -> Subscription | None:
        rows = list(
            self.db["subscriptions"].rows_where(
                "platform = ? AND channel = ? AND repo = ? COLLATE NOCASE",
                [platform, channel, repo],
                limit=1,
            )
        )
        return self._sub(rows[0]) if rows else None

    @reads
    def list(self, platform: str, channel: str) -> list[Subscription]:
        return [
            self._sub(row)
            for row in self.db["subscriptions"].rows_where(
                "platform = ? AND channel = ?", [platform, channel], order_by="repo"
            )
        ]

    @reads
    def all(self) -> list[Subscription]:
        return [self._sub(row) for row in self.db["subscriptions"].rows_where(order_by="id")]

    @reads
    def seen_at(self, sub: Subscription) -> datetime | None:
        """When the scheduler first saw `sub`, if it has."""
        rows = list(self.db["subscription_starts"].rows_where("key = ?", [subscription_key(sub)]))
        return datetime.fromisoformat(rows[0]["first_seen"]) if rows else None

    @writes
    def first_seen(self, sub: Subscription, now: datetime) -> datetime:
        """When the scheduler first saw `sub` (recording `now` the first time it is asked)."""
        key = subscription_key(sub)
        table = self.db["subscription_starts"]
        table.insert({"key": key, "first_seen": now.astimezone(UTC).isoformat()}, ignore=True)
        return datetime.fromisoformat(table.get(key)["first_seen"])

    def _get_by_id(self, row_id: int) -> Subscription:
        return self._sub(self.db["subscriptions"].get(row_id))

    @staticmethod
    def _sub(row: dict) -> Subscription:
        style = TrivialStyle(row["trivial_style"] or TrivialStyle.FULL)
        return from_row(
            Subscription,
            row,
            trivial_style=style,
            filters=row.get("filters") or "",
            quiet=row.get("quiet") or "post",
            schedule=row.get("schedule") or "daily",
            weekday=row.get("weekday") or "monday",
        )
