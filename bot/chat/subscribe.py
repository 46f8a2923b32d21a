"""`/digest subscribe | unsubscribe | subscriptions`, for every chat platform.

The answer is one line of plain text; the adapter escapes it for its platform. The schedule is
reached through the `ScheduleControl` port, so this layer never imports the scheduler.
"""

from __future__ import annotations

from bot.chat.commands import SubscriptionCommand
from bot.core.day_window import parse_hhmm, zone
from bot.core.models import Subscription, TrivialStyle
from bot.core.post_times import describe, next_post
from bot.core.scope import subscription_filter
from bot.ports.schedule import ScheduleControl
from bot.store.subscriptions import SubscriptionStore

SUBSCRIBE_USAGE = (
    "/digest subscribe owner/repo [at HH:MM] [tz Area/City] [every monday] [quiet skip] [filters]"
)
MAX_PER_CHANNEL = 10  # chat subscriptions per channel, so a pasted loop cannot flood one


async def handle_subscription_command(
    cmd: SubscriptionCommand,
    platform: str,
    channel: str,
    store: SubscriptionStore,
    scheduler: ScheduleControl,
    *,
    bot_in_channel: bool = True,
    user: str | None = None,
) -> str:
    """Carry out a subscription command typed in `channel`; returns the one-line answer.

    The adapter passes `bot_in_channel=False` when the bot is not a member of the channel
    (Slack lets anyone type a slash command anywhere): the digest could never be posted there.
    """
    if cmd.action == "list":
        return await _list(scheduler, store, platform, channel)
    assert cmd.repo is not None  # the parser requires a repository for these two actions
    configured_for = getattr(scheduler.subscriptions, "configured_for", None)
    fixed = configured_for(platform, channel, cmd.repo) if configured_for else None
    if cmd.action == "unsubscribe":
        if fixed is not None:
            return f"{fixed.repo} is scheduled here by the configuration file: remove it there."
        return await _unsubscribe(cmd.repo, platform, channel, store, scheduler)
    if not bot_in_channel:
        return "I am not a member of this channel: invite me first, then subscribe again."
    if fixed is not None:
        return f"{describe(fixed)} is scheduled here by the configuration file: change it there."
    return await _subscribe(cmd, platform, channel, store, scheduler, user)


async def _list(
    scheduler: ScheduleControl, store: SubscriptionStore, platform: str, channel: str
) -> str:
    subscriptions = await store.store.aio.read(scheduler.subscriptions.all)
    here = sorted(
        (s for s in subscriptions if (s.platform, s.channel) == (platform, channel)),
        key=lambda s: s.repo.lower(),
    )
    if not here:
        return f"No daily digest is scheduled in this channel. Add one with {SUBSCRIBE_USAGE}."
    parts = [
        describe(s)
        + (f" · {shown}" if (shown := subscription_filter(s).describe()) else "")
        + (" · quiet days skipped" if s.quiet == "skip" else "")
        + (" (from the configuration file)" if s.id is None else "")
        for s in here
    ]
    return "Digests in this channel: " + "; ".join(parts) + "."


async def _unsubscribe(
    repo: str, platform: str, channel: str, store: SubscriptionStore, scheduler: ScheduleControl
) -> str:
    removed = await store.store.aio.write(store.remove, platform, channel, repo)
    if removed is None:
        return f"{repo} has no daily digest in this channel."
    scheduler.reload()
    return f"Unsubscribed: no more daily digest of {removed.repo} in this channel."


async def _subscribe(
    cmd: SubscriptionCommand,
    platform: str,
    channel: str,
    store: SubscriptionStore,
    scheduler: ScheduleControl,
    user: str | None,
) -> str:
    assert cmd.repo is not None
    aio = store.store.aio
    current = await aio.read(store.get, platform, channel, cmd.repo)
    if current is None and len(await aio.read(store.list, platform, channel)) >= MAX_PER_CHANNEL:
        return (
            f"This channel already has {MAX_PER_CHANNEL} daily digests: unsubscribe from one first."
        )
    sub = Subscription(
        repo=cmd.repo,
        platform=platform,
        channel=channel,
        post_time=cmd.post_time
        or (current.post_time if current else None)
        or parse_hhmm(scheduler.settings.digest_time),
        tz_name=cmd.tz_name or scheduler.settings.timezone,
        display_name=current.display_name if current else None,
        trivial_style=current.trivial_style if current else TrivialStyle.FULL,
        filters=cmd.filters,
        quiet=cmd.quiet or (current.quiet if current else "post"),
        schedule="weekly" if cmd.weekday else "daily",
        weekday=cmd.weekday or "monday",
    )
    saved, created = await aio.write(store.add, sub, created_by=user)
    scheduler.reload()
    upcoming = next_post(saved, scheduler.clock()).astimezone(zone(saved.tz_name))
    next_local = upcoming.strftime("%a %d %b %H:%M %Z")
    verb = "Subscribed" if created else "Updated"
    shown = subscription_filter(saved).describe()
    only = f", only the PRs matching {shown}" if shown else ""
    if saved.schedule == "weekly":
        return (
            f"{verb}: the weekly rollup of {saved.repo} is posted here every "
            f"{saved.weekday.capitalize()} at {saved.post_time} {saved.tz_name}, for the seven "
            f"days before{only} (next: {next_local})."
        )
    return (
        f"{verb}: the digest of {saved.repo} is posted here every day at {saved.post_time} "
        f"{saved.tz_name}, for the day before{only} (next: {next_local})."
    )
