"""What `prdigest doctor` asks of Slack: who the bot is and which scopes it was granted, whether
it can read each channel it posts to, and whether the app token opens Socket Mode.

Read-only Web API calls through the bot's own client (`make_client`, SLACK_API_URL): auth.test,
conversations.info (the channel's name and whether the bot is in it, when the token has
channels:read), conversations.history with limit 1 (the call the bot itself makes after a
crash, under the manifest's channels:history and groups:history), and apps.connections.open,
which only hands out a WebSocket URL; nothing is connected to it, posted or joined.
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
from slack_sdk.errors import SlackApiError

from adapters.slack.manifest import BOT_SCOPES
from adapters.slack.transport import api_base_url, make_client
from bot.core.endpoints import Endpoint
from bot.core.settings import Settings

REQUIRED_SCOPES = frozenset(BOT_SCOPES)
SCOPES_HEADER = "x-oauth-scopes"


@dataclass(frozen=True)
class SlackIdentity:
    bot_name: str  # what to @-mention when inviting it: "prdigest"
    team: str
    scopes: frozenset[str] | None  # granted to the bot token; None when Slack does not say

    @property
    def missing_scopes(self) -> list[str]:
        return sorted(REQUIRED_SCOPES - self.scopes) if self.scopes is not None else []


class SlackProblem(Exception):
    """A call that failed: Slack's error code (`invalid_auth`, `not_in_channel`), or no
    answer at all (`code` None, the message names the host and SLACK_API_URL)."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


def endpoint(settings: Settings) -> Endpoint:
    return Endpoint("Slack", "SLACK_API_URL", api_base_url(settings.slack_api_url))


async def identify(settings: Settings) -> SlackIdentity:
    """auth.test with the bot token, and the scopes its answer's header lists."""
    client = make_client(settings.slack_bot_token, settings.slack_api_url)
    response = await _call(settings, client.auth_test())
    header = next(
        (value for key, value in response.headers.items() if key.lower() == SCOPES_HEADER), None
    )
    scopes = frozenset(s.strip() for s in header.split(",") if s.strip()) if header else None
    return SlackIdentity(
        bot_name=str(response.get("user") or "prdigest"),
        team=str(response.get("team") or ""),
        scopes=scopes,
    )


@dataclass(frozen=True)
class ChannelState:
    name: str | None  # "general", when Slack says (conversations.info needs channels:read)
    problem: str | None  # Slack's error code, or "not_in_channel"; None when it can read it


async def channel_state(settings: Settings, channel: str) -> ChannelState:
    """Whether the bot is in `channel` and can read it. conversations.info names it and says
    whether the bot is a member, when the token may ask (channels:read, not in the manifest);
    conversations.history, which the bot itself calls, is what proves it can read it."""
    client = make_client(settings.slack_bot_token, settings.slack_api_url)
    name = None
    try:
        info = (await _call(settings, client.conversations_info(channel=channel)))["channel"]
        name = str(info.get("name") or "") or None
        if info.get("is_member") is False:
            return ChannelState(name, "not_in_channel")
    except SlackProblem as exc:
        if exc.code is None or exc.code == "channel_not_found":
            return _state_or_raise(name, exc)
    try:
        await _call(settings, client.conversations_history(channel=channel, limit=1))
    except SlackProblem as exc:
        return _state_or_raise(name, exc)
    return ChannelState(name, None)


def _state_or_raise(name: str | None, exc: SlackProblem) -> ChannelState:
    if exc.code is None:  # no answer at all
        raise exc
    return ChannelState(name, exc.code)


async def open_socket_mode(settings: Settings) -> None:
    """apps.connections.open with the app token: the URL Socket Mode would connect to."""
    token = settings.slack_app_token or ""
    client = make_client(token, settings.slack_api_url)
    await _call(settings, client.apps_connections_open(app_token=token))


async def _call(settings: Settings, request):
    try:
        return await request
    except SlackApiError as exc:
        code = str(exc.response.get("error") or "unknown_error")
        raise SlackProblem(f"Slack answered {code}", code) from None
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise SlackProblem(endpoint(settings).unreachable(exc)) from None
