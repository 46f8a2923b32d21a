"""Where the day window is computed: which instants count as "2026-02-23" in a zone."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.errors import UserInputError
from bot.core.models import DayWindow

_DAYS_AGO = re.compile(r"^(\d{1,4})\s+days?\s+ago$")
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def zone(tz_name: str) -> ZoneInfo:
    """The IANA zone called `tz_name`, or a one-line error."""
    try:
        if not tz_name or tz_name != tz_name.strip() or ".." in tz_name:
            raise ValueError
        return ZoneInfo(tz_name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UserInputError(
            f"Unknown time zone {tz_name!r}: use an IANA name such as America/Los_Angeles"
        ) from None


def parse_day(text: str, tz_name: str, now: datetime | None = None) -> date:
    """Parse `YYYY-MM-DD`, `today`, `yesterday` or `N days ago` as a day in the zone.

    A day after today (in the zone) is refused: nothing has been merged in it yet.
    """
    tz = zone(tz_name)
    today = (now or datetime.now(tz)).astimezone(tz).date()
    value = " ".join(text.strip().lower().split())
    if value == "today":
        day = today
    elif value == "yesterday":
        day = today - timedelta(days=1)
    elif match := _DAYS_AGO.match(value):
        day = today - timedelta(days=int(match.group(1)))
    else:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise UserInputError(
                f"Bad date {text.strip()[:40]!r}: use YYYY-MM-DD, today, yesterday or 'N days ago'"
            )
        try:
            day = date.fromisoformat(value)
        except ValueError:
            raise UserInputError(f"Bad date {value!r}: no such day") from None
    if day > today:
        raise UserInputError(f"{day.isoformat()} is in the future ({tz_name} today is {today})")
    if day.year < 2008:
        raise UserInputError(f"{day.isoformat()} is before GitHub existed")
    return day


def day_window(day: date, tz_name: str) -> DayWindow:
    """The whole calendar day in the zone, from 00:00 to the next 00:00 (23 or 25 h on DST days)."""
    tz = zone(tz_name)
    start = datetime.combine(day, time(0), tzinfo=tz)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=tz)
    return DayWindow(day=day, tz_name=tz_name, start=start, end=end)


def is_complete(
    window: DayWindow, now: datetime | None = None, settle: timedelta = timedelta(hours=1)
) -> bool:
    """Whether the day ended long enough ago that GitHub's search index has caught up with it.

    Search lags merges by seconds to minutes; a list fetched after `settle` is final.
    """
    now = now or datetime.now(window.start.tzinfo)
    return now >= window.end + settle


def parse_hhmm(text: str) -> str:
    """A time of day: `9:05` or `09:05` → `09:05`; anything else is a one-line error."""
    match = _HHMM.match(text.strip())
    if not match:
        raise UserInputError(f"{text[:20]!r} is not a time: use HH:MM, like 09:00")
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def time_of_day(text: str) -> time:
    """`09:05` as a `time`, through the one HH:MM parser."""
    hour, minute = parse_hhmm(text).split(":")
    return time(int(hour), int(minute))


def week_start(text: str, tz_name: str, *, now: datetime | None = None) -> date:
    """The first day of a weekly rollup: "" is the seven days ending yesterday; "of D" (or
    just "D") is the Monday of D's week, Monday to Sunday."""
    words = text.split()
    if not words:
        return parse_day("yesterday", tz_name, now=now) - timedelta(days=6)
    if words[0].lower() == "of":
        words = words[1:]
    if not words:
        raise UserInputError("Name a day of the week, as in: week of 2026-02-23")
    day = parse_day(" ".join(words), tz_name, now=now)
    return day - timedelta(days=day.weekday())
