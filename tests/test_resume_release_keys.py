"""Threads a release before `DigestScope` left unfinished still resume, read from its keys.

`tests/data/release-0-posts.db` was written by that release (commit 5ad9221): its
`DigestPoster` posted, in three channels, a whole day ("2026-02-23"), a filtered day
("2026-02-23 paths:docs/**") and a weekly rollup ("2026-02-16 week"), and a crash cut each
off: the days after their parent and one reply, the week before its parent went out.
"""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

from bot.chat.posting import DigestPoster, resume_unfinished
from bot.core.models import Digest, DigestEntry, PullRequest, WeekDay, WeekInfo
from bot.core.scope import DigestScope, Span
from bot.store.store import Store
from tests.test_chat_posting import MemoryTransport

RELEASE_DB = Path(__file__).parent / "data" / "release-0-posts.db"
PRS = {"2026-02-23": (3, 2, 1), "2026-02-23 paths:docs/**": (2, 1), "2026-02-16 week": (13, 12, 11)}


class Channels(MemoryTransport):
    """The crashes struck before a send, so the platform holds nothing the table lacks."""

    async def find_parent(self, channel, digest):
        return None

    async def find_reply(self, channel, thread_id, digest, pr_number):
        return None


def rebuilt(store: Store, scope: DigestScope) -> Digest:
    """The digest the service would build again from the store, for the scope it was given."""
    entries = tuple(
        DigestEntry(PullRequest("o/r", n, f"PR {n}", f"https://github.com/o/r/pull/{n}", "a",
                                "merged"), store.latest_summary("o/r", n))
        for n in PRS[scope.post_key]
    )  # fmt: skip
    week = None
    if scope.span == Span.WEEK:
        week = WeekInfo(tuple(WeekDay(d, 3 if d == scope.first else 0) for d in scope.days))
    return Digest("o/r", "r", scope.window, entries, scope=scope, week=week)


async def test_a_day_a_filtered_day_and_a_week_left_unfinished_by_the_last_release_resume(
    tmp_path,
):
    shutil.copy(RELEASE_DB, tmp_path / "p.db")
    store = Store(tmp_path / "p.db")
    asked: list[DigestScope] = []

    class Service:
        async def build(self, scope: DigestScope, bots=frozenset()) -> Digest:
            asked.append(scope)
            return rebuilt(store, scope)

    transport = Channels()
    poster = DigestPoster(store, transport)
    days = (date.today() - date(2026, 2, 16)).days + 1
    # Two threads resumed; the week's parent never went out, so it is posted, not resumed.
    assert await resume_unfinished(Service(), poster, days=days) == 2

    assert [(s.span, s.first.isoformat(), s.filters, s.tz_name) for s in asked] == [
        (Span.DAY, "2026-02-23", "", "America/Los_Angeles"),
        (Span.DAY, "2026-02-23", "paths:docs/**", "America/Los_Angeles"),
        (Span.WEEK, "2026-02-16", "", "America/Los_Angeles"),
    ]
    # Only what each crash cut off went out: no parent or reply twice.
    assert [(m["kind"], m.get("pr")) for m in transport.messages] == [
        ("pr", 2), ("pr", 1),  # the day: its last two replies
        ("pr", 1),  # the filtered day: its last reply
        ("parent", None),  # the week: its parent
    ]  # fmt: skip
    for key, channel in (("2026-02-23", "C1"), ("2026-02-23 paths:docs/**", "C2"),
                         ("2026-02-16 week", "C3")):  # fmt: skip
        assert poster.fully_posted(channel, "o/r", key, list(PRS[key])) is not None
    assert await resume_unfinished(Service(), poster, days=days) == 0
    assert DigestScope.from_post_key("o/r", "2026-02-16 week", "UTC").last == date(
        2026, 2, 16
    ) + timedelta(days=6)
