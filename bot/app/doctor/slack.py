"""Slack's lines: the bot token (auth.test), its scopes against the manifest's, each channel a
subscription posts to ("invite @prdigest to #channel" when it is not in it), and the Socket
Mode token. The calls are `adapters.slack.doctor`'s; what
each answer means to the user, and the fix, is said here."""

from __future__ import annotations

import asyncio

from adapters.slack.doctor import (
    REQUIRED_SCOPES,
    SlackIdentity,
    SlackProblem,
    channel_state,
    identify,
    open_socket_mode,
)
from bot.app.doctor.check import Check, failed, passed, skipped, within
from bot.core.models import Platform, Subscription
from bot.core.settings import Settings

SECONDS = 15.0
BOT_TOKEN_FIX = (
    "set SLACK_BOT_TOKEN to the app's Bot User OAuth Token (xoxb-…, on its OAuth & Permissions "
    "page at api.slack.com/apps)"
)
API_URL_FIX = (
    "check SLACK_API_URL (default https://slack.com/api/) and that this machine can reach it"
)
SCOPES_FIX = (
    "give the app the manifest's scopes (paste prdigest slack-manifest at api.slack.com/apps → "
    "App Manifest, or add them under OAuth & Permissions), then reinstall it to the workspace"
)
APP_TOKEN_FIX = (
    "set SLACK_APP_TOKEN to an app-level token (xapp-…) with connections:write (Basic "
    "Information → App-Level Tokens)"
)


async def slack_checks(settings: Settings, subs: list[Subscription]) -> list[Check]:
    if not settings.slack_bot_token:
        return [skipped("Slack", "not configured (SLACK_BOT_TOKEN unset)")]
    where = "Slack at SLACK_API_URL"
    me = await within(SECONDS, "Slack", signed_in(settings), where=where)
    if isinstance(me, Check):
        return [me]
    channels = sorted({s.channel for s in subs if s.platform == Platform.SLACK})
    rest = await asyncio.gather(
        *(within(SECONDS, f"Slack channel {c}", channel_check(settings, me, c)) for c in channels),
        within(SECONDS, "Slack Socket Mode", socket_mode_check(settings), where=where),
    )
    team = f" in {me.team}" if me.team else ""
    return [passed("Slack", f"signed in as @{me.bot_name}{team}"), scopes_check(me), *rest]


async def signed_in(settings: Settings) -> SlackIdentity | Check:
    try:
        return await identify(settings)
    except SlackProblem as exc:
        return failed("Slack", str(exc), BOT_TOKEN_FIX if exc.code else API_URL_FIX)


def scopes_check(me: SlackIdentity) -> Check:
    if me.scopes is None:
        return skipped("Slack scopes", "not checked: Slack did not list the token's scopes")
    if me.missing_scopes:
        return failed("Slack scopes", f"missing {', '.join(me.missing_scopes)}", SCOPES_FIX)
    return passed("Slack scopes", f"the manifest's {len(REQUIRED_SCOPES)} scopes are granted")


async def channel_check(settings: Settings, me: SlackIdentity, channel: str) -> Check:
    name = f"Slack channel {channel}"
    try:
        state = await channel_state(settings, channel)
    except SlackProblem as exc:
        return failed(name, str(exc), API_URL_FIX)
    bot, shown = f"@{me.bot_name}", f"#{state.name or channel}"
    invite = f"invite {bot} to {shown}: type /invite {bot} in that channel"
    if state.problem is None:
        return passed(name, f"{bot} is in {shown} and can read it")
    if state.problem == "not_in_channel":
        return failed(name, f"{bot} is not in {shown}", invite)
    if state.problem == "channel_not_found":
        return failed(
            name,
            "Slack knows no such channel for this bot (a private channel it is not in, or a "
            "wrong ID)",
            f"check the ID (channel details, at the bottom); for a private channel, {invite}",
        )
    if state.problem == "missing_scope":
        return failed(name, "the token may not read channels (a scope is missing)", SCOPES_FIX)
    return failed(name, f"Slack answered {state.problem}", f"check the channel; {invite}")


async def socket_mode_check(settings: Settings) -> Check:
    name = "Slack Socket Mode"
    if not settings.slack_app_token:
        if settings.slack_signing_secret:
            return skipped(name, "not used: HTTP mode (prdigest run --http, SLACK_SIGNING_SECRET)")
        return failed(
            name,
            "neither SLACK_APP_TOKEN (Socket Mode) nor SLACK_SIGNING_SECRET (HTTP mode) is set",
            APP_TOKEN_FIX + "; or set SLACK_SIGNING_SECRET and run prdigest run --http",
        )
    try:
        await open_socket_mode(settings)
    except SlackProblem as exc:
        if exc.code == "socket_mode_not_enabled":
            return failed(name, str(exc), "turn Socket Mode on (the app's Socket Mode page)")
        return failed(name, str(exc), APP_TOKEN_FIX if exc.code else API_URL_FIX)
    return passed(name, "SLACK_APP_TOKEN opens a connection")
