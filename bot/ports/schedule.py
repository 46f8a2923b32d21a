"""Schedule control: what chat commands need of the scheduler, without importing it."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from bot.core.models import Subscription
from bot.core.settings import Settings


class SubscriptionSource(Protocol):
    """Anything the scheduler can ask for the current subscriptions."""

    def all(self) -> list[Subscription]: ...


class ScheduleControl(Protocol):
    """The running schedule, as `/digest subscribe` and friends see it."""

    subscriptions: SubscriptionSource
    settings: Settings

    def clock(self) -> datetime:
        """An aware now."""

    def reload(self) -> None:
        """Re-read the subscriptions after a chat command changed them, and reschedule."""
