"""The time zone, and when each subscription posts next: computed as the scheduler computes
it (`bot.core.post_times.next_post`), with a line that fails when the subscription's
platform is not configured, as nothing would ever be posted there."""

from __future__ import annotations

from datetime import datetime

from bot.app.doctor.check import Check, failed, passed, skipped
from bot.core.clock import utcnow
from bot.core.day_window import zone
from bot.core.errors import PRDigestError
from bot.core.models import Platform, Subscription
from bot.core.post_times import is_weekly, next_post
from bot.core.settings import Settings

TOKENS = {Platform.SLACK: "SLACK_BOT_TOKEN", Platform.DISCORD: "DISCORD_BOT_TOKEN"}


def schedule_checks(settings: Settings, subs: list[Subscription], now: datetime | None = None):
    now = now or utcnow()
    local = now.astimezone(zone(settings.timezone))
    checks = [passed("Time zone", f"{settings.timezone}: it is {local:%a %Y-%m-%d %H:%M %Z} there")]
    if not subs:
        return [*checks, skipped("Next post", "no subscriptions, so no scheduled posts")]
    return [*checks, *(post_check(settings, sub, now) for sub in subs)]


def post_check(settings: Settings, sub: Subscription, now: datetime) -> Check:
    name = f"Next post to {sub.platform}:{sub.channel} ({sub.repo})"
    token = TOKENS.get(Platform(sub.platform))
    if token and not getattr(settings, token.lower()):
        platform = Platform(sub.platform).name.title()
        return failed(
            name,
            f"{platform} is not configured ({token} unset): nothing is ever posted there",
            f"set {token}, or remove this subscription",
        )
    try:
        when = next_post(sub, now).astimezone(zone(sub.tz_name))
    except PRDigestError as exc:
        return failed(name, str(exc), "correct the subscription's time zone or post time")
    kind = "the weekly rollup" if is_weekly(sub) else "the digest"
    return passed(
        name, f"{kind} at {when:%a %Y-%m-%d %H:%M} {sub.tz_name} (in {_span(when - now)})"
    )


def _span(delta) -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours) + [f"{minutes} min"]
    return " ".join(parts)
