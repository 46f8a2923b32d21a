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
    """Drop old LLM prompts and answers (keeping their figures) and old diffs.

    Calls older than --days keep their model, purpose, tokens, duration, error and time. PRs
    merged more than PRDIGEST_DIFF_DAYS (90) ago lose their patches: GitHub keeps them, and a
    new summary of such a PR reads them again. CODEOWNERS texts read more than a week ago go
    too. Summaries, posts and flags are never pruned. The file is VACUUMed when that gives back a fifth of it (16 MB at least);
    otherwise SQLite reuses the freed pages for new rows.
    """
    settings = load_settings(ctx.obj["verbose"])
    keep = settings.llm_log_days if days is None else days
    cutoffs = Cutoffs.at(utcnow(), keep, settings.diff_days)
    try:
        store = Store(settings.db_path)
        try:
            if dry_run:
                click.echo(_would(store.prunable(cutoffs), keep, settings.diff_days))
                return
            before = store.file_size()
            click.echo(_dropped(prune(store, cutoffs), keep, settings.diff_days))
            click.echo(_file_line(store, before, vacuum=not no_vacuum))
        finally:
            store.close()
    except PRDigestError as exc:
        raise cli_error(exc) from None


def _lines(pruned: Pruned, keep: int, diff_days: int, verbs: tuple[str, str]) -> list[str]:
    """One line for each kind of old data there is, with `verbs` (thin, drop) in the tense
    wanted."""
    thin, drop = verbs
    lines = []
    if pruned.calls_thinned:
        lines.append(
            f"{thin} {pruned.calls_thinned:,} LLM calls older than {keep} days"
            f" ({megabytes(pruned.body_bytes)} of prompts and answers); their figures are kept."
        )
    if pruned.diffs:
        lines.append(
            f"{drop} the diffs of {pruned.diffs:,} PRs merged more than {diff_days} days ago"
            f" ({megabytes(pruned.diff_bytes)}); GitHub keeps them."
        )
    if pruned.codeowners:
        lines.append(f"{drop} {pruned.codeowners} CODEOWNERS texts read more than a week ago.")
    return lines


def _nothing(keep: int, diff_days: int) -> str:
    diffs = f" and no PR merged more than {diff_days} days ago holds its diff" if diff_days else ""
    return f"Nothing to prune: no LLM call older than {keep} days holds its prompt{diffs}."


def _would(pruned: Pruned, keep: int, diff_days: int) -> str:
    if pruned.nothing:
        return _nothing(keep, diff_days)
    lines = _lines(pruned, keep, diff_days, ("Would thin", "Would drop"))
    return "\n".join([*lines, "Nothing changed (--dry-run)."])


def _dropped(pruned: Pruned, keep: int, diff_days: int) -> str:
    if pruned.nothing:
        return _nothing(keep, diff_days)
    return "\n".join(_lines(pruned, keep, diff_days, ("Thinned", "Dropped")))


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
