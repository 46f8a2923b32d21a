"""Settings: environment variables, with a `.env` file read when present.

Secrets are kept out of `repr()` so that logging a Settings never leaks them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.core.errors import ConfigurationError
from bot.core.llm_settings import DEFAULT_MODEL, LLMSettings

DEFAULT_TIMEZONE = "America/Los_Angeles"
DEFAULT_GITHUB_API_URL = "https://api.github.com"


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("prdigest", appauthor=False)) / "prdigest.db"


def _secret() -> str | None:
    return field(default=None, repr=False)


@dataclass(frozen=True)
class Settings:
    github_token: str | None = _secret()
    github_api_url: str = DEFAULT_GITHUB_API_URL
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
    github_retries: int = 8
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
        return cls(**_endpoints(read), **_service(read), **_chat(read), **_schedule(read))


class _EnvReader:
    """Typed reads of environment variables; a bad value is one ConfigurationError."""

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
            raise ConfigurationError(f"{name} must be a whole number, not {raw!r}") from None
        if value < minimum:
            raise ConfigurationError(f"{name} must be at least {minimum}")
        return value

    def listing(self, name: str) -> tuple[str, ...]:
        raw = self.get(name) or ""
        return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())

    def seconds(self, name: str, default: float) -> float:
        raw = self.get(name)
        try:
            value = float(raw) if raw else default
        except ValueError:
            raise ConfigurationError(f"{name} must be a number of seconds") from None
        if value < 0:
            raise ConfigurationError(f"{name} must not be negative")
        return value

    def path(self, name: str) -> Path | None:
        raw = self.get(name)
        return Path(raw).expanduser() if raw else None

    def guilds(self, name: str) -> tuple[int, ...]:
        guilds: list[int] = []
        for raw_guild in self.listing(name):
            if not raw_guild.isdigit():
                raise ConfigurationError(f"{name}: {raw_guild!r} is not a guild id")
            guilds.append(int(raw_guild))
        return tuple(guilds)


def _endpoints(read: _EnvReader) -> dict[str, Any]:
    """Credentials and the base URLs of GitHub, the LLM, Slack and Discord."""
    return {
        "github_token": read.get("GITHUB_TOKEN"),
        "github_api_url": (read.get("GITHUB_API_URL") or DEFAULT_GITHUB_API_URL).rstrip("/"),
        "openai_api_key": read.get("OPENAI_API_KEY"),
        "openai_base_url": read.get("OPENAI_BASE_URL"),
        "slack_bot_token": read.get("SLACK_BOT_TOKEN"),
        "slack_app_token": read.get("SLACK_APP_TOKEN"),
        "slack_signing_secret": read.get("SLACK_SIGNING_SECRET"),
        "slack_api_url": read.get("SLACK_API_URL"),
        "discord_bot_token": read.get("DISCORD_BOT_TOKEN"),
        "discord_api_url": read.get("DISCORD_API_URL"),
        "discord_gateway_url": read.get("DISCORD_GATEWAY_URL"),
    }


def _service(read: _EnvReader) -> dict[str, Any]:
    """The report itself: repository, day, model and limits of the fetch and the LLM."""
    return {
        "db_path": read.path("PRDIGEST_DB") or default_db_path(),
        "repo": read.get("PRDIGEST_REPO"),
        "timezone": read.get("PRDIGEST_TIMEZONE") or DEFAULT_TIMEZONE,
        "model": read.get("PRDIGEST_MODEL") or DEFAULT_MODEL,
        "display_name": read.get("PRDIGEST_DISPLAY_NAME"),
        "max_prompt_tokens": read.integer("PRDIGEST_MAX_PROMPT_TOKENS", 12000, minimum=1000),
        "concurrency": read.integer("PRDIGEST_CONCURRENCY", 8, minimum=1),
        "llm_timeout": read.seconds("PRDIGEST_LLM_TIMEOUT", 120.0),
        "llm_max_retries": read.integer("PRDIGEST_LLM_RETRIES", 3),
        "github_retries": read.integer("PRDIGEST_GITHUB_RETRIES", 8),
        "github_backoff": read.seconds("PRDIGEST_GITHUB_BACKOFF", 0.5),
        "local_model": read.get("PRDIGEST_LOCAL_MODEL"),
    }


def _chat(read: _EnvReader) -> dict[str, Any]:
    """How the bots behave in chat: flags, answers, access and rate limits."""
    visibility = (read.get("PRDIGEST_PRSUMMARY_VISIBILITY") or "in_channel").lower()
    return {
        "flag_emoji": read.listing("PRDIGEST_FLAG_EMOJI") or ("x",),
        "bots": tuple(login.lower() for login in read.listing("PRDIGEST_BOTS")),
        "trivial_style": (read.get("PRDIGEST_TRIVIAL_STYLE") or "full").strip().lower(),
        "prsummary_visibility": visibility,
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
        "config_path": read.path("PRDIGEST_CONFIG"),
        "slack_channel": read.get("PRDIGEST_SLACK_CHANNEL"),
        "discord_channel": read.get("PRDIGEST_DISCORD_CHANNEL"),
        "digest_time": read.get("PRDIGEST_DIGEST_TIME") or "09:00",
        "catchup_days": read.integer("PRDIGEST_CATCHUP_DAYS", 3),
        "lead_minutes": read.integer("PRDIGEST_LEAD_MINUTES", 30),
    }
