"""The OAuth2 link that adds the bot to a server, asking for exactly what it uses."""

from __future__ import annotations

import asyncio

import aiohttp
import discord

from adapters.discord.transport import apply_endpoints
from bot.core.errors import ConfigurationError
from bot.core.settings import Settings

SCOPES = ("bot", "applications.commands")


def permissions() -> discord.Permissions:
    """What the bot does, and nothing more."""
    return discord.Permissions(
        send_messages=True,  # the digest's parent message and flag thanks
        create_public_threads=True,  # one thread per digest
        send_messages_in_threads=True,  # one message per PR in it
        embed_links=True,  # each PR is an embed
        read_message_history=True,  # finding a message sent just before a crash
        add_reactions=True,  # reacting is how summaries are flagged
    )


def invite_url(application_id: int | str) -> str:
    """`https://discord.com/oauth2/authorize?client_id=…&scope=bot+applications.commands&…`"""
    return discord.utils.oauth_url(int(application_id), permissions=permissions(), scopes=SCOPES)


async def application_id(settings: Settings) -> int:
    """The bot's application id, asked of Discord with DISCORD_BOT_TOKEN (one REST call)."""
    if not settings.discord_bot_token:
        raise ConfigurationError("DISCORD_BOT_TOKEN is not set")
    apply_endpoints(settings)
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(settings.discord_bot_token)
        data = await http.application_info()
    except discord.LoginFailure:
        raise ConfigurationError("Discord rejected DISCORD_BOT_TOKEN") from None
    except (discord.HTTPException, aiohttp.ClientError) as exc:
        raise ConfigurationError(
            f"Cannot reach Discord to look up the application: {exc}"
        ) from None
    finally:
        await http.close()
    return int(data["id"])
