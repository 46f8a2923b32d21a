"""One line of `prdigest doctor`: what was checked, whether it passed, and the fix.

Every text a check carries passes `cleaned` on its way out: server messages, channel and
model names are untrusted (control characters and escape sequences go), and any secret of
the settings a server quoted back is masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

from bot.core.logs import mask
from bot.core.untrusted import clean_line

T = TypeVar("T")

PASS, FAIL, SKIP = "✓", "✗", "·"


@dataclass(frozen=True)
class Check:
    name: str  # "GitHub", "Slack channel C0123"
    ok: bool
    detail: str  # what was found: "signed in as octocat"
    fix: str = ""  # what to do, for a failure
    skipped: bool = False  # not configured: said, never a failure

    @property
    def mark(self) -> str:
        return SKIP if self.skipped else PASS if self.ok else FAIL

    def line(self) -> str:
        """`✗ GitHub: GitHub refused GITHUB_TOKEN (401) — fix: create a new token ...`"""
        text = f"{self.mark} {self.name}: {self.detail}"
        return f"{text} — fix: {self.fix}" if self.fix and not self.ok else text

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def cleaned(self, secrets: list[str]) -> Check:
        def scrub(text: str) -> str:
            return mask(clean_line(text), *secrets)

        return replace(self, name=scrub(self.name), detail=scrub(self.detail), fix=scrub(self.fix))


def passed(name: str, detail: str) -> Check:
    return Check(name, True, detail)


def failed(name: str, detail: str, fix: str) -> Check:
    return Check(name, False, detail, fix)


def skipped(name: str, detail: str) -> Check:
    return Check(name, True, detail, skipped=True)


async def within(
    seconds: float, name: str, check: Awaitable[T], *, where: str = "the server"
) -> T | Check:
    """`check`, or a failure naming the wait when it has no answer in `seconds`: a host that
    takes the connection and never answers must not hang the doctor."""
    try:
        return await asyncio.wait_for(check, seconds)
    except TimeoutError:
        return failed(
            name,
            f"no answer in {seconds:g} s",
            f"check that {where} is up and answering, then run prdigest doctor again",
        )


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on a daemon thread of its own. Not the loop's executor: a blocking call
    that never returns (a server that stops mid-answer) would keep the process from exiting,
    as the executor's threads are joined at exit; a daemon thread is left behind instead."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def run() -> None:
        try:
            outcome = functools.partial(future.set_result, fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            outcome = functools.partial(future.set_exception, exc)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody listens
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=run, name="prdigest-doctor", daemon=True).start()
    return await future
