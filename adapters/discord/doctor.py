"""What `prdigest doctor` asks of Discord: who the bot is and which servers it is in, and what
it may do in each channel it posts to, against the permissions its invite asks for.

REST reads through discord.py's own HTTP client at DISCORD_API_URL (no gateway connection):
GET /users/@me, /users/@me/guilds, the channel, its server's roles and the bot's member
record. The channel's permissions are computed as Discord does (the server's base, then the
channel's overwrites for @everyone, the bot's roles and the bot itself) with discord.py's
`Permissions`, and compared with `adapters.discord.invite.permissions()`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord

from adapters.discord.invite import permissions as invite_permissions
from adapters.discord.transport import DEFAULT_API_URL, apply_endpoints
from bot.core.endpoints import Endpoint
from bot.core.settings import Settings

MISSING_ACCESS = 50001  # Discord's error code: the bot cannot see the channel
UNKNOWN_CHANNEL = 10003


@dataclass(frozen=True)
class DiscordIdentity:
    name: str
    user_id: str
    guilds: dict[str, str]  # id -> name, of the servers the bot is in


@dataclass(frozen=True)
class ChannelAccess:
    name: str  # "pr-digests"
    guild_id: str
    missing: tuple[str, ...]  # permissions the invite asks for that the bot lacks here


class DiscordProblem(Exception):
    """A call that failed: Discord's status and error code, or no answer at all (status
    None, the message names the host and DISCORD_API_URL)."""

    def __init__(self, message: str, status: int | None = None, code: int | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


@contextlib.asynccontextmanager
async def discord_api(settings: Settings) -> AsyncIterator[tuple[Any, DiscordIdentity]]:
    """discord.py's REST client logged in with DISCORD_BOT_TOKEN, and who that is."""
    apply_endpoints(settings)
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        user = await _call(settings, http.static_login(settings.discord_bot_token or ""))
        guilds = await _call(settings, http.get_guilds(200))
        yield (
            http,
            DiscordIdentity(
                name=str(user.get("username") or ""),
                user_id=str(user["id"]),
                guilds={str(g["id"]): str(g.get("name") or g["id"]) for g in guilds},
            ),
        )
    finally:
        await http.close()


async def channel_access(
    settings: Settings, http: Any, channel_id: str, bot_id: str
) -> ChannelAccess:
    channel = await _call(settings, http.get_channel(int(channel_id)))
    guild_id = str(channel.get("guild_id") or "")
    if not guild_id:
        raise DiscordProblem("not a server channel (a direct message?)")
    guild = await _call(settings, http.get_guild(int(guild_id)))
    member = await _call(settings, http.get_member(int(guild_id), int(bot_id)))
    allowed = channel_permissions(guild, member, channel, bot_id)
    needed = invite_permissions() | discord.Permissions(view_channel=True)
    missing = tuple(
        _label(name) for name, wanted in needed if wanted and not getattr(allowed, name)
    )
    return ChannelAccess(
        name=str(channel.get("name") or channel_id), guild_id=guild_id, missing=missing
    )


def channel_permissions(
    guild: dict[str, Any], member: dict[str, Any], channel: dict[str, Any], bot_id: str
) -> discord.Permissions:
    """What the bot may do in `channel`, computed from the REST answers as Discord does."""
    if str(guild.get("owner_id")) == bot_id:
        return discord.Permissions.all()
    roles = {str(role["id"]): int(role["permissions"]) for role in guild.get("roles", [])}
    mine = [str(role) for role in member.get("roles", [])]
    allowed = discord.Permissions(roles.get(str(guild["id"]), 0))
    for role in mine:
        allowed.value |= roles.get(role, 0)
    if allowed.administrator:
        return discord.Permissions.all()
    overwrites = {str(o["id"]): o for o in channel.get("permission_overwrites") or []}
    for layer in ([str(guild["id"])], mine, [bot_id]):  # @everyone, the roles, the member
        found = [overwrites[key] for key in layer if key in overwrites]
        allow = deny = 0
        for overwrite in found:
            allow |= int(overwrite.get("allow") or 0)
            deny |= int(overwrite.get("deny") or 0)
        allowed.handle_overwrite(allow=allow, deny=deny)
    return allowed


def _label(permission: str) -> str:
    return permission.replace("_", " ").title()


def endpoint(settings: Settings) -> Endpoint:
    return Endpoint("Discord", "DISCORD_API_URL", settings.discord_api_url or DEFAULT_API_URL)


async def _call(settings: Settings, request):
    try:
        return await request
    except discord.LoginFailure:
        raise DiscordProblem("Discord refused DISCORD_BOT_TOKEN (401)", 401) from None
    except discord.HTTPException as exc:
        code = exc.code or None
        raise DiscordProblem(
            f"Discord answered {exc.status}: {exc.text or exc.response.reason}", exc.status, code
        ) from None
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise DiscordProblem(endpoint(settings).unreachable(exc)) from None
