"""Subscriptions: which repository's digest goes to which channel, and when.

Three sources, one shape (`bot.models.Subscription`):

- `prdigest.toml` (path from `PRDIGEST_CONFIG`), refused at start with the line and reason;
- for the one-repository case, the environment alone (`PRDIGEST_REPO` with
  `PRDIGEST_SLACK_CHANNEL` and/or `PRDIGEST_DISCORD_CHANNEL`);
- chat (`/digest subscribe`), stored in SQLite by `SubscriptionStore`.

`Subscriptions` merges the configured ones with the chat ones; the scheduler reads it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bot.day_window import zone
from bot.errors import ConfigurationError, PRDigestError, UserInputError
from bot.models import Subscription
from bot.pr_ref import parse_repo
from bot.settings import Settings
from bot.store import Store

if TYPE_CHECKING:
    from bot.chat_commands import SubscriptionCommand
    from bot.scheduler import DigestScheduler

PLATFORMS = ("slack", "discord")
TRIVIAL_STYLES = ("full", "compact")
MAX_PER_CHANNEL = 10  # chat subscriptions per channel, so a pasted loop cannot flood one

_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
# Channel ids, not names: a channel can be renamed, its id never changes.
_CHANNEL = {"slack": re.compile(r"^[CGD][A-Z0-9]+$"), "discord": re.compile(r"^\d+$")}
_CHANNEL_HINT = {
    "slack": "a Slack channel ID such as C0123456789 (channel details, at the bottom)",
    "discord": "a Discord channel ID such as 123456789012345678 (Copy Channel ID)",
}

T = TypeVar("T")


# -- values --------------------------------------------------------------------------------


def parse_post_time(text: str) -> str:
    """`9:05` or `09:05` → `09:05`; anything else is a one-line error."""
    match = _TIME.match(text.strip())
    if not match:
        raise UserInputError(f"{text[:20]!r} is not a time: use HH:MM, like 09:00")
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def parse_target(text: str) -> tuple[str, str]:
    """`slack:C123` → ("slack", "C123"): the form of `prdigest post --to` and of the config."""
    platform, sep, channel = text.strip().partition(":")
    platform = platform.lower()
    if not sep or platform not in PLATFORMS or not channel:
        raise UserInputError(
            f"{text[:60]!r} is not a target: use slack:C0123456789 or discord:123456789012345678"
        )
    if not _CHANNEL[platform].match(channel):
        raise UserInputError(f"{channel[:40]!r} is not a channel ID: use {_CHANNEL_HINT[platform]}")
    return platform, channel


def subscription_key(sub: Subscription) -> str:
    """What makes a subscription unique: one schedule per repository and channel."""
    return f"{sub.platform}:{sub.channel}:{sub.repo.lower()}"


def post_instant(sub: Subscription, day: date) -> datetime:
    """When the digest of `day` is due (UTC): the next day at post_time in the subscription's zone.

    A wall time inside a spring-forward gap resolves to the instant an hour later, one that
    happens twice to its first occurrence, as zoneinfo does.
    """
    hour, minute = map(int, sub.post_time.split(":"))
    local = datetime.combine(day + timedelta(days=1), time(hour, minute), tzinfo=zone(sub.tz_name))
    return local.astimezone(UTC)


def latest_post(sub: Subscription, now: datetime, lead: timedelta = timedelta(0)) -> datetime:
    """The most recent post instant whose work (post instant − lead) has started by `now`.

    Everything is compared in UTC: Python compares two datetimes of the same zone by wall time,
    which is wrong across a DST change.
    """
    now = now.astimezone(UTC)
    today = now.astimezone(zone(sub.tz_name)).date()
    for day in (today, today - timedelta(days=1), today - timedelta(days=2)):
        instant = post_instant(sub, day)
        if instant - lead <= now:
            return instant
    raise AssertionError("unreachable: the day before yesterday's post time has passed")


def digest_day(sub: Subscription, instant: datetime) -> date:
    """The day whose digest is posted at `instant`, one of `sub`'s post instants."""
    return instant.astimezone(zone(sub.tz_name)).date() - timedelta(days=1)


def next_post(sub: Subscription, now: datetime) -> datetime:
    """The first post instant after `now` (UTC)."""
    return post_instant(sub, digest_day(sub, latest_post(sub, now)) + timedelta(days=1))


def describe(sub: Subscription) -> str:
    return f"{sub.repo} at {sub.post_time} {sub.tz_name}"


# -- prdigest.toml and the environment -------------------------------------------------------

_SUBSCRIPTION_KEYS = ("repo", "to", "post_time", "timezone", "display_name", "trivial_style")
_DEFAULT_KEYS = ("post_time", "timezone", "trivial_style")
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

    def read(self) -> list[Subscription]:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            match = _TOML_POSITION.match(str(exc))
            if match is None:
                raise self.error(1, str(exc)) from None
            reason, column = match.group("reason"), match.group("col")
            if column is None:
                raise self.error(self.lines.last, f"{reason} (at the end of the file)") from None
            raise self.error(int(match.group("line")), f"{reason} (column {column})") from None

        for key, value in data.items():
            if key not in ("defaults", "subscription"):
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

        def value(key: str, fallback: str) -> tuple[Any, int]:
            # The line of the value that is used: its own, the [defaults] one, or the header.
            if key in entry:
                return entry[key], self.lines.line("subscription", index, key)
            if key in defaults:
                return defaults[key], self.lines.line("defaults", 0, key)
            return fallback, header

        def text(key: str, fallback: str = "") -> tuple[str, int]:
            raw, line = value(key, fallback)
            if not isinstance(raw, str):
                raise self.error(line, f'{key} must be a string in quotes, like "{fallback}"')
            return raw, line

        repo_text, line = text("repo", "owner/name")
        repo = self.check(line, parse_repo, repo_text)
        raw_to, line = value("to", "")
        targets = raw_to if isinstance(raw_to, list) else [raw_to]
        if not targets or not all(isinstance(t, str) for t in targets):
            raise self.error(line, 'to must be "slack:C0123456789" or a list of such targets')
        parsed = [self.check(line, parse_target, t) for t in targets]
        time_text, line = text("post_time", self.settings.digest_time)
        post_time = self.check(line, parse_post_time, time_text)
        tz_name, line = text("timezone", self.settings.timezone)
        self.check(line, zone, tz_name)
        style, line = text("trivial_style", "full")
        if style not in TRIVIAL_STYLES:
            raise self.error(line, f"trivial_style must be full or compact, not {style[:20]!r}")
        display_name = entry.get("display_name")
        if display_name is not None and (
            not isinstance(display_name, str) or not display_name.strip()
        ):
            line = self.lines.line("subscription", index, "display_name")
            raise self.error(line, "display_name must be a non-empty string in quotes")
        return [
            Subscription(
                repo=repo,
                platform=platform,
                channel=channel,
                post_time=post_time,
                tz_name=tz_name,
                display_name=display_name.strip() if display_name else None,
                trivial_style=style,
            )
            for platform, channel in parsed
        ]


def load_config(path: Path, settings: Settings) -> list[Subscription]:
    """Read prdigest.toml; a mistake is one ConfigurationError naming the line and the reason.

    Values a subscription leaves out come from the file's `[defaults]`, then from
    PRDIGEST_DIGEST_TIME and PRDIGEST_TIMEZONE.
    """
    _check_env_defaults(settings)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"PRDIGEST_CONFIG: {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"Cannot read {path}: {exc}") from None
    return _ConfigReader(path, text, settings).read()


def env_subscriptions(settings: Settings) -> list[Subscription]:
    """The one-repository set-up: PRDIGEST_REPO posted to the channel(s) named in the env."""
    channels = {"slack": settings.slack_channel, "discord": settings.discord_channel}
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
        )
        for platform, channel in named.items()
    ]


def _env_value(variable: str, parse: Callable[[str], T], text: str) -> T:
    try:
        return parse(text)
    except PRDigestError as exc:
        raise ConfigurationError(f"{variable}: {exc}") from None


def _check_env_defaults(settings: Settings) -> str:
    """The environment's default post time, normalized; its zone is checked too."""
    _env_value("PRDIGEST_TIMEZONE", zone, settings.timezone)
    return _env_value("PRDIGEST_DIGEST_TIME", parse_post_time, settings.digest_time)


def configured_subscriptions(settings: Settings) -> list[Subscription]:
    """prdigest.toml when PRDIGEST_CONFIG is set, else the environment's one repository."""
    if settings.config_path is not None:
        return load_config(settings.config_path, settings)
    return env_subscriptions(settings)


# -- chat-managed subscriptions ----------------------------------------------------------------


class SubscriptionSource(Protocol):
    """Anything the scheduler can ask for the current subscriptions."""

    def all(self) -> list[Subscription]: ...


@dataclass(frozen=True)
class StaticSubscriptions:
    """A fixed list, for tests and for a process with no chat adapter."""

    subscriptions: tuple[Subscription, ...]

    def all(self) -> list[Subscription]:
        return list(self.subscriptions)


class SubscriptionStore:
    """Chat subscriptions in `store.db`, and when the scheduler first saw each subscription."""

    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    def add(self, sub: Subscription, *, created_by: str | None = None) -> tuple[Subscription, bool]:
        """Save a subscription; (saved, True) when new, (saved, False) when its time changed."""
        existing = self.get(sub.platform, sub.channel, sub.repo)
        row = {
            "platform": sub.platform,
            "channel": sub.channel,
            "repo": sub.repo,
            "post_time": sub.post_time,
            "tz_name": sub.tz_name,
            "display_name": sub.display_name,
            "trivial_style": sub.trivial_style,
        }
        if existing is not None:
            self.db["subscriptions"].update(existing.id, row)
            return self._get_by_id(existing.id), False
        row |= {"created_by": created_by, "created_at": datetime.now(UTC).isoformat()}
        return self._get_by_id(self.db["subscriptions"].insert(row).last_pk), True

    def remove(self, platform: str, channel: str, repo: str) -> Subscription | None:
        existing = self.get(platform, channel, repo)
        if existing is None:
            return None
        with self.db.atomic():
            self.db["subscriptions"].delete(existing.id)
            # Subscribing again later starts afresh: no catch-up of the days in between.
            self.db["subscription_starts"].delete_where("key = ?", [subscription_key(existing)])
        return existing

    def get(self, platform: str, channel: str, repo: str) -> Subscription | None:
        rows = list(
            self.db["subscriptions"].rows_where(
                "platform = ? AND channel = ? AND repo = ? COLLATE NOCASE",
                [platform, channel, repo],
                limit=1,
            )
        )
        return self._sub(rows[0]) if rows else None

    def list(self, platform: str, channel: str) -> list[Subscription]:
        return [
            self._sub(row)
            for row in self.db["subscriptions"].rows_where(
                "platform = ? AND channel = ?", [platform, channel], order_by="repo"
            )
        ]

    def all(self) -> list[Subscription]:
        return [self._sub(row) for row in self.db["subscriptions"].rows_where(order_by="id")]

    def first_seen(self, sub: Subscription, now: datetime) -> datetime:
        """When the scheduler first saw `sub` (recording `now` the first time it is asked)."""
        key = subscription_key(sub)
        table = self.db["subscription_starts"]
        table.insert({"key": key, "first_seen": now.astimezone(UTC).isoformat()}, ignore=True)
        return datetime.fromisoformat(table.get(key)["first_seen"])

    def _get_by_id(self, row_id: int) -> Subscription:
        return self._sub(self.db["subscriptions"].get(row_id))

    @staticmethod
    def _sub(row: dict) -> Subscription:
        return Subscription(
            id=row["id"],
            repo=row["repo"],
            platform=row["platform"],
            channel=row["channel"],
            post_time=row["post_time"],
            tz_name=row["tz_name"],
            display_name=row["display_name"],
            trivial_style=row["trivial_style"] or "full",
        )


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
        for sub in self.configured:
            if (sub.platform, sub.channel, sub.repo.lower()) == (platform, channel, repo.lower()):
                return sub
        return None


# -- /digest subscribe | unsubscribe | subscriptions -----------------------------------------

SUBSCRIBE_USAGE = "/digest subscribe owner/repo [at HH:MM] [tz Area/City]"


async def handle_subscription_command(
    cmd: SubscriptionCommand,
    platform: str,
    channel: str,
    store: SubscriptionStore,
    scheduler: DigestScheduler,
    *,
    bot_in_channel: bool = True,
    user: str | None = None,
) -> str:
    """Carry out a subscription command typed in `channel`; returns the one-line answer.

    The adapter passes `bot_in_channel=False` when the bot is not a member of the channel
    (Slack lets anyone type a slash command anywhere): the digest could never be posted there.
    The answer is plain text; the adapter escapes it for its platform.
    """
    subs = scheduler.subscriptions
    if cmd.action == "list":
        here = _in_channel(scheduler, platform, channel)
        if not here:
            return f"No daily digest is scheduled in this channel. Add one with {SUBSCRIBE_USAGE}."
        parts = [
            describe(s) + (" (from the configuration file)" if s.id is None else "") for s in here
        ]
        return "Daily digests in this channel: " + "; ".join(parts) + "."

    assert cmd.repo is not None  # the parser requires a repository for these two actions
    fixed = (
        subs.configured_for(platform, channel, cmd.repo)
        if isinstance(subs, Subscriptions)
        else None
    )
    if cmd.action == "unsubscribe":
        if fixed is not None:
            return f"{fixed.repo} is scheduled here by the configuration file: remove it there."
        removed = store.remove(platform, channel, cmd.repo)
        if removed is None:
            return f"{cmd.repo} has no daily digest in this channel."
        scheduler.reload()
        return f"Unsubscribed: no more daily digest of {removed.repo} in this channel."

    if not bot_in_channel:
        return "I am not a member of this channel: invite me first, then subscribe again."
    if fixed is not None:
        return f"{describe(fixed)} is scheduled here by the configuration file: change it there."
    current = store.get(platform, channel, cmd.repo)
    if current is None and len(store.list(platform, channel)) >= MAX_PER_CHANNEL:
        return (
            f"This channel already has {MAX_PER_CHANNEL} daily digests: unsubscribe from one first."
        )
    sub = Subscription(
        repo=cmd.repo,
        platform=platform,
        channel=channel,
        post_time=cmd.post_time
        or (current.post_time if current else None)
        or parse_post_time(scheduler.settings.digest_time),
        tz_name=cmd.tz_name or scheduler.settings.timezone,
        display_name=current.display_name if current else None,
        trivial_style=current.trivial_style if current else "full",
    )
    saved, created = store.add(sub, created_by=user)
    scheduler.reload()
    upcoming = next_post(saved, scheduler.clock()).astimezone(zone(saved.tz_name))
    next_local = upcoming.strftime("%a %d %b %H:%M %Z")
    verb = "Subscribed" if created else "Updated"
    return (
        f"{verb}: the digest of {saved.repo} is posted here every day at {saved.post_time} "
        f"{saved.tz_name}, for the day before (next: {next_local})."
    )


def _in_channel(scheduler: DigestScheduler, platform: str, channel: str) -> list[Subscription]:
    return sorted(
        (
            s
            for s in scheduler.subscriptions.all()
            if (s.platform, s.channel) == (platform, channel)
        ),
        key=lambda s: s.repo.lower(),
    )
