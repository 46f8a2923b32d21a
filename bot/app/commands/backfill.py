"""`prdigest backfill`: build the day digests of the last N days, so search and ask know the
past from the first day.

Resumable by construction: the store keeps each day's list once the day is over and each
PR's summary (`current_summary`), so a second run, after Ctrl-C or a failure, lists and
summarizes only what is missing. It builds digests, never posts them, and asks the model for
at most one summary per PR: no highlights, no overview.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from typing import Any

import click

from bot.app.commands.shared import load_settings, repo_option, run_command, tz_option
from bot.app.compose import build_service
from bot.app.progress import LocalProgress, watch_local_model
from bot.core.day_window import day_window, parse_day, zone
from bot.core.models import DayWindow, DigestEntry
from bot.core.pr_ref import parse_repo
from bot.core.scope import DigestScope
from bot.digest.service import BuildPlan, DigestService

MAX_DAYS = 366  # a year, leap day included


@click.command("backfill")
@repo_option
@click.option(
    "--days",
    type=click.IntRange(1, MAX_DAYS),
    required=True,
    help=f"How many days, ending yesterday (1 to {MAX_DAYS}).",
)
@tz_option
@click.pass_context
@run_command
async def command(ctx: click.Context, repo_text: str | None, days: int, tz_name: str | None) -> int:
    """Build the digests of the last N days, so search and ask know the past.

    Resumable: run it again (after Ctrl-C, say) and it builds only the days not built yet,
    never summarizing a PR twice. It posts nothing.

    Example: prdigest backfill --repo vllm-project/vllm --days 30
    """
    settings = load_settings(ctx.obj["verbose"])
    repo = parse_repo(repo_text or settings.repo)
    tz_name = tz_name or settings.timezone
    zone(tz_name)
    last = parse_day("yesterday", tz_name)
    windows = [day_window(last - timedelta(days=i), tz_name) for i in range(days)]  # newest first
    service = build_service(settings)
    local = watch_local_model(service)
    try:
        await service.summarizer()  # fail fast, before any GitHub call, if no LLM is set up
        plan = await service.plan(repo, windows)  # GitHub's lists: no LLM call yet
        click.echo(plan_line(plan, repo), err=True)
        failed = await build_days(service, repo, plan, windows, local)
    finally:
        await service.aclose()
    if failed:
        shown = ", ".join(f"#{e.pr.number} ({e.error})" for e in failed[:10])
        more = f" and {len(failed) - 10} more" if len(failed) > 10 else ""
        click.echo(
            f"{len(failed)} PRs could not be summarized: {shown}{more}. "
            "Run the same command again to retry only those.",
            err=True,
        )
        return 1
    return 0


def plan_line(plan: BuildPlan, repo: str) -> str:
    """What the run will do, said before any LLM call: "12 of 30 days already built;
    building 18: about 112 new summaries (112 LLM calls)…"."""
    total, todo, new = len(plan.days), len(plan.to_build), plan.new_summaries
    built = f"{total - todo} of {total} days of {repo} already built"
    if not todo:
        return f"{built}: nothing to do."
    summaries = f"{new} new summar{'y' if new == 1 else 'ies'}"
    calls = f"{new} LLM call{'' if new == 1 else 's'}"
    return f"{built}; building {todo}: about {summaries} ({calls})…"


async def build_days(
    service: DigestService,
    repo: str,
    plan: BuildPlan,
    windows: list[DayWindow],
    local: LocalProgress,
) -> list[DigestEntry]:
    """Build each day not built yet, newest first, with a bar on stderr; the PRs left
    without a summary. A stop (Ctrl-C) says how far it got: what is stored stays."""
    todo = {d.day for d in plan.to_build}
    days = [w for w in windows if w.day in todo]
    failed: list[DigestEntry] = []
    done = 0
    bar: Any = click.progressbar(
        length=len(days), label=f"Building {repo}", file=sys.stderr, show_pos=True
    )
    try:
        with bar:
            for window in days:
                scope = DigestScope.day(repo, window.day, window.tz_name)
                progress = local.update if local.active else None
                digest = await service.build(scope, glance=False, progress=progress)
                failed.extend(digest.failed)
                done += 1
                bar.update(1)
    except (asyncio.CancelledError, KeyboardInterrupt):
        click.echo(
            f"\nStopped after {done} of {len(days)} days: run the same command again to go on.",
            err=True,
        )
        raise
    if days:
        click.echo(f"Built {len(days)} days of {repo}.", err=True)
    return failed
