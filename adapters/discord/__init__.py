"""The Discord adapter: embeds rendering, the REST transport, and the discord.py bot.

Entry points for the CLI: `run_discord()` (`prdigest run`), `invite_url()` and
`application_id()` (`prdigest discord-invite`). discord.py is imported lazily, so the CLI
starts fast when Discord is not configured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.discord.client import DiscordBot


def __getattr__(name: str) -> Any:
    # `from adapters.discord import DiscordBot` works, without importing discord.py up front.
    if name == "DiscordBot":
        from adapters.discord.client import DiscordBot

        return DiscordBot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


async def run_discord(*args: Any, **kwargs: Any) -> None:
    """See `adapters.discord.client.run_discord`."""
    from adapters.discord.client import run_discord as run

    await run(*args, **kwargs)


def invite_url(application_id: int | str) -> str:
    """See `adapters.discord.invite.invite_url`."""
    from adapters.discord.invite import invite_url as build

    return build(application_id)


async def application_id(settings: Any) -> int:
    """See `adapters.discord.invite.application_id`."""
    from adapters.discord.invite import application_id as fetch

    return await fetch(settings)


def create_bot(*args: Any, **kwargs: Any) -> DiscordBot:
    from adapters.discord.client import create_bot as create

    return create(*args, **kwargs)


async def start_bot(*args: Any, **kwargs: Any) -> None:
    from adapters.discord.client import start_bot as start

    await start(*args, **kwargs)


__all__ = ["DiscordBot", "application_id", "create_bot", "invite_url", "run_discord", "start_bot"]
