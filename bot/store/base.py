"""What every table family shares: the database handle, time columns, and storage errors."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlite_utils import Database

from bot.core.errors import StorageError

# SQLite's result codes that mean "the file, not the query, is the problem": the kind of
# StorageError each one is, and the short reason logged.
_STORAGE_FAILURES = {
    "SQLITE_FULL": (StorageError.FULL, "the disk is full"),
    "SQLITE_READONLY": (StorageError.READ_ONLY, "the database is read-only"),
    "SQLITE_BUSY": (StorageError.LOCKED, "the database stayed locked past its timeout"),
    "SQLITE_LOCKED": (StorageError.LOCKED, "the database stayed locked past its timeout"),
    "SQLITE_IOERR": (StorageError.BROKEN, "a disk I/O error occurred"),
    "SQLITE_CANTOPEN": (StorageError.BROKEN, "the database file cannot be opened"),
    "SQLITE_CORRUPT": (StorageError.BROKEN, "the database file is corrupt"),
    "SQLITE_NOTADB": (StorageError.BROKEN, "the file is not a SQLite database"),
}


def storage_error(exc: sqlite3.Error) -> StorageError | None:
    """The StorageError `exc` means when the file (not the query) failed; else None."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, (kind, reason) in _STORAGE_FAILURES.items():
        if name == prefix or name.startswith(prefix + "_"):  # e.g. SQLITE_IOERR_WRITE
            return StorageError(kind, reason)
    if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
        return StorageError(StorageError.LOCKED, "the database stayed locked past its timeout")
    return None


def storage_failure(exc: sqlite3.Error) -> str | None:
    """Why the file (not the query) failed, when that is what `exc` says; else None."""
    error = storage_error(exc)
    return error.reason if error else None


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Another connection holds the write lock (SQLITE_BUSY or SQLITE_LOCKED, and their
    extended codes), as opposed to a failing disk or file."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    return "locked" in str(exc) or "busy" in str(exc)


def is_locked(exc: BaseException) -> bool:
    """A write that found SQLite's write lock taken (and so wrote nothing), in either form."""
    if isinstance(exc, StorageError):
        return exc.kind == StorageError.LOCKED
    return isinstance(exc, sqlite3.OperationalError) and is_busy(exc)


Self_ = TypeVar("Self_", bound="Tables")
P = ParamSpec("P")
R = TypeVar("R")


def clear_storage_errors(
    method: Callable[Concatenate[Self_, P], R], *, read: bool = False
) -> Callable[Concatenate[Self_, P], R]:
    """A Store method on the right connection (see `Store.connection`), with SQLite's
    file-level failures (read-only, full, locked past the timeout, I/O) turned into a
    StorageError: one line for the user, with no server path in it."""

    @functools.wraps(method)
    def wrapper(self: Self_, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with self.connection(read=read):
                return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            error = storage_error(exc)
            if error is None:
                raise
            raise error from exc

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
            self.db.execute("COMMIT")
        except BaseException:
            # Also when COMMIT itself failed (a full disk): SQLite may leave it open.
            if self.db.conn.in_transaction:
                self.db.rollback()
            raise
