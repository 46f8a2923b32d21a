"""Who a Slack user is, by name: the flag answers say who flagged without notifying them.

A `<@U…>` mention would ping the flagger in every answer, and a bare id ("U0123ABC") tells a
reader nothing. So the answers show the user's display name as plain text, asked once with
`users.info` (scope `users:read`) and kept for a while. The name is whatever the user typed
in their profile: it is cleaned like any untrusted line here, and escaped (so never a
mention) by the renderer. If Slack will not say (a missing scope, a user from another
workspace, Slack down), the id is shown, as text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.untrusted import clean_line

log = logging.getLogger(__name__)

NAME_TTL = 3600.0  # a renamed user shows under the new name within the hour
MISS_TTL = 300.0  # after a failed look-up, the id is shown for 5 min before Slack is asked again
MAX_NAME = 80  # Slack's own limit on display names


class UserNames:
    """Display names by Slack user id, cached per id (`NAME_TTL`, or `MISS_TTL` for the id
    shown when the look-up failed)."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.client = client
        self.clock = clock
        self._names: dict[str, tuple[float, str]] = {}  # id -> (expires, name)

    async def name(self, user_id: str) -> str:
        """The name to show for `user_id`: plain, untrusted text for the renderer to escape."""
        now = self.clock()
        cached = self._names.get(user_id)
        if cached is not None and now < cached[0]:
            return cached[1]
        try:
            result = await self.client.users_info(user=user_id)
            name = display_name(result.get("user"))
        except Exception as exc:  # noqa: BLE001 - SlackApiError, a dropped connection...
            log.info("no name for Slack user %s: %s", user_id, exc)
            name = None
        shown = name or clean_line(user_id)[:MAX_NAME]
        self._names[user_id] = (now + (NAME_TTL if name else MISS_TTL), shown)
        return shown


def display_name(user: Mapping[str, Any] | None) -> str | None:
    """The name Slack itself shows for `user`: the profile's display name, else the real
    name, else the user name; None when all are empty (or only invisible characters)."""
    if not isinstance(user, Mapping):
        return None
    profile = user.get("profile")
    profile = profile if isinstance(profile, Mapping) else {}
    for value in (
        profile.get("display_name"),
        profile.get("real_name"),
        user.get("real_name"),
        user.get("name"),
    ):
        text = " ".join(clean_line(value if isinstance(value, str) else "").split())
        if text:
            return text[:MAX_NAME]
    return None
