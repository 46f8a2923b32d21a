"""Discord's lines: the bot token, the servers the bot is in (those PRDIGEST_DISCORD_GUILDS
names among them), and each channel a subscription posts to, with the permissions the invite
asks for. The calls are `adapters.discord.doctor`'s; the meaning and the fix are said here."""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.discord.doctor import (
    MISSING_ACCESS,
    DiscordIdentity,
    DiscordProblem,
    channel_access,
    discord_api,
)
from bot.app.doctor.check import Check, failed, passed, skipped, within
from bot.core.models import Platform, Subscription
from bot.core.settings import Settings

SECONDS = 15.0
TOKEN_FIX = (
    "set DISCORD_BOT_TOKEN to the bot's token (Developer Portal → your app → Bot → Reset Token)"
)
API_URL_FIX = (
    "check DISCORD_API_URL (default https://discord.com/api/v10) and that this machine can reach it"
)
INVITE_FIX = "add the bot to that server with the URL prdigest discord-invite prints"


async def discord_checks(settings: Settings, subs: list[Subscription]) -> list[Check]:
    if not settings.discord_bot_token:
        return [skipped("Discord", "not configured (DISCORD_BOT_TOKEN unset)")]
    where = "Discord at DISCORD_API_URL"
    found = await within(SECONDS * 2, "Discord", _with_api(settings, subs), where=where)
    return [found] if isinstance(found, Check) else found


async def _with_api(settings: Settings, subs: list[Subscription]) -> list[Check]:
    channels = sorted({s.channel for s in subs if s.platform == Platform.DISCORD})
    try:
        async with discord_api(settings) as (http, me):
            checks = [passed("Discord", f"signed in as {me.name}"), guilds_check(settings, me)]
            checks += await asyncio.gather(
                *(
                    within(SECONDS, f"Discord channel {c}", channel_check(settings, http, me, c))
                    for c in channels
                )
            )
            return checks
    except DiscordProblem as exc:
        fix = TOKEN_FIX if exc.status == 401 else API_URL_FIX
        return [failed("Discord", str(exc), fix)]


def guilds_check(settings: Settings, me: DiscordIdentity) -> Check:
    name = "Discord servers"
    missing = [str(g) for g in settings.discord_guilds if str(g) not in me.guilds]
    if missing:
        return failed(
            name,
            f"not in {', '.join(missing)} (PRDIGEST_DISCORD_GUILDS)",
            INVITE_FIX + ", or correct PRDIGEST_DISCORD_GUILDS",
        )
    if not me.guilds:
        return failed(name, "the bot is in no server", INVITE_FIX)
    names = ", ".join(sorted(me.guilds.values())[:5])
    more = f" and {len(me.guilds) - 5} more" if len(me.guilds) > 5 else ""
    return passed(name, f"in {len(me.guilds)}: {names}{more}")


async def channel_check(settings: Settings, http: Any, me: DiscordIdentity, channel: str) -> Check:
    name = f"Discord channel {channel}"
    try:
        access = await channel_access(settings, http, channel, me.user_id)
    except DiscordProblem as exc:
        if exc.status == 404:
            return failed(
                name, "no such channel", "check the channel ID (right-click it → Copy Channel ID)"
            )
        if exc.status == 403 or exc.code == MISSING_ACCESS:
            return failed(
                name,
                "the bot cannot see it",
                "let the bot's role View Channel there (Edit Channel → Permissions), or "
                + INVITE_FIX,
            )
        return failed(name, str(exc), API_URL_FIX)
    if access.guild_id not in me.guilds:
        return failed(name, f"#{access.name} is in a server the bot is not in", INVITE_FIX)
    if access.missing:
        return failed(
            name,
            f"#{access.name}: the bot lacks {', '.join(access.missing)}",
            "allow them for the bot's role in the channel (Edit Channel → Permissions), or "
            "add the bot again with the URL prdigest discord-invite prints",
        )
    return passed(name, f"#{access.name}: the bot has every permission the invite asks for")
