"""What one digest covers, as one value: the repository, the days, the zone and the filter.

A `/digest`, a subscription's post, a resumed post and `prdigest report` all build their digest
from a `DigestScope` (`DigestService.build`), and the posts table keys a thread by
`DigestScope.post_key`, read back by `DigestScope.from_post_key`: the only writer and the only
reader of that key. Filters are text only at the edges: the chat words and the stored column
come in through `parse_filter_args`, the key and the display go out through `to_args`.

The key's format is the one databases already hold, so threads posted by an earlier release
still resume: "2026-02-23" (a day), "2026-02-23 paths:docs/**" (a filtered day),
"2026-02-16 week" and "2026-02-16 week paths:docs/**" (a weekly rollup from its first day).
A range, new since, is keyed by what was asked for: "2026-02-01..2026-02-14" (its first and
last day) or "v0.8.0..v0.9.0" (a tag range: the PRs merged between the two tags' commits,
whichever days GitHub says those are), each maybe followed by its filter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum

from bot.core.day_window import day_window, parse_day
from bot.core.errors import UserInputError
from bot.core.filters import SubscriptionFilter, parse_filter_args
from bot.core.models import DayWindow, Digest, Subscription
from bot.core.post_times import is_weekly

_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_LOOKS_LIKE_A_DAY = re.compile(r"\d{4}-\d|today$|yesterday$|.* ago$", re.IGNORECASE)
WEEK_WORD = "week"  # the word of a weekly rollup's key, after its first day
RANGE_JOIN = ".."  # between a range's two ends: "2026-02-01..2026-02-14", "v0.8.0..v0.9.0"
MAX_RANGE_SETTING = "PRDIGEST_RANGE_MAX_DAYS"
# A tag as a command may name it: git's ref characters, without what would be a range or a
# path out of refs/tags ("..", a leading "-" or "/").
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+/-]{0,99}")


class Span(StrEnum):
    """How many days a digest covers: one, a week, or any range of days (`DigestScope.range`).
    A week is a range of seven days that keeps its own key and words."""

    DAY = "day"
    WEEK = "week"
    RANGE = "range"


_DAYS = {Span.DAY: 1, Span.WEEK: 7}


@dataclass(frozen=True)
class DigestScope:
    repo: str  # "owner/name", as typed or as GitHub spells it
    first: date  # the first day covered
    tz_name: str
    span: Span = Span.DAY
    filter: SubscriptionFilter = field(default_factory=SubscriptionFilter)
    until: date | None = None  # a range's last day
    tags: str = ""  # a tag range's "v0.8.0..v0.9.0": only the PRs merged between the two

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
    def range(
        cls, repo: str, first: date, last: date, tz_name: str,
        flt: SubscriptionFilter | None = None, *, tags: str = "",
    ) -> DigestScope:  # fmt: skip
        """The days `first` to `last`, both in: `report --from/--to`, `/digest D1..D2`, and a
        tag range once GitHub has said its days (`TagRange.resolved`)."""
        if last < first:
            raise UserInputError(
                f"{first.isoformat()}{RANGE_JOIN}{last.isoformat()} ends before it starts: "
                "write the earlier day first"
            )
        flt = flt or SubscriptionFilter()
        return cls(repo, first, tz_name, Span.RANGE, flt, until=last, tags=tags)

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
    def from_post_key(cls, repo: str, key: str, tz_name: str) -> DigestScope | TagRange:
        """The scope a posts-table key was written for (`post_key`): the only reader. A tag
        range's key names its tags only: it comes back as the `TagRange` to resolve."""
        day, _, rest = key.partition(" ")
        if RANGE_JOIN in day:
            first, _, last = day.partition(RANGE_JOIN)
            flt = parse_filter_args(rest)
            if _ISO_DAY.fullmatch(first) and _ISO_DAY.fullmatch(last):
                return cls.range(
                    repo, date.fromisoformat(first), date.fromisoformat(last), tz_name, flt
                )
            return TagRange(repo, first, last, tz_name, flt)
        word, _, filters = rest.partition(" ")
        span = Span.WEEK if word == WEEK_WORD else Span.DAY
        text = filters if span == Span.WEEK else rest
        return cls(repo, date.fromisoformat(day), tz_name, span, parse_filter_args(text))

    # -- what it covers ----------------------------------------------------------------------

    @property
    def days(self) -> tuple[date, ...]:
        count = _DAYS.get(self.span) or ((self.until or self.first) - self.first).days + 1
        return tuple(self.first + timedelta(days=i) for i in range(count))

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
    def range_text(self) -> str:
        """A range as typed: "2026-02-01..2026-02-14", or a tag range's "v0.8.0..v0.9.0"."""
        return self.tags or f"{self.first.isoformat()}{RANGE_JOIN}{self.last.isoformat()}"

    @property
    def label(self) -> str:
        """What a digest shows of its scope, after its day: "", "paths:docs/**", "week", or
        "week paths:docs/**" (also Slack's message metadata, so crash recovery still finds
        messages posted by an earlier release); a range's is its whole key."""
        if self.span == Span.WEEK:
            return f"{WEEK_WORD} {self.filters}".strip()
        if self.span == Span.RANGE:
            return f"{self.range_text} {self.filters}".strip()
        return self.filters

    @property
    def post_key(self) -> str:
        """This digest's key in the posts table: the only writer (see `from_post_key`). A
        tag range's names its tags, not its days: asking again finds the same thread."""
        if self.span == Span.RANGE:
            return self.label
        return f"{self.first.isoformat()} {self.label}".strip()

    @property
    def shown_day(self) -> str:
        """The day, week or range as a message names it."""
        if self.span == Span.WEEK:
            return f"the week {self.first.isoformat()} to {self.last.isoformat()}"
        if self.span == Span.RANGE:
            days = f"{self.first.isoformat()} to {self.last.isoformat()}"
            return f"{self.tags} ({days})" if self.tags else days
        return self.first.isoformat()

    def check_length(self, max_days: int) -> None:
        """Refuse a range longer than `max_days` (PRDIGEST_RANGE_MAX_DAYS), before any call."""
        if self.span == Span.RANGE and len(self.days) > max_days:
            raise UserInputError(
                f"A range is at most {max_days} days ({MAX_RANGE_SETTING}); "
                f"{self.range_text} is {len(self.days)}"
            )

    def whole_day(self, day: date) -> DigestScope:
        """The unfiltered digest of one of its days."""
        return DigestScope.day(self.repo, day, self.tz_name)

    def of_day(self, day: date) -> DigestScope:
        """The digest of one of its days with the same filter."""
        return DigestScope.day(self.repo, day, self.tz_name, self.filter)


@dataclass(frozen=True)
class TagRange:
    """`/digest v0.8.0..v0.9.0`: the PRs merged between two tags' commits on the default
    branch, before GitHub has said which days those are. `DigestService.resolve` asks it and
    makes it a range (`resolved`); its key is its tags', so it needs no GitHub call."""

    repo: str
    base: str
    head: str
    tz_name: str
    filter: SubscriptionFilter = field(default_factory=SubscriptionFilter)

    def __post_init__(self) -> None:
        for tag in (self.base, self.head):
            if not _TAG.fullmatch(tag) or RANGE_JOIN in tag or tag.endswith((".", "/")):
                raise UserInputError(
                    f"{tag[:40]!r} is not a tag name: a range is D1..D2 (two days) or "
                    "TAG..TAG, e.g. v0.8.0..v0.9.0"
                )

    @property
    def tags(self) -> str:
        return f"{self.base}{RANGE_JOIN}{self.head}"

    @property
    def filters(self) -> str:
        return self.filter.to_args()

    @property
    def label(self) -> str:
        return f"{self.tags} {self.filters}".strip()

    @property
    def post_key(self) -> str:
        """The key its range's digest is posted under (`DigestScope.post_key`)."""
        return self.label

    @property
    def shown_day(self) -> str:
        return self.tags

    @property
    def is_whole_day(self) -> bool:
        return False

    def resolved(self, repo: str, first: date, last: date) -> DigestScope:
        """The range of days its two commits span, keeping only its own PRs by `tags`."""
        return DigestScope.range(repo, first, last, self.tz_name, self.filter, tags=self.tags)


def parse_range(
    repo: str, text: str, tz_name: str, flt: SubscriptionFilter | None = None, *,
    now: datetime | None = None,
) -> DigestScope | TagRange:  # fmt: skip
    """`D1..D2`, each end any day `parse_day` reads ("2026-02-01", "3 days ago", "yesterday"),
    or `TAG..TAG`: a range of days, or a tag range still to resolve. Not its length: that is
    `check_length`'s, with the setting."""
    left, _, right = (part.strip() for part in text.partition(RANGE_JOIN))
    if not left or not right:
        raise UserInputError("A range has two ends: 2026-02-01..2026-02-14 or v0.8.0..v0.9.0")
    first, last = _range_end(left, tz_name, now), _range_end(right, tz_name, now)
    if first is None and last is None:
        return TagRange(repo, left, right, tz_name, flt or SubscriptionFilter())
    if first is None or last is None:
        raise UserInputError(
            "A range is two days (2026-02-01..2026-02-14) or two tags (v0.8.0..v0.9.0), "
            "not one of each"
        )
    return DigestScope.range(repo, first, last, tz_name, flt)


def _range_end(text: str, tz_name: str, now: datetime | None) -> date | None:
    """One end of a range as a day, or None for a tag; a bad or future day is an error."""
    try:
        return parse_day(text, tz_name, now=now)
    except UserInputError:
        if _LOOKS_LIKE_A_DAY.match(text):
            raise
        return None


def post_key_of(digest: Digest) -> str:
    """A built digest's posts-table key."""
    return DigestScope.of_digest(digest).post_key


def label_of(digest: Digest) -> str:
    return DigestScope.of_digest(digest).label


def subscription_filter(sub: Subscription) -> SubscriptionFilter:
    """A subscription's filter, from the text its table or `prdigest.toml` stores."""
    return parse_filter_args(sub.filters)
