"""A local look-alike of Discord: the REST API and the gateway on one aiohttp port.

Driven by the *real* discord.py client over real sockets (``discord.http.Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` pointed here), so what it must get right is what
discord.py checks: ``Content-Type: application/json`` exactly (discord.py compares the header
literally and treats anything else as text), a ``Via`` header on 429s (without one discord.py
assumes a Cloudflare ban and raises), HELLO → IDENTIFY → READY → GUILD_CREATE on the gateway.

Usage::

    with FakeDiscord() as discord_srv:
        ... start the bot with DISCORD_API_URL=discord_srv.api_url,
            DISCORD_GATEWAY_URL=discord_srv.gateway_url ...
        await discord_srv.wait_ready()
        interaction = discord_srv.slash("digest", {"day": "2026-02-23"})
        await discord_srv.wait_for(lambda: interaction.finished)

The server runs its own event loop on a thread, so tests (and a bot in a subprocess) drive it
the same way; state is shared under one lock and every accessor returns copies.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Self

from aiohttp import WSMsgType, web

API_PREFIX = "/api/v10"
JSON = "application/json"  # exactly: discord.py's json_or_text compares it with ==
DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 64
ALL_PERMISSIONS = (1 << 50) - 1  # what an administrator's bot may do

# Discord's message limits, enforced here so a renderer that breaks them fails the test the
# way the real API would fail the bot (400, code 50035).
MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR = 256
MAX_THREAD_NAME = 100


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Call:
    """One REST request, recorded before it is answered."""

    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    json: Any
    headers: dict[str, str]
    status: int | None = None
    fault: bool = False


@dataclass
class Fault:
    pattern: re.Pattern[str]
    status: int
    body: Any
    headers: dict[str, str]
    times: int
    method: str | None
    skip: int = 0  # let this many matching requests through first
    commit: bool = False  # carry the request out, then answer with the fault anyway
    seen: int = 0
    fired: int = 0
    every: int | None = None  # fail every Nth matching request (after `skip`), without end


@dataclass
class FakeInteraction:
    """An interaction the fake sent, and everything the bot answered to it."""

    id: str
    token: str
    type: int  # 2 application command, 4 autocomplete
    payload: dict[str, Any]
    channel_id: str
    sent_at: float = field(default_factory=time.monotonic)
    callbacks: list[dict[str, Any]] = field(default_factory=list)  # bodies POSTed to /callback
    callback_at: float | None = None
    original: dict[str, Any] | None = None  # the response message, as last edited
    followups: list[dict[str, Any]] = field(default_factory=list)  # further webhook messages
    deleted_original: bool = False

    @property
    def responded(self) -> bool:
        return bool(self.callbacks)

    @property
    def deferred(self) -> bool:
        return bool(self.callbacks) and self.callbacks[0].get("type") == 5

    @property
    def finished(self) -> bool:
        """Answered with a real message (not only a "thinking…" defer), or with choices."""
        if not self.callbacks:
            return False
        if self.callbacks[0].get("type") == 8:
            return True
        original_done = self.original is not None and not self.original.get("_loading")
        return original_done or bool(self.followups) or self.deleted_original

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The visible answer messages, original first."""
        out = []
        if self.original is not None and not self.original.get("_loading"):
            out.append(self.original)
        return out + self.followups

    @property
    def ephemeral(self) -> bool:
        first = self.messages[0] if self.messages else None
        return bool(first and first.get("flags", 0) & EPHEMERAL)

    @property
    def choices(self) -> list[dict[str, Any]]:
        for body in self.callbacks:
            if body.get("type") == 8:
                return body.get("data", {}).get("choices", [])
        return []

    def text(self) -> str:
        """Every answer message's content and embed text, for plain asserts."""
        return "\n".join(message_text(m) for m in self.messages)


def message_text(message: dict[str, Any]) -> str:
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts += [f"{f.get('name', '')}\n{f.get('value', '')}" for f in embed.get("fields", [])]
        parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(p for p in parts if p)


def embed_size(embed: dict[str, Any]) -> int:
    """The characters Discord counts towards a message's 6000."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def limit_errors(body: dict[str, Any]) -> list[str]:
    """Every way `body` breaks Discord's message limits (empty: the API would accept it)."""
    errors = []
    content = body.get("content") or ""
    embeds = body.get("embeds") or []
    if len(content) > MAX_CONTENT:
        errors.append(f"content: {len(content)} > {MAX_CONTENT}")
    if len(embeds) > MAX_EMBEDS:
        errors.append(f"embeds: {len(embeds)} > {MAX_EMBEDS}")
    if sum(embed_size(e) for e in embeds) > MAX_EMBED_TOTAL:
        errors.append(f"embeds total > {MAX_EMBED_TOTAL}")
    for i, e in enumerate(embeds):
        checks = [
            ("title", len(e.get("title") or ""), MAX_TITLE),
            ("description", len(e.get("description") or ""), MAX_DESCRIPTION),
            ("fields", len(e.get("fields") or []), MAX_FIELDS),
            ("footer", len((e.get("footer") or {}).get("text") or ""), MAX_FOOTER),
            ("author", len((e.get("author") or {}).get("name") or ""), MAX_AUTHOR),
        ]
        for f in e.get("fields") or []:
            checks.append(("field name", len(f.get("name") or ""), MAX_FIELD_NAME))
            checks.append(("field value", len(f.get("value") or ""), MAX_FIELD_VALUE))
            if not f.get("name") or not f.get("value"):
                errors.append(f"embeds[{i}]: empty field name or value")
        errors += [f"embeds[{i}].{name}: {n} > {cap}" for name, n, cap in checks if n > cap]
    if not content and not embeds:
        errors.append("Cannot send an empty message")
    return errors


class FakeDiscord:
    """Discord REST + gateway on ``127.0.0.1:<random port>``, with recording and faults."""

    def __init__(
        self,
        *,
        app_id: int = 1100000000000000001,
        bot_user_id: int | None = None,
        guild_id: int = 1200000000000000001,
        channel_id: int = 1300000000000000001,
        heartbeat_interval_ms: int = 41250,
        token: str = "fake-discord-token",
    ) -> None:
        self.token = token  # the bot token the fake accepts
        self.app_id = str(app_id)
        self.bot_user_id = str(bot_user_id or app_id)
        self.guild_id = str(guild_id)
        self.channel_id = str(channel_id)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.bot_user = {
            "id": self.bot_user_id,
            "username": "prdigest",
            "global_name": "prdigest",
            "discriminator": "0",
            "avatar": None,
            "bot": True,
            "flags": 0,
        }
        self.lock = threading.RLock()
        self.errors: list[str] = []  # handler exceptions: bugs in the fake, or bad requests
        self._calls: list[Call] = []
        self._faults: list[Fault] = []
        self._ids = itertools.count(1)
        # channel id -> channel JSON (the guild's text channels and every thread)
        self.channels: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, list[dict[str, Any]]] = {}  # channel id -> messages, oldest first
        self.commands: dict[str, list[dict[str, Any]]] = {}  # guild id or "global" -> commands
        self.interactions: dict[str, FakeInteraction] = {}
        self._by_token: dict[str, FakeInteraction] = {}
        self.identifies: list[dict[str, Any]] = []
        self.heartbeats = 0
        self._sockets: list[_Session] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._port = 0
        self.add_channel(self.channel_id, "pr-digests")

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._serve())
            except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
                failure.append(exc)
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown())
            loop.close()

        self._thread = threading.Thread(target=run, name="FakeDiscord", daemon=True)
        self._thread.start()
        started.wait(10)
        if failure:
            raise failure[0]
        return self

    async def _serve(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway_ws)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _shutdown(self) -> None:
        for session in list(self._sockets):
            await session.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_url(self) -> str:
        """What DISCORD_API_URL should be set to."""
        return self.url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        """What DISCORD_GATEWAY_URL should be set to."""
        return f"ws://127.0.0.1:{self._port}/gateway"

    # -- state the tests set up ------------------------------------------------------------

    def snowflake(self) -> str:
        """A real-looking id: discord.py derives created_at from it."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return str((ms << 22) | (next(self._ids) & 0x3FFFFF))

    def add_channel(self, channel_id: str | int, name: str) -> dict[str, Any]:
        channel = {
            "id": str(channel_id),
            "type": 0,
            "guild_id": self.guild_id,
            "name": name,
            "position": len(self.channels),
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }
        with self.lock:
            self.channels[channel["id"]] = channel
            self.messages.setdefault(channel["id"], [])
        return channel

    def add_thread(self, parent_id: str, name: str) -> dict[str, Any]:
        """A thread not started by the bot (someone else's, already there)."""
        thread = self._thread_json(self.snowflake(), str(parent_id), name, 1440)
        thread["owner_id"] = "4000000000000000001"
        with self.lock:
            self.channels[thread["id"]] = thread
            self.messages[thread["id"]] = []
        return thread

    def _thread_json(
        self, thread_id: str, parent_id: str, name: str, archive_minutes: int
    ) -> dict[str, Any]:
        return {
            "id": thread_id,  # a thread started from a message takes the message's id
            "type": 11,
            "guild_id": self.guild_id,
            "parent_id": parent_id,
            "owner_id": self.bot_user_id,
            "name": name,
            "last_message_id": None,
            "message_count": 0,
            "total_message_sent": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": archive_minutes,
                "archive_timestamp": _now_iso(),
                "locked": False,
                "create_timestamp": _now_iso(),
            },
        }

    def add_message(
        self,
        channel_id: str,
        *,
        content: str = "",
        embeds: list[dict[str, Any]] | None = None,
        author: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A message already in a channel (by the bot unless `author` says otherwise)."""
        with self.lock:
            return self._store_message(
                channel_id, {"content": content, "embeds": embeds or []}, author or self.bot_user
            )

    def user(self, user_id: str = "4000000000000000001", name: str = "alice") -> dict[str, Any]:
        return {
            "id": user_id,
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
        }

    # -- reading back what the bot did -----------------------------------------------------

    @property
    def calls(self) -> list[Call]:
        with self.lock:
            return list(self._calls)

    def requests(self, path_regex: str = "", method: str | None = None) -> list[Call]:
        pattern = re.compile(path_regex)
        return [
            c
            for c in self.calls
            if (method is None or c.method == method.upper()) and pattern.search(c.path)
        ]

    def edits(self, channel_id: str | None = None, message_id: str | None = None) -> list[Call]:
        """The PATCHes of channel messages (`/channels/{id}/messages/{mid}`) the bot sent,
        oldest first, optionally of one channel or one message; interaction edits are not
        among them (see `FakeInteraction`)."""
        any_id = r"\d+"
        pattern = rf"^/channels/{channel_id or any_id}/messages/{message_id or any_id}$"
        return self.requests(pattern, "PATCH")

    def channel_messages(self, channel_id: str) -> list[dict[str, Any]]:
        """A channel's (or thread's) messages, oldest first."""
        with self.lock:
            return [dict(m) for m in self.messages.get(str(channel_id), [])]

    def threads(self) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(c) for c in self.channels.values() if c["type"] in (10, 11, 12)]

    # -- fault injection -------------------------------------------------------------------

    def inject(
        self,
        path_regex: str,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        times: int = 1,
        method: str | None = None,
        skip: int = 0,
        commit: bool = False,
        every: int | None = None,
    ) -> Fault:
        """Answer matching requests (``re.search`` on the path) with `status`.

        `skip` lets that many through first; `commit=True` still carries the request out (the
        message is created) and then fails it: a bot that crashed before recording it.
        """
        fault = Fault(
            re.compile(path_regex), status, body, dict(headers or {}), times, method, skip, commit
        )
        fault.every = every  # `every=N`: the Nth, 2Nth, ... matching request fails; `times` ignored
        with self.lock:
            self._faults.append(fault)
        return fault

    def rate_limit(
        self, path_regex: str, *, times: int = 1, retry_after: float = 0.05, method: str = "POST"
    ) -> Fault:
        """Answer the next `times` matching requests with a 429, as Discord does."""
        return self.inject(
            path_regex,
            429,
            {"message": "You are being rate limited.", "retry_after": retry_after, "global": False},
            {
                "Via": "1.1 google",  # discord.py treats a 429 without Via as a Cloudflare ban
                "Retry-After": str(retry_after),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(retry_after),
                "X-RateLimit-Bucket": "fakebucket",
                "X-RateLimit-Scope": "user",
            },
            times=times,
            method=method,
        )

    # -- driving the bot over the gateway --------------------------------------------------

    def slash(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        channel_id: str | None = None,
        user: dict[str, Any] | None = None,
        guild_scoped: bool = True,
        app_permissions: int = ALL_PERMISSIONS,
    ) -> FakeInteraction:
        """A user runs `/name` with `options`: INTERACTION_CREATE, type 2.

        `app_permissions` is what the bot may do in the channel, as Discord reports it.
        """
        opts = [
            {"name": k, "type": 4 if isinstance(v, int) else 3, "value": v}
            for k, v in (options or {}).items()
        ]
        return self._interaction(2, name, opts, channel_id, user, guild_scoped, app_permissions)

    def autocomplete(
        self,
        name: str,
        focused: str,
        value: str,
        *,
        channel_id: str | None = None,
        guild_scoped: bool = True,
    ) -> FakeInteraction:
        """A user types `value` into option `focused`: INTERACTION_CREATE, type 4."""
        opts = [{"name": focused, "type": 3, "value": value, "focused": True}]
        return self._interaction(4, name, opts, channel_id, None, guild_scoped, ALL_PERMISSIONS)

    def _interaction(
        self,
        kind: int,
        name: str,
        options: list[dict[str, Any]],
        channel_id: str | None,
        user: dict[str, Any] | None,
        guild_scoped: bool,
        app_permissions: int,
    ) -> FakeInteraction:
        channel_id = str(channel_id or self.channel_id)
        with self.lock:
            channel = dict(self.channels[channel_id])
            scope = self.guild_id if guild_scoped else "global"
            command_id = next(
                (c["id"] for c in self.commands.get(scope, []) if c["name"] == name),
                self.snowflake(),
            )
            iid = self.snowflake()
            token = f"itoken-{iid}"
            data: dict[str, Any] = {"id": command_id, "name": name, "type": 1, "options": options}
            if guild_scoped:
                data["guild_id"] = self.guild_id
            payload = {
                "id": iid,
                "application_id": self.app_id,
                "type": kind,
                "data": data,
                "guild_id": self.guild_id,
                "guild": {"id": self.guild_id, "locale": "en-US", "features": []},
                "channel_id": channel_id,
                "channel": channel,
                "member": {
                    "user": user or self.user(),
                    "roles": [],
                    "joined_at": _now_iso(),
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                    "permissions": "2248473465835073",
                },
                "token": token,
                "version": 1,
                "app_permissions": str(app_permissions),
                "locale": "en-US",
                "guild_locale": "en-US",
                "entitlements": [],
                "authorizing_integration_owners": {"0": self.guild_id},
                "context": 0,
                "attachment_size_limit": 8388608,
            }
            interaction = FakeInteraction(iid, token, kind, payload, channel_id)
            self.interactions[iid] = interaction
            self._by_token[token] = interaction
        self.dispatch("INTERACTION_CREATE", payload)
        return interaction

    def react(
        self, channel_id: str, message_id: str, emoji: str, *, user_id: str = "4000000000000000001"
    ) -> None:
        """MESSAGE_REACTION_ADD for a unicode `emoji` (or `name:id` for a custom one)."""
        self.dispatch(
            "MESSAGE_REACTION_ADD", self._reaction(channel_id, message_id, emoji, user_id)
        )

    def unreact(
        self, channel_id: str, message_id: str, emoji: str, *, user_id: str = "4000000000000000001"
    ) -> None:
        self.dispatch(
            "MESSAGE_REACTION_REMOVE", self._reaction(channel_id, message_id, emoji, user_id)
        )

    def _reaction(
        self, channel_id: str, message_id: str, emoji: str, user_id: str
    ) -> dict[str, Any]:
        name, _, emoji_id = emoji.partition(":")
        author_id = None
        with self.lock:
            for message in self.messages.get(str(channel_id), []):
                if message["id"] == str(message_id):
                    author_id = message["author"]["id"]
        payload: dict[str, Any] = {
            "user_id": user_id,
            "channel_id": str(channel_id),
            "message_id": str(message_id),
            "guild_id": self.guild_id,
            "emoji": {"id": emoji_id or None, "name": name},
            "burst": False,
            "type": 0,
        }
        if author_id:
            payload["message_author_id"] = author_id
        return payload

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH to every identified gateway session."""
        if self._loop is None:
            raise RuntimeError("FakeDiscord is not running")
        asyncio.run_coroutine_threadsafe(self._dispatch(event, data), self._loop).result(5)

    async def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        for session in list(self._sockets):
            if session.identified and not session.ws.closed:
                await session.send_dispatch(event, data)

    # -- waiting ---------------------------------------------------------------------------

    async def wait_for(
        self, condition: Callable[[], Any], timeout: float = 10.0, what: str = "condition"
    ) -> Any:
        """Poll `condition` (from the test's event loop) until it is truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if self.errors:
                raise AssertionError("fake Discord errors:\n" + "\n".join(self.errors))
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Until a session identified and got its GUILD_CREATE (commands are synced by then)."""
        await self.wait_for(
            lambda: any(s.guild_sent for s in list(self._sockets)), timeout, "the bot to connect"
        )

    # -- the gateway -----------------------------------------------------------------------

    async def _gateway_ws(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        session = _Session(self, ws)
        self._sockets.append(session)
        try:
            await session.send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                await session.received(json.loads(msg.data))
        finally:
            self._sockets.remove(session)
        return ws

    def ready_payload(self, session_id: str) -> dict[str, Any]:
        return {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": self.guild_id, "unavailable": True}],
            "session_id": session_id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.app_id, "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
        }

    def guild_payload(self) -> dict[str, Any]:
        with self.lock:
            channels = [dict(c) for c in self.channels.values() if c["type"] == 0]
            threads = [dict(c) for c in self.channels.values() if c["type"] == 11]
        return {
            "id": self.guild_id,
            "name": "Test Guild",
            "icon": None,
            "owner_id": "4000000000000000099",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [
                {
                    "id": self.guild_id,
                    "name": "@everyone",
                    "color": 0,
                    "hoist": False,
                    "position": 0,
                    "permissions": "2248473465835073",
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": _now_iso(),
            "large": False,
            "unavailable": False,
            "member_count": 2,
            "voice_states": [],
            "members": [],
            "channels": channels,
            "threads": threads,
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    # -- REST ------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.Response:
        path = request.path[len(API_PREFIX) :]
        body_bytes = await request.read()
        try:
            parsed = json.loads(body_bytes) if body_bytes else None
        except ValueError:
            parsed = None
        call = Call(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=parsed,
            headers={k.lower(): v for k, v in request.headers.items()},
        )
        with self.lock:
            self._calls.append(call)
            fault = self._take_fault(call)
        if fault is not None and fault.body is None:
            fault.body = {"message": f"{fault.status}: injected fault", "code": 0}
        if fault is not None and not fault.commit:
            call.fault = True
            call.status = fault.status
            return self._json(fault.body, fault.status, fault.headers)
        try:
            status, payload = self._route(call)
        except Exception as exc:  # noqa: BLE001 - surfaced to the test through self.errors
            import traceback

            self.errors.append(traceback.format_exc())
            status, payload = 500, {"message": f"fake error: {exc}", "code": 0}
        if fault is not None:
            call.fault = True
            status, payload = fault.status, fault.body
        call.status = status
        return self._json(payload, status, fault.headers if fault else None)

    def _json(
        self, payload: Any, status: int, headers: dict[str, str] | None = None
    ) -> web.Response:
        if status == 204 or payload is None:
            return web.Response(status=204, headers=headers)
        return web.Response(
            status=status,
            body=json.dumps(payload).encode(),
            headers={"Content-Type": JSON, **(headers or {})},
        )

    def _take_fault(self, call: Call) -> Fault | None:
        for fault in self._faults:
            if fault.every is None and fault.fired >= fault.times:
                continue
            if fault.method and fault.method.upper() != call.method:
                continue
            if fault.pattern.search(call.path):
                fault.seen += 1
                if fault.seen <= fault.skip:
                    continue
                if fault.every is not None and (fault.seen - fault.skip) % fault.every:
                    continue
                fault.fired += 1
                return fault
        return None

    def _route(self, call: Call) -> tuple[int, Any]:
        m, p, body = call.method, call.path, call.json
        if call.headers.get("authorization", "") != "Bot " + self.token:
            if not p.startswith(("/webhooks/", "/interactions/")):
                return 401, {"message": "401: Unauthorized", "code": 0}
        if m == "GET" and p == "/users/@me":
            return 200, self.bot_user
        if m == "GET" and p in ("/oauth2/applications/@me", "/applications/@me"):
            return 200, self._application()
        if m == "GET" and p in ("/gateway", "/gateway/bot"):
            return 200, {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        if match := re.fullmatch(r"/applications/(\d+)(?:/guilds/(\d+))?/commands", p):
            scope = match.group(2) or "global"
            if m == "PUT":
                return 200, self._put_commands(scope, body or [])
            if m == "GET":
                with self.lock:
                    return 200, list(self.commands.get(scope, []))
        if match := re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", p):
            return self._callback(match.group(1), match.group(2), body or {})
        if match := re.fullmatch(r"/webhooks/(\d+)/([^/]+)(/messages/(@original|\d+))?", p):
            return self._webhook(m, match.group(2), match.group(4), body or {})
        if match := re.fullmatch(r"/channels/(\d+)", p):
            with self.lock:
                channel = self.channels.get(match.group(1))
            return (200, channel) if channel else (404, _unknown("Channel", 10003))
        if match := re.fullmatch(r"/channels/(\d+)/messages", p):
            if m == "POST":
                return self._post_message(match.group(1), body or {})
            if m == "GET":
                return self._history(match.group(1), call.query)
        if match := re.fullmatch(r"/channels/(\d+)/messages/(\d+)/threads", p):
            return self._thread_from_message(match.group(1), match.group(2), body or {})
        if match := re.fullmatch(r"/channels/(\d+)/messages/(\d+)", p):
            return self._one_message(m, match.group(1), match.group(2), body or {})
        if match := re.fullmatch(r"/channels/(\d+)/messages/(\d+)/reactions/([^/]+)/@me", p):
            return 204, None
        if (read := self._guild_route(m, p)) is not None:
            return read
        return 404, {"message": "404: Not Found", "code": 0}

    def _guild_route(self, m: str, p: str) -> tuple[int, Any] | None:
        """The bot's servers, a server (its roles), and the bot's member record in it: what
        `prdigest doctor` reads to compute a channel's permissions."""
        if m != "GET":
            return None
        if p == "/users/@me/guilds":
            guild = {"id": self.guild_id, "name": "Test Guild", "icon": None, "owner": False}
            return 200, [{**guild, "permissions": str(ALL_PERMISSIONS), "features": []}]
        if match := re.fullmatch(r"/guilds/(\d+)(/members/(\d+))?", p):
            if match.group(1) != self.guild_id:
                return 404, _unknown("Guild", 10004)
            if match.group(3) is None:
                return 200, self.guild_payload()
            if match.group(3) != self.bot_user_id:
                return 404, _unknown("Member", 10007)
            return 200, {"user": self.bot_user, "roles": [], "joined_at": _now_iso(),
                         "deaf": False, "mute": False, "flags": 0}  # fmt: skip
        return None

    def _application(self) -> dict[str, Any]:
        return {
            "id": self.app_id,
            "name": "prdigest",
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "terms_of_service_url": None,
            "privacy_policy_url": None,
            "owner": self.user("4000000000000000099", "owner"),
            "summary": "",
            "verify_key": "0" * 64,
            "team": None,
            "guild_id": None,
            "primary_sku_id": None,
            "slug": None,
            "cover_image": None,
            "flags": 0,
            "bot": self.bot_user,
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "approximate_guild_count": 1,
        }

    def _put_commands(self, scope: str, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stored = []
        for command in commands:
            stored.append(
                {
                    **command,
                    "id": self.snowflake(),
                    "application_id": self.app_id,
                    "version": self.snowflake(),
                    "type": command.get("type", 1),
                    "default_member_permissions": command.get("default_member_permissions"),
                    "dm_permission": command.get("dm_permission", True),
                    "nsfw": command.get("nsfw", False),
                    **({"guild_id": scope} if scope != "global" else {}),
                }
            )
        with self.lock:
            self.commands[scope] = stored
        return stored

    # channel messages

    def _store_message(
        self,
        channel_id: str,
        body: dict[str, Any],
        author: dict[str, Any],
        *,
        flags: int = 0,
        interaction: FakeInteraction | None = None,
    ) -> dict[str, Any]:
        channel = self.channels[channel_id]
        message = {
            "id": self.snowflake(),
            "channel_id": channel_id,
            "guild_id": self.guild_id,
            "author": author,
            "content": body.get("content") or "",
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [_stored_embed(e) for e in body.get("embeds") or []],
            "pinned": False,
            "type": 19 if body.get("message_reference") else 0,
            "flags": flags | int(body.get("flags") or 0),
            "components": [],
            "allowed_mentions": body.get("allowed_mentions"),  # kept so tests can check it
        }
        if body.get("message_reference"):
            message["message_reference"] = body["message_reference"]
        if interaction is not None:
            message["webhook_id"] = self.app_id
            message["application_id"] = self.app_id
            message["interaction_metadata"] = {
                "id": interaction.id,
                "type": 2,
                "user": interaction.payload["member"]["user"],
                "authorizing_integration_owners": {},
            }
        self.messages.setdefault(channel_id, []).append(message)
        channel["last_message_id"] = message["id"]
        if channel["type"] == 11:
            channel["message_count"] = channel.get("message_count", 0) + 1
            channel["total_message_sent"] = channel["message_count"]
        return message

    def _post_message(self, channel_id: str, body: dict[str, Any]) -> tuple[int, Any]:
        with self.lock:
            if channel_id not in self.channels:
                return 404, _unknown("Channel", 10003)
            errors = limit_errors(body)
            if errors:
                return 400, _invalid_form(errors)
            return 200, self._store_message(channel_id, body, self.bot_user)

    def _history(self, channel_id: str, query: dict[str, str]) -> tuple[int, Any]:
        with self.lock:
            if channel_id not in self.channels:
                return 404, _unknown("Channel", 10003)
            messages = list(self.messages.get(channel_id, []))
        limit = min(int(query.get("limit", 50)), 100)
        if "before" in query:
            messages = [x for x in messages if int(x["id"]) < int(query["before"])]
        if "after" in query:
            messages = [x for x in messages if int(x["id"]) > int(query["after"])]
            return 200, list(reversed(messages[:limit]))
        return 200, list(reversed(messages))[:limit]  # newest first, as Discord answers

    def _one_message(
        self, method: str, channel_id: str, message_id: str, body: dict
    ) -> tuple[int, Any]:
        with self.lock:
            for message in self.messages.get(channel_id, []):
                if message["id"] == message_id:
                    if method == "GET":
                        return 200, message
                    if method == "PATCH":
                        return self._patch_message(message, body)
        return 404, _unknown("Message", 10008)

    def _patch_message(self, message: dict[str, Any], body: dict[str, Any]) -> tuple[int, Any]:
        """PATCH /channels/{id}/messages/{mid}: only what the body names changes (a body with
        only `content` keeps the embeds), within the same limits as a new message."""
        if message["author"]["id"] != self.bot_user_id and ("content" in body or "embeds" in body):
            return 403, {"message": "Cannot edit a message authored by another user", "code": 50005}
        merged = {
            "content": body["content"] if "content" in body else message.get("content"),
            "embeds": body["embeds"] if "embeds" in body else message.get("embeds"),
        }
        if errors := limit_errors(merged):
            return 400, _invalid_form(errors)
        if "content" in body:
            message["content"] = body["content"] or ""
        if "embeds" in body:
            message["embeds"] = [_stored_embed(e) for e in body["embeds"] or []]
        if "allowed_mentions" in body:
            message["allowed_mentions"] = body["allowed_mentions"]
        message["edited_timestamp"] = _now_iso()
        return 200, _public(message)

    def _thread_from_message(self, channel_id: str, message_id: str, body: dict) -> tuple[int, Any]:
        with self.lock:
            parent = self.channels.get(channel_id)
            if parent is None:
                return 404, _unknown("Channel", 10003)
            message = next(
                (x for x in self.messages.get(channel_id, []) if x["id"] == message_id), None
            )
            if message is None:
                return 404, _unknown("Message", 10008)
            if message_id in self.channels:
                return 400, {
                    "message": "A thread has already been created for this message",
                    "code": 160004,
                }
            name = body.get("name") or ""
            if not 1 <= len(name) <= MAX_THREAD_NAME:
                return 400, _invalid_form([f"name: length {len(name)}"])
            thread = self._thread_json(
                message_id, channel_id, name, int(body.get("auto_archive_duration") or 1440)
            )
            self.channels[message_id] = thread
            self.messages[message_id] = []
            message["thread"] = thread
        # Discord tells the bot about its own new thread on the gateway too.
        asyncio.ensure_future(self._dispatch("THREAD_CREATE", {**thread, "newly_created": True}))
        return 201, thread

    # interactions

    def _callback(self, iid: str, token: str, body: dict[str, Any]) -> tuple[int, Any]:
        with self.lock:
            interaction = self.interactions.get(iid)
            if interaction is None or interaction.token != token:
                return 404, _unknown("Interaction", 10062)
            if interaction.callbacks:
                return 400, {"message": "Interaction has already been acknowledged.", "code": 40060}
            interaction.callbacks.append(body)
            interaction.callback_at = time.monotonic()
            kind = body.get("type")
            data = body.get("data") or {}
            result: dict[str, Any] = {
                "interaction": {
                    "id": iid,
                    "type": interaction.type,
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(int(data.get("flags") or 0) & EPHEMERAL),
                }
            }
            if kind in (4, 5):
                if kind == 4 and (errors := limit_errors(data)):
                    interaction.callbacks.clear()
                    return 400, _invalid_form(errors)
                message = self._interaction_message(interaction, data if kind == 4 else {}, data)
                message["_loading"] = kind == 5
                interaction.original = message
                result["interaction"]["response_message_id"] = message["id"]
                result["resource"] = {"type": kind, "message": _public(message)}
            else:
                result["resource"] = {"type": kind}
        return 200, result

    def _interaction_message(
        self, interaction: FakeInteraction, body: dict[str, Any], flags_from: dict[str, Any]
    ) -> dict[str, Any]:
        flags = int(flags_from.get("flags") or 0) & EPHEMERAL
        if flags:
            # Ephemeral messages exist only for the user: never in the channel's history.
            message = {
                "id": self.snowflake(),
                "channel_id": interaction.channel_id,
                "author": self.bot_user,
                "content": body.get("content") or "",
                "embeds": [_stored_embed(e) for e in body.get("embeds") or []],
                "timestamp": _now_iso(),
                "edited_timestamp": None,
                "tts": False,
                "mention_everyone": False,
                "mentions": [],
                "mention_roles": [],
                "attachments": [],
                "pinned": False,
                "type": 20,
                "flags": flags,
                "components": [],
                "webhook_id": self.app_id,
                "allowed_mentions": body.get("allowed_mentions"),
            }
            return message
        return self._store_message(
            interaction.channel_id, body, self.bot_user, interaction=interaction
        )

    def _webhook(
        self, method: str, token: str, message_ref: str | None, body: dict[str, Any]
    ) -> tuple[int, Any]:
        with self.lock:
            interaction = self._by_token.get(token)
            if interaction is None:
                return 404, _unknown("Webhook", 10015)
            if not interaction.callbacks:
                return 404, _unknown("Message", 10008)  # nothing to follow up yet
            if message_ref is None and method == "POST":
                if errors := limit_errors(body):
                    return 400, _invalid_form(errors)
                original = interaction.original
                if original is not None and original.get("_loading"):
                    # The first follow-up after a defer replaces the "thinking…" message.
                    return 200, _public(self._edit(original, body))
                message = self._interaction_message(interaction, body, body)
                interaction.followups.append(message)
                return 200, _public(message)
            target = self._webhook_target(interaction, message_ref)
            if target is None:
                return 404, _unknown("Message", 10008)
            if method == "GET":
                return 200, _public(target)
            if method == "PATCH":
                merged = {"content": target.get("content"), "embeds": target.get("embeds"), **body}
                if errors := limit_errors(merged):
                    return 400, _invalid_form(errors)
                return 200, _public(self._edit(target, body))
            if method == "DELETE":
                if target is interaction.original:
                    interaction.deleted_original = True
                    interaction.original = None
                else:
                    interaction.followups.remove(target)
                channel = self.messages.get(target["channel_id"], [])
                if target in channel:
                    channel.remove(target)
                return 204, None
        return 405, {"message": "405: Method Not Allowed", "code": 0}

    def _webhook_target(self, interaction: FakeInteraction, ref: str | None) -> dict | None:
        if ref == "@original":
            return interaction.original
        for message in [interaction.original, *interaction.followups]:
            if message is not None and message["id"] == ref:
                return message
        return None

    def _edit(self, message: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if "content" in body:
            message["content"] = body["content"] or ""
        if "embeds" in body:
            message["embeds"] = [_stored_embed(e) for e in body["embeds"] or []]
        if "allowed_mentions" in body:
            message["allowed_mentions"] = body["allowed_mentions"]
        if message.get("_loading"):
            message["_loading"] = False
        else:
            message["edited_timestamp"] = _now_iso()
        return message


class _Session:
    """One gateway connection: sequence numbers, IDENTIFY/RESUME, heartbeats."""

    def __init__(self, owner: FakeDiscord, ws: web.WebSocketResponse) -> None:
        self.owner = owner
        self.ws = ws
        self.seq = 0
        self.identified = False
        self.guild_sent = False
        self.session_id = f"session-{owner.snowflake()}"
        self.send_lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        async with self.send_lock:
            if not self.ws.closed:
                await self.ws.send_str(json.dumps(payload))

    async def send_dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        await self.send({"op": 0, "t": event, "s": self.seq, "d": data})

    async def received(self, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        if op == 1:
            self.owner.heartbeats += 1
            await self.send({"op": 11})
        elif op == 2:
            with self.owner.lock:
                self.owner.identifies.append(msg.get("d") or {})
            token = (msg.get("d") or {}).get("token")
            if token != self.owner.token:
                await self.ws.close(code=4004, message=b"Authentication failed.")
                return
            self.identified = True
            await self.send_dispatch("READY", self.owner.ready_payload(self.session_id))
            await self.send_dispatch("GUILD_CREATE", self.owner.guild_payload())
            self.guild_sent = True
        elif op == 6:
            self.identified = True
            await self.send_dispatch("RESUMED", {})
            self.guild_sent = True


def _public(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not k.startswith("_")}


def _stored_embed(embed: dict[str, Any]) -> dict[str, Any]:
    return {"type": "rich", **embed}


def _unknown(what: str, code: int) -> dict[str, Any]:
    return {"message": f"Unknown {what}", "code": code}


def _invalid_form(errors: list[str]) -> dict[str, Any]:
    return {
        "message": "Invalid Form Body",
        "code": 50035,
        "errors": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": e} for e in errors]},
    }


# -- running the real bot against the fake --------------------------------------------------


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, settings: Any) -> AsyncIterator[Any]:
    """The adapter's own entry points (`create_bot`, `start_bot`) on the test's event loop,
    connected to `fake`; yields the bot once the fake has sent it GUILD_CREATE."""
    from adapters.discord import create_bot, start_bot
    from bot.app.compose import build_service
    from bot.store.store import Store

    store = Store(settings.db_path)
    service = build_service(settings, store)
    # A short guild_ready_timeout only shortens when on_ready fires; nothing here waits for it.
    bot = create_bot(settings, service, store, guild_ready_timeout=0.05)
    task = asyncio.create_task(start_bot(bot, settings))
    try:
        ready = asyncio.ensure_future(fake.wait_ready())
        await asyncio.wait({ready, task}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            ready.cancel()
            task.result()  # raise the bot's start-up error
        await ready
        yield bot
    finally:
        await bot.close()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        await service.aclose()
        store.close()
        if fake.errors:
            raise AssertionError("fake Discord errors:\n" + "\n".join(fake.errors))


async def post_digest(fake: FakeDiscord, github: Any) -> tuple[dict, list[dict]]:
    """A two-PR digest of 2026-02-23 through /digest: (parent, replies), #2 (newest) first."""
    from tests.conftest import REPO, make_pr

    github.add_prs(REPO, [make_pr(n, f"2026-02-23 1{n}:00:00") for n in (1, 2)])
    interaction = fake.slash("digest", {"day": "2026-02-23"})
    await fake.wait_for(lambda: interaction.finished, what="the digest")
    (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
    return parent, fake.channel_messages(parent["id"])
