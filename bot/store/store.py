"""The store: one facade over a sqlite-utils Database; the `bot.store` modules are the only
place that writes SQL.

Rows go in and out as the dataclasses of `bot.core.models`; nothing else sees a row dict.
Each table family is its own module (`prs`, `summaries`, `llm_calls`, `posts`, `flags`);
`Store` joins them over one connection, and `subscriptions` and `lease` open their own views.
Each method says where it is written whether it reads or writes (`bot.store.threads`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from sqlite_utils import Database

from bot.core.errors import ConfigurationError
from bot.store.base import StorageError, clear_storage_errors, is_locked, storage_error
from bot.store.codeowners import CodeOwnersTables
from bot.store.flags import FlagTables
from bot.store.llm_calls import LLMCallTables
from bot.store.migrations import migrations
from bot.store.overviews import OverviewTables
from bot.store.posts import PostTables
from bot.store.prs import PRTables
from bot.store.search_index import SearchTables
from bot.store.summaries import SummaryTables
from bot.store.threads import Awaited, StoreMethod
from bot.store.upkeep import UpkeepTables

__all__ = ["OffLoop", "StorageError", "Store"]

# Seconds a write waits for another writer's lock. Long, because it is spent on the store's
# writer thread: the event loop awaits the result and keeps acknowledging commands meanwhile.
BUSY_TIMEOUT = 60.0

P = ParamSpec("P")
T = TypeVar("T")


class Store(
    PRTables,
    SummaryTables,
    LLMCallTables,
    PostTables,
    FlagTables,
    OverviewTables,
    CodeOwnersTables,
    UpkeepTables,
    SearchTables,
):
    def __init__(self, path: str | Path):
        """Open (creating if needed) the database at `path` and bring its schema up to date.

        `":memory:"` gives a throwaway database, for tests. Calls made directly run on the
        calling thread; `store.aio` runs them on the store's own threads (see `OffLoop`).
        """
        self.path = str(path)
        self._local = threading.local()  # this thread's read connection, and its state
        self._lock = threading.RLock()  # the writer connection serves one call at a time
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()  # not `_lock`: a first read never waits a write
        self._memory = self.path == ":memory:"
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False: the writer thread and the caller's share it, in turn.
            self._db = Database(self._connect())
            if self.path != ":memory:":
                # WAL: readers never block the writer, and a write killed mid-way is rolled back.
                self._db.enable_wal()
            migrations.apply(self._db)
        except sqlite3.Error as exc:
            raise _open_error(exc) from exc
        except OSError as exc:  # its text names the path: only the reason is shown
            raise ConfigurationError(
                f"Cannot open the database PRDIGEST_DB names: {exc.strerror or type(exc).__name__}"
            ) from exc
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="prdigest-store-write")
        self._queued = 0  # writes handed to the writer thread and not done yet
        self._queued_lock = threading.Lock()
        self.aio = OffLoop(self)

    @property
    def db(self) -> Database:
        """The connection of the call in progress on this thread: its own read connection
        for a read, else the writer connection."""
        return getattr(self._local, "db", None) or self._db

    @contextlib.contextmanager
    def connection(self, *, read: bool) -> Iterator[None]:
        """Serve one call on this thread. A read uses this thread's own connection (WAL: it
        never waits for a writer, not even this process's writer thread); a write, and a read
        made inside one, the writer connection, one thread at a time."""
        local = self._local
        if self._memory or not read or getattr(local, "writing", 0):
            with self._lock:
                local.writing = getattr(local, "writing", 0) + 1
                try:
                    yield
                except BaseException:
                    if local.writing == 1:
                        self._abandon_transaction()
                    raise
                finally:
                    local.writing -= 1
            return
        if getattr(local, "db", None) is not None:  # a read inside a read
            yield
            return
        local.db = self._reader_db()
        try:
            yield
        finally:
            local.db = None

    def _abandon_transaction(self) -> None:
        """Roll back what a failed write left open. SQLite may or may not have rolled back
        by itself after SQLITE_FULL or an I/O error; a transaction left open would swallow
        every later write of this connection and hold the write lock forever."""
        conn = self._db.conn
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()

    def atomically(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn`, a function of several writes, as one transaction: all of it or none."""
        return _atomically(self, fn, *args, **kwargs)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, timeout=BUSY_TIMEOUT)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _reader_db(self) -> Database:
        """This thread's read connection, opened on its first read."""
        db = getattr(self._local, "read_db", None)
        if db is None:
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")  # reads only, whatever the caller does
            db = self._local.read_db = Database(conn)
            with self._readers_lock:
                self._readers.append(conn)
        return db

    def try_write(
        self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> tuple[bool, T | None]:
        """Run one write method here if that needs no wait: (True, its result); (False, None)
        when the writer connection is busy, writes are queued before it, or SQLite's write
        lock is held elsewhere (nothing was written then: each write method is one statement
        or one BEGIN IMMEDIATE transaction)."""
        if self._queued or not self._lock.acquire(blocking=False):
            return False, None
        try:
            self._db.execute("PRAGMA busy_timeout = 0")
            try:
                return True, method(*args, **kwargs)
            except (StorageError, sqlite3.OperationalError) as exc:
                if not is_locked(exc):
                    raise
                return False, None
            finally:
                self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        finally:
            self._lock.release()

    async def on_writer(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the writer thread, in order with the other writes handed to it."""

        def call() -> T:
            try:
                with self.connection(read=False):
                    return fn(*args, **kwargs)
            finally:
                with self._queued_lock:
                    self._queued -= 1

        with self._queued_lock:
            self._queued += 1
        return await asyncio.get_running_loop().run_in_executor(self._writer, call)

    def close(self) -> None:
        self._writer.shutdown(wait=True)
        for conn in self._readers:
            conn.close()
        self._db.conn.close()


def _open_error(exc: sqlite3.Error) -> StorageError | ConfigurationError:
    """Why the database could not be opened, in one line without its path."""
    error = storage_error(exc)
    if error is not None:
        return error
    return ConfigurationError(f"Cannot open the database PRDIGEST_DB names: {exc}")


def _in_transaction(store: Store, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    with store.transaction():
        return fn(*args, **kwargs)


_atomically = clear_storage_errors(_in_transaction, read=False)


if TYPE_CHECKING:
    # To a type checker `store.aio` has every method of the store, each awaitable with the
    # method's own parameters and result (`StoreMethod.__get__`); at run time it finds them
    # on the store (`__getattr__`).
    _StoreMethods = Store
else:
    _StoreMethods = object


class OffLoop(Awaited, _StoreMethods):
    """The store from async code, awaited: the event loop never waits on SQLite's lock.

    A read (`await store.aio.get_pr(repo, n)`, or `read(fn, ...)` for a function made of
    reads) runs on the calling thread's own connection: in WAL mode a reader never waits for
    a writer. A write method is tried once with no busy wait at all, and when another writer
    holds the lock (another process, or this store's writer thread) it is handed to the
    writer thread, which waits the long busy timeout while the loop goes on acknowledging
    commands. `write(fn, ...)`, for a function of several writes, always runs on the writer
    thread (trying it here could leave half of it done). Which a method is, its declaration
    says (`@reads`, `@writes`).
    """

    def __init__(self, store: Store):
        self._store = store

    async def read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self._store.connection(read=True):
            return fn(*args, **kwargs)

    async def write(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn`'s writes as one transaction on the writer thread: a failure half-way (a full
        disk, say) keeps none of them."""
        return await self._store.on_writer(
            functools.partial(self._store.atomically, fn, *args, **kwargs)
        )

    def awaited(self, method: StoreMethod[Any, P, T]) -> Callable[P, Awaitable[T]]:
        bound: Callable[P, T] = functools.partial(method, self._store)
        run = self.read if method.reads else self._write_one

        async def call(*args: P.args, **kwargs: P.kwargs) -> T:
            return await run(bound, *args, **kwargs)

        call.__name__, call.__doc__ = method.__name__, method.__doc__
        call.__wrapped__ = bound  # type: ignore[attr-defined]  # its parameters, for inspect
        return call

    if not TYPE_CHECKING:  # hidden from type checkers: a misspelt name is their error

        def __getattr__(self, name: str) -> Callable[..., Awaitable[object]]:
            method = getattr(type(self._store), name, None)
            if not isinstance(method, StoreMethod):
                raise AttributeError(f"{name!r} is not a store method marked @reads or @writes")
            return self.awaited(method)

    async def _write_one(self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        done, result = self._store.try_write(method, *args, **kwargs)
        if done:
            return result  # type: ignore[return-value]
        return await self._store.on_writer(method, *args, **kwargs)
