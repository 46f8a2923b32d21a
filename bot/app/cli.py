"""The `prdigest` command: each subcommand parses, calls the core, and prints.

Every error a user can cause is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Callable, Coroutine
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import click

from adapters.discord.invite import application_id as ask_application_id
from adapters.discord.invite import invite_url
from adapters.slack.manifest import manifest_yaml
from bot import __version__
from bot.app.compose import build_service, one_poster
from bot.app.progress import LocalProgress, watch_local_model
from bot.app.runner import run_bot
from bot.core.day_window import day_window, parse_day, week_start, zone
from bot.core.errors import PRDigestError, StorageError
from bot.core.logs import configure_logging
from bot.core.models import DigestEntry, PostStatus
from bot.core.post_times import parse_target
from bot.core.pr_ref import parse_pr_ref, parse_repo
from bot.core.settings import Settings
from bot.digest.flag_report import flagged_summaries
from bot.digest.render_json import digest_json, entry_json
from bot.digest.render_markdown import render_entry, render_report, render_week_report
from bot.schedule.scheduler import post_once
from bot.store.store import Store


class CLIError(click.ClickException):
    exit_code = 2


def cli_error(exc: PRDigestError) -> CLIError:
    """The one line a user's error is on the command line: a storage fault names the setting
    PRDIGEST_DB to fix, never the server path it holds."""
    if isinstance(exc, StorageError):
        return CLIError(exc.operator_line)
    return CLIError(str(exc))


def run_command(func: Callable[..., Coroutine[Any, Any, int]]) -> Callable[..., None]:
    """Run an async command body; map user errors to one line and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = asyncio.run(func(*args, **kwargs))
        except PRDigestError as exc:
            raise cli_error(exc) from None
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(130)
        sys.exit(code or 0)

    return wrapper


def load_settings(verbose: int) -> Settings:
    try:
        settings = Settings.from_env()
    except PRDigestError as exc:
        raise CLIError(str(exc)) from None
    configure_logging(settings, verbose)
    return settings


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="prdigest")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv for debug).")
@click.pass_context
def cli(ctx: click.Context, verbose: int) -> None:
    """prdigest: what was merged into a GitHub repository, summarized by an LLM.

    Settings come from environment variables or a .env file; see .env.example.
    """
    ctx.obj = {"verbose": verbose}


repo_option = click.option(
    "--repo", "repo_text", metavar="OWNER/NAME", help="The repository (default: PRDIGEST_REPO)."
)
tz_option = click.option(
    "--tz",
    "tz_name",
    metavar="ZONE",
    help="IANA time zone of the day (default: PRDIGEST_TIMEZONE).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead.")
refresh_option = click.option(
    "--refresh", is_flag=True, help="Regenerate summaries even when they are stored."
)


@cli.command()
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
@click.pass_context
@run_command
async def report(
    ctx: click.Context,
    repo_text: str | None,
    date_text: str,
    tz_name: str | None,
    output: Path | None,
    refresh: bool,
    as_json: bool,
    overview: bool,
    week_text: str | None,
) -> int:
    """Write the Markdown report of the PRs merged on one day, or of a week.

    Examples: prdigest report --repo vllm-project/vllm --date 2026-02-23 --overview;
    prdigest report --week 2026-02-23 (Monday 23 to Sunday 1 March)
    """
    settings = load_settings(ctx.obj["verbose"])
    repo = parse_repo(repo_text or settings.repo)
    tz_name = tz_name or settings.timezone
    zone(tz_name)
    first = week_start(week_text, tz_name) if week_text is not None else None
    window = day_window(parse_day(date_text, tz_name), tz_name)
    service = build_service(settings)
    local = watch_local_model(service)
    try:
        await service.summarizer()  # fail fast, before any GitHub call, if no LLM is set up
        if first is not None:
            week_progress = WeekProgress(local if local.active else None)
            digest = await service.week(repo, first, tz_name, progress=week_progress.update)
        else:
            bar = local if local.active else ProgressBar(f"Summarizing {repo} {window.day}")
            with bar:
                digest = await service.digest(
                    repo, window, refresh=refresh, progress=bar.update, glance=overview
                )
    finally:
        await service.aclose()
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


@cli.command()
@click.argument("pr", metavar="PR")
@repo_option
@tz_option
@refresh_option
@json_option
@click.pass_context
@run_command
async def summary(
    ctx: click.Context,
    pr: str,
    repo_text: str | None,
    tz_name: str | None,
    refresh: bool,
    as_json: bool,
) -> int:
    """Print one PR's section: 35156, #35156, owner/repo#35156 or a PR URL.

    Open and closed PRs work too; their state is shown.
    """
    settings = load_settings(ctx.obj["verbose"])
    ref = parse_pr_ref(pr)
    repo = parse_repo(ref.repo or repo_text or settings.repo)
    tz = zone(tz_name or settings.timezone)
    service = build_service(settings)
    watch_local_model(service)
    try:
        entry: DigestEntry | None = None if refresh else service.cached_entry(repo, ref.number)
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
    return 0


@cli.command()
@click.option(
    "--http", "http_mode", is_flag=True,
    help="Slack: receive events over HTTP at /slack/events instead of Socket Mode.",
)  # fmt: skip
@click.option("--port", default=3000, show_default=True, help="Port for --http.")
@click.pass_context
@run_command
async def run(ctx: click.Context, http_mode: bool, port: int) -> int:
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
    )
    return 0


@cli.command()
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
async def post(ctx: click.Context, date_text: str, target: str, repo_text: str | None) -> int:
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


@cli.command()
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
def flags(ctx: click.Context, repo_text: str | None, since_text: str, export: Path | None) -> None:
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


@cli.command("slack-manifest")
@click.option("--request-url", help="HTTP mode: the public URL of /slack/events.")
def slack_manifest(request_url: str | None) -> None:
    """Print the Slack app manifest to paste at api.slack.com/apps."""
    click.echo(manifest_yaml(request_url), nl=False)


@cli.command("discord-invite")
@click.option(
    "--application-id", type=int, help="Skip asking Discord (by DISCORD_BOT_TOKEN) for the id."
)
@click.pass_context
@run_command
async def discord_invite(ctx: click.Context, application_id: int | None) -> int:
    """Print the URL that adds the bot to a Discord server, with exactly the permissions used."""
    settings = load_settings(ctx.obj["verbose"])
    if application_id is None:
        application_id = await ask_application_id(settings)
    click.echo(invite_url(application_id))
    return 0


def write_output(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)  # never leave a half-written report behind
    except OSError as exc:
        raise CLIError(f"Cannot write {output}: {exc.strerror or exc}") from None


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
    """A weekly rollup's progress on stderr: a line per day once it is ready, with a bar
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


def main() -> None:
    cli(prog_name="prdigest")


if __name__ == "__main__":
    main()
