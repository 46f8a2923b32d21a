"""Settings: environment variables, with a `.env` file read when present.

Secrets are kept out of `repr()` so that logging a Settings never leaks them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from bot.errors import ConfigurationError

DEFAULT_TIMEZONE = "America/Los_Angeles"
DEFAULT_MODEL = "gpt-4.1-mini"
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
        return bool(self.openai_api_key or self.openai_base_url)

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

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def integer(name: str, default: int, minimum: int = 0) -> int:
            raw = get(name)
            if raw is None:
                return default
            try:
                value = int(raw)
            except ValueError:
                raise ConfigurationError(f"{name} must be a whole number, not {raw!r}") from None
            if value < minimum:
                raise ConfigurationError(f"{name} must be at least {minimum}")
            return value

        def listing(name: str) -> tuple[str, ...]:
            raw = get(name) or ""
            return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())

        guilds: list[int] = []
        for raw_guild in listing("PRDIGEST_DISCORD_GUILDS"):
            if not raw_guild.isdigit():
                raise ConfigurationError(
                    f"PRDIGEST_DISCORD_GUILDS: {raw_guild!r} is not a guild id"
                )
            guilds.append(int(raw_guild))

        def seconds(name: str, default: float) -> float:
            raw = get(name)
            try:
                value = float(raw) if raw else default
            except ValueError:
                raise ConfigurationError(f"{name} must be a number of seconds") from None
            if value < 0:
                raise ConfigurationError(f"{name} must not be negative")
            return value

        config = get("PRDIGEST_CONFIG")
        db = get("PRDIGEST_DB")
        return cls(
            github_token=get("GITHUB_TOKEN"),
            github_api_url=(get("GITHUB_API_URL") or DEFAULT_GITHUB_API_URL).rstrip("/"),
            openai_api_key=get("OPENAI_API_KEY"),
            openai_base_url=get("OPENAI_BASE_URL"),
            slack_bot_token=get("SLACK_BOT_TOKEN"),
            slack_app_token=get("SLACK_APP_TOKEN"),
            slack_signing_secret=get("SLACK_SIGNING_SECRET"),
            slack_api_url=get("SLACK_API_URL"),
            discord_bot_token=get("DISCORD_BOT_TOKEN"),
            discord_api_url=get("DISCORD_API_URL"),
            discord_gateway_url=get("DISCORD_GATEWAY_URL"),
            db_path=Path(db).expanduser() if db else default_db_path(),
            repo=get("PRDIGEST_REPO"),
            timezone=get("PRDIGEST_TIMEZONE") or DEFAULT_TIMEZONE,
            model=get("PRDIGEST_MODEL") or DEFAULT_MODEL,
            display_name=get("PRDIGEST_DISPLAY_NAME"),
            max_prompt_tokens=integer("PRDIGEST_MAX_PROMPT_TOKENS", 12000, minimum=1000),
            concurrency=integer("PRDIGEST_CONCURRENCY", 8, minimum=1),
            llm_timeout=seconds("PRDIGEST_LLM_TIMEOUT", 120.0),
            llm_max_retries=integer("PRDIGEST_LLM_RETRIES", 3),
            github_retries=integer("PRDIGEST_GITHUB_RETRIES", 8),
            github_backoff=seconds("PRDIGEST_GITHUB_BACKOFF", 0.5),
            local_model=get("PRDIGEST_LOCAL_MODEL"),
            flag_emoji=listing("PRDIGEST_FLAG_EMOJI") or ("x",),
            prsummary_visibility=(get("PRDIGEST_PRSUMMARY_VISIBILITY") or "in_channel").lower(),
            slack_pace=seconds("PRDIGEST_SLACK_PACE", 1.0),
            discord_guilds=tuple(guilds),
            config_path=Path(config).expanduser() if config else None,
            slack_channel=get("PRDIGEST_SLACK_CHANNEL"),
            discord_channel=get("PRDIGEST_DISCORD_CHANNEL"),
            digest_time=get("PRDIGEST_DIGEST_TIME") or "09:00",
            catchup_days=integer("PRDIGEST_CATCHUP_DAYS", 3),
            lead_minutes=integer("PRDIGEST_LEAD_MINUTES", 30),
            flag_window_days=integer("PRDIGEST_FLAG_WINDOW_DAYS", 14),
            flags_per_user_per_day=integer("PRDIGEST_FLAGS_PER_USER_PER_DAY", 20),
            allowed_repos=tuple(r.lower() for r in listing("PRDIGEST_ALLOWED_REPOS")),
            allowed_channels=listing("PRDIGEST_ALLOWED_CHANNELS"),
            user_llm_per_minute=integer("PRDIGEST_USER_LLM_PER_MINUTE", 5),
            channel_llm_per_minute=integer("PRDIGEST_CHANNEL_LLM_PER_MINUTE", 20),
        )
