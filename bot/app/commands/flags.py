"""`prdigest flags`: the summaries people flagged, and whether the revision held."""

from __future__ import annotations

import json
from datetime import datetime, time
from pathlib import Path

import click

from bot.app.commands.shared import cli_error, load_settings, write_output
from bot.core.day_window import parse_day, zone
from bot.core.errors import PRDigestError
from bot.core.pr_ref import parse_repo
from bot.digest.flag_report import flagged_summaries
from bot.store.store import Store


@click.command("flags")
@click.option("--repo", "repo_text", metavar="OWNER/NAME", help="Only this repository.")
@click.option(
    "--since", "since_text", default="30 days ago", show_default=True,
    help="YYYY-MM-DD, today, yesterday or 'N days ago'.",
)  # fmt: skip
@click.option(
    "--export", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the flagged summaries to a JSON Lines regression set instead.",
)  # fmt: skip
@click.pass_context
def command(
    ctx: click.Context, repo_text: str | None, since_text: str, export: Path | None
) -> None:
    """List summaries people flagged as inaccurate, and whether the revision held."""
    settings = load_settings(ctx.obj["verbose"])
    try:
        repo = parse_repo(repo_text) if repo_text else None
        day = parse_day(since_text, settings.timezone)
        since = datetime.combine(day, time(0), tzinfo=zone(settings.timezone))
        found = flagged_summaries(Store(settings.db_path), since, repo)
    except PRDigestError as exc:
        raise cli_error(exc) from None
    if export:
        write_output("".join(json.dumps(f.as_regression_case()) + "\n" for f in found), export)
        click.echo(f"Wrote {len(found)} flagged summaries to {export}", err=True)
        return
    if not found:
        click.echo(f"No flagged summaries since {day}.")
        return
    for f in found:
        s = f.summary
        revised = f" -> revision {f.revised.revision}" if f.revised else ""
        click.echo(
            f"{s.repo}#{s.number}  summary {s.id} (revision {s.revision}, {s.model}){revised}  "
            f"flagged by {', '.join(f.flaggers)}  [{f.status}]"
        )
