"""Settings: environment variables, with a `.env` file read when present.

Secrets are kept out of `repr()` so that logging a Settings never leaks them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.core.day_window import parse_hhmm, zone
from bot.core.endpoints import WEBSOCKET, check_url
from bot.core.errors import ConfigurationError, UserInputError
from bot.core.llm_settings import DEFAULT_MODEL, LLMSettings
from bot.core.logs import mask

DEFAULT_TIMEZONE = "America/Los_Angeles"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
# The names of the variables that hold secrets: a bad value elsewhere is quoted back to the
# user, and must never be one of these (a token pasted into the wrong variable).
SECRET_VARIABLES = (
    "GITHUB_TOKEN OPENAI_API_KEY SLACK_BOT_TOKEN SLACK_APP_TOKEN SLACK_SIGNING_SECRET "
    "DISCORD_BOT_TOKEN GITHUB_APP_PRIVATE_KEY"
).split()


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("prdigest", appauthor=False)) / "prdigest.db"


def _secret() -> str | None:
    return field(default=None, repr=False)


@dataclass(frozen=True)
class Settings:
    github_token: str | None = _secret()
    github_api_url: str = DEFAULT_GITHUB_API_URL
    # A GitHub App instead of a token: its id, its private key (PEM text, or a PEM file) and,
    # optionally, the installation to use (else found for each repository).
    github_app_id: int | None = None
    github_app_private_key: str | None = _secret()
    github_app_private_key_path: Path | None = None
    github_app_installation_id: int | None = None
    openai_api_key: str | None = _secret()
    openai_base_url: str | None = None
    slack_bot_token: str | None = _secret()
    slack_app_token: str | None = _secret()
    slack_signing_secret: str | None = _secret()
    slack_api_url: str | None = None
    discord_bot_token: str | None = _secret()
    discord_api_url: str | None = None
    discord_gateway_url: str | None = None

    db_path: Path = field(default_factory=default_db_path)
    repo: str | None = None
    timezone: str = DEFAULT_TIMEZONE
    model: str = DEFAULT_MODEL
    display_name: str | None = None
    max_prompt_tokens: int = 12000
    concurrency: int = 8
    llm_timeout: float = 120.0
    llm_max_retries: int = 3
    github_retries: int = 5
    github_backoff: float = 0.5
    local_model: str | None = None
    flag_emoji: tuple[str, ...] = ("x",)
    bots: tuple[str, ...] = ()  # logins whose PRs the grouped style lists with trivial ones
    trivial_style: str = "full"  # the env-only subscription's; prdigest.toml sets its own
    prsummary_visibility: str = "in_channel"  # or "ephemeral"
    slack_pace: float = 1.0  # seconds between two messages in one Slack channel
    discord_guilds: tuple[int, ...] = ()
    config_path: Path | None = None
    slack_channel: str | None = None
    discord_channel: str | None = None
    digest_time: str = "09:00"
    catchup_days: int = 3
    lead_minutes: int = 30
    flag_window_days: int = 14
    flags_per_user_per_day: int = 20
    allowed_repos: tuple[str, ...] = ()
    allowed_channels: tuple[str, ...] = ()
    user_llm_per_minute: int = 5
    channel_llm_per_minute: int = 20
    metrics_port: int | None = None  # /healthz and /metrics; off when unset
    metrics_host: str = "127.0.0.1"
    llm_log_days: int = 30  # full prompts and answers kept this long, then only the figures
    diff_days: int = 90  # a merged PR's diff kept this long (0: for ever); GitHub has it after
    range_max_days: int = 31  # the longest range one rollup builds

    @property
    def llm_configured(self) -> bool:
        return self.llm.llm_configured

    @property
    def llm(self) -> LLMSettings:
        """The LLM's settings alone: all the summarizer is given (no chat or GitHub token)."""
        return LLMSettings(
            openai_api_key=self.openai_api_key,
            openai_base_url=self.openai_base_url,
            model=self.model,
            local_model=self.local_model,
            max_prompt_tokens=self.max_prompt_tokens,
            concurrency=self.concurrency,
            llm_timeout=self.llm_timeout,
            llm_max_retries=self.llm_max_retries,
        )

    def secrets(self) -> list[str]:
        """Every secret value set, so log filters and tests can look for leaks."""
        return [
            value
            for f in fields(self)
            if not f.repr and isinstance(value := getattr(self, f.name), str) and value
        ]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
        """Read settings from `env` (default: os.environ, after loading `.env` if present)."""
        if env is None:
            if dotenv:
                from dotenv import load_dotenv

                # The real environment wins over .env, as every twelve-factor tool does it.
                load_dotenv(Path.cwd() / ".env", override=False)
            env = os.environ
        read = _EnvReader(env)
        try:
            return cls(**_endpoints(read), **_service(read), **_chat(read), **_schedule(read))
        except ConfigurationError as exc:
            secrets = [read.get(name) for name in SECRET_VARIABLES]
            raise ConfigurationError(mask(str(exc), *secrets)) from None


class _EnvReader:
    """Typed reads of environment variables. A bad value is one ConfigurationError that names
    the variable and what it should look like, and quotes what it got (masked if a URL)."""

    def __init__(self, env: Mapping[str, str]):
        self.env = env

    def get(self, name: str) -> str | None:
        value = self.env.get(name, "").strip()
        return value or None

    def integer(self, name: str, default: int, minimum: int = 0) -> int:
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise ConfigurationError(
                f"{name} must be a whole number of at least {minimum}, like {default} "
                f"(got {raw[:40]!r})"
            )
        return value

    def optional_integer(self, name: str, example: int, minimum: int = 0) -> int | None:
        """A whole number, or None when unset."""
        return self.integer(name, example, minimum) if self.get(name) is not None else None

    def listing(self, name: str) -> tuple[str, ...]:
        raw = self.get(name) or ""
        return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())

    def seconds(self, name: str, default: float, *, zero: bool = True) -> float:
        raw = self.get(name)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        # nan and inf parse as floats, and neither is a wait anyone means.
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            least = "0 or more" if zero else "more than 0"
            raise ConfigurationError(
                f"{name} must be a number of seconds, {least}, like {default:g} (got {raw[:40]!r})"
            )
        return value

    def url(
        self, name: str, example: str, schemes: tuple[str, ...] = ("http", "https")
    ) -> str | None:
        raw = self.get(name)
        return check_url(name, raw, example, schemes) if raw else None

    def parsed(self, name: str, parse: Callable[[str], object], default: str) -> str:
        """The value, checked by `parse` (which raises UserInputError with its own hint)."""
        raw = self.get(name) or default
        try:
            parse(raw)
        except UserInputError as exc:
            raise ConfigurationError(f"{name}: {exc}") from None
        return raw

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        raw = self.get(name)
        value = (raw or choices[0]).lower()
        if value not in choices:
            words = ", ".join(choices[:-1]) + f" or {choices[-1]}"
            raise ConfigurationError(f"{name} must be {words} (got {(raw or '')[:40]!r})")
        return value

    def path(self, name: str, what: str) -> Path | None:
        """A file the user names: it must be one that exists."""
        raw = self.get(name)
        if not raw:
            return None
        path = Path(raw).expanduser()
        if not _is(path, Path.is_file):
            raise ConfigurationError(f"{name} must name {what} that exists (got {raw[:200]!r})")
        return path

    def database(self, name: str) -> Path | None:
        """The database path, which need not exist yet; its value is never quoted (the CLI
        names PRDIGEST_DB but never the server path it holds, as for storage faults)."""
        raw = self.get(name)
        if not raw:
            return None
        path = Path(raw).expanduser()
        if _is(path, Path.is_dir):
            raise ConfigurationError(
                f"{name} must be the path of a database file, like ~/prdigest.db, "
                "not of a directory"
            )
        return path

    def guilds(self, name: str) -> tuple[int, ...]:
        guilds: list[int] = []
        for raw_guild in self.listing(name):
            if not raw_guild.isdigit():
                raise ConfigurationError(
                    f"{name} must be Discord server ids separated by commas, like "
                    f"112233445566778899 (got {raw_guild[:40]!r})"
                )
            guilds.append(int(raw_guild))
        return tuple(guilds)


def _is(path: Path, test: Callable[[Path], bool]) -> bool:
    try:
        return test(path)
    except OSError:  # a directory on the way that cannot be read
        return False


def _text(path: Path | None) -> str | None:
    return str(path) if path else None


def _endpoints(read: _EnvReader) -> dict[str, Any]:
    """Credentials and the base URLs of GitHub, the LLM, Slack and Discord."""
    github = read.url("GITHUB_API_URL", "https://ghe.example.com/api/v3")
    return {
        "github_token": read.get("GITHUB_TOKEN"),
        "github_api_url": (github or DEFAULT_GITHUB_API_URL).rstrip("/"),
        "github_app_id": read.optional_integer("GITHUB_APP_ID", 123456, minimum=1),
        "github_app_private_key": read.get("GITHUB_APP_PRIVATE_KEY"),
        "github_app_private_key_path": read.path(
            "GITHUB_APP_PRIVATE_KEY_PATH", "the App's private key file (.pem)"
        ),
        "github_app_installation_id": read.optional_integer(
            "GITHUB_APP_INSTALLATION_ID", 12345678, minimum=1
        ),
        "openai_api_key": read.get("OPENAI_API_KEY"),
        "openai_base_url": read.url("OPENAI_BASE_URL", "http://localhost:8000/v1"),
        "slack_bot_token": read.get("SLACK_BOT_TOKEN"),
        "slack_app_token": read.get("SLACK_APP_TOKEN"),
        "slack_signing_secret": read.get("SLACK_SIGNING_SECRET"),
        "slack_api_url": read.url("SLACK_API_URL", "https://slack.com/api/"),
        "discord_bot_token": read.get("DISCORD_BOT_TOKEN"),
        "discord_api_url": read.url("DISCORD_API_URL", "https://discord.com/api/v10"),
        "discord_gateway_url": read.url(
            "DISCORD_GATEWAY_URL", "wss://gateway.discord.gg", WEBSOCKET
        ),
    }


def _service(read: _EnvReader) -> dict[str, Any]:
    """The report itself: repository, day, model and limits of the fetch and the LLM."""
    return {
        "db_path": read.database("PRDIGEST_DB") or default_db_path(),
        "repo": read.get("PRDIGEST_REPO"),
        "timezone": read.parsed("PRDIGEST_TIMEZONE", zone, DEFAULT_TIMEZONE),
        "model": read.get("PRDIGEST_MODEL") or DEFAULT_MODEL,
        "display_name": read.get("PRDIGEST_DISPLAY_NAME"),
        "max_prompt_tokens": read.integer("PRDIGEST_MAX_PROMPT_TOKENS", 12000, minimum=1000),
        "concurrency": read.integer("PRDIGEST_CONCURRENCY", 8, minimum=1),
        "llm_timeout": read.seconds("PRDIGEST_LLM_TIMEOUT", 120.0, zero=False),
        "llm_max_retries": read.integer("PRDIGEST_LLM_RETRIES", 3),
        "github_retries": read.integer("PRDIGEST_GITHUB_RETRIES", 5),
        "github_backoff": read.seconds("PRDIGEST_GITHUB_BACKOFF", 0.5),
        "local_model": _text(read.path("PRDIGEST_LOCAL_MODEL", "a .gguf model file")),
    }


def _chat(read: _EnvReader) -> dict[str, Any]:
    """How the bots behave in chat: flags, answers, access and rate limits."""
    return {
        "flag_emoji": read.listing("PRDIGEST_FLAG_EMOJI") or ("x",),
        "bots": tuple(login.lower() for login in read.listing("PRDIGEST_BOTS")),
        "trivial_style": read.choice("PRDIGEST_TRIVIAL_STYLE", ("full", "compact", "grouped")),
        "prsummary_visibility": read.choice(
            "PRDIGEST_PRSUMMARY_VISIBILITY", ("in_channel", "ephemeral")
        ),
        "slack_pace": read.seconds("PRDIGEST_SLACK_PACE", 1.0),
        "discord_guilds": read.guilds("PRDIGEST_DISCORD_GUILDS"),
        "flag_window_days": read.integer("PRDIGEST_FLAG_WINDOW_DAYS", 14),
        "flags_per_user_per_day": read.integer("PRDIGEST_FLAGS_PER_USER_PER_DAY", 20),
        "allowed_repos": tuple(r.lower() for r in read.listing("PRDIGEST_ALLOWED_REPOS")),
        "allowed_channels": read.listing("PRDIGEST_ALLOWED_CHANNELS"),
        "user_llm_per_minute": read.integer("PRDIGEST_USER_LLM_PER_MINUTE", 5),
        "channel_llm_per_minute": read.integer("PRDIGEST_CHANNEL_LLM_PER_MINUTE", 20),
    }


def _schedule(read: _EnvReader) -> dict[str, Any]:
    """The daily digest: where the subscriptions come from, and when posts go out."""
    return {
        "config_path": read.path("PRDIGEST_CONFIG", "a prdigest.toml file"),
        "slack_channel": read.get("PRDIGEST_SLACK_CHANNEL"),
        "discord_channel": read.get("PRDIGEST_DISCORD_CHANNEL"),
        "digest_time": read.parsed("PRDIGEST_DIGEST_TIME", parse_hhmm, "09:00"),
        "catchup_days": read.integer("PRDIGEST_CATCHUP_DAYS", 3),
        "lead_minutes": read.integer("PRDIGEST_LEAD_MINUTES", 30),
        "metrics_port": read.optional_integer("PRDIGEST_METRICS_PORT", 9464, minimum=0),
        "metrics_host": read.get("PRDIGEST_METRICS_HOST") or "127.0.0.1",
        "llm_log_days": read.integer("PRDIGEST_LLM_LOG_DAYS", 30),
        "diff_days": read.integer("PRDIGEST_DIFF_DAYS", 90),
        "range_max_days": read.integer("PRDIGEST_RANGE_MAX_DAYS", 31, minimum=1),
    }
