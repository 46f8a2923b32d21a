"""The `prdigest` command: a click group whose subcommands are imported when they run.

Each subcommand is a module of `bot.app.commands`, named in COMMANDS with its one-line help,
so `prdigest --help` imports no subcommand and each subcommand imports only the libraries it
uses: discord.py, Slack's, openai and PyGithub take over a second to import between them.
This is click's documented LazyGroup pattern; tests/test_floor_plan.py holds the table to
the modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import click

from bot import __version__


class LazyCommand(NamedTuple):
    module: str  # defines `command`
    short_help: str  # the first line of its help, for the listing


COMMANDS: dict[str, LazyCommand] = {
    "report": LazyCommand(
        "bot.app.commands.report",
        "Write the Markdown report of the PRs merged on one day, a week, or a range of days.",
    ),
    "summary": LazyCommand(
        "bot.app.commands.summary",
        "Print one PR's section: 35156, #35156, owner/repo#35156 or a PR URL.",
    ),
    "run": LazyCommand(
        "bot.app.commands.run",
        "Run the bot: Slack and/or Discord, and the daily digest schedule.",
    ),
    "post": LazyCommand(
        "bot.app.commands.post",
        "Post one day's digest to one channel and exit (for cron instead of `prdigest run`).",
    ),
    "flags": LazyCommand(
        "bot.app.commands.flags",
        "List summaries people flagged as inaccurate, and whether the revision held.",
    ),
    "search": LazyCommand(
        "bot.app.commands.search",
        "Find stored PRs by what they changed: words, areas, authors, days.",
    ),
    "ask": LazyCommand(
        "bot.app.commands.ask",
        "Answer a question about the merged history from the stored summaries.",
    ),
    "backfill": LazyCommand(
        "bot.app.commands.backfill",
        "Build the digests of the last N days, so search and ask know the past.",
    ),
    "doctor": LazyCommand(
        "bot.app.commands.doctor",
        "Check the settings, the database, GitHub, the LLM, Slack and Discord: one line each.",
    ),
    "prune": LazyCommand(
        "bot.app.commands.prune",
        "Drop old LLM prompts and answers (keeping their figures) and old diffs.",
    ),
    "slack-manifest": LazyCommand(
        "bot.app.commands.slack_manifest",
        "Print the Slack app manifest to paste at api.slack.com/apps.",
    ),
    "discord-invite": LazyCommand(
        "bot.app.commands.discord_invite",
        "Print the URL that adds the bot to a Discord server, with exactly the permissions used.",
    ),
}


class LazyCommands(Mapping[str, click.Command]):
    """The group's commands by name, each module imported on first look-up."""

    def __init__(self, table: Mapping[str, LazyCommand]):
        self.table = table
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded:
            module = importlib.import_module(self.table[name].module)
            self.loaded[name] = module.command
        return self.loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, name: object) -> bool:
        return name in self.table


class LazyGroup(click.Group):
    """A group over LazyCommands whose help lists the commands from the table, unimported."""

    def __init__(self, *args: object, table: Mapping[str, LazyCommand], **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.commands = LazyCommands(table)  # type: ignore[assignment]
        self.table = table

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        # Shortened as click shortens a command's own help, from a stand-in that has only it.
        rows = [
            (name, click.Command(name, help=self.table[name].short_help).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup, table=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="prdigest")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv for debug).")
@click.pass_context
def cli(ctx: click.Context, verbose: int) -> None:
    """prdigest: what was merged into a GitHub repository, summarized by an LLM.

    Settings come from environment variables or a .env file; see .env.example.
    """
    ctx.obj = {"verbose": verbose}


def main() -> None:
    cli(prog_name="prdigest")


if __name__ == "__main__":
    main()
