"""The Discord adapter: embeds rendering, the REST transport, and the discord.py listeners.

May import: `bot.chat`, `bot.digest`, `bot.store`, `bot.ports`, `bot.core`, discord.py.
"""

from adapters.discord.client import DiscordBot, create_bot, run_discord, start_bot
from adapters.discord.invite import application_id, invite_url

__all__ = ["DiscordBot", "application_id", "create_bot", "invite_url", "run_discord", "start_bot"]
