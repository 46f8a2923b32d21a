"""A fake Slack: the Web API methods prdigest uses, response_url, and Socket Mode.

Driven by the real slack_sdk / slack-bolt objects through ``base_url``, the way Bolt's own
suite uses its mock Web API server::

    with FakeSlack() as slack:
        client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
        slack.rate_limit(times=2)                      # the next two posts answer 429
        ...
        slack.posted("C1")                             # what the bot said, in order

Every Web API call is recorded (``calls()``); ``chat.postMessage`` answers increasing ``ts``
values and keeps the message (with its metadata) so ``conversations.history`` and
``conversations.replies`` can find it again, as crash recovery needs. ``chat.update`` edits
a kept message in place and is recorded in ``updates`` (``updated()``); ``chat.getPermalink``
answers Slack's link format, on the workspace's host (``team_url``, also auth.test's ``url``).
``users.info`` answers the profiles of ``users`` (``add_user()``; Alice and Bob by default),
``user_not_found`` for anyone else, and ``missing_scope`` when ``users:read`` is not among
the app's ``scopes``; ``conversations.info`` likewise needs ``channels:read`` and answers
``channel_names`` and whether the bot is a member. ``socket_mode()``
starts a local WebSocket server speaking the real envelope protocol (hello, envelopes,
``envelope_id`` acks) whose URL ``apps.connections.open`` hands out (starting it if need be).
``auth.test`` answers the granted ``scopes`` in its ``x-oauth-scopes`` header, as Slack does.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from tests.fakes.http_server import FakeHTTPServer, RecordedRequest, Response

BASE_TS = 1_771_900_000  # seconds part of the first ts handed out
# What the manifest asks for (adapters/slack/manifest.py); a test can install with fewer.
DEFAULT_SCOPES = (
    "chat:write", "commands", "reactions:read", "channels:history", "groups:history",
    "users:read",
)  # fmt: skip


@dataclass
class Update:
    """One accepted chat.update: what the message became."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    metadata: dict[str, Any] | None
    args: dict[str, Any]


@dataclass
class Message:
    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    thread_ts: str | None = None
    metadata: dict[str, Any] | None = None
    user: str | None = None
    bot_id: str | None = None
    via: str = "chat.postMessage"  # or "response_url" or "seed"
    args: dict[str, Any] = field(default_factory=dict)  # the call's arguments, as sent
    edits: int = 0  # how many times chat.update changed it

    def as_api(self, with_metadata: bool) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "message", "ts": self.ts, "text": self.text}
        if self.blocks:
            data["blocks"] = self.blocks
        if self.thread_ts:
            data["thread_ts"] = self.thread_ts
        if self.user:
            data["user"] = self.user
        if self.bot_id:
            data["bot_id"] = self.bot_id
        if with_metadata and self.metadata:
            data["metadata"] = self.metadata
        return data


def _truthy(value: Any) -> bool:
    return str(value).lower() in ("1", "true", "yes")


class FakeSlack(FakeHTTPServer):
    """Fake Slack Web API at ``{url}/api/``.

    Args:
        bot_token / app_token: the only tokens accepted (else ``invalid_auth``).
        not_member: channels where posting answers ``not_in_channel``.
    """

    def __init__(
        self,
        *,
        bot_token: str = "xoxb-test-token",
        app_token: str = "xapp-test-token",
        signing_secret: str = "test-signing-secret",
        team_id: str = "T0TEST",
        team_url: str = "https://fake-team.slack.com/",
        bot_id: str = "B0BOT",
        bot_user_id: str = "U0BOT",
        app_id: str = "A0APP",
        not_member: tuple[str, ...] = (),
        latency: float = 0.0,
        scopes: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(latency=latency)
        self.bot_token = bot_token
        self.app_token = app_token
        self.signing_secret = signing_secret
        self.team_id = team_id
        self.team_url = team_url
        self.bot_id = bot_id
        self.bot_user_id = bot_user_id
        self.app_id = app_id
        self.not_member = set(not_member)
        self.channel_names: dict[str, str] = {}  # conversations.info's names, by channel id
        self.scopes = set(DEFAULT_SCOPES if scopes is None else scopes)
        self.users: dict[str, dict[str, Any]] = {}
        self.add_user("U0ALICE", display_name="Alice", real_name="Alice Liddell")
        self.add_user("U0BOB", display_name="", real_name="Bob Stone")  # no display name set
        self._post_calls = 0
        self._post_faults: dict[int, str] = {}
        self.messages: list[Message] = []
        self.responses: list[dict[str, Any]] = []  # response_url posts: {"key", "body"}
        self.updates: list[Update] = []  # accepted chat.update calls, in order
        self._response_channels: dict[str, str] = {}
        self._counter = itertools.count(1)
        self._state = threading.Lock()
        self._socket: FakeSocketMode | None = None
        self.route("POST", r"/api/(?P<method>[\w.]+)", self._api)
        self.route("GET", r"/api/(?P<method>[\w.]+)", self._api)
        self.route("POST", r"/respond/(?P<key>[\w-]+)", self._response_url)

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def stop(self) -> None:
        if self._socket is not None:
            self._socket.stop()
            self._socket = None
        super().stop()

    # -- test helpers ------------------------------------------------------------------------

    def socket_mode(self) -> FakeSocketMode:
        """Start (once) the WebSocket server that apps.connections.open points at."""
        if self._socket is None:
            self._socket = FakeSocketMode(app_id=self.app_id).start()
        return self._socket

    def add_user(
        self, user_id: str, *, display_name: str = "", real_name: str = "", name: str = ""
    ) -> None:
        """A member of the workspace, as users.info describes them."""
        self.users[user_id] = {
            "id": user_id,
            "team_id": self.team_id,
            "name": name or user_id.lower(),
            "deleted": False,
            "real_name": real_name,
            "is_bot": False,
            "profile": {
                "display_name": display_name,
                "display_name_normalized": display_name,
                "real_name": real_name,
                "real_name_normalized": real_name,
            },
        }

    def next_ts(self) -> str:
        n = next(self._counter)
        return f"{BASE_TS + n}.{n:06d}"

    def add_message(
        self, channel: str, text: str, *, user: str = "U0HUMAN", thread_ts: str | None = None
    ) -> str:
        """A message someone else wrote (the bot's flags must ignore reactions on it)."""
        message = Message(channel, self.next_ts(), text, thread_ts=thread_ts, user=user, via="seed")
        with self._state:
            self.messages.append(message)
        return message.ts

    def posted(self, channel: str | None = None, *, via: str | None = None) -> list[Message]:
        """Messages the bot posted (chat.postMessage and in-channel responses), in order."""
        with self._state:
            return [
                m
                for m in self.messages
                if m.via != "seed"
                and (channel is None or m.channel == channel)
                and (via is None or m.via == via)
            ]

    def message(self, channel: str, ts: str) -> Message | None:
        """A kept message (as edited since), by channel and ts."""
        with self._state:
            return next((m for m in self.messages if m.channel == channel and m.ts == ts), None)

    def updated(self, channel: str | None = None, ts: str | None = None) -> list[Update]:
        """The chat.update calls Slack accepted, in order."""
        with self._state:
            return [
                u
                for u in self.updates
                if (channel is None or u.channel == channel) and (ts is None or u.ts == ts)
            ]

    def thread(self, channel: str, thread_ts: str) -> list[Message]:
        return [m for m in self.posted(channel) if m.thread_ts == thread_ts]

    def api_calls(self, method: str) -> list[RecordedRequest]:
        return self.calls(_method_path(method))

    def rate_limit(self, method: str = "chat.postMessage", *, times: int = 1, retry_after: int = 0):
        """The next `times` calls of `method` answer 429 with Retry-After, as Slack does."""
        return self.inject(
            _method_path(method),
            429,
            body={"ok": False, "error": "ratelimited"},
            headers={"Retry-After": str(retry_after)},
            times=times,
        )

    def fail_post(self, nth: int, mode: str = "refuse") -> None:
        """Make the `nth` chat.postMessage from now fail, as an interrupted digest would.

        ``refuse``: the message is not kept (the bot died before sending it).
        ``lose``: the message is kept but the answer is a 500 (the connection died after
        Slack accepted it), so the bot cannot know it was posted.
        """
        if mode not in ("refuse", "lose"):
            raise ValueError("mode must be 'refuse' or 'lose'")
        with self._state:
            self._post_faults[self._post_calls + nth] = mode

    def response_url(self, channel: str) -> str:
        """A response_url for a command typed in `channel`."""
        key = uuid.uuid4().hex
        with self._state:
            self._response_channels[key] = channel
        return f"{self.url}/respond/{key}"

    def responses_for(self, url: str) -> list[dict[str, Any]]:
        key = url.rsplit("/", 1)[-1]
        with self._state:
            return [r["body"] for r in self.responses if r["key"] == key]

    # -- signed requests, as Slack sends them -------------------------------------------------

    def sign(self, body: str, timestamp: int | None = None) -> dict[str, str]:
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        digest = hmac.new(
            self.signing_secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256
        ).hexdigest()
        return {"x-slack-request-timestamp": stamp, "x-slack-signature": f"v0={digest}"}

    def command_payload(
        self, command: str, text: str, *, channel: str = "C0DIGEST", user: str = "U0ALICE"
    ) -> dict[str, str]:
        return {
            "token": "legacy-verification-token",
            "team_id": self.team_id,
            "team_domain": "fake-team",
            "channel_id": channel,
            "channel_name": "prs",
            "user_id": user,
            "user_name": user.lower(),
            "command": command,
            "text": text,
            "api_app_id": self.app_id,
            "is_enterprise_install": "false",
            "response_url": self.response_url(channel),
            "trigger_id": f"{next(self._counter)}.trigger",
        }

    def event_payload(self, event: dict[str, Any]) -> dict[str, Any]:
        return {
            "token": "legacy-verification-token",
            "team_id": self.team_id,
            "api_app_id": self.app_id,
            "event": {"event_ts": f"{time.time():.6f}", **event},
            "type": "event_callback",
            "event_id": f"Ev{uuid.uuid4().hex[:10].upper()}",
            "event_time": int(time.time()),
            "authorizations": [
                {
                    "enterprise_id": None,
                    "team_id": self.team_id,
                    "user_id": self.bot_user_id,
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
        }

    def reaction_event(
        self, kind: str, channel: str, ts: str, *, user: str = "U0ALICE", reaction: str = "x"
    ) -> dict[str, Any]:
        return self.event_payload(
            {
                "type": kind,
                "user": user,
                "reaction": reaction,
                "item_user": self.bot_user_id,
                "item": {"type": "message", "channel": channel, "ts": ts},
            }
        )

    @staticmethod
    def form_body(payload: dict[str, str]) -> str:
        return urlencode(payload)

    # -- the Web API -------------------------------------------------------------------------

    @staticmethod
    def _args(req: RecordedRequest) -> dict[str, Any]:
        args: dict[str, Any] = dict(req.query)
        content_type = req.header("content-type", "") or ""
        if isinstance(req.json, dict):
            args.update(req.json)
        elif req.body and "form" in content_type:
            form = parse_qs(req.body.decode(), keep_blank_values=True)
            args.update({k: v[-1] for k, v in form.items()})
        for key in ("blocks", "metadata"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])  # form-encoded calls send JSON strings
        return args

    def _token(self, req: RecordedRequest, args: dict[str, Any]) -> str | None:
        auth = req.header("authorization") or ""
        if auth.lower().startswith("bearer "):
            return auth[7:]
        return args.get("token")

    def _api(self, req: RecordedRequest, match) -> Response:
        method = match["method"]
        args = self._args(req)
        token = self._token(req, args)
        if method == "apps.connections.open":
            if token != self.app_token:
                return _fail("invalid_auth")
            # An app made from the manifest has Socket Mode on: the server starts when asked.
            return _ok(url=self.socket_mode().url)
        if token != self.bot_token:
            return _fail("invalid_auth" if token else "not_authed")
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        if handler is None:
            return _fail("unknown_method")
        return handler(args)

    def _m_auth_test(self, args: dict[str, Any]) -> Response:
        answer = _ok(
            url=self.team_url, team="Fake Team", user="prdigest", team_id=self.team_id,
            user_id=self.bot_user_id, bot_id=self.bot_id, is_enterprise_install=False,
        )  # fmt: skip
        # As Slack does, the token's granted scopes in a header (prdigest doctor reads it).
        answer.headers["x-oauth-scopes"] = ",".join(sorted(self.scopes))
        return answer

    def _m_chat_postMessage(self, args: dict[str, Any]) -> Response:
        channel = str(args.get("channel") or "")
        if not channel:
            return _fail("channel_not_found")
        if channel in self.not_member:
            return _fail("not_in_channel")
        if not args.get("text") and not args.get("blocks"):
            return _fail("no_text")
        with self._state:
            self._post_calls += 1
            fault = self._post_faults.pop(self._post_calls, None)
        if fault == "refuse":
            return _fail("fatal_error")
        blocks = args.get("blocks") or []
        if len(blocks) > 50:
            return _fail("invalid_blocks", detail="more than 50 blocks")
        message = Message(
            channel=channel,
            ts=self.next_ts(),
            text=str(args.get("text") or ""),
            blocks=blocks,
            thread_ts=args.get("thread_ts"),
            metadata=args.get("metadata"),
            user=self.bot_user_id,
            bot_id=self.bot_id,
            args=args,
        )
        with self._state:
            self.messages.append(message)
        if fault == "lose":
            return Response(500, {"ok": False, "error": "internal_error"})
        return _ok(channel=channel, ts=message.ts, message=message.as_api(True))

    def _m_chat_update(self, args: dict[str, Any]) -> Response:
        channel, ts = str(args.get("channel") or ""), str(args.get("ts") or "")
        if not channel or not ts:
            return _fail("invalid_arguments")
        if not args.get("text") and not args.get("blocks"):
            return _fail("no_text")
        blocks = args.get("blocks")
        if blocks is not None and len(blocks) > 50:
            return _fail("invalid_blocks", detail="more than 50 blocks")
        with self._state:
            message = next((m for m in self.messages if m.channel == channel and m.ts == ts), None)
            if message is None:
                return _fail("message_not_found")
            if message.bot_id != self.bot_id:
                return _fail("cant_update_message")
            # As Slack does: text without blocks replaces the blocks; metadata left out stays.
            message.text = str(args.get("text") or "")
            message.blocks = list(blocks or [])
            if args.get("metadata") is not None:
                message.metadata = args["metadata"]
            message.edits += 1
            update = Update(channel, ts, message.text, message.blocks, message.metadata, args)
            self.updates.append(update)
        return _ok(channel=channel, ts=ts, text=message.text, message=message.as_api(True))

    def _m_chat_getPermalink(self, args: dict[str, Any]) -> Response:
        channel, ts = str(args.get("channel") or ""), str(args.get("message_ts") or "")
        message = self.message(channel, ts)
        if message is None:
            return _fail("message_not_found")
        url = f"{self.team_url.rstrip('/')}/archives/{channel}/p{ts.replace('.', '')}"
        if message.thread_ts and message.thread_ts != ts:
            url += f"?thread_ts={message.thread_ts}&cid={channel}"
        return _ok(channel=channel, permalink=url)

    def _m_users_info(self, args: dict[str, Any]) -> Response:
        if "users:read" not in self.scopes:
            return _fail("missing_scope", needed="users:read", provided=",".join(self.scopes))
        user = self.users.get(str(args.get("user") or ""))
        return _ok(user=user) if user is not None else _fail("user_not_found")

    def _m_conversations_info(self, args: dict[str, Any]) -> Response:
        # As Slack: channels:read, which the manifest does not ask for (prdigest doctor
        # falls back to conversations.history without it).
        if "channels:read" not in self.scopes:
            return _fail("missing_scope", needed="channels:read", provided=",".join(self.scopes))
        channel = str(args.get("channel") or "")
        if not channel:
            return _fail("channel_not_found")
        return _ok(
            channel={
                "id": channel, "name": self.channel_names.get(channel, channel.lower()),
                "is_channel": True, "is_member": channel not in self.not_member,
            }
        )  # fmt: skip

    def _m_conversations_history(self, args: dict[str, Any]) -> Response:
        channel = str(args.get("channel") or "")
        if channel in self.not_member:
            return _fail("not_in_channel")
        inclusive = _truthy(args.get("inclusive", "0"))
        latest = args.get("latest")
        oldest = args.get("oldest")

        def in_range(ts: str) -> bool:
            value = float(ts)
            if latest and (value > float(latest) or (value == float(latest) and not inclusive)):
                return False
            return not (
                oldest and (value < float(oldest) or (value == float(oldest) and not inclusive))
            )

        with self._state:
            top = [
                m
                for m in self.messages
                if m.channel == channel and (not m.thread_ts or m.thread_ts == m.ts)
            ]
        found = sorted((m for m in top if in_range(m.ts)), key=lambda m: float(m.ts), reverse=True)
        return self._page(found, args)

    def _m_conversations_replies(self, args: dict[str, Any]) -> Response:
        channel, ts = str(args.get("channel") or ""), str(args.get("ts") or "")
        with self._state:
            parent = [m for m in self.messages if m.channel == channel and m.ts == ts]
            replies = [
                m
                for m in self.messages
                if m.channel == channel and m.thread_ts == ts and m.ts != ts
            ]
        if not parent:
            return _fail("thread_not_found")
        return self._page(parent + sorted(replies, key=lambda m: float(m.ts)), args)

    def _page(self, messages: list[Message], args: dict[str, Any]) -> Response:
        limit = max(1, min(int(args.get("limit") or 100), 1000))
        start = int(args.get("cursor") or 0)
        page = messages[start : start + limit]
        more = start + limit < len(messages)
        with_metadata = _truthy(args.get("include_all_metadata", "0"))
        return _ok(
            messages=[m.as_api(with_metadata) for m in page],
            has_more=more,
            response_metadata={"next_cursor": str(start + limit) if more else ""},
        )

    # -- response_url ------------------------------------------------------------------------

    def _response_url(self, req: RecordedRequest, match) -> Response:
        key = match["key"]
        body = req.json if isinstance(req.json, dict) else {}
        with self._state:
            channel = self._response_channels.get(key)
            self.responses.append({"key": key, "body": body})
        if channel is None:
            return Response(404, "no_response_url")
        if body.get("response_type") == "in_channel":
            # In-channel answers become ordinary channel messages, posted as the app's bot.
            message = Message(
                channel=channel, ts=self.next_ts(), text=str(body.get("text") or ""),
                blocks=body.get("blocks") or [], metadata=body.get("metadata"),
                user=self.bot_user_id, bot_id=self.bot_id, via="response_url", args=body,
            )  # fmt: skip
            with self._state:
                self.messages.append(message)
        return Response(200, "ok")


def _method_path(method: str) -> str:
    return "^/api/" + re.escape(method) + "$"


def _ok(**data: Any) -> Response:
    return Response(200, {"ok": True, **data})


def _fail(error: str, **data: Any) -> Response:
    # Slack answers API errors with HTTP 200 and ok: false.
    return Response(200, {"ok": False, "error": error, **data})


# --------------------------------------------------------------------------------------------
# Socket Mode
# --------------------------------------------------------------------------------------------


class FakeSocketMode:
    """A Socket Mode endpoint on its own thread and event loop.

    On connect it says ``hello``; ``send()`` pushes an envelope to the connected app and
    ``wait_ack()`` returns what the app acknowledged for that ``envelope_id``.
    """

    def __init__(self, *, app_id: str = "A0APP") -> None:
        self.app_id = app_id
        self.acks: dict[str, dict[str, Any]] = {}
        self.connections = 0
        self._cond = threading.Condition()
        self._clients: set[Any] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._port = 0
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._port}/link/?ticket={uuid.uuid4().hex}"

    def start(self) -> FakeSocketMode:
        self._thread = threading.Thread(target=self._run, name="FakeSocketMode", daemon=True)
        self._thread.start()
        if not self._ready.wait(5):
            raise RuntimeError("socket mode server did not start")
        return self

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._serve())
        self._loop.run_forever()
        self._loop.close()

    async def _serve(self) -> None:
        from websockets.asyncio.server import serve

        self._server = await serve(self._handler, "127.0.0.1", 0)
        self._port = self._server.sockets[0].getsockname()[1]
        self._ready.set()

    async def _handler(self, ws: Any) -> None:
        hello = {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {"host": "fake-slack", "build_number": 1},
            "connection_info": {"app_id": self.app_id},
        }
        await ws.send(json.dumps(hello))
        with self._cond:
            self._clients.add(ws)
            self.connections += 1
            self._cond.notify_all()
        try:
            async for raw in ws:
                try:
                    data = json.loads(raw)
                except ValueError:
                    continue
                envelope_id = data.get("envelope_id")
                if envelope_id:
                    with self._cond:
                        self.acks[envelope_id] = data
                        self._cond.notify_all()
        except Exception:  # noqa: BLE001 - a client dropping the connection is normal
            pass
        finally:
            with self._cond:
                self._clients.discard(ws)
                self._cond.notify_all()

    def wait_connected(self, timeout: float = 5.0) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: bool(self._clients), timeout):
                raise TimeoutError("no Socket Mode client connected")

    def send(self, kind: str, payload: dict[str, Any], *, accepts_response: bool = True) -> str:
        """Push an envelope (`slash_commands`, `events_api`...) to the connected client."""
        envelope_id = str(uuid.uuid4())
        envelope: dict[str, Any] = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": accepts_response,
        }
        if kind == "events_api":
            envelope.update(retry_attempt=0, retry_reason="")
        text = json.dumps(envelope)

        async def push() -> None:
            for ws in list(self._clients):
                await ws.send(text)

        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(push(), self._loop).result(5)
        return envelope_id

    def wait_ack(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        with self._cond:
            if not self._cond.wait_for(lambda: envelope_id in self.acks, timeout):
                raise TimeoutError(f"envelope {envelope_id} was not acknowledged")
            return self.acks[envelope_id]

    def stop(self) -> None:
        loop = self._loop
        if loop is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
                await self._server.wait_closed()

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), loop).result(5)
        except Exception:  # noqa: BLE001 - best effort at teardown
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = None


# --------------------------------------------------------------------------------------------
# Driving a real Bolt app with signed requests (Bolt's own scenario tests do the same)
# --------------------------------------------------------------------------------------------


@dataclass
class Delivery:
    """Bolt's answer to one request: status, and the ack body (what the user sees at once)."""

    status: int
    body: str
    response_url: str | None = None

    @property
    def ack(self) -> dict[str, Any]:
        if not self.body:
            return {}
        try:
            data = json.loads(self.body)
        except ValueError:
            return {"text": self.body}
        return data if isinstance(data, dict) else {"text": self.body}

    @property
    def text(self) -> str:
        return str(self.ack.get("text", ""))


class BoltDriver:
    """Sends slash commands and events through ``app.async_dispatch`` as Slack's HTTP
    delivery would: form or JSON bodies, signed with the fake's signing secret."""

    def __init__(self, app: Any, slack: FakeSlack) -> None:
        self.app = app
        self.slack = slack

    async def dispatch(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        signature: str | None = None,
    ) -> Any:
        from slack_bolt.request.async_request import AsyncBoltRequest

        headers = {"content-type": content_type, **self.slack.sign(body, timestamp)}
        if signature is not None:
            headers["x-slack-signature"] = signature
        return await self.app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))

    async def command(
        self,
        command: str,
        text: str,
        *,
        channel: str = "C0DIGEST",
        user: str = "U0ALICE",
        response_url: str | None = None,
        **kw: Any,
    ) -> Delivery:
        payload = self.slack.command_payload(command, text, channel=channel, user=user)
        if response_url is not None:
            payload["response_url"] = response_url
        body = self.slack.form_body(payload)
        response = await self.dispatch(body, "application/x-www-form-urlencoded", **kw)
        return Delivery(response.status, response.body or "", payload["response_url"])

    async def event(self, payload: dict[str, Any], **kw: Any) -> Delivery:
        response = await self.dispatch(json.dumps(payload), "application/json", **kw)
        return Delivery(response.status, response.body or "")

    async def react(
        self,
        channel: str,
        ts: str,
        *,
        user: str = "U0ALICE",
        reaction: str = "x",
        removed: bool = False,
    ) -> Delivery:
        kind = "reaction_removed" if removed else "reaction_added"
        return await self.event(
            self.slack.reaction_event(kind, channel, ts, user=user, reaction=reaction)
        )


class BotUnderTest:
    """A real SlackBot over a real Store and DigestService, pointed at the fakes.

    Creating a second one over the same database is a restart, as after a crash.
    """

    def __init__(self, settings: Any, slack: FakeSlack, *, pace: float = 0.0) -> None:
        from dataclasses import replace

        from adapters.slack.app import SlackBot
        from bot.app.compose import build_service
        from bot.store.store import Store

        self.settings = replace(
            settings,
            slack_bot_token=slack.bot_token,
            slack_app_token=slack.app_token,
            slack_signing_secret=slack.signing_secret,
            slack_api_url=slack.api_url,
        )
        self.slack = slack
        self.store = Store(self.settings.db_path)
        self.service = build_service(self.settings, self.store)
        self.bot = SlackBot(self.settings, self.service, self.store, pace=pace)
        self.driver = BoltDriver(self.bot.app, slack)

    async def command(self, command: str, text: str, **kw: Any) -> Delivery:
        """Send a command and wait for all the work it started."""
        delivery = await self.driver.command(command, text, **kw)
        await self.bot.drain(20)
        return delivery

    async def react(self, channel: str, ts: str, **kw: Any) -> Delivery:
        delivery = await self.driver.react(channel, ts, **kw)
        await self.bot.drain(20)
        return delivery

    async def aclose(self) -> None:
        await self.bot.aclose()
        await self.service.aclose()
        self.store.close()
