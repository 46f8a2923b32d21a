"""The checks that need no network: the settings (`Settings` read them already, or the
doctor could not start), prdigest.toml and the subscriptions, and the database.

The database is opened read-only and only looked at: a file that does not exist yet is not
created (its place is named, and whether it can be created there), a schema a release behind
is not migrated (the next start does it), and the write probe is rolled back.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlite_utils import Database

from bot.app.doctor.check import Check, failed, passed, skipped
from bot.core.errors import PRDigestError
from bot.core.models import Subscription
from bot.core.post_times import subscription_key
from bot.core.settings import Settings
from bot.schedule.subscriptions import configured_subscriptions, load_area_map
from bot.store.base import storage_failure
from bot.store.migrations import migrations
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

ENV_SUBSCRIPTION = (
    "PRDIGEST_REPO with PRDIGEST_SLACK_CHANNEL or PRDIGEST_DISCORD_CHANNEL, a prdigest.toml "
    "named by PRDIGEST_CONFIG, or /digest subscribe in a channel"
)
LOCK_WAIT = 2.0  # seconds the write probe waits for another process's lock
DB = "Database"
MOVE = "set PRDIGEST_DB to a file in a directory you can write"
WRITABLE = "make the file and its directory writable by this user, or " + MOVE


@dataclass
class Configured:
    """What the local checks found, for the network checks to use."""

    checks: list[Check] = field(default_factory=list)
    subscriptions: list[Subscription] = field(default_factory=list)
    database_current: bool = False  # it exists and this release's schema is all applied


def local_checks(settings: Settings) -> Configured:
    config, configured = config_check(settings)
    database, current = database_check(settings.db_path)
    chat = chat_subscriptions(settings.db_path) if current else []
    return Configured(
        checks=[passed("Settings", settings_source()), with_chat(config, len(chat)), database],
        subscriptions=merged(configured, chat),
        database_current=current,
    )


def settings_source() -> str:
    dotenv = Path.cwd() / ".env"
    where = f"the environment and {dotenv}" if dotenv.is_file() else "the environment (no .env)"
    return f"read from {where}"


def config_check(settings: Settings) -> tuple[Check, list[Subscription]]:
    """prdigest.toml (or the environment's one subscription), parsed as `prdigest run` does."""
    name = "prdigest.toml" if settings.config_path else "Subscriptions"
    try:
        subscriptions = configured_subscriptions(settings)
        areas = load_area_map(settings)
    except PRDigestError as exc:
        fix = (
            f"correct that line of {settings.config_path}; examples/prdigest.toml shows each key"
            if settings.config_path
            else "set it in the environment or .env (.env.example lists every setting)"
        )
        return failed(name, str(exc), fix), []
    count = f"{len(subscriptions)} subscription{'s' if len(subscriptions) != 1 else ''}"
    if settings.config_path:
        area_note = f", {len(areas.rules)} areas" if areas else ""
        return passed(name, f"{settings.config_path}: {count}{area_note}"), subscriptions
    if not subscriptions:
        return skipped(name, f"none configured ({ENV_SUBSCRIPTION})"), []
    return passed(name, f"{count} from the environment"), subscriptions


def with_chat(config: Check, count: int) -> Check:
    """The subscriptions line, counting those made in chat too."""
    if not count or not config.ok:
        return config
    chat = f"{count} from /digest subscribe"
    if config.skipped:
        return passed(config.name, chat)
    return replace(config, detail=f"{config.detail}, and {chat}")


def merged(configured: list[Subscription], chat: list[Subscription]) -> list[Subscription]:
    """As the scheduler sees them: the configured one wins a clash with a chat one."""
    seen = {subscription_key(s) for s in configured}
    return configured + [s for s in chat if subscription_key(s) not in seen]


def database_check(path: Path) -> tuple[Check, bool]:
    """(the check, whether the file exists with this release's whole schema)."""
    if not path.exists():
        directory = _existing_parent(path)
        if not os.access(directory, os.W_OK | os.X_OK):
            return failed(DB, f"{path} cannot be created: {directory} is not writable", MOVE), False
        return passed(DB, f"{path} (not created yet: the first report or run creates it)"), False
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return failed(DB, f"{path} is read-only (the file or its directory)", WRITABLE), False
    try:
        with _read_only(path) as db:
            applied = [m.name for m in migrations.applied(db)]
            pending = [m.name for m in migrations.pending(db)]
        probe_write(path)
    except sqlite3.Error as exc:
        reason = storage_failure(exc) or str(exc)
        return failed(DB, f"{path}: {reason}", _fix_for(reason)), False
    known = {m.name for m in migrations.pending(Database(memory=True))}
    newer = [m for m in applied if m not in known]
    if newer:
        return failed(
            DB,
            f"{path} was written by a newer prdigest (it has {newer[-1]})",
            "upgrade prdigest, or set PRDIGEST_DB to another file",
        ), False
    if pending:
        note = f"{len(pending)} schema update{'s' if len(pending) > 1 else ''}"
        return passed(DB, f"{path}: writable; {note} to apply at the next start"), False
    return passed(DB, f"{path}: writable, schema up to date ({len(applied)} migrations)"), True


def _fix_for(reason: str) -> str:
    if "locked" in reason:
        return "wait for the other process using it (another prdigest?), then try again"
    if "not a SQLite database" in reason or "corrupt" in reason or "not a database" in reason:
        return "restore it from a backup, or " + MOVE
    if "read-only" in reason:
        return WRITABLE
    if "full" in reason:
        return "free space on its disk, or " + MOVE
    return MOVE


def _existing_parent(path: Path) -> Path:
    for parent in path.parents:
        if parent.exists():
            return parent
    return Path(path.anchor or ".")


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[Database]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_WAIT)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # not a database: raises
        yield Database(conn)
    finally:
        conn.close()


def probe_write(path: Path) -> None:
    """Take SQLite's write lock and write into a transaction that is rolled back: the file
    and the lock both answer, and nothing is kept."""
    conn = sqlite3.connect(path, timeout=LOCK_WAIT, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE _prdigest_doctor_probe (x)")
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def chat_subscriptions(path: Path) -> list[Subscription]:
    """The subscriptions made with /digest subscribe, from a database already current (so
    opening it migrates nothing)."""
    try:
        store = Store(path)
    except (PRDigestError, sqlite3.Error):
        return []
    try:
        return SubscriptionStore(store).all()
    except (PRDigestError, sqlite3.Error):
        return []
    finally:
        store.close()
