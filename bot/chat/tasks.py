"""Task tracking for chat work done after the acknowledgement, and error reporting, once.

A listener answers the platform within its 3 seconds, then hands the slow part (GitHub, the
model, posting) to `Tasks.spawn`: the task is kept until done (never garbage-collected
half-way), `drain()` waits for all of them (tests, shutdown), and a failure is logged once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from bot.core.errors import PRDigestError, StorageError

log = logging.getLogger(__name__)

UNEXPECTED = "Something went wrong on our side; the error was logged."


def error_text(exc: BaseException) -> str:
    """What a chat user is shown for an error: the sentence, never a traceback."""
    if isinstance(exc, PRDigestError):
        return str(exc)
    return UNEXPECTED


def report(exc: BaseException, what: str) -> str:
    """Log `exc` unless it is a user's error (those are shown, not logged as bugs), and return
    the one line to show the user: "log unless PRDigestError", written once. A storage fault
    is the user's line and one log line too: the operator must fix the disk, not the code."""
    if isinstance(exc, StorageError):
        log.warning("%s failed: %s, nothing written", what, exc.reason)
    elif not isinstance(exc, PRDigestError):
        log.error("%s failed", what, exc_info=exc)
    return error_text(exc)


class Tasks:
    """The tracked background tasks of one chat platform."""

    def __init__(self, label: str):
        self.label = label  # "Slack", "Discord": for log lines and timeouts
        self.running: set[asyncio.Task[None]] = set()
        self.closing = False  # set at shutdown: no new work is started

    def spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` beside the listener, keeping a reference so it is neither lost nor
        orphaned at shutdown."""
        if self.closing:
            work.close()
            log.info("not starting %s: the %s bot is shutting down", what, self.label)
            return
        task = asyncio.ensure_future(self._guard(work, what))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _guard(self, work: Coroutine[Any, Any, None], what: str) -> None:
        try:
            await work
        except asyncio.CancelledError:
            log.info("%s cancelled", what)
            raise
        except StorageError as exc:  # the disk's fault, not a bug: no traceback
            log.warning("%s failed: %s, nothing written", what, exc.reason)
        except Exception:  # noqa: BLE001 - one command's failure must not stop the bot
            log.exception("%s failed", what)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every task has finished (TimeoutError after `timeout` seconds)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.running:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                raise TimeoutError(f"{len(self.running)} {self.label} tasks still running")
            await asyncio.wait(set(self.running), timeout=remaining)

    async def finish(self, timeout: float) -> None:
        """Drain for up to `timeout` seconds, then cancel what is left and wait for it."""
        try:
            await self.drain(timeout)
        except TimeoutError:
            left = list(self.running)
            log.info("cancelling %d %s task(s) at shutdown", len(left), self.label)
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)
