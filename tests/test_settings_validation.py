"""Every setting is checked when it is read: a bad URL, port, time zone, number or path is one
line naming the setting and what it should look like, exit code 2, never a traceback, and
never a secret quoted back."""

from __future__ import annotations

import gc

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.errors import ConfigurationError
from bot.core.settings import Settings


def error_line(monkeypatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    gc.collect()  # earlier tests' unclosed clients: see test_network_failures.collect_strays
    result = CliRunner().invoke(cli, ["report", "--repo", "o/r", "--date", "2026-02-23"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output + result.stderr
    assert isinstance(result.exception, SystemExit)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "name, value, line",
    [
        ("GITHUB_API_URL", "ghe.example.com/api/v3",
         "GITHUB_API_URL must be a URL with a scheme, like https://ghe.example.com/api/v3 "
         "(got 'ghe.example.com/api/v3')"),
        ("OPENAI_BASE_URL", "localhost:8000/v1",
         "OPENAI_BASE_URL must be a URL with a scheme, like http://localhost:8000/v1 "
         "(got 'localhost:8000/v1')"),
        ("OPENAI_BASE_URL", "ftp://models.example.com/v1",
         "OPENAI_BASE_URL must be a URL starting http:// or https://, like "
         "http://localhost:8000/v1 (got 'ftp://models.example.com/v1')"),
        ("GITHUB_API_URL", "https:///api/v3",
         "GITHUB_API_URL must be a URL with a host, like https://ghe.example.com/api/v3 "
         "(got 'https:///api/v3')"),
        ("OPENAI_BASE_URL", "http://localhost:80OO/v1",
         "OPENAI_BASE_URL must have a port from 1 to 65535 after the host, like "
         "http://localhost:8443 (got 'http://localhost:80OO/v1')"),
        ("OPENAI_BASE_URL", "http://localhost:123456/v1",
         "OPENAI_BASE_URL must have a port from 1 to 65535 after the host, like "
         "http://localhost:8443 (got 'http://localhost:123456/v1')"),
        ("SLACK_API_URL", "slack.com/api/",
         "SLACK_API_URL must be a URL with a scheme, like https://slack.com/api/ "
         "(got 'slack.com/api/')"),
        ("DISCORD_GATEWAY_URL", "https://gateway.discord.gg",
         "DISCORD_GATEWAY_URL must be a URL starting ws:// or wss://, like "
         "wss://gateway.discord.gg (got 'https://gateway.discord.gg')"),
        ("PRDIGEST_TIMEZONE", "PST",
         "PRDIGEST_TIMEZONE: Unknown time zone 'PST': use an IANA name such as "
         "America/Los_Angeles"),
        ("PRDIGEST_DIGEST_TIME", "9am",
         "PRDIGEST_DIGEST_TIME: '9am' is not a time: use HH:MM, like 09:00"),
        ("PRDIGEST_CONCURRENCY", "many",
         "PRDIGEST_CONCURRENCY must be a whole number of at least 1, like 8 (got 'many')"),
        ("PRDIGEST_MAX_PROMPT_TOKENS", "500",
         "PRDIGEST_MAX_PROMPT_TOKENS must be a whole number of at least 1000, like 12000 "
         "(got '500')"),
        ("PRDIGEST_LLM_TIMEOUT", "0",
         "PRDIGEST_LLM_TIMEOUT must be a number of seconds, more than 0, like 120 (got '0')"),
        ("PRDIGEST_LLM_TIMEOUT", "nan",
         "PRDIGEST_LLM_TIMEOUT must be a number of seconds, more than 0, like 120 (got 'nan')"),
        ("PRDIGEST_GITHUB_BACKOFF", "-1",
         "PRDIGEST_GITHUB_BACKOFF must be a number of seconds, 0 or more, like 0.5 (got '-1')"),
        ("PRDIGEST_TRIVIAL_STYLE", "tiny",
         "PRDIGEST_TRIVIAL_STYLE must be full, compact or grouped (got 'tiny')"),
        ("PRDIGEST_PRSUMMARY_VISIBILITY", "private",
         "PRDIGEST_PRSUMMARY_VISIBILITY must be in_channel or ephemeral (got 'private')"),
        ("PRDIGEST_DISCORD_GUILDS", "123,my-server",
         "PRDIGEST_DISCORD_GUILDS must be Discord server ids separated by commas, like "
         "112233445566778899 (got 'my-server')"),
    ],
)  # fmt: skip
def test_a_bad_setting_is_one_line_naming_it_and_its_form(monkeypatch, name, value, line):
    assert error_line(monkeypatch, **{name: value}) == f"Error: {line}"


def test_path_settings_must_name_what_exists(monkeypatch, tmp_path):
    missing = tmp_path / "nope.toml"
    assert error_line(monkeypatch, PRDIGEST_CONFIG=str(missing)) == (
        f"Error: PRDIGEST_CONFIG must name a prdigest.toml file that exists (got '{missing}')"
    )
    monkeypatch.delenv("PRDIGEST_CONFIG")
    assert error_line(monkeypatch, PRDIGEST_LOCAL_MODEL=str(tmp_path)) == (
        f"Error: PRDIGEST_LOCAL_MODEL must name a .gguf model file that exists (got '{tmp_path}')"
    )


def test_a_database_path_that_is_a_directory_is_refused_without_quoting_it(monkeypatch, tmp_path):
    line = error_line(monkeypatch, PRDIGEST_DB=str(tmp_path))
    assert line == (
        "Error: PRDIGEST_DB must be the path of a database file, like ~/prdigest.db, "
        "not of a directory"
    )


def test_a_url_with_credentials_is_quoted_masked(monkeypatch):
    line = error_line(monkeypatch, OPENAI_BASE_URL="llm.internal/v1?api-key=sk-hidden-42")
    assert "sk-hidden-42" not in line and "(got 'llm.internal/v1?***')" in line
    line = error_line(monkeypatch, GITHUB_API_URL="https://bot:ghp_hidden42@ghe.example.com:x")
    assert "ghp_hidden42" not in line and "https://***@ghe.example.com:x" in line


def test_a_token_pasted_into_the_wrong_setting_is_never_echoed(monkeypatch):
    token = "ghp_0123456789abcdefABCDEF"
    line = error_line(monkeypatch, GITHUB_TOKEN=token, GITHUB_API_URL=token)
    assert token not in line
    assert line == (
        "Error: GITHUB_API_URL must be a URL with a scheme, like "
        "https://ghe.example.com/api/v3 (got '***')"
    )


def test_good_values_are_read_as_before(tmp_path):
    config = tmp_path / "prdigest.toml"
    config.write_text("")
    settings = Settings.from_env(
        {
            "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
            "OPENAI_BASE_URL": "http://[::1]:8000/v1",
            "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9000/gateway",
            "PRDIGEST_TIMEZONE": "Europe/Berlin",
            "PRDIGEST_DIGEST_TIME": "7:30",
            "PRDIGEST_TRIVIAL_STYLE": "Grouped",
            "PRDIGEST_GITHUB_BACKOFF": "0",
            "PRDIGEST_CONFIG": str(config),
        },
        dotenv=False,
    )
    assert settings.github_api_url == "https://ghe.example.com/api/v3"
    assert settings.llm.endpoint.place == "the LLM at [::1]:8000 (OPENAI_BASE_URL)"
    assert (settings.timezone, settings.digest_time) == ("Europe/Berlin", "7:30")
    assert (settings.trivial_style, settings.github_backoff) == ("grouped", 0.0)
    assert settings.config_path == config


def test_settings_made_in_code_are_checked_too():
    from bot.core.llm_settings import LLMSettings

    with pytest.raises(ConfigurationError, match="OPENAI_BASE_URL must be a URL with a scheme"):
        LLMSettings(openai_base_url="localhost:8000/v1")
