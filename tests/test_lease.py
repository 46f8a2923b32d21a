"""The SQLite lease: of the processes on one database, exactly one holds it at a time."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store.lease import Lease
from bot.store.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shared.db"
    Store(path).close()  # migrated once, as `prdigest run` does before taking the lease
    return path


def lease(path: Path, holder: str, clock: Clock, ttl: float = 60) -> Lease:
    return Lease(Store(path), holder=holder, ttl=ttl, clock=clock)


def test_the_first_process_holds_it_and_the_second_waits(db, clock):
    a, b = lease(db, "a", clock), lease(db, "b", clock)
    assert a.acquire() and a.held()
    assert not b.acquire() and not b.held()
    assert b.current_holder() == "a"
    clock.advance(30)
    assert a.acquire()  # renewing: another 60 s from now
    clock.advance(45)
    assert not b.acquire()


def test_a_dead_holders_lease_expires_and_is_taken_over(db, clock):
    a, b = lease(db, "a", clock), lease(db, "b", clock)
    assert a.acquire()
    clock.advance(61)  # "a" stopped renewing: it crashed
    assert a.current_holder() is None
    assert b.acquire() and b.held() and b.taken_from == "a"
    assert not a.acquire()  # "a" coming back does not steal it


def test_release_lets_the_other_take_it_at_once(db, clock):
    a, b = lease(db, "a", clock), lease(db, "b", clock)
    assert a.acquire()
    a.release()
    assert b.acquire()
    a.release()  # releasing a lease one does not hold changes nothing
    assert b.held()


def test_an_in_memory_store_works_for_single_process_tests(clock):
    store = Store(":memory:")
    a, b = Lease(store, holder="a", clock=clock), Lease(store, holder="b", clock=clock)
    assert a.acquire() and not b.acquire()
    a.release()
    assert b.acquire()


def test_separate_names_are_separate_leases(db, clock):
    assert Lease(Store(db), "scheduler", holder="a", clock=clock).acquire()
    assert Lease(Store(db), "other", holder="b", clock=clock).acquire()


def _contend(path: str, holder: str, start, results) -> None:
    lease = Lease(Store(path), holder=holder)
    start.wait()  # every process tries at the same moment
    results.put((holder, lease.acquire()))


def test_processes_racing_for_it_at_once_get_exactly_one_holder(db):
    ctx = multiprocessing.get_context("fork")
    start, results = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_contend, args=(str(db), f"p{n}", start, results)) for n in range(6)
    ]
    for p in procs:
        p.start()
    start.set()
    outcomes = dict(results.get(timeout=20) for _ in procs)
    for p in procs:
        p.join(timeout=20)
    assert sum(outcomes.values()) == 1
    (winner,) = [holder for holder, won in outcomes.items() if won]
    assert Lease(Store(db), holder="observer").current_holder() == winner
