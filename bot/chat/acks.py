"""How long a slash command waited for its acknowledgement: `prdigest_command_ack_seconds`.

Slack gives a command 3 seconds, Discord an interaction 3 too; what the core does before it
answers (parsing, the stored-day look-up, the cost estimate) is what could make it late. The
clock starts when the command reaches the chat core and stops when its reply first answers,
accepts or says "already posted", whatever the platform.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from bot.core.metrics import COMMAND_ACK_SECONDS

R = TypeVar("R")

# The reply methods that acknowledge a command (`already` only when it answered, True).
_ACKS = frozenset({"answer", "accept", "say", "error", "failed", "show", "posted"})


class _TimedReply:
    """A command's reply object, unchanged but for the one observation at its first ack."""

    def __init__(self, reply: Any, platform: str, command: str, clock: Callable[[], float]):
        self._reply = reply
        self._labels = {"platform": str(platform), "command": command}
        self._clock = clock
        self._started: float | None = clock()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._reply, name)
        if name in _ACKS:
            return self._observed(value, lambda _result: True)
        if name == "already":
            return self._observed(value, bool)
        return value

    def _observed(self, method: Callable[..., Any], acked: Callable[[Any], bool]) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            result = await method(*args, **kwargs)
            if self._started is not None and acked(result):
                COMMAND_ACK_SECONDS.labels(**self._labels).observe(self._clock() - self._started)
                self._started = None  # once per command
            return result

        return call


def timed(reply: R, platform: str, command: str, clock: Callable[[], float] = time.monotonic) -> R:
    """`reply`, its first acknowledgement timed from now under `platform` and `command`."""
    return cast(R, _TimedReply(reply, platform, command, clock))
