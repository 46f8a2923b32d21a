"""What every table family shares: the database handle, time columns, and storage errors."""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
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


def clear_storage_errors(method):
    """Turn SQLite's disk-level failures inside a Store method into a StorageError."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
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
