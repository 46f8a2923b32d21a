"""The store: one facade over a sqlite-utils Database; the `bot.store` modules are the only
place that writes SQL.

Rows go in and out as the dataclasses of `bot.core.models`; nothing else sees a row dict.
Each table family is its own module (`prs`, `summaries`, `llm_calls`, `posts`, `flags`);
`Store` joins them over one connection, and `subscriptions` and `lease` open their own views.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from bot.core.errors import ConfigurationError
from bot.store.base import StorageError, Tables, clear_storage_errors
from bot.store.flags import FlagTables
from bot.store.llm_calls import LLMCallTables
from bot.store.migrations import migrations
from bot.store.posts import PostTables
from bot.store.prs import PRTables
from bot.store.summaries import SummaryTables

__all__ = ["StorageError", "Store"]

BUSY_TIMEOUT = 15.0  # seconds a write waits for another writer's lock


class Store(PRTables, SummaryTables, LLMCallTables, PostTables, FlagTables):
    def __init__(self, path: str | Path):
        """Open (creating if needed) the database at `path` and bring its schema up to date.

        `":memory:"` gives a throwaway database, for tests.
        """
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False: the store is shared by the event loop and its worker
            # threads; sqlite serializes the writes and the busy timeout absorbs contention.
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=BUSY_TIMEOUT)
            self.db = Database(conn)
            if self.path != ":memory:":
                # WAL: readers never block the writer, and a write killed mid-way is rolled back.
                self.db.enable_wal()
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA synchronous=NORMAL")
            migrations.apply(self.db)
        except (sqlite3.Error, OSError) as exc:
            raise ConfigurationError(f"Cannot open the database at {self.path}: {exc}") from exc

    def close(self) -> None:
        self.db.conn.close()


# Every public method: a full disk or a read-only file surfaces as one clear StorageError
# (the CLI prints it and exits 2, the bots answer it) rather than a raw sqlite3 traceback.
for _family in Store.__mro__[1:]:
    if issubclass(_family, Tables) and _family is not Tables:
        for _name, _method in list(vars(_family).items()):
            if callable(_method) and not _name.startswith("_"):
                setattr(_family, _name, clear_storage_errors(_method))
del _family
