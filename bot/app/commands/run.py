"""`prdigest run`: the bot, on the configured chat platforms, and the daily schedule."""

from __future__ import annotations

import click

from bot.app.commands.shared import load_settings, run_command
from bot.app.runner import run_bot


@click.command("run")
@click.option(
    "--http", "http_mode", is_flag=True,
    help="Slack: receive events over HTTP at /slack/events instead of Socket Mode.",
)  # fmt: skip
@click.option("--port", default=3000, show_default=True, help="Port for --http.")
@click.pass_context
@run_command
async def command(ctx: click.Context, http_mode: bool, port: int) -> int:
    """Run the bot: Slack and/or Discord, and the daily digest schedule.

    Slack uses Socket Mode with SLACK_APP_TOKEN, or --http with SLACK_SIGNING_SECRET;
    Discord runs when DISCORD_BOT_TOKEN is set. Stops cleanly on Ctrl-C or SIGTERM.
    """
    settings = load_settings(max(1, ctx.obj["verbose"]))  # a service logs its actions
    await run_bot(
        settings,
        http=http_mode,
        port=port,
        on_started=lambda platform: click.echo(f"Connected to {platform}.", err=True),
        on_listening=lambda url: click.echo(
            f"Health and metrics: {url}/healthz, {url}/metrics", err=True
        ),
    )
    return 0
