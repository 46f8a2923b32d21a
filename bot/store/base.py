"""What every table family shares: the database handle, time columns, and storage errors."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlite_utils import Database

from bot.core.errors import PRDigestError


class StorageError(PRDigestError):
    """The database cannot be written (disk full, read-only file, I/O error): one line for the
    user instead of a traceback, and not worth retrying until someone fixes the disk."""


# SQLite's result codes that mean "the file, not the query, is the problem".
_STORAGE_FAILURES = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the database file is read-only",
    "SQLITE_IOERR": "a disk I/O error occurred",
    "SQLITE_CANTOPEN": "the database file cannot be opened",
    "SQLITE_CORRUPT": "the database file is corrupt",
    "SQLITE_NOTADB": "the file is not a SQLite database",
}


def storage_failure(exc: sqlite3.Error) -> str | None:
    """Why the file (not the query) failed, when that is what `exc` says; else None."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, reason in _STORAGE_FAILURES.items():
        if name == prefix or name.startswith(prefix + "_"):  # e.g. SQLITE_IOERR_WRITE
            return reason
    return None


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Another connection holds the write lock (SQLITE_BUSY or SQLITE_LOCKED, and their
    extended codes), as opposed to a failing disk or file."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    return "locked" in str(exc) or "busy" in str(exc)


def clear_storage_errors(method, *, read: bool = False):
    """A Store method on the right connection (see `Store.connection`), with SQLite's
    disk-level failures turned into a StorageError."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            with self.connection(read=read):
                return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            reason = storage_failure(exc)
            if reason is None:
                raise
            raise StorageError(f"Cannot write to the database at {self.path}: {reason}") from exc

    return wrapper


def iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None


def or_default(value, default):
    return default if value is None else value


def parse_time(moment: str | None) -> datetime | None:
    return datetime.fromisoformat(moment) if moment else None


T = TypeVar("T")


def from_row(cls: type[T], row: dict[str, Any], **values: Any) -> T:
    """A dataclass from a row: each field from the column of its name (a column an older
    database lacks leaves the field's default), except those given as `values`."""
    columns = {
        f.name: row[f.name]
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name in row and f.name not in values
    }
    return cls(**columns, **values)


class Tables:
    """Base of each table family: `db` is the sqlite-utils Database, `path` its file."""

    db: Database
    path: str

    def connection(self, *, read: bool) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction that takes the write lock first (BEGIN IMMEDIATE), so it waits
        out another writer for the busy timeout; a deferred one that read first would fail at
        once with "database is locked" (SQLite cannot upgrade a WAL read without a deadlock)."""
        if self.db.conn.in_transaction:
            with self.db.atomic():
                yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.rollback()
            raise
        self.db.execute("COMMIT")
