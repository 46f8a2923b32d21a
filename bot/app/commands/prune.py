"""`prdigest prune`: what the scheduler drops once a day, now, with what it freed."""

from __future__ import annotations

import click

from bot.app.commands.shared import cli_error, load_settings
from bot.core.clock import utcnow
from bot.core.errors import PRDigestError
from bot.store.store import Store
from bot.store.upkeep import Cutoffs, FileSize, Pruned, prune


@click.command("prune")
@click.option(
    "--days", type=click.IntRange(min=0), default=None, metavar="N",
    help="Keep prompts and answers this many days (default: PRDIGEST_LLM_LOG_DAYS, 30).",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Say what would be dropped; change nothing.")
@click.option(
    "--no-vacuum", is_flag=True,
    help="Never rewrite the file (VACUUM), even when that would give space back.",
)  # fmt: skip
@click.pass_context
def command(ctx: click.Context, days: int | None, dry_run: bool, no_vacuum: bool) -> None:
    """Drop old prompts and answers from the LLM call log, keeping their figures.

    Calls older than --days keep their model, purpose, tokens, duration, error and time;
    CODEOWNERS texts read more than a week ago go too. Summaries, posts and flags are never
    pruned. The file is VACUUMed when that gives back a fifth of it (16 MB at least);
    otherwise SQLite reuses the freed pages for new rows.
    """
    settings = load_settings(ctx.obj["verbose"])
    keep = settings.llm_log_days if days is None else days
    cutoffs = Cutoffs.at(utcnow(), keep)
    try:
        store = Store(settings.db_path)
        try:
            if dry_run:
                click.echo(_would(store.prunable(cutoffs), keep))
                return
            before = store.file_size()
            click.echo(_dropped(prune(store, cutoffs), keep))
            click.echo(_file_line(store, before, vacuum=not no_vacuum))
        finally:
            store.close()
    except PRDigestError as exc:
        raise cli_error(exc) from None


def _what(pruned: Pruned, keep: int) -> str:
    calls = (
        f"{pruned.calls_thinned:,} LLM calls older than {keep} days"
        f" ({megabytes(pruned.body_bytes)} of prompts and answers)"
    )
    return f"{calls}, {pruned.codeowners} old CODEOWNERS texts"


def _would(pruned: Pruned, keep: int) -> str:
    if pruned.nothing:
        return f"Nothing to prune: no LLM call older than {keep} days holds its prompt."
    return f"Would thin {_what(pruned, keep)}. Nothing changed (--dry-run)."


def _dropped(pruned: Pruned, keep: int) -> str:
    if pruned.nothing:
        return f"Nothing to prune: no LLM call older than {keep} days holds its prompt."
    return f"Thinned {_what(pruned, keep)}; their figures are kept."


def _file_line(store: Store, before: FileSize, *, vacuum: bool) -> str:
    """VACUUM when it is worth it; the file's size, and what that freed."""
    now = store.file_size()
    if vacuum and now.worth_vacuum:
        store.vacuum()
        after = store.file_size()
        freed = max(0, before.bytes - after.bytes)
        return (
            f"Database: {megabytes(before.bytes)} -> {megabytes(after.bytes)} after VACUUM "
            f"({megabytes(freed)} freed)."
        )
    why = "--no-vacuum" if now.worth_vacuum else "not needed"
    return (
        f"Database: {megabytes(now.bytes)}, {megabytes(now.free_bytes)} of it free pages that "
        f"new rows reuse (VACUUM: {why})."
    )


def megabytes(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB"
