"""When a subscription's digests are due, and which channel a target names: pure time math.

Every instant is compared in UTC: Python compares two datetimes of one zone by wall time,
which is wrong across a DST change.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from bot.core.day_window import time_of_day, zone
from bot.core.errors import UserInputError
from bot.core.models import Platform, Subscription

# Channel ids, not names: a channel can be renamed, its id never changes.
_CHANNEL = {Platform.SLACK: re.compile(r"^[CGD][A-Z0-9]+$"), Platform.DISCORD: re.compile(r"^\d+$")}
_CHANNEL_HINT = {
    Platform.SLACK: "a Slack channel ID such as C0123456789 (channel details, at the bottom)",
    Platform.DISCORD: "a Discord channel ID such as 123456789012345678 (Copy Channel ID)",
}


def parse_target(text: str) -> tuple[str, str]:
    """`slack:C123` → ("slack", "C123"): the form of `prdigest post --to` and of the config."""
    platform, sep, channel = text.strip().partition(":")
    platform = platform.lower()
    if not sep or platform not in set(Platform) or not channel:
        raise UserInputError(
            f"{text[:60]!r} is not a target: use slack:C0123456789 or discord:123456789012345678"
        )
    if not _CHANNEL[platform].match(channel):
        raise UserInputError(f"{channel[:40]!r} is not a channel ID: use {_CHANNEL_HINT[platform]}")
    return Platform(platform), channel


def subscription_key(sub: Subscription) -> str:
    """What makes a subscription unique: one schedule per repository and channel."""
    return target_key(sub.platform, sub.channel, sub.repo)


def target_key(platform: str, channel: str, repo: str) -> str:
    """The key of the subscription posting `repo` to this channel, if there is one."""
    return f"{platform}:{channel}:{repo.lower()}"


def post_instant(sub: Subscription, day: date) -> datetime:
    """When the digest of `day` is due (UTC): the next day at post_time in the subscription's zone.

    A wall time inside a spring-forward gap resolves to the instant an hour later, one that
    happens twice to its first occurrence, as zoneinfo does.
    """
    local = datetime.combine(
        day + timedelta(days=1), time_of_day(sub.post_time), tzinfo=zone(sub.tz_name)
    )
    return local.astimezone(UTC)


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def is_weekly(sub: Subscription) -> bool:
    return sub.schedule == "weekly"


def posts_after(sub: Subscription, day: date) -> bool:
    """Whether `sub` posts the day after `day`: every day, or a weekly one on its weekday
    (its rollup covers the seven days ending with `day`)."""
    return not is_weekly(sub) or (day + timedelta(days=1)).weekday() == WEEKDAYS.index(
        sub.weekday.lower()
    )


def step(sub: Subscription) -> timedelta:
    """From one post's digest day to the next one's."""
    return timedelta(days=7 if is_weekly(sub) else 1)


def latest_post(sub: Subscription, now: datetime, lead: timedelta = timedelta(0)) -> datetime:
    """The most recent post instant whose work (post instant − lead) has started by `now`.
    A weekly subscription's post instants are on its weekday only.

    Everything is compared in UTC: Python compares two datetimes of the same zone by wall time,
    which is wrong across a DST change.
    """
    now = now.astimezone(UTC)
    today = now.astimezone(zone(sub.tz_name)).date()
    for back in range(9):
        day = today - timedelta(days=back)
        if not posts_after(sub, day):
            continue
        instant = post_instant(sub, day)
        if instant - lead <= now:
            return instant
    raise AssertionError("unreachable: a post time in the last nine days has passed")


def digest_day(sub: Subscription, instant: datetime) -> date:
    """The day whose digest is posted at `instant`, one of `sub`'s post instants."""
    return instant.astimezone(zone(sub.tz_name)).date() - timedelta(days=1)


def next_post(sub: Subscription, now: datetime) -> datetime:
    """The first post instant after `now` (UTC)."""
    return post_instant(sub, digest_day(sub, latest_post(sub, now)) + step(sub))


def describe(sub: Subscription) -> str:
    when = f"{sub.weekday.capitalize()}s " if is_weekly(sub) else ""
    kind = "weekly rollup, " if is_weekly(sub) else ""
    return (
        f"{sub.repo} ({kind}{when}at {sub.post_time} {sub.tz_name})"
        if kind
        else (f"{sub.repo} at {sub.post_time} {sub.tz_name}")
    )
