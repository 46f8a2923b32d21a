"""Every user's database upgrades itself when opened; none ever needs deleting."""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database

from bot.store.migrations import migrations
from bot.store.store import Store


def test_a_blank_database_gets_every_table(tmp_path):
    store = Store(tmp_path / "new.db")
    tables = set(store.db.table_names())
    assert {
        "pull_requests",
        "pr_files",
        "digests",
        "summaries",
        "llm_calls",
        "posts",
        "flags",
    } <= tables
    assert store.db.journal_mode == "wal"


def test_a_database_from_the_first_release_is_upgraded_and_keeps_its_data(tmp_path):
    path = tmp_path / "old.db"
    db = Database(sqlite3.connect(path))
    migrations.apply(db, stop_before="m002_posts_and_flags")
    db["summaries"].insert({"repo": "o/r", "number": 1, "revision_sha": "s", "prompt_version": "1",
                            "model": "m", "revision": 1, "change_type": "TRIVIAL", "what_changed": "w",
                            "technical_impact": "t", "potential_risks": "p", "key_insights": "k",
                            "files_covered": 1, "files_total": 1})  # fmt: skip
    db.conn.close()

    store = Store(path)
    assert "posts" in store.db.table_names()
    assert store.get_summary("o/r", 1, "s", "1", "m").sections.what_changed == "w"


def test_opening_twice_applies_nothing_twice(tmp_path):
    Store(tmp_path / "x.db").close()
    store = Store(tmp_path / "x.db")
    names = [row["name"] for row in store.db["_sqlite_migrations"].rows]
    assert len(names) == len(set(names))
