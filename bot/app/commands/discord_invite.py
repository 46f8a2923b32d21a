"""`prdigest discord-invite`: the URL that adds the bot to a Discord server."""

from __future__ import annotations

import click

from adapters.discord.invite import application_id as ask_application_id
from adapters.discord.invite import invite_url
from bot.app.commands.shared import CLIError, load_settings, run_command

NO_ID = (
    "DISCORD_BOT_TOKEN is not set: pass the bot's application id with --application-id "
    "(Discord Developer Portal, General Information), or set DISCORD_BOT_TOKEN to look it up"
)


@click.command("discord-invite")
@click.option(
    "--application-id", type=int, help="Skip asking Discord (by DISCORD_BOT_TOKEN) for the id."
)
@click.pass_context
@run_command
async def command(ctx: click.Context, application_id: int | None) -> int:
    """Print the URL that adds the bot to a Discord server, with exactly the permissions used."""
    settings = load_settings(ctx.obj["verbose"])
    if application_id is None and not settings.discord_bot_token:
        raise CLIError(NO_ID)
    if application_id is None:
        application_id = await ask_application_id(settings)
    click.echo(invite_url(application_id))
    return 0
