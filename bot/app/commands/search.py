"""`prdigest search`: the stored PRs that match some words, best first, from the index alone
(no GitHub, no LLM)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from bot.app.commands.shared import json_option, load_settings, run_command, tz_option
from bot.app.compose import build_service
from bot.core.pr_ref import parse_repo
from bot.core.search import DEFAULT_LIMIT, MAX_LIMIT, SearchTerms, change_type, search_day
from bot.digest.search import format_line, search

EMPTY_STORE = "Nothing is stored yet: prdigest report (or the bot's digests) store PRs to search."


def filter_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--repo, --since, --until, --area, --author and --type: what search and ask share."""
    options = [
        click.option(
            "--repo", "repo_text", metavar="OWNER/NAME", help="Only this repository (default: all)."
        ),
        click.option("--since", metavar="DAY", help="Merged on or after DAY (YYYY-MM-DD, …)."),
        click.option("--until", metavar="DAY", help="Merged on or before DAY."),
        click.option("--area", metavar="AREA", help="In this area, as the digest files it."),
        click.option("--author", metavar="LOGIN", help="Opened by this GitHub login."),
        click.option(
            "--type", "type_text", metavar="TYPE", help="substantial or trivial (the summary's)."
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def search_terms(
    tz_name: str, words: tuple[str, ...], repo_text: str | None,
    since: str | None, until: str | None, area: str | None, author: str | None,
    type_text: str | None, limit: int = DEFAULT_LIMIT,
) -> SearchTerms:  # fmt: skip
    """The options as one search (every bad value is a one-line error)."""
    return SearchTerms(
        text=" ".join(" ".join(words).split()),
        repo=parse_repo(repo_text) if repo_text else None,
        since=search_day(since, tz_name),
        until=search_day(until, tz_name),
        area=area,
        author=(author or "").lstrip("@") or None,
        change_type=change_type(type_text),
        limit=limit,
    )


@click.command("search")
@click.argument("query", nargs=-1)
@filter_options
@click.option(
    "--limit",
    metavar="N",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="Show at most N PRs.",
)
@tz_option
@json_option
@click.pass_context
@run_command
async def command(
    ctx: click.Context, query: tuple[str, ...], repo_text: str | None, since: str | None,
    until: str | None, area: str | None, author: str | None, type_text: str | None,
    limit: int, tz_name: str | None, as_json: bool,
) -> int:  # fmt: skip
    """Find stored PRs by what they changed: words, areas, authors, days.

    Words are matched in titles, headlines, the four sections, changed paths (fused_moe_lora
    finds fused_moe_lora_op.py, and so does lora), labels and authors; the best matches come
    first. Every repository stored is searched unless --repo names one. Prints one PR a line:
    number, day, title, headline and link; --json prints a list of objects.

    \b
    prdigest search fused moe lora
    prdigest search "tensor parallel" --since 2026-02-01 --area Core --json
    """
    settings = load_settings(ctx.obj["verbose"])
    tz = tz_name or settings.timezone
    terms = search_terms(tz, query, repo_text, since, until, area, author, type_text, limit)
    if not terms.text and not terms.has_filter:
        raise click.UsageError("Give words to search for, or a filter such as --since")
    service = build_service(settings)
    store = service.store
    results = search(store, terms, tz, area_map=service.area_map)
    if as_json:
        click.echo(json.dumps([pr.as_json() for pr in results], indent=2))
    for pr in [] if as_json else results:
        click.echo(format_line(pr))
    if not results:
        empty = store.indexed_count() == 0
        click.echo(EMPTY_STORE if empty else f"No stored PR matches {terms.describe()}.", err=True)
    return 0
