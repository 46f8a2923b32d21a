"""`prdigest post`: one day's digest posted to one channel, for cron."""

from __future__ import annotations

import click

from bot.app.bots import one_poster
from bot.app.commands.shared import load_settings, repo_option, run_command
from bot.app.compose import build_service
from bot.app.progress import watch_local_model
from bot.core.models import PostStatus
from bot.core.post_times import parse_target
from bot.core.pr_ref import parse_repo
from bot.schedule.scheduler import post_once
from bot.store.store import Store


@click.command("post")
@click.option(
    "--date", "date_text", default="yesterday", show_default=True,
    help="YYYY-MM-DD, today, yesterday or 'N days ago', in the subscription's zone.",
)  # fmt: skip
@click.option(
    "--to", "target", required=True, metavar="PLATFORM:CHANNEL",
    help="Where to post, e.g. slack:C0123456 or discord:112233445566778899.",
)  # fmt: skip
@repo_option
@click.pass_context
@run_command
async def command(ctx: click.Context, date_text: str, target: str, repo_text: str | None) -> int:
    """Post one day's digest to one channel and exit (for cron instead of `prdigest run`).

    Posting is idempotent: a day already posted in that channel is not posted again.
    """
    settings = load_settings(ctx.obj["verbose"])
    platform, _channel = parse_target(target)
    repo = parse_repo(repo_text) if repo_text else None
    store = Store(settings.db_path)
    service = build_service(settings, store)
    watch_local_model(service)
    try:
        async with one_poster(platform, settings, service, store) as poster:
            outcome = await post_once(settings, service, poster, target, date_text, repo=repo)
    finally:
        await service.aclose()
    verb = {
        PostStatus.POSTED: "Posted",
        PostStatus.RESUMED: "Finished posting",
        PostStatus.ALREADY: "Already posted",
    }
    click.echo(f"{verb.get(outcome.status, outcome.status)}: {outcome.link}", err=True)
    return 0
