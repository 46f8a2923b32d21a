"""A read-only, full or locked database: every command answers one line that says what failed
and that nothing was lost, with no server path and no traceback; the scheduler's heartbeat logs
one line and takes the lease again once the fault is gone; nothing is left half-written.

Each fault is SQLite's own, so it holds when the tests run as root (where chmod 0444 stops
nothing): `PRAGMA query_only` for a read-only file, `PRAGMA max_page_count` for a full disk,
and another connection's open write transaction, with a short busy timeout, for a lock held
past the timeout. The fault is set on every connection the code under test opens.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.compose import build_service
from bot.core.errors import StorageError
from bot.core.models import ChangedFile, ChangeType, PRSummary, PullRequest, SummarySections
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import StaticSubscriptions
from bot.store import lease as lease_module
from bot.store import store as store_module
from bot.store.lease import Lease
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, running_bot
from tests.fakes.slack import BotUnderTest, FakeSlack

DAY = "2026-02-23"
KINDS = [StorageError.READ_ONLY, StorageError.FULL, StorageError.LOCKED]
# What the one line says failed, for each fault.
SAYS = {
    StorageError.READ_ONLY: "read-only",
    StorageError.FULL: "disk is full",
    StorageError.LOCKED: "locked",
}
# Files per PR of the day: enough that storing one PR needs new pages, which a full disk
# refuses (SQLite fails a write only when the file must grow).
FILES = 120


class DatabaseFault:
    """One fault on every SQLite connection opened while it is set up (those opened during the
    fault get it at once); `stop()` takes it away again, on every one of them."""

    def __init__(self, db: Path, monkeypatch: pytest.MonkeyPatch):
        self.db = db
        self.kind: str | None = None
        self._monkeypatch = monkeypatch
        self._conns: list[sqlite3.Connection] = []
        self._before: dict[int, Any] = {}  # connection id -> its setting before the fault
        self._holder: sqlite3.Connection | None = None
        self._connect = sqlite3.connect

        def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn = self._connect(*args, **kwargs)
            self._conns.append(conn)
            if self.kind is not None:
                self._apply(conn)
            return conn

        monkeypatch.setattr(sqlite3, "connect", connect)

    def start(self, kind: str) -> None:
        self.kind = kind
        if kind == StorageError.LOCKED:
            # Another process's write transaction, open for as long as the fault lasts.
            self._holder = self._connect(str(self.db), isolation_level=None)
            self._holder.execute("BEGIN IMMEDIATE")
            self._monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.05)
            self._monkeypatch.setattr(lease_module, "BUSY_TIMEOUT", 0.05)
        for conn in self._open():
            self._apply(conn)

    def stop(self) -> None:
        for conn in self._open():
            self._undo(conn)
        if self._holder is not None:
            self._holder.execute("ROLLBACK")
            self._holder.close()
            self._holder = None
            self._monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 60.0)
            self._monkeypatch.setattr(lease_module, "BUSY_TIMEOUT", 2.0)
        self.kind = None

    def _open(self) -> Iterator[sqlite3.Connection]:
        for conn in self._conns:
            try:
                conn.execute("SELECT 1")
            except sqlite3.ProgrammingError:  # closed
                continue
            yield conn

    def _apply(self, conn: sqlite3.Connection) -> None:
        setting, value = self._setting(conn)
        self._before[id(conn)] = conn.execute(f"PRAGMA {setting}").fetchone()[0]
        conn.execute(f"PRAGMA {setting} = {value}")

    def _undo(self, conn: sqlite3.Connection) -> None:
        if id(conn) in self._before:
            setting, _ = self._setting(conn)
            conn.execute(f"PRAGMA {setting} = {self._before.pop(id(conn))}")

    def _setting(self, conn: sqlite3.Connection) -> tuple[str, object]:
        if self.kind == StorageError.READ_ONLY:
            return "query_only", "ON"
        if self.kind == StorageError.FULL:  # not one page more than the file has now
            return "max_page_count", conn.execute("PRAGMA page_count").fetchone()[0]
        return "busy_timeout", 50


@pytest.fixture
def fault(env, monkeypatch) -> Iterator[DatabaseFault]:
    Store(env.db_path).close()  # the database exists, its schema in place
    broken = DatabaseFault(env.db_path, monkeypatch)
    yield broken
    if broken.kind is not None:
        broken.stop()


def assert_one_calm_line(text: str, kind: str, db: Path) -> None:
    """One line that says what failed and that nothing was lost, with no server detail."""
    assert "\n" not in text.strip(), text
    assert SAYS[kind] in text and "nothing was lost" in text, text
    assert str(db.parent) not in text and "Traceback" not in text, text
    assert "Something went wrong" not in text, text


def assert_no_traceback_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], caplog.text
    assert "Traceback" not in caplog.text


def rows(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def assert_nothing_half_written(db: Path, files_per_pr: int = FILES) -> None:
    """Every stored PR has all its files, every summary the LLM call that made it, and the
    file is sound."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        partial = conn.execute(
            "SELECT p.number FROM pull_requests AS p WHERE (SELECT count(*) FROM pr_files AS f"
            " WHERE f.repo = p.repo AND f.number = p.number) != ?",
            [files_per_pr],
        ).fetchall()
        assert partial == []
        unlogged = conn.execute(
            "SELECT s.number FROM summaries AS s WHERE NOT EXISTS (SELECT 1 FROM llm_calls AS c"
            " WHERE c.repo = s.repo AND c.number = s.number)"
        ).fetchall()
        assert unlogged == []


# -- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def day_on_github(github) -> None:
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00", files=FILES) for n in (1, 2, 3)])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["report", "--date", DAY], id="report"),
        pytest.param(["summary", "2"], id="summary"),
        pytest.param(["post", "--date", DAY, "--to", "slack:C0FAULT"], id="post"),
    ],
)
def test_the_cli_answers_one_line_naming_the_setting_not_its_path_and_exits_2(
    kind, command, env, day_on_github, fault, monkeypatch, caplog
):
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.bot_token)
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
        fault.start(kind)
        failed = CliRunner().invoke(cli, command)
        fault.stop()
        assert failed.exit_code == 2, failed.output
        lines = [line for line in failed.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, failed.stderr
        assert_one_calm_line(lines[0], kind, env.db_path)
        assert "PRDIGEST_DB" in lines[0] and "Traceback" not in failed.output
        assert_no_traceback_logged(caplog)
        assert_nothing_half_written(env.db_path)
        # The fault gone, the same command simply works: nothing was left in its way.
        again = CliRunner().invoke(cli, command)
        assert again.exit_code == 0, again.output
        if command[0] == "post":
            assert len(slack.posted("C0FAULT")) == 4  # the parent and 3 replies, once each


def test_a_database_that_cannot_be_opened_read_only_is_one_line_too(env, fault):
    fault.start(StorageError.READ_ONLY)
    Path(str(env.db_path) + "-wal").unlink(missing_ok=True)
    env.db_path.unlink()  # a new file must be created: a write
    result = CliRunner().invoke(cli, ["report", "--date", DAY])
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    assert_one_calm_line(line, StorageError.READ_ONLY, env.db_path)


# -- Slack and Discord -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_slack_answers_digest_and_prsummary_in_one_line_and_keeps_serving(
    kind, env, day_on_github, fault, caplog
):
    with FakeSlack() as slack:
        bot = BotUnderTest(
            dataclasses.replace(env, user_llm_per_minute=0, channel_llm_per_minute=0), slack
        )
        try:
            fault.start(kind)
            digest = await bot.command("/digest", DAY)
            prsummary = await bot.command("/prsummary", "2")
            fault.stop()
            answers = [slack.responses_for(d.response_url)[-1] for d in (digest, prsummary)]
            again = await bot.command("/digest", DAY)
            (done,) = slack.responses_for(again.response_url)
        finally:
            await bot.aclose()
        for answer in answers:
            assert answer["response_type"] == "ephemeral"
            assert_one_calm_line(answer["text"], kind, env.db_path)
            assert "PRDIGEST_DB" not in answer["text"]  # no server detail in chat
        assert_no_traceback_logged(caplog)
        assert done["text"].startswith("Posted the digest")
        assert len(slack.posted("C0DIGEST")) == 4  # nothing half-posted by the failed run
    assert_nothing_half_written(env.db_path)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_flag_or_its_removal_under_a_fault_is_one_log_line_and_works_after(
    kind, env, day_on_github, fault, caplog
):
    with FakeSlack() as slack:
        bot = BotUnderTest(env, slack)
        try:
            await bot.command("/digest", DAY)
            reply = slack.posted("C0DIGEST")[1]
            fault.start(kind)
            await bot.react("C0DIGEST", reply.ts, user="U0ALICE")
            await bot.react("C0DIGEST", reply.ts, user="U0ALICE", removed=True)
            fault.stop()
            await bot.react("C0DIGEST", reply.ts, user="U0BOB")
        finally:
            await bot.aclose()
        assert_no_traceback_logged(caplog)
        assert all(str(env.db_path) not in r.getMessage() for r in caplog.records)
        store = Store(env.db_path)
        try:
            flags = [row["user"] for row in store.db["flags"].rows]
        finally:
            store.close()
        # A full disk may still hold the small flag row (its re-check then fails in one line);
        # read-only and locked keep nothing of it. The flag after the fault is recorded.
        assert flags in (["U0BOB"], ["U0ALICE", "U0BOB"]) and flags[-1] == "U0BOB"


@pytest.fixture
def discord_settings(env, monkeypatch):
    def for_fake(fake: FakeDiscord):
        monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
        monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
        monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
        monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
        from bot.core.settings import Settings

        settings = Settings.from_env(dotenv=False)
        return dataclasses.replace(settings, user_llm_per_minute=0, channel_llm_per_minute=0)

    return for_fake


@pytest.mark.parametrize("kind", KINDS)
async def test_discord_answers_digest_and_prsummary_in_one_line_and_keeps_serving(
    kind, env, day_on_github, fault, discord_settings, caplog
):
    with FakeDiscord() as fake:
        async with running_bot(fake, discord_settings(fake)):
            fault.start(kind)
            answers = []
            for name, options in (("digest", {"day": DAY}), ("prsummary", {"pr": "2"})):
                interaction = fake.slash(name, options)
                await fake.wait_for(lambda i=interaction: i.finished, what=f"/{name}")
                answers.append(interaction)
            fault.stop()
            again = fake.slash("digest", {"day": DAY})
            await fake.wait_for(lambda: again.finished, what="/digest again")
        for interaction in answers:
            assert interaction.ephemeral
            (message,) = interaction.messages
            assert_one_calm_line(message["content"], kind, env.db_path)
            assert "PRDIGEST_DB" not in message["content"]
        assert_no_traceback_logged(caplog)
        assert again.messages[0]["content"].startswith("Posted the digest")
        (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
        assert len(fake.channel_messages(parent["id"])) == 3
    assert_nothing_half_written(env.db_path)


# -- the scheduler's heartbeat ---------------------------------------------------------------


def pack_leases(db: Path) -> None:
    """Fill the leases table's pages to the brim with small expired leases, so that under
    `max_page_count` a new lease row needs a page the full disk does not have (a write that
    fits a page already there would succeed: SQLite only fails when the file must grow)."""
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
        for n in range(100_000):
            try:
                conn.execute("INSERT INTO leases VALUES (?, '', 0, '')", [f"f{n}"])
                conn.commit()
            except sqlite3.OperationalError as exc:
                assert exc.sqlite_errorname == "SQLITE_FULL"
                return


async def heartbeat(scheduler: DigestScheduler) -> None:
    """One beat, as APScheduler fires it, and everything it started."""
    await scheduler._heartbeat()
    await scheduler.idle()


@pytest.mark.parametrize("kind", KINDS)
async def test_the_heartbeat_logs_one_line_and_takes_the_lease_once_the_fault_is_gone(
    kind, env, fault, caplog
):
    pack_leases(env.db_path)
    store = Store(env.db_path)
    service = build_service(env, store)
    lease = Lease(store, holder="this-process")
    scheduler = DigestScheduler(service, {}, StaticSubscriptions(()), env, lease=lease)
    try:
        fault.start(kind)
        with caplog.at_level(logging.INFO):
            await heartbeat(scheduler)
            await heartbeat(scheduler)  # the next beat tries again, without a new line
        lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(lines) == 1 and SAYS[kind] in lines[0], lines
        assert_no_traceback_logged(caplog)
        assert str(env.db_path.parent) not in caplog.text
        fault.stop()
        caplog.clear()
        with caplog.at_level(logging.INFO):
            await heartbeat(scheduler)
        assert lease.held()
        assert "lease taken" in caplog.text
    finally:
        await scheduler.stop()
        await service.aclose()
        lease.close()
        store.close()


# -- nothing half-written --------------------------------------------------------------------


def big_pr(number: int) -> PullRequest:
    files = tuple(
        ChangedFile(f"src/file_{i}.py", "modified", 1, 1, "@@ -1 +1 @@\n-" + "a" * 500)
        for i in range(500)
    )
    return PullRequest(REPO, number, f"PR {number}", f"https://github.com/{REPO}/pull/{number}",
                       "alice", "merged", files=files)  # fmt: skip


def test_a_pr_whose_files_fill_the_disk_is_not_stored_at_all(env, fault):
    store = Store(env.db_path)
    try:
        store.save_pr(big_pr(1))
        fault.start(StorageError.FULL)  # its row fits in the pages there are; its files do not
        with pytest.raises(StorageError) as raised:
            store.save_pr(big_pr(2))
        assert raised.value.kind == StorageError.FULL
        assert store.get_pr(REPO, 2) is None
        assert len(store.get_pr(REPO, 1).files) == 500  # what was stored before is whole
        fault.stop()
        store.save_pr(big_pr(2))  # and the next write goes through: no transaction left open
        assert len(store.get_pr(REPO, 2).files) == 500
    finally:
        store.close()


def summary_of(number: int, revision: int = 1) -> PRSummary:
    return PRSummary(
        repo=REPO, number=number, revision_sha="abc", prompt_version="v1", model="m",
        change_type=ChangeType.SUBSTANTIAL, files_covered=1, files_total=1,
        sections=SummarySections("what", "impact", "risks", "insights", headline="h"),
        revision=revision,
    )  # fmt: skip


async def test_a_function_of_several_writes_that_fails_half_way_keeps_none_of_them(env, fault):
    """A flag's revision saves the new version, then supersedes the old one: the database
    turning read-only between the two keeps neither."""
    store = Store(env.db_path)
    try:
        old = store.save_summary(summary_of(7))

        def revise() -> None:
            new = store.save_summary(summary_of(7, revision=2))
            fault.start(StorageError.READ_ONLY)  # mid-way, after the first write
            store.supersede(old.id, new.id)

        with pytest.raises(StorageError):
            await store.aio.write(revise)
        fault.stop()
        assert rows(env.db_path, "summaries") == 1
        assert store.latest_summary(REPO, 7) == old  # still current, never superseded
        await store.aio.write(store.save_summary, summary_of(8))  # the writer thread goes on
        assert rows(env.db_path, "summaries") == 2
    finally:
        store.close()


async def test_a_write_that_stays_locked_is_not_written_and_the_next_one_is(env, fault):
    store = Store(env.db_path)
    try:
        fault.start(StorageError.LOCKED)
        with pytest.raises(StorageError) as raised:
            await store.aio.save_pr(big_pr(3))
        assert raised.value.kind == StorageError.LOCKED
        fault.stop()
        assert store.get_pr(REPO, 3) is None
        await asyncio.wait_for(store.aio.save_pr(big_pr(3)), 30)
        assert len(store.get_pr(REPO, 3).files) == 500
    finally:
        store.close()
