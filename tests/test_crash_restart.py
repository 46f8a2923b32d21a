"""SIGKILL while posting, a full disk, a read-only database: nothing lost, doubled or corrupt.

The crash tests run the real posting code (DigestPoster over the Slack transport, or the
store's writes) in a child process over a real SQLite file, kill it with SIGKILL at seeded
random moments, restart it, and check what the fake Slack received and what the file holds.
This module is also the child: `python tests/test_crash_restart.py post|write DB ...`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPO = "vllm-project/vllm"
DAY = date(2026, 2, 23)
TZ = "America/Los_Angeles"
CHANNEL = "C0CRASH"
PRS = 52
SEED = 20260223


# -- the child process -----------------------------------------------------------------------


def child_post(db: str, api_url: str, token: str) -> None:
    """Post the stored day's digest to Slack, as `/digest` or the scheduler would."""
    from adapters.slack.transport import SlackTransport, make_client
    from bot.chat.posting import DigestPoster
    from bot.core.day_window import day_window
    from bot.core.models import Digest, DigestEntry
    from bot.store.store import Store

    store = Store(db)
    window = day_window(DAY, TZ)
    numbers = store.get_day(REPO, window)
    assert numbers is not None
    entries = [DigestEntry(store.get_pr(REPO, n), store.latest_summary(REPO, n)) for n in numbers]
    digest = Digest(REPO, "vllm", window, tuple(entries))
    transport = SlackTransport(make_client(token, api_url), pace=0)
    print("ready", flush=True)
    outcome = asyncio.run(DigestPoster(store, transport).post(CHANNEL, digest))
    print(f"done {outcome.status} {outcome.replies_sent}", flush=True)


def child_write(db: str, start: int) -> None:
    """Save PRs of 2,000 files each, one transaction per PR, until killed."""
    from bot.core.models import ChangedFile, PullRequest
    from bot.store.store import Store

    store = Store(db)
    print("ready", flush=True)
    for number in range(start, start + 10_000):
        files = tuple(
            ChangedFile(f"src/pkg_{number}/file_{i}.py", "modified", 1, 1, "@@ -1 +1 @@\n-a\n+b")
            for i in range(2000)
        )
        store.save_pr(
            PullRequest(REPO, number, f"PR {number}", f"https://github.com/{REPO}/pull/{number}",
                        "a", "merged", files=files)
        )  # fmt: skip
        print(f"saved {number}", flush=True)


# -- the parent: a real database, a fake Slack, kill -9 ----------------------------------------


def prepare_day(db: Path) -> list[int]:
    """The day's PRs and summaries, as the digest service would have stored them."""
    from bot.core.day_window import day_window
    from bot.core.models import ChangeType, PRSummary, SummarySections
    from bot.store.store import Store
    from tests.conftest import pacific

    store = Store(db)
    prs = []
    for n in range(1, PRS + 1):
        from bot.core.models import PullRequest

        pr = PullRequest(
            REPO, n, f"[Core] Change {n}", f"https://github.com/{REPO}/pull/{n}", f"dev{n % 5}",
            "merged", merged_by="maintainer",
            merged_at=pacific(f"2026-02-23 {(n * 17) // 60 % 24:02d}:{(n * 17) % 60:02d}:00"),
            merge_commit_sha=f"sha{n}",
        )  # fmt: skip
        store.save_pr(pr)
        store.save_summary(
            PRSummary(
                repo=REPO, number=n, revision_sha=pr.revision_sha, prompt_version="1",
                model="m", change_type=ChangeType.SUBSTANTIAL,
                sections=SummarySections(f"What {n}.", "Impact.", "Risks.", "Insights."),
                files_covered=0, files_total=0,
            )
        )  # fmt: skip
        prs.append(pr)
    order = [p.number for p in sorted(prs, key=lambda p: p.merged_at, reverse=True)]
    store.save_day(REPO, day_window(DAY, TZ), order, complete=True)
    store.close()
    return order


def spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, __file__, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def wait_ready(proc: subprocess.Popen[str]) -> None:
    line = proc.stdout.readline() if proc.stdout else ""
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(
            f"child did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
        )


def integrity(db: Path) -> tuple[str, str]:
    conn = sqlite3.connect(db)
    try:
        return (
            conn.execute("PRAGMA integrity_check").fetchone()[0],
            conn.execute("PRAGMA journal_mode").fetchone()[0],
        )
    finally:
        conn.close()


def test_sigkill_ten_times_while_posting_a_digest_leaves_a_complete_thread(tmp_path):
    from tests.fakes.figures import figures
    from tests.fakes.slack import FakeSlack

    db = tmp_path / "crash.db"
    order = prepare_day(db)
    rng = random.Random(SEED)
    kills: list[int] = []  # replies Slack held when each kill landed
    # Each post takes at least 30 ms, so a kill 50-450 ms into a run lands mid-thread.
    with FakeSlack(latency=0.03) as slack:

        def replies() -> list[int]:
            return [
                m.metadata["event_payload"]["pr"]
                for m in slack.posted(CHANNEL)
                if m.thread_ts and m.metadata
            ]

        started = time.monotonic()
        for _ in range(10):
            proc = spawn("post", str(db), slack.api_url, slack.bot_token)
            wait_ready(proc)
            time.sleep(rng.uniform(0.05, 0.45))
            os.kill(proc.pid, signal.SIGKILL)  # (a child that already finished is a zombie)
            proc.wait(10)
            if proc.returncode == -signal.SIGKILL:
                kills.append(len(replies()))
        final = spawn("post", str(db), slack.api_url, slack.bot_token)
        wait_ready(final)
        out, err = final.communicate(timeout=60)
        elapsed = time.monotonic() - started
        assert final.returncode == 0, err
        assert out.startswith("done ")

        posted = replies()
        parents = [m for m in slack.posted(CHANNEL) if not m.thread_ts]
        lookups = len(slack.api_calls("conversations.replies")) + len(
            slack.api_calls("conversations.history")
        )
        assert len(parents) == 1
        assert all(m.thread_ts == parents[0].ts for m in slack.posted(CHANNEL)[1:])
    assert posted == order  # each reply exactly once, newest merge first
    mid_thread = [k for k in kills if k < PRS]
    assert len(mid_thread) >= 7, kills  # most kills landed while the thread was being posted
    check, mode = integrity(db)
    assert check == "ok" and mode == "wal"
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT count(*), count(message_id) FROM posts").fetchone()
    conn.close()
    assert rows == (PRS + 2, PRS + 2)  # the parent, each reply, and the parent's edit
    figures(
        "SIGKILL x10 while posting a 52-reply digest (Slack)",
        seed=SEED,
        kills=len(kills),
        kills_mid_thread=len(mid_thread),
        replies_at_each_kill=kills,
        replies=len(posted),
        duplicates=len(posted) - len(set(posted)),
        missing=len(set(order) - set(posted)),
        parents=len(parents),
        unrecorded_slots_looked_up=lookups,
        integrity_check=check,
        journal_mode=mode,
        seconds=round(elapsed, 2),
    )


def test_a_write_killed_mid_transaction_is_rolled_back(tmp_path):
    from bot.store.store import Store
    from tests.fakes.figures import figures

    db = tmp_path / "writes.db"
    Store(db).close()
    rng = random.Random(SEED + 1)
    start, saved_lines = 1, 0
    for _ in range(4):
        proc = spawn("write", str(db), str(start))
        wait_ready(proc)
        time.sleep(rng.uniform(0.15, 0.6))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=10)
        saved_lines += out.count("saved ")
        start += 1000
    check, mode = integrity(db)
    assert check == "ok" and mode == "wal"
    conn = sqlite3.connect(db)
    per_pr = conn.execute(
        "SELECT p.number, count(f.position) FROM pull_requests p "
        "LEFT JOIN pr_files f ON f.repo = p.repo AND f.number = p.number GROUP BY p.number"
    ).fetchall()
    orphans = conn.execute(
        "SELECT count(*) FROM pr_files f WHERE NOT EXISTS (SELECT 1 FROM pull_requests p "
        "WHERE p.repo = f.repo AND p.number = f.number)"
    ).fetchone()[0]
    conn.close()
    assert per_pr, "some PRs were saved before the kills"
    assert all(count == 2000 for _, count in per_pr)  # never a PR with part of its files
    assert orphans == 0
    assert len(per_pr) >= saved_lines  # every save the child reported is there
    figures(
        "SIGKILL mid-transaction x4",
        prs_committed=len(per_pr),
        partial_prs=sum(count != 2000 for _, count in per_pr),
        orphan_rows=orphans,
        integrity_check=check,
    )


# -- a full disk, a read-only file -------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "room"),
    [
        pytest.param({1: 40, 2: 40, 3: 40}, 2, id="full at the first write"),
        # The newest PR fits; the disk fills while an older one is stored after its fetch.
        pytest.param({1: 3000, 2: 3000, 3: 1}, 12, id="full while storing a later PR"),
    ],
)
def test_a_full_disk_is_one_clear_line_not_a_traceback(env, github, llm, files, room):
    from click.testing import CliRunner

    from bot.app.cli import cli
    from bot.store.store import Store
    from tests.conftest import make_pr

    github.add_prs(REPO, [make_pr(n, f"2026-02-23 1{n}:00:00", files=files[n]) for n in (1, 2, 3)])
    db = env.db_path
    Store(db).close()  # created, schema in place
    page_limit = sqlite3.connect(db).execute("PRAGMA page_count").fetchone()[0] + room

    def full(*args, **kwargs):  # every connection the CLI opens can grow by `room` pages only
        conn = real_connect(*args, **kwargs)
        conn.execute(f"PRAGMA max_page_count = {page_limit}")
        return conn

    real_connect = sqlite3.connect
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sqlite3, "connect", full)
        result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
        again = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    for outcome in (result, again):
        assert outcome.exit_code == 2, outcome.output
        lines = [line for line in outcome.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in outcome.output, outcome.stderr
        assert "disk is full" in lines[0] and "nothing was lost" in lines[0]
        assert str(db.parent) not in lines[0] and "PRDIGEST_DB" in lines[0]  # the setting only
    assert integrity(db)[0] == "ok"
    # With room again, the same command works: nothing was left half-written.
    retry = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert retry.exit_code == 0, retry.output


def _immutable(path: Path, on: bool) -> bool:
    """Make `path` unwritable even for root (chattr +i), or undo it; False if impossible."""
    try:
        done = subprocess.run(
            ["chattr", "+i" if on else "-i", str(path)], capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@pytest.fixture
def read_only_db(env):
    from bot.store.store import Store

    db = env.db_path
    Store(db).close()
    paths = [db, db.parent]
    if os.geteuid() != 0:
        os.chmod(db, 0o444)
        os.chmod(db.parent, 0o555)
        yield db
        os.chmod(db.parent, 0o755)
        os.chmod(db, 0o644)
        return
    if not all(_immutable(p, True) for p in paths):
        for p in paths:
            _immutable(p, False)
        pytest.skip("cannot make a file read-only for root here (no chattr +i)")
    try:
        yield db
    finally:
        for p in paths:
            _immutable(p, False)


def test_a_read_only_database_is_one_clear_line_for_the_cli_and_the_bot(read_only_db, monkeypatch):
    from click.testing import CliRunner

    from bot.app.cli import cli

    report = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-ro-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-ro-test")
    run = CliRunner().invoke(cli, ["run"])  # a bot must stop with the reason, not loop
    for outcome in (report, run):
        assert outcome.exit_code == 2, outcome.output
        lines = [line for line in outcome.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in outcome.output, outcome.output
        assert "PRDIGEST_DB" in lines[0] and str(read_only_db.parent) not in lines[0]


def test_a_database_that_turns_read_only_mid_run_is_a_clear_error(env, github, llm):
    """The file was writable when opened, then is not (remounted read-only, say)."""
    from click.testing import CliRunner

    from bot.app.cli import cli
    from tests.conftest import make_pr

    github.add_prs(REPO, [make_pr(n, f"2026-02-23 1{n}:00:00") for n in range(1, 3)])
    from bot.store import store as store_module

    original_init = store_module.Store.__init__

    def init(self, path):
        original_init(self, path)
        self.db.execute("PRAGMA query_only = ON")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_module.Store, "__init__", init)
        result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "read-only" in lines[0], result.output


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1] == "post":
        child_post(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        child_write(sys.argv[2], int(sys.argv[3]))


async def test_the_slack_bot_answers_a_full_disk_in_one_line_and_keeps_serving(env, github, llm):
    from tests.conftest import make_pr
    from tests.fakes.slack import BotUnderTest, FakeSlack

    github.add_prs(REPO, [make_pr(n, f"2026-02-23 1{n}:00:00") for n in range(1, 4)])
    with FakeSlack() as slack:
        # Both attempts start LLM work for a day never listed: no per-minute limit here.
        bot = BotUnderTest(
            dataclasses.replace(env, user_llm_per_minute=0, channel_llm_per_minute=0), slack
        )
        try:
            pages = bot.store.db.execute("PRAGMA page_count").fetchone()[0]
            bot.store.db.execute(f"PRAGMA max_page_count = {pages}")  # not one page more
            full = await bot.command("/digest", "2026-02-23")
            (answer,) = slack.responses_for(full.response_url)
            bot.store.db.execute("PRAGMA max_page_count = 1073741823")  # room again
            again = await bot.command("/digest", "2026-02-23")
            (done,) = slack.responses_for(again.response_url)
        finally:
            await bot.aclose()
        assert answer["response_type"] == "ephemeral"
        assert "disk is full" in answer["text"] and "\n" not in answer["text"]
        assert "Something went wrong" not in answer["text"]
        assert done["text"].startswith("Posted the digest")
        assert len(slack.posted("C0DIGEST")) == 4  # nothing half-posted by the failed run
    assert integrity(env.db_path)[0] == "ok"
