"""`prdigest doctor`: every configured part checked, one line each, exit 0 when all pass."""

from __future__ import annotations

import json

import click

from bot.app.commands.shared import json_option, run_command
from bot.app.doctor.check import Check, failed
from bot.app.doctor.runner import run_checks
from bot.core.errors import PRDigestError
from bot.core.logs import configure_logging
from bot.core.settings import Settings

SETTINGS_FIX = "correct it in the environment or .env (.env.example lists every setting)"


@click.command("doctor")
@json_option
@click.pass_context
@run_command
async def command(ctx: click.Context, as_json: bool) -> int:
    """Check the settings, the database, GitHub, the LLM, Slack and Discord: one line each.

    Each line is ✓ or ✗, what was found and, for a ✗, the fix; a part that is not configured
    is named and skipped. Nothing is changed: no message is posted, no channel joined, the
    database is not written, and at most one small LLM request is made. Exits 0 when every
    check passes, 1 otherwise.
    """
    try:
        settings = Settings.from_env()
    except PRDigestError as exc:  # the one check that stops the others: nothing else is known
        return report([failed("Settings", str(exc), SETTINGS_FIX)], as_json)
    configure_logging(settings, ctx.obj["verbose"])
    return report(await run_checks(settings), as_json)


def report(checks: list[Check], as_json: bool) -> int:
    ok = all(check.ok for check in checks)
    if as_json:
        body = {"ok": ok, "checks": [check.as_json() for check in checks]}
        click.echo(json.dumps(body, indent=2, ensure_ascii=False))
        return 0 if ok else 1
    for check in checks:
        click.echo(check.line())
    click.echo("\n" + verdict(checks))
    return 0 if ok else 1


def verdict(checks: list[Check]) -> str:
    """`All 17 checks passed; 2 parts not configured.` or `2 of 17 checks failed: ...`"""
    done = [check for check in checks if not check.skipped]
    failures = sum(not check.ok for check in done)
    unused = len(checks) - len(done)
    if failures:
        return f"{failures} of {len(done)} checks failed: the fix follows each ✗."
    return f"All {len(done)} checks passed" + (f"; {unused} not configured." if unused else ".")
