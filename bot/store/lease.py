"""A lease in SQLite: of the processes sharing one database, only the holder posts the schedule.

Two `prdigest run` started by mistake on one database would otherwise both post every digest.
The `leases` row (name, holder, expires_at) is read and written inside `BEGIN IMMEDIATE`, which
takes SQLite's write lock first, so two processes can never both see the lease free and take it.
The holder renews it well within its TTL; if the holder dies, another process takes over once
the lease has expired, and its catch-up posts whatever was missed.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from bot.core.clock import utcnow
from bot.store.base import StorageError, is_busy, storage_error
from bot.store.store import Store

log = logging.getLogger(__name__)

DEFAULT_TTL = 60.0  # seconds; renewed every ~20 s, so two missed renewals are survived
BUSY_TIMEOUT = 2.0  # seconds to wait for another writer: the event loop is blocked meanwhile


def default_holder() -> str:
    """Host, process and a random part: a restarted process never mistakes an old lease for its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _one_at_a_time(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._guard:
            return method(self, *args, **kwargs)

    return wrapper


class Lease:
    def __init__(
        self,
        store: Store,
        name: str = "scheduler",
        *,
        ttl: float = DEFAULT_TTL,
        holder: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ):
        """A lease called `name` in `store`'s database (whose migrations created the table).

        A file database gets a connection of its own in autocommit mode, so the lease's
        transactions never mix with the store's; an in-memory one (tests) can only share.
        """
        self.name = name
        self.path = store.path
        self.ttl = ttl
        self.holder = holder or default_holder()
        self.clock = clock
        self.taken_from: str | None = None  # the expired holder the last acquire() replaced
        self._taken = False  # whether this lease object ever held it: else nothing to release
        # The scheduler calls it from worker threads (off the event loop): one call at a time.
        self._guard = threading.Lock()
        if store.path == ":memory:":
            self._conn, self._own = store.db.conn, False
        else:
            self._conn = sqlite3.connect(
                store.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            self._own = True

    @_one_at_a_time
    def acquire(self) -> bool:
        """Take the lease if it is free, expired or already ours (renewing it); True if held.

        A database locked past the busy timeout, read-only or full raises StorageError, with
        nothing written: whether the lease is free is unknown then (the scheduler, which
        tries again at every beat, uses `attempt()`).
        """
        held = self._acquire()
        if held is None:
            raise StorageError(StorageError.LOCKED, "the database stayed locked past its timeout")
        return held

    @_one_at_a_time
    def attempt(self) -> bool | None:
        """`acquire()` for a caller that logs for itself: None when the database stayed locked
        past the busy timeout, which says nothing of who holds the lease."""
        return self._acquire()

    def try_acquire(self) -> bool | None:
        """`acquire()` without waiting at all, for the event loop: None when the database
        (or this lease) is busy, and `acquire()` must be asked from a thread."""
        if not self._guard.acquire(blocking=False):
            return None
        try:
            if not self._own:  # an in-memory database: nothing else can hold its lock
                return self._acquire()
            self._conn.execute("PRAGMA busy_timeout = 0")
            try:
                return self._acquire()
            finally:
                self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        finally:
            self._guard.release()

    def _acquire(self) -> bool | None:
        now = self.clock().timestamp()
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                row = self._conn.execute(
                    "SELECT holder, expires_at FROM leases WHERE name = ?", [self.name]
                ).fetchone()
                if row and row[0] != self.holder and row[1] > now:
                    self._conn.rollback()
                    return False
                self._conn.execute(
                    "INSERT INTO leases (name, holder, expires_at, renewed_at) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
                    " expires_at = excluded.expires_at, renewed_at = excluded.renewed_at",
                    [
                        self.name,
                        self.holder,
                        now + self.ttl,
                        self.clock().astimezone(UTC).isoformat(),
                    ],
                )
                self._conn.commit()
            except BaseException:
                self._conn.rollback()
                raise
        except sqlite3.Error as exc:
            if not (isinstance(exc, sqlite3.OperationalError) and is_busy(exc)):
                error = storage_error(exc)  # a disk or file error is not "someone else holds it"
                if error is None:
                    raise
                raise error from exc
            return None
        if row and row[0] != self.holder:
            self.taken_from = row[0]
        self._taken = True
        return True

    @_one_at_a_time
    def current_holder(self) -> str | None:
        """Who holds the lease now (None when free or expired); reads only."""
        row = self._conn.execute(
            "SELECT holder, expires_at FROM leases WHERE name = ?", [self.name]
        ).fetchone()
        if row is None or row[1] <= self.clock().timestamp():
            return None
        return row[0]

    def held(self) -> bool:
        return self.current_holder() == self.holder

    @_one_at_a_time
    def release(self) -> None:
        """Give the lease up now, so another process need not wait for it to expire."""
        if not self._taken:  # the holder names this object: no one else's lease is ours
            return
        try:
            self._conn.execute(
                "DELETE FROM leases WHERE name = ? AND holder = ?", [self.name, self.holder]
            )
            if self._conn.in_transaction:
                self._conn.commit()
        except sqlite3.Error as exc:  # it will expire on its own within the TTL
            log.warning("lease %s: could not release (%s)", self.name, exc)

    def close(self) -> None:
        if self._own:
            self._conn.close()
