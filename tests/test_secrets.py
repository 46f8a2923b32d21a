"""Tokens and keys never appear in logs, error messages, reports, posts or the database.

Every secret is a distinctive random value. Each test drives a path where a secret could
escape (debug logging, tracebacks, error answers that quote the server, a server that echoes
the credentials it was sent) and then greps *everything* captured for it: stdout and stderr
at file-descriptor level, the report, every request body the fakes received (headers are
where tokens belong, so they are not searched), every response_url answer, and a dump of
every table in the SQLite file.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.logs import configure_logging
from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, running_bot
from tests.fakes.figures import figures
from tests.fakes.slack import BotUnderTest, FakeSlack

DAY = "2026-02-23"


def token(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(12)}"


SECRETS = {
    "GITHUB_TOKEN": token("ghp_"),
    "OPENAI_API_KEY": token("sk-proj-"),
    "SLACK_BOT_TOKEN": token("xoxb-"),
    "SLACK_APP_TOKEN": token("xapp-"),
    "SLACK_SIGNING_SECRET": secrets.token_hex(16),
    "DISCORD_BOT_TOKEN": token("MTA."),
}


def leaks(texts: dict[str, str]) -> list[str]:
    """'where: NAME' for every secret found in any text (whole, or its last 16 characters)."""
    found = []
    for where, text in texts.items():
        for name, value in SECRETS.items():
            if value in text or value[-16:] in text:
                found.append(f"{where}: {name}")
    return found


def database_text(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return "\n".join(
            repr(row) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')
        )
    finally:
        conn.close()


def bodies(requests) -> str:
    return "\n".join((r.body or b"").decode("utf-8", "replace") for r in requests)


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """configure_logging() replaces the root handlers: put pytest's back afterwards."""
    import logging

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.fixture
def secret_env(env, monkeypatch) -> Settings:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env(dotenv=False)


def echo_faults(github, llm) -> None:
    """Servers that quote back the credentials they were sent, in their error messages."""
    key, gh = SECRETS["OPENAI_API_KEY"], SECRETS["GITHUB_TOKEN"]
    llm.script(
        [  # 400s are not retried, so their message is what the user is shown
            ("status", 400, {}, {"error": {"message": f"upstream rejected Bearer {key}"}}),
            ("status", 400, {}, {"error": {"message": f"Incorrect API key provided: {key}."}}),
        ]
    )
    github.inject(r"/pulls/3$", 422, body={"message": f"proxy: bad token {gh}"}, times=50)


def test_the_cli_with_debug_logs_and_echoing_servers_leaks_nothing(secret_env, github, llm, capfd):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 6)])
    echo_faults(github, llm)
    runner = CliRunner()
    report = runner.invoke(cli, ["-vv", "report", "--date", DAY, "--output", "day.md"])
    summary = runner.invoke(cli, ["-vv", "summary", "3"])
    json_out = runner.invoke(cli, ["report", "--date", DAY, "--json"])
    assert report.exit_code == 1  # some PRs could not be summarized: the errors were shown
    assert "Summary unavailable" in Path("day.md").read_text()
    captured = capfd.readouterr()
    texts = {
        "report stdout": report.stdout,
        "report stderr": report.stderr,
        "summary output": summary.output + summary.stderr,
        "json output": json_out.output,
        "day.md": Path("day.md").read_text(),
        "process stdout": captured.out,
        "process stderr": captured.err,
        "database": database_text(secret_env.db_path),
        "requests to the LLM (bodies)": bodies(llm.requests),
    }
    assert "DEBUG" in report.stderr or "INFO" in report.stderr or report.stderr  # logs were on
    found = leaks(texts)
    assert found == [], found
    figures(
        "secrets in CLI output",
        secrets=len(SECRETS),
        places_searched=len(texts),
        characters_searched=sum(len(t) for t in texts.values()),
        leaks=0,
    )


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack(
        bot_token=SECRETS["SLACK_BOT_TOKEN"],
        app_token=SECRETS["SLACK_APP_TOKEN"],
        signing_secret=SECRETS["SLACK_SIGNING_SECRET"],
    ) as srv:
        yield srv


async def test_the_slack_bot_leaks_nothing_in_posts_answers_or_logs(
    secret_env, slack, github, llm, capfd
):
    configure_logging(secret_env, verbose=2)  # DEBUG, through the production handler
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 6)])
    echo_faults(github, llm)
    bot = BotUnderTest(secret_env, slack)
    try:
        commands = [
            ("/digest", DAY),
            ("/prsummary", "3"),
            ("/prsummary", "99999"),
            ("/prsummary", "acme/nothing#1"),
            ("/digest", "not a date"),
            ("/digest", f"{DAY} ghost/repo"),
        ]
        deliveries = [await bot.command(c, t) for c, t in commands]
        slack.inject(r"chat\.postMessage", 500, body={"ok": False, "error": "internal_error"})
        deliveries.append(await bot.command("/digest", "2026-02-22"))
    finally:
        await bot.aclose()
    captured = capfd.readouterr()
    answers = "\n".join(
        d.body + "\n" + repr(slack.responses_for(d.response_url)) for d in deliveries
    )
    texts = {
        "posts": repr([(m.text, m.blocks) for m in slack.posted()]),
        "command answers": answers,
        "request bodies to Slack": bodies(slack.requests),
        "request bodies to the LLM": bodies(llm.requests),
        "process stdout": captured.out,
        "process stderr (logs)": captured.err,
        "database": database_text(secret_env.db_path),
    }
    assert "Summary unavailable" in texts["posts"]  # the echoing errors were posted...
    assert "proxy: bad token" in texts["posts"] and "upstream rejected" in texts["posts"]
    assert captured.err  # ...and logged
    found = leaks(texts)
    assert found == [], found
    figures(
        "secrets in Slack posts, answers and logs",
        places_searched=len(texts),
        characters_searched=sum(len(t) for t in texts.values()),
        leaks=0,
    )


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord(token=SECRETS["DISCORD_BOT_TOKEN"]) as srv:
        yield srv


async def test_the_discord_bot_leaks_nothing_in_posts_answers_or_logs(
    secret_env, fake, github, llm, capfd, monkeypatch
):
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
    settings = Settings.from_env(dotenv=False)
    configure_logging(settings, verbose=2)
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 6)])
    echo_faults(github, llm)
    async with running_bot(fake, settings):
        interactions = [
            fake.slash("digest", {"day": DAY}),
            fake.slash("prsummary", {"pr": "3"}),
            fake.slash("prsummary", {"pr": "99999"}),
            fake.slash("digest", {"day": "soon"}),
        ]
        for interaction in interactions:
            await fake.wait_for(lambda i=interaction: i.finished, timeout=30)
    captured = capfd.readouterr()
    calls = fake.calls
    texts = {
        "request bodies to Discord": "\n".join(repr(c.json) for c in calls),
        "request bodies to the LLM": bodies(llm.requests),
        "process stdout": captured.out,
        "process stderr (logs)": captured.err,
        "database": database_text(settings.db_path),
    }
    assert "Summary unavailable" in texts["request bodies to Discord"]
    found = leaks(texts)
    assert found == [], found


def test_wrong_tokens_are_named_never_shown(secret_env, monkeypatch):
    with FakeSlack() as slack:  # accepts only its own tokens: ours are refused
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.delenv("DISCORD_BOT_TOKEN")
        result = CliRunner().invoke(cli, ["run"])
    assert result.exit_code == 2, result.output
    assert "SLACK_BOT_TOKEN" in result.stderr
    assert leaks({"run output": result.output + result.stderr}) == []
    assert re.search(r"Slack refused SLACK_BOT_TOKEN \(invalid_auth\)", result.stderr)
