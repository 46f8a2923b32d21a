"""Options that cannot go together, or a setting a command cannot do without, are one exact
line on stderr and exit code 2, before any GitHub or LLM call."""

from __future__ import annotations

from click.testing import CliRunner

from bot.app.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_date_beside_week_is_refused_not_ignored(env, github, llm):
    result = run("report", "--week", "2026-02-23", "--date", "2026-02-20")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "Error: --date and --week cannot be used together: --week DAY reports the week of DAY, "
        "e.g. prdigest report --week 2026-02-23"
    ]
    assert len(github.requests) == 0 and llm.completions_count == 0


def test_date_beside_week_is_refused_even_when_it_says_the_default(env):
    result = run("report", "--date", "yesterday", "--week", "2026-02-23")
    assert result.exit_code == 2 and "--date and --week cannot be used together" in result.stderr


def test_discord_invite_without_a_token_names_application_id():
    result = run("discord-invite")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "Error: DISCORD_BOT_TOKEN is not set: pass the bot's application id with "
        "--application-id (Discord Developer Portal, General Information), or set "
        "DISCORD_BOT_TOKEN to look it up"
    ]


def test_discord_invite_with_an_application_id_needs_no_token():
    result = run("discord-invite", "--application-id", "123")
    assert result.exit_code == 0
    assert result.stdout.startswith("https://discord.com/oauth2/authorize?client_id=123&")
