"""Each store method says where it is written whether it reads or writes (`@reads`,
`@writes`), which decides its connection and, awaited through `store.aio`, its thread; the
awaited form keeps the method's parameters and result type."""

from __future__ import annotations

import asyncio
import inspect
import threading
from pathlib import Path

import pytest

from bot.core.models import PullRequest
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore
from bot.store.threads import store_methods
from tests.conftest import REPO

FAMILIES = [*Store.__mro__[1:-2], SubscriptionStore]  # the table families, not Tables, object


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__)
def test_every_public_method_of_a_table_family_is_marked_a_read_or_a_write(family):
    public = {
        name
        for name, value in vars(family).items()
        if callable(value) and not name.startswith("_") and name not in {"connection"}
    }
    assert public and public <= set(store_methods(family))


def test_the_awaited_form_has_the_methods_parameters_and_a_typed_result(tmp_path: Path):
    store = Store(tmp_path / "x.db")
    try:
        for name, method in store_methods(Store).items():
            sync, awaited = getattr(store, name), getattr(store.aio, name)
            assert inspect.signature(awaited) == inspect.signature(sync), name
            returns = inspect.signature(method.__wrapped__).return_annotation
            assert returns not in (inspect.Signature.empty, "Any"), name
    finally:
        store.close()


def test_a_name_that_is_no_store_method_is_an_error_not_a_call(tmp_path: Path):
    store = Store(tmp_path / "x.db")
    try:
        with pytest.raises(AttributeError, match="not a store method"):
            store.aio.transaction  # noqa: B018 - a helper, not a marked method
    finally:
        store.close()


async def test_an_awaited_read_never_waits_for_a_write_in_progress(tmp_path: Path):
    store = Store(tmp_path / "x.db")
    held, release = threading.Event(), threading.Event()

    def slow_write() -> None:  # one transaction (`aio.write`), on the writer thread
        store.save_pr(PullRequest(REPO, 1, "t", f"https://github.com/{REPO}/pull/1", "a", "open"))
        held.set()
        release.wait(10)

    writing = asyncio.ensure_future(store.aio.write(slow_write))
    try:
        assert await asyncio.to_thread(held.wait, 10)
        assert await store.aio.get_pr(REPO, 1) is None  # not committed yet, and no wait
    finally:
        release.set()
        await writing
        store.close()
