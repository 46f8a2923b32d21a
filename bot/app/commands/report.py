"""`prdigest report`: the Markdown (or JSON) report of one day, a week, or any range of days
(`--from D1 --to D2`, or two tags: `--from v0.8.0 --to v0.9.0`)."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from bot.app.commands.model_notes import day_line
from bot.app.commands.shared import (
    CLIError,
    json_option,
    load_settings,
    refresh_option,
    repo_option,
    run_command,
    tz_option,
    write_output,
)
from bot.app.compose import build_service
from bot.app.deferred import configured_identity
from bot.app.progress import LocalProgress, watch_local_model
from bot.core.day_window import parse_day, week_start, zone
from bot.core.models import Digest
from bot.core.pr_ref import parse_repo
from bot.core.scope import RANGE_JOIN, DigestScope, Span, TagRange, parse_range
from bot.core.settings import Settings
from bot.digest.glance import plural
from bot.digest.overview import WEEK
from bot.digest.render_json import digest_json
from bot.digest.render_markdown import render_report, render_week_report
from bot.digest.service import BuildPlan, DigestService

DATE_WITH_WEEK = (
    "--date and --week cannot be used together: --week DAY reports the week of DAY, "
    "e.g. prdigest report --week 2026-02-23"
)
RANGE_WITH_DAY = (
    "--from/--to report a range: drop --date and --week, "
    "e.g. prdigest report --from 2026-02-01 --to 2026-02-14"
)
TO_WITHOUT_FROM = "--to needs --from: e.g. prdigest report --from 2026-02-01 --to 2026-02-14"


@click.command("report")
@repo_option
@click.option(
    "--date",
    "date_text",
    default="yesterday",
    show_default=True,
    help="YYYY-MM-DD, today, yesterday or 'N days ago'.",
)
@tz_option
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file."
)
@refresh_option
@json_option
@click.option(
    "--overview",
    is_flag=True,
    help="Put the day at a glance (counts, highlights, areas, reverts) above the first PR.",
)
@click.option(
    "--week",
    "week_text",
    metavar="DAY",
    help="The weekly rollup of DAY's week, Monday to Sunday, instead of one day.",
)
@click.option(
    "--from",
    "from_text",
    metavar="D1",
    help="The rollup of the days D1 to --to (default: yesterday), or the PRs merged between "
    "two tags: --from v0.8.0 --to v0.9.0. At most PRDIGEST_RANGE_MAX_DAYS days.",
)
@click.option("--to", "to_text", metavar="D2", help="The last day (or tag) of a --from range.")
@click.pass_context
@run_command
async def command(
    ctx: click.Context,
    repo_text: str | None,
    date_text: str,
    tz_name: str | None,
    output: Path | None,
    refresh: bool,
    as_json: bool,
    overview: bool,
    week_text: str | None,
    from_text: str | None,
    to_text: str | None,
) -> int:
    """Write the Markdown report of the PRs merged on one day, a week, or a range of days.

    Examples: prdigest report --repo vllm-project/vllm --date 2026-02-23 --overview;
    prdigest report --week 2026-02-23 (Monday 23 to Sunday 1 March);
    prdigest report --from 2026-02-01 --to 2026-02-14; prdigest report --from v0.8.0 --to v0.9.0
    """
    dated = ctx.get_parameter_source("date_text") != ParameterSource.DEFAULT
    if to_text is not None and from_text is None:
        raise CLIError(TO_WITHOUT_FROM)
    if from_text is not None and (dated or week_text is not None):
        raise CLIError(RANGE_WITH_DAY)
    if week_text is not None and dated:
        raise CLIError(DATE_WITH_WEEK)
    settings = load_settings(ctx.obj["verbose"])
    repo = parse_repo(repo_text or settings.repo)
    tz_name = tz_name or settings.timezone
    zone(tz_name)
    scope: DigestScope | TagRange
    if from_text is not None:
        scope = parse_range(repo, f"{from_text}{RANGE_JOIN}{_last(from_text, to_text)}", tz_name)
        if isinstance(scope, DigestScope):
            scope.check_length(settings.range_max_days)  # before any GitHub or LLM call
    elif week_text is not None:
        scope = DigestScope.week(repo, week_start(week_text, tz_name), tz_name)
    else:
        scope = DigestScope.day(repo, parse_day(date_text, tz_name), tz_name)
    digest = await build(settings, scope, refresh=refresh, overview=overview)
    if as_json:
        text = json.dumps(digest_json(digest), indent=2) + "\n"
    elif digest.week is not None:
        text = render_week_report(digest)
    else:
        text = render_report(digest, overview=overview)
    write_output(text, output)
    if digest.failed:
        failed = ", ".join(f"#{e.pr.number} ({e.error})" for e in digest.failed)
        click.echo(
            f"{len(digest.failed)} of {len(digest.entries)} PRs could not be summarized: {failed}. "
            "Run the same command again to retry only those.",
            err=True,
        )
        return 1
    if output:
        click.echo(f"Wrote {len(digest.entries)} PRs to {output}", err=True)
    return 0


def _last(from_text: str, to_text: str | None) -> str:
    """`--to`, else yesterday (today, for a range from today)."""
    if to_text is not None:
        return to_text
    return "today" if from_text.strip().lower() == "today" else "yesterday"


async def build(
    settings: Settings, scope: DigestScope | TagRange, *, refresh: bool, overview: bool
) -> Digest:
    """The digest of `scope` (a day, a week or a range), with progress on stderr."""
    service = build_service(settings)
    local = watch_local_model(service)
    try:
        await service.summarizer()  # fail fast, before any GitHub call, if no LLM is set up
        if isinstance(scope, DigestScope) and scope.span == Span.DAY:
            return await _day(service, settings, scope, local, refresh=refresh, glance=overview)
        return await _rollup(service, settings, scope, local)
    finally:
        await service.aclose()


async def _day(
    service: DigestService, settings: Settings, scope: DigestScope, local: LocalProgress, *,
    refresh: bool, glance: bool,
) -> Digest:  # fmt: skip
    repo, window = scope.repo, scope.window
    if not refresh:
        note = day_line(service.store, repo, window, configured_identity(settings.llm))
        if note:
            click.echo(note, err=True)
    bar = local if local.active else ProgressBar(f"Summarizing {repo} {window.day}")
    with bar:
        return await service.build(scope, refresh=refresh, progress=bar.update, glance=glance)


async def _rollup(
    service: DigestService, settings: Settings, scope: DigestScope | TagRange,
    local: LocalProgress,
) -> Digest:  # fmt: skip
    """A week or a range: its days resolved (a tag range's, from GitHub) and checked against
    PRDIGEST_RANGE_MAX_DAYS, the days not built yet counted and announced with the LLM calls
    they cost, before any is made; then built, a line per day."""
    resolved = await service.resolve(scope)
    resolved.check_length(settings.range_max_days)
    line = plan_line(await service.plan(resolved.repo, resolved.windows))
    if line:
        click.echo(line, err=True)
    days = WeekProgress(local if local.active else None)
    return await service.build(resolved, week_progress=days.update)


def plan_line(plan: BuildPlan) -> str:
    """ "Building 5 days first: about 112 new summaries (113 LLM calls, with the highlights)…",
    or "" when every day is built (the rollup then costs at most its highlights' call)."""
    days, new = len(plan.to_build), plan.new_summaries
    if not days:
        return ""
    summaries = f"{new} new summar{'y' if new == 1 else 'ies'}"
    # New summaries make new highlights' candidates: one more call, when the model picks.
    ranked = new and sum(d.prs for d in plan.days) > WEEK.least
    calls = f"{new + 1} LLM calls, with the highlights" if ranked else plural(new, "LLM call")
    return f"Building {plural(days, 'day')} first: about {summaries} ({calls})…"


class ProgressBar:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str):
        self.label = label
        self.bar: Any = None
        self.shown = 0
        self.enabled = sys.stderr.isatty()

    def __enter__(self) -> ProgressBar:
        return self

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


class WeekProgress:
    """A rollup's progress on stderr (a week's, a range's): a line per day once it is ready, with a bar
    while a day's PRs are fetched and summarized (on a terminal), or the built-in model's
    line per PR."""

    def __init__(self, local: LocalProgress | None = None) -> None:
        self.bars: dict[date, ProgressBar] = {}
        self.local = local

    def update(self, day: date, done: int, total: int) -> None:
        if self.local is not None:
            self.local.update(done, total)
        else:
            bar = self.bars.setdefault(day, ProgressBar(f"Building {day}"))
            bar.update(done, total)
            if done == total:
                bar.__exit__()
        if done == total:
            click.echo(f"{day}: {total} PR{'s' if total != 1 else ''} ready", err=True)
