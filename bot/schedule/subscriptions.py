"""Subscriptions: which repository's digest goes to which channel, and when.

Three sources, one shape (`bot.core.models.Subscription`):

- `prdigest.toml` (path from `PRDIGEST_CONFIG`), refused at start with the line and reason;
- for the one-repository case, the environment alone (`PRDIGEST_REPO` with
  `PRDIGEST_SLACK_CHANNEL` and/or `PRDIGEST_DISCORD_CHANNEL`);
- chat (`/digest subscribe`), stored in SQLite by `bot.store.subscriptions.SubscriptionStore`.

`Subscriptions` merges the configured ones with the chat ones; the scheduler reads it.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bot.core.day_window import parse_hhmm, zone
from bot.core.errors import ConfigurationError, PRDigestError, UserInputError
from bot.core.filters import (
    FILTER_KEYS,
    FilterConfigError,
    SubscriptionFilter,
)
from bot.core.models import Platform, Subscription, TrivialStyle
from bot.core.post_times import parse_target, subscription_key, target_key
from bot.core.pr_ref import parse_repo
from bot.core.scope import subscription_filter
from bot.core.settings import Settings
from bot.digest.areas import AreaMap
from bot.digest.ownership import CodeOwnersReader
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

T = TypeVar("T")

log = logging.getLogger(__name__)


# -- prdigest.toml and the environment -------------------------------------------------------

_SUBSCRIPTION_KEYS = (
    "repo", "to", "post_time", "timezone", "display_name", "trivial_style", "quiet", "schedule",
    "weekday", *FILTER_KEYS,
)  # fmt: skip
_DEFAULT_KEYS = ("post_time", "timezone", "trivial_style", "quiet")
QUIET_CHOICES = ("post", "skip")
SCHEDULES = ("daily", "weekly")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_STYLE_CHOICES = "trivial_style must be full, compact or grouped"
_TOML_POSITION = re.compile(
    r"^(?P<reason>.*?)\s*\(at (?:line (?P<line>\d+), column (?P<col>\d+)|end of document)\)$"
)
_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]#]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+|\"[^\"]*\")\s*=")


class _Lines:
    """Where each table and key of a TOML file is, because tomllib reports no positions.

    Keyed by (table, index, key): ("subscription", 2, "post_time") is that key in the third
    [[subscription]], key None is the table's header, table "" is outside any table.
    """

    def __init__(self, text: str):
        self.where: dict[tuple[str, int, str | None], int] = {}
        self.last = max(1, len(text.splitlines()))
        table, counts = "", {"": 0}
        for number, line in enumerate(text.splitlines(), start=1):
            if header := _HEADER.match(line):
                table = header.group(1).strip().strip("\"'")
                counts[table] = counts.get(table, -1) + 1
                self.where.setdefault((table, counts[table], None), number)
            elif key := _KEY.match(line):
                self.where.setdefault((table, counts[table], key.group(1).strip('"')), number)

    def line(self, table: str, index: int = 0, key: str | None = None) -> int:
        return self.where.get((table, index, key)) or self.where.get((table, index, None)) or 1


class _ConfigReader:
    def __init__(self, path: Path, text: str, settings: Settings):
        self.path = path
        self.text = text
        self.lines = _Lines(text)
        self.settings = settings

    def error(self, line: int, reason: str) -> ConfigurationError:
        return ConfigurationError(f"{self.path}, line {line}: {reason}")

    def check(self, line: int, parse: Callable[..., T], *args: Any) -> T:
        """Run a validator; its one-line error becomes this file's line and that reason."""
        try:
            return parse(*args)
        except PRDigestError as exc:
            raise self.error(line, str(exc)) from None

    def parsed(self) -> dict[str, Any]:
        """The file's TOML; a syntax error names its line and column."""
        try:
            return tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            match = _TOML_POSITION.match(str(exc))
            if match is None:
                raise self.error(1, str(exc)) from None
            reason, column = match.group("reason"), match.group("col")
            if column is None:
                raise self.error(self.lines.last, f"{reason} (at the end of the file)") from None
            raise self.error(int(match.group("line")), f"{reason} (column {column})") from None

    def areas(self, data: dict[str, Any] | None = None) -> AreaMap | None:
        """The `[areas]` map, checked, with the line of a mistake; None when there is none."""
        table = (self.parsed() if data is None else data).get("areas")
        if not table:
            return None
        if isinstance(table, dict):  # each area alone first, so a mistake names its own line
            for name, spec in table.items():
                line = self.lines.where.get((f"areas.{name}", 0, None))
                line = line or self.lines.line("areas", 0, name)
                self.check(line, AreaMap.from_config, {name: spec})
        return self.check(self.lines.line("areas"), AreaMap.from_config, table)

    def read(self) -> list[Subscription]:
        data = self.parsed()
        for key, value in data.items():
            if key not in ("defaults", "subscription", "areas"):
                table = key if isinstance(value, dict | list) else ""
                hint = " (did you mean [[subscription]]?)" if key.startswith("subscri") else ""
                line = self.lines.line(table, 0, None if table else key)
                raise self.error(line, f"unknown setting {key!r}{hint}")

        defaults = data.get("defaults", {})
        if not isinstance(defaults, dict):
            raise self.error(self.lines.line("", 0, "defaults"), "use a [defaults] table")
        for key in defaults:
            if key not in _DEFAULT_KEYS:
                allowed = ", ".join(_DEFAULT_KEYS)
                line = self.lines.line("defaults", 0, key)
                raise self.error(line, f"unknown default {key!r} (allowed: {allowed})")

        self.areas(data)
        entries = data.get("subscription")
        if entries is None:
            raise self.error(1, "no subscriptions: add a [[subscription]] table with repo and to")
        if not isinstance(entries, list):
            line = self.lines.line("subscription")
            raise self.error(line, "write [[subscription]] (double brackets), once per digest")

        subscriptions: list[Subscription] = []
        seen: dict[str, int] = {}
        for index, entry in enumerate(entries):
            header = self.lines.line("subscription", index)
            for sub in self.subscription(index, entry, defaults):
                key = subscription_key(sub)
                if key in seen:
                    raise self.error(
                        header,
                        f"{sub.repo} to {sub.platform}:{sub.channel} is already subscribed "
                        f"on line {seen[key]}",
                    )
                seen[key] = header
                subscriptions.append(sub)
        return subscriptions

    def subscription(self, index: int, entry: Any, defaults: dict[str, Any]) -> list[Subscription]:
        """One [[subscription]] table: a Subscription per target, each value checked (in
        the table's order of keys) with the line it came from."""
        self._check_keys(index, entry)
        read = _Entry(self, index, entry, defaults)
        repo_text, line = read.text("repo", "owner/name")
        repo = self.check(line, parse_repo, repo_text)
        targets = self._targets(read)
        timing = self._timing(read)
        filters = self._filters(read)
        display_name = self._display_name(read)
        return [
            Subscription(
                repo=repo,
                platform=platform,
                channel=channel,
                display_name=display_name,
                filters=filters.to_args(),
                **timing,
            )
            for platform, channel in targets
        ]

    def _check_keys(self, index: int, entry: Any) -> None:
        """A table, with only known keys, and both of the required ones."""
        header = self.lines.line("subscription", index)
        if not isinstance(entry, dict):
            raise self.error(header, "each [[subscription]] must be a table")
        for key in entry:
            if key not in _SUBSCRIPTION_KEYS:
                allowed = ", ".join(_SUBSCRIPTION_KEYS)
                line = self.lines.line("subscription", index, key)
                raise self.error(line, f"unknown setting {key!r} (allowed: {allowed})")
        for required in ("repo", "to"):
            if required not in entry:
                raise self.error(header, f"this subscription has no {required!r}")

    def _targets(self, read: _Entry) -> list[tuple[str, str]]:
        raw_to, line = read.value("to", "")
        targets = raw_to if isinstance(raw_to, list) else [raw_to]
        if not targets or not all(isinstance(t, str) for t in targets):
            raise self.error(line, 'to must be "slack:C0123456789" or a list of such targets')
        return [self.check(line, parse_target, t) for t in targets]

    def _timing(self, read: _Entry) -> dict[str, Any]:
        """When and how it posts: the Subscription fields of that name."""
        time_text, line = read.text("post_time", self.settings.digest_time)
        post_time = self.check(line, parse_hhmm, time_text)
        tz_name, line = read.text("timezone", self.settings.timezone)
        self.check(line, zone, tz_name)
        style, line = read.text("trivial_style", "full")
        if style not in set(TrivialStyle):
            raise self.error(line, f"{_STYLE_CHOICES}, not {style[:20]!r}")
        quiet, line = read.text("quiet", "post")
        if quiet not in QUIET_CHOICES:
            raise self.error(line, f'quiet must be "post" or "skip", not {quiet[:20]!r}')
        schedule, line = read.text("schedule", "daily")
        if schedule not in SCHEDULES:
            raise self.error(line, f'schedule must be "daily" or "weekly", not {schedule[:20]!r}')
        weekday, line = read.text("weekday", "monday")
        if weekday.lower() not in WEEKDAYS:
            raise self.error(line, f"weekday must be a day such as monday, not {weekday[:20]!r}")
        return {
            "post_time": post_time,
            "tz_name": tz_name,
            "trivial_style": TrivialStyle(style),
            "quiet": quiet,
            "schedule": schedule,
            "weekday": weekday.lower(),
        }

    def _filters(self, read: _Entry) -> SubscriptionFilter:
        try:
            return SubscriptionFilter.from_config(
                {key: read.table[key] for key in FILTER_KEYS if key in read.table}
            )
        except FilterConfigError as exc:
            raise self.error(read.line(exc.key), str(exc)) from None

    def _display_name(self, read: _Entry) -> str | None:
        display_name = read.table.get("display_name")
        if display_name is not None and (
            not isinstance(display_name, str) or not display_name.strip()
        ):
            raise self.error(
                read.line("display_name"), "display_name must be a non-empty string in quotes"
            )
        return display_name.strip() if display_name else None


@dataclass
class _Entry:
    """One [[subscription]] table being read: each value with the line of the value used (its
    own, the [defaults] one, or the table's header)."""

    reader: _ConfigReader
    index: int
    table: dict[str, Any]
    defaults: dict[str, Any]

    def line(self, key: str | None = None) -> int:
        return self.reader.lines.line("subscription", self.index, key)

    def value(self, key: str, fallback: str) -> tuple[Any, int]:
        if key in self.table:
            return self.table[key], self.line(key)
        if key in self.defaults:
            return self.defaults[key], self.reader.lines.line("defaults", 0, key)
        return fallback, self.line()

    def text(self, key: str, fallback: str = "") -> tuple[str, int]:
        raw, line = self.value(key, fallback)
        if not isinstance(raw, str):
            raise self.reader.error(line, f'{key} must be a string in quotes, like "{fallback}"')
        return raw, line


def load_config(path: Path, settings: Settings) -> list[Subscription]:
    """Read prdigest.toml; a mistake is one ConfigurationError naming the line and the reason.

    Values a subscription leaves out come from the file's `[defaults]`, then from
    PRDIGEST_DIGEST_TIME and PRDIGEST_TIMEZONE.
    """
    _check_env_defaults(settings)
    return _config_reader(path, settings).read()


def load_area_map(settings: Settings) -> AreaMap | None:
    """prdigest.toml's `[areas]` map, when PRDIGEST_CONFIG names a file that has one; its
    mistakes are reported as `load_config` reports them, with the line."""
    if settings.config_path is None:
        return None
    return _config_reader(settings.config_path, settings).areas()


def _config_reader(path: Path, settings: Settings) -> _ConfigReader:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"PRDIGEST_CONFIG: {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"Cannot read {path}: {exc}") from None
    return _ConfigReader(path, text, settings)


def env_subscriptions(settings: Settings) -> list[Subscription]:
    """The one-repository set-up: PRDIGEST_REPO posted to the channel(s) named in the env."""
    channels = {Platform.SLACK: settings.slack_channel, Platform.DISCORD: settings.discord_channel}
    named = {platform: channel for platform, channel in channels.items() if channel}
    if not named:
        return []
    variables = {platform: f"PRDIGEST_{platform.upper()}_CHANNEL" for platform in named}
    if not settings.repo:
        names = " and ".join(variables.values())
        raise ConfigurationError(f"{names} is set but PRDIGEST_REPO is not: name the repository")
    post_time = _check_env_defaults(settings)
    repo = _env_value("PRDIGEST_REPO", parse_repo, settings.repo)
    return [
        Subscription(
            repo=repo,
            platform=platform,
            channel=_env_value(variables[platform], parse_target, f"{platform}:{channel}")[1],
            post_time=post_time,
            tz_name=settings.timezone,
            display_name=settings.display_name,
            trivial_style=env_trivial_style(settings),
        )
        for platform, channel in named.items()
    ]


def _env_value(variable: str, parse: Callable[[str], T], text: str) -> T:
    try:
        return parse(text)
    except PRDigestError as exc:
        raise ConfigurationError(f"{variable}: {exc}") from None


def env_trivial_style(settings: Settings) -> TrivialStyle:
    """PRDIGEST_TRIVIAL_STYLE, checked."""
    if settings.trivial_style not in set(TrivialStyle):
        raise ConfigurationError(
            f"PRDIGEST_TRIVIAL_STYLE: {_STYLE_CHOICES}, not {settings.trivial_style[:20]!r}"
        )
    return TrivialStyle(settings.trivial_style)


def _check_env_defaults(settings: Settings) -> str:
    """The environment's default post time, normalized; its zone and style are checked too."""
    env_trivial_style(settings)
    _env_value("PRDIGEST_TIMEZONE", zone, settings.timezone)
    return _env_value("PRDIGEST_DIGEST_TIME", parse_hhmm, settings.digest_time)


def configured_subscriptions(settings: Settings) -> list[Subscription]:
    """prdigest.toml when PRDIGEST_CONFIG is set, else the environment's one repository."""
    if settings.config_path is not None:
        return load_config(settings.config_path, settings)
    return env_subscriptions(settings)


async def check_configured_owners(
    subscriptions: list[Subscription], owners: CodeOwnersReader, where: str
) -> None:
    """Refuse, at start, a configured subscription filtering by codeowners of a repository
    that has no CODEOWNERS file, as chat refuses one when it is made: otherwise its every
    digest would fail, or post nothing, in silence. GitHub failing now is no reason to refuse
    to start: each digest reads the file again (and says so if it is missing)."""
    checked: set[str] = set()
    for sub in subscriptions:
        repo = sub.repo.lower()
        if repo in checked or not subscription_filter(sub).needs_codeowners:
            continue
        checked.add(repo)
        try:
            await owners.require(sub.repo)
        except UserInputError as exc:
            raise ConfigurationError(
                f"{where}: {sub.repo} to {sub.platform}:{sub.channel} filters by codeowners, "
                f"but {exc}"
            ) from None
        except PRDigestError as exc:
            log.warning("CODEOWNERS of %s not checked at start: %s", sub.repo, exc)


# -- configured and chat subscriptions together ----------------------------------------------------------------


@dataclass(frozen=True)
class StaticSubscriptions:
    """A fixed list, for tests and for a process with no chat adapter."""

    subscriptions: tuple[Subscription, ...]

    def all(self) -> list[Subscription]:
        return list(self.subscriptions)


class Subscriptions:
    """The configured subscriptions plus the chat ones; the configured one wins a clash."""

    def __init__(self, configured: list[Subscription], store: SubscriptionStore | None = None):
        self.configured = list(configured)
        self.store = store

    @classmethod
    def from_settings(cls, settings: Settings, store: Store) -> Subscriptions:
        return cls(configured_subscriptions(settings), SubscriptionStore(store))

    def all(self) -> list[Subscription]:
        subs = {subscription_key(s): s for s in self.configured}
        for sub in self.store.all() if self.store else []:
            subs.setdefault(subscription_key(sub), sub)
        return list(subs.values())

    def configured_for(self, platform: str, channel: str, repo: str) -> Subscription | None:
        key = target_key(platform, channel, repo)
        return next((s for s in self.configured if subscription_key(s) == key), None)
