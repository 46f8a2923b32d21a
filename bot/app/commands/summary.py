"""`prdigest summary`: one PR's section, from the store when it is there."""

from __future__ import annotations

import json

import click

from bot.app.commands.model_notes import summary_line
from bot.app.commands.shared import (
    json_option,
    load_settings,
    refresh_option,
    repo_option,
    run_command,
    tz_option,
)
from bot.app.compose import build_service
from bot.app.deferred import configured_identity
from bot.app.progress import watch_local_model
from bot.core.day_window import zone
from bot.core.models import DigestEntry
from bot.core.pr_ref import parse_pr_ref, parse_repo
from bot.digest.render_json import entry_json
from bot.digest.render_markdown import render_entry


@click.command("summary")
@click.argument("pr", metavar="PR")
@repo_option
@tz_option
@refresh_option
@json_option
@click.pass_context
@run_command
async def command(
    ctx: click.Context,
    pr: str,
    repo_text: str | None,
    tz_name: str | None,
    refresh: bool,
    as_json: bool,
) -> int:
    """Print one PR's section: 35156, #35156, owner/repo#35156 or a PR URL.

    Open and closed PRs work too; their state is shown. A stored summary is printed as
    stored, and stderr names the model that wrote it; --refresh writes it again with the
    configured model.
    """
    settings = load_settings(ctx.obj["verbose"])
    ref = parse_pr_ref(pr)
    repo = parse_repo(ref.repo or repo_text or settings.repo)
    tz = zone(tz_name or settings.timezone)
    service = build_service(settings)
    watch_local_model(service)
    try:
        entry: DigestEntry | None = None if refresh else service.cached_entry(repo, ref.number)
        stored = entry is not None
        if entry is None:
            await service.summarizer()
            entry = await service.pr_entry(repo, ref.number, refresh=refresh)
    finally:
        await service.aclose()
    if as_json:
        click.echo(json.dumps(entry_json(entry, tz), indent=2))
    else:
        click.echo(render_entry(entry, tz).rstrip("\n"))
    if not entry.ok:
        click.echo(f"Summary of #{ref.number} failed: {entry.error}", err=True)
        return 1
    if stored and entry.summary is not None:
        configured = configured_identity(settings.llm)
        click.echo(summary_line(ref.number, entry.summary, configured), err=True)
    return 0
