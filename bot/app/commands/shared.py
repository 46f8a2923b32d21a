"""What the subcommands share: the one-line errors, the async runner, settings, the common
options and writing the output.

Every error a user can cause is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import click

from bot.core.errors import PRDigestError, StorageError
from bot.core.logs import configure_logging
from bot.core.settings import Settings


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
