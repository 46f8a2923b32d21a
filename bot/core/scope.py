"""What one digest covers, as one value: the repository, the days, the zone and the filter.

A `/digest`, a subscription's post, a resumed post and `prdigest report` all build their digest
from a `DigestScope` (`DigestService.build`), and the posts table keys a thread by
`DigestScope.post_key`, read back by `DigestScope.from_post_key`: the only writer and the only
reader of that key. Filters are text only at the edges: the chat words and the stored column
come in through `parse_filter_args`, the key and the display go out through `to_args`.

The key's format is the one databases already hold, so threads posted by an earlier release
still resume: "2026-02-23" (a day), "2026-02-23 paths:docs/**" (a filtered day),
"2026-02-16 week" and "2026-02-16 week paths:docs/**" (a weekly rollup from its first day).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum

from bot.core.day_window import day_window
from bot.core.filters import SubscriptionFilter, parse_filter_args
from bot.core.models import DayWindow, Digest, Subscription
from bot.core.post_times import is_weekly

WEEK_WORD = "week"  # the word of a weekly rollup's key, after its first day


class Span(StrEnum):
    """How many days a digest covers. A range of dates is one more member and constructor."""

    DAY = "day"
    WEEK = "week"


_DAYS = {Span.DAY: 1, Span.WEEK: 7}


@dataclass(frozen=True)
class DigestScope:
    repo: str  # "owner/name", as typed or as GitHub spells it
    first: date  # the first day covered
    tz_name: str
    span: Span = Span.DAY
    filter: SubscriptionFilter = field(default_factory=SubscriptionFilter)

    # -- made from ---------------------------------------------------------------------------

    @classmethod
    def day(
        cls, repo: str, day: date, tz_name: str, flt: SubscriptionFilter | None = None
    ) -> DigestScope:
        return cls(repo, day, tz_name, Span.DAY, flt or SubscriptionFilter())

    @classmethod
    def week(
        cls, repo: str, first: date, tz_name: str, flt: SubscriptionFilter | None = None
    ) -> DigestScope:
        """The seven days from `first`: `/digest week` and a weekly subscription's rollup."""
        return cls(repo, first, tz_name, Span.WEEK, flt or SubscriptionFilter())

    @classmethod
    def of_subscription(cls, sub: Subscription, day: date) -> DigestScope:
        """What `sub` posts for `day`: that day, or for a weekly one the week ending it."""
        flt = subscription_filter(sub)
        if is_weekly(sub):
            return cls.week(sub.repo, day - timedelta(days=6), sub.tz_name, flt)
        return cls.day(sub.repo, day, sub.tz_name, flt)

    @classmethod
    def of_digest(cls, digest: Digest) -> DigestScope:
        """A built digest's scope: the one it was built from, else its whole day."""
        if isinstance(digest.scope, DigestScope):
            return digest.scope
        return cls.day(digest.repo, digest.window.day, digest.window.tz_name)

    @classmethod
    def from_post_key(cls, repo: str, key: str, tz_name: str) -> DigestScope:
        """The scope a posts-table key was written for (`post_key`): the only reader."""
        day, _, rest = key.partition(" ")
        word, _, filters = rest.partition(" ")
        span = Span.WEEK if word == WEEK_WORD else Span.DAY
        text = filters if span == Span.WEEK else rest
        return cls(repo, date.fromisoformat(day), tz_name, span, parse_filter_args(text))

    # -- what it covers ----------------------------------------------------------------------

    @property
    def days(self) -> tuple[date, ...]:
        return tuple(self.first + timedelta(days=i) for i in range(_DAYS[self.span]))

    @property
    def last(self) -> date:
        return self.days[-1]

    @property
    def windows(self) -> list[DayWindow]:
        return [day_window(d, self.tz_name) for d in self.days]

    @property
    def window(self) -> DayWindow:
        """The first day's window: a day's digest window, a rollup's first day."""
        return day_window(self.first, self.tz_name)

    @property
    def is_whole_day(self) -> bool:
        return self.span == Span.DAY and self.filter.is_empty

    @property
    def filters(self) -> str:
        """The filter in its chat form ("" for none): for display and the stored column."""
        return self.filter.to_args()

    @property
    def label(self) -> str:
        """What a digest shows of its scope, after its day: "", "paths:docs/**", "week", or
        "week paths:docs/**" (also Slack's message metadata, so crash recovery still finds
        messages posted by an earlier release)."""
        if self.span == Span.WEEK:
            return f"{WEEK_WORD} {self.filters}".strip()
        return self.filters

    @property
    def post_key(self) -> str:
        """This digest's key in the posts table: the only writer (see `from_post_key`)."""
        return f"{self.first.isoformat()} {self.label}".strip()

    @property
    def shown_day(self) -> str:
        """The day or week as a message names it."""
        if self.span == Span.WEEK:
            return f"the week {self.first.isoformat()} to {self.last.isoformat()}"
        return self.first.isoformat()

    def whole_day(self, day: date) -> DigestScope:
        """The unfiltered digest of one of its days."""
        return DigestScope.day(self.repo, day, self.tz_name)

    def of_day(self, day: date) -> DigestScope:
        """The digest of one of its days with the same filter."""
        return DigestScope.day(self.repo, day, self.tz_name, self.filter)


def post_key_of(digest: Digest) -> str:
    """A built digest's posts-table key."""
    return DigestScope.of_digest(digest).post_key


def label_of(digest: Digest) -> str:
    return DigestScope.of_digest(digest).label


def subscription_filter(sub: Subscription) -> SubscriptionFilter:
    """A subscription's filter, from the text its table or `prdigest.toml` stores."""
    return parse_filter_args(sub.filters)
