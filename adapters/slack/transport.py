"""The Slack side of `bot.ports.chat.Transport`: sending messages and finding ones we sent.

DigestPoster owns idempotency (what was posted, what to resume); this class only talks to
the Web API. It paces messages per channel (chat.postMessage allows about one a second in
a channel), lets slack_sdk's retry handler wait out 429s with their Retry-After, and tags
every message with metadata so a message sent just before a crash can be found again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import render
from adapters.slack.render.mrkdwn import SlackMessage
from bot.core.models import Digest, DigestEntry, Platform
from bot.core.scope import label_of
from bot.ports.chat import Posted

log = logging.getLogger(__name__)

PLATFORM = Platform.SLACK
DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_PACE = 1.0  # seconds between two messages in one channel
# A 429 is waited out (Retry-After) this many times before the call fails; a digest's reply
# is never dropped, and one that still fails stays pending for the next /digest to resume.
RATE_LIMIT_RETRIES = 20
# How far back a crash is looked for: the message was sent seconds before, so it is recent.
SEARCH_PAGES = 5
SEARCH_PAGE_SIZE = 200


def api_base_url(url: str | None) -> str:
    """SLACK_API_URL with the trailing slash slack_sdk needs (it joins method names on)."""
    value = (url or DEFAULT_API_URL).strip()
    return value if value.endswith("/") else value + "/"


def retry_handlers() -> list[AsyncRetryHandler]:
    return [
        AsyncConnectionErrorRetryHandler(),
        AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
    ]


def make_client(token: str | None, api_url: str | None) -> AsyncWebClient:
    """The one Web API client: Bolt's listeners, the transport and Socket Mode share it."""
    return AsyncWebClient(
        token=token,
        base_url=api_base_url(api_url),
        retry_handlers=retry_handlers(),
    )


class SlackTransport:
    platform = PLATFORM

    def __init__(
        self, client: AsyncWebClient, *, pace: float = DEFAULT_PACE, flag_emoji: str = "x"
    ):
        self.client = client
        self.pace = max(0.0, pace)
        self.flag_emoji = flag_emoji
        self.team_url: str | None = None
        self.bot_id: str | None = None
        self.bot_user_id: str | None = None
        self._identity_lock = asyncio.Lock()
        self._channel_locks: dict[str, asyncio.Lock] = {}
        self._last_sent: dict[str, float] = {}

    # -- who we are ----------------------------------------------------------------------

    async def identify(self) -> None:
        """Learn the workspace URL (for links) and our bot id (to recognise our messages)."""
        async with self._identity_lock:
            if self.team_url is not None:
                return
            result = await self.client.auth_test()
            self.team_url = str(result.get("url") or "https://slack.com/")
            self.bot_id = result.get("bot_id")
            self.bot_user_id = result.get("user_id")

    def link(self, channel: str, posted: Posted) -> str:
        """The message's permalink, built as Slack builds it; a reply's opens its thread."""
        base = (self.team_url or "https://slack.com/").rstrip("/")
        url = f"{base}/archives/{channel}/p{posted.message_id.replace('.', '')}"
        if posted.thread_id and posted.thread_id != posted.message_id:
            url += f"?thread_ts={posted.thread_id}&cid={channel}"
        return url

    def is_ours(self, message: dict[str, Any]) -> bool:
        # Metadata can only be written by apps; still, another app's lookalike is not ours.
        bot_id = message.get("bot_id")
        return not (bot_id and self.bot_id and bot_id != self.bot_id)

    # -- sending ---------------------------------------------------------------------------

    async def post(
        self, channel: str, message: SlackMessage, *, thread_ts: str | None = None
    ) -> str:
        """chat.postMessage, paced per channel; returns the message's ts."""
        lock = self._channel_locks.setdefault(channel, asyncio.Lock())
        async with lock:
            wait = self._last_sent.get(channel, float("-inf")) + self.pace - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                kwargs = message.as_kwargs()
                if thread_ts:
                    kwargs["thread_ts"] = thread_ts
                result = await self.client.chat_postMessage(channel=channel, **kwargs)
            finally:
                # A failed call counts too: Slack rate-limits attempts, not successes.
                self._last_sent[channel] = time.monotonic()
        return str(result["ts"])

    async def post_text(self, channel: str, text: str, *, thread_ts: str | None = None) -> str:
        """A short notice (already escaped by the caller) as a plain message."""
        return await self.post(
            channel, SlackMessage(text, [render.section(text)]), thread_ts=thread_ts
        )

    async def post_all(
        self, channel: str, messages: list[SlackMessage], *, thread_ts: str | None = None
    ) -> str:
        """A message and its continuations, in order; returns the first one's ts."""
        first = await self.post(channel, messages[0], thread_ts=thread_ts)
        for continuation in messages[1:]:
            await self.post(channel, continuation, thread_ts=thread_ts)
        return first

    async def update(self, channel: str, ts: str, message: SlackMessage) -> None:
        """chat.update with the whole message: blocks that are not sent are dropped.

        Edits are not paced: chat.update has its own (per-app) limit, and a 429 is waited
        out by the retry handler like any other.
        """
        kwargs: dict[str, Any] = {"text": message.text, "blocks": message.blocks}
        if message.metadata is not None:
            kwargs["metadata"] = message.metadata
        await self.client.chat_update(channel=channel, ts=ts, **kwargs)

    async def permalink(self, channel: str, ts: str, *, thread_ts: str | None = None) -> str:
        """chat.getPermalink; if Slack will not say, the link built the way `link()` does."""
        try:
            result = await self.client.chat_getPermalink(channel=channel, message_ts=ts)
            if result.get("permalink"):
                return str(result["permalink"])
        except SlackApiError as exc:
            log.info("no permalink for %s in %s: %s", ts, channel, exc)
        return self.link(channel, Posted(ts, thread_ts))

    async def send_parent(self, channel: str, digest: Digest) -> Posted:
        await self.identify()
        message = render.parent_message(digest, flag_emoji=self.flag_emoji)
        ts = await self.post(channel, message)
        return Posted(ts, ts)

    async def send_reply(
        self, channel: str, thread_id: str, digest: Digest, entry: DigestEntry, index: int
    ) -> Posted:
        messages = render.reply_messages(digest, entry, index)
        first = await self.post_all(channel, messages, thread_ts=thread_id)
        return Posted(first, thread_id)

    async def send_empty(self, channel: str, digest: Digest) -> Posted:
        await self.identify()
        ts = await self.post(channel, render.empty_message(digest))
        return Posted(ts, None)

    async def send_group(self, channel: str, thread_id: str, digest: Digest) -> Posted:
        messages = render.group_messages(digest, flag_emoji=self.flag_emoji)
        first = await self.post_all(channel, messages, thread_ts=thread_id)
        return Posted(first, thread_id)

    async def edit_parent(self, channel: str, posted: Posted, digest: Digest) -> None:
        """chat.update with the parent rendered again (now with `digest.links`) and the same
        metadata, so crash recovery still finds it."""
        message = render.parent_message(digest, flag_emoji=self.flag_emoji)
        await self.update(channel, posted.message_id, message)

    async def edit_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> None:
        """chat.update of a reply posted without a summary, now with `entry`'s (the same
        metadata, so crash recovery and flags still find it); a summary too long for one
        message gets its continuation parts after it, each once."""
        messages = render.reply_messages(digest, entry, index)
        await self.update(channel, posted.message_id, messages[0])
        if len(messages) > 1:
            await self.find_reply(channel, posted.thread_id or "", digest, entry.pr.number)

    async def shows_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> bool:
        """Whether the reply's metadata already names `entry`'s summary."""
        await self.identify()
        thread = posted.thread_id or posted.message_id
        async for message in self._messages("conversations_replies", channel=channel, ts=thread):
            if str(message.get("ts")) == posted.message_id:
                payload = self.payload_of(message, render.PR_EVENT) or {}
                return entry.summary is not None and payload.get("summary_id") == entry.summary.id
        return False

    async def shows_parent(self, channel: str, posted: Posted, digest: Digest) -> bool:
        """Whether the parent's blocks already read as `digest` renders them."""
        message = await self.find_message(channel, posted.message_id)
        expected = render.parent_message(digest, flag_emoji=self.flag_emoji)
        return message is not None and _texts(message.get("blocks") or []) == _texts(
            expected.blocks
        )

    # -- finding what a crash left unrecorded ---------------------------------------------

    async def find_parent(self, channel: str, digest: Digest) -> Posted | None:
        """The digest's parent (or empty-day) message, known by its metadata: the same repo,
        day and scope, so a day's whole digest, a filtered one and a weekly rollup (a message
        from before scopes existed is the whole day's) are never taken for one another."""
        await self.identify()
        day = digest.window.day.isoformat()
        async for message in self._messages("conversations_history", channel=channel):
            payload = self.payload_of(message, render.DIGEST_EVENT)
            if (
                payload
                and payload.get("repo") == digest.repo
                and payload.get("day") == day
                and payload.get("scope", "") == label_of(digest)
            ):
                ts = str(message["ts"])
                return Posted(ts, ts if payload.get("kind") != "empty" else None)
        return None

    async def find_reply(
        self, channel: str, thread_id: str, digest: Digest, pr_number: int
    ) -> Posted | None:
        """Part 1 of the PR's reply if the thread has it, after posting any of its
        continuation parts that never got there (a failure or crash between the parts):
        every part ends up in the thread once, none is sent twice."""
        await self.identify()
        first: str | None = None
        found: set[int] = set()
        async for message in self._messages("conversations_replies", channel=channel, ts=thread_id):
            payload = self.payload_of(message, render.PR_EVENT)
            if not payload or payload.get("pr") != pr_number or payload.get("repo") != digest.repo:
                continue
            part = payload.get("part", 1)
            if part == 1:
                if first is not None:
                    break  # a later message of the same PR (a correction): not this reply
                first = str(message["ts"])
            elif first is not None and isinstance(part, int):
                found.add(part)
        if first is None:
            return None
        index, entry = digest.reply_index(pr_number)
        messages = render.reply_messages(digest, entry, index)
        for part, message in enumerate(messages[1:], start=2):
            if part not in found:
                await self.post(channel, message, thread_ts=thread_id)
        return Posted(first, thread_id)

    async def find_group(self, channel: str, thread_id: str, digest: Digest) -> Posted | None:
        """Part 1 of the digest's grouped reply if the thread has it, after posting any of its
        later parts that never got there; None when part 1 is not there. A weekly rollup's
        area replies are told apart by their `title` (the day's grouped reply has none)."""
        await self.identify()
        day = digest.window.day.isoformat()
        first: str | None = None
        found: set[int] = set()
        async for message in self._messages("conversations_replies", channel=channel, ts=thread_id):
            payload = self.payload_of(message, render.GROUP_EVENT)
            if (
                not payload
                or payload.get("repo") != digest.repo
                or payload.get("day") != day
                or payload.get("title", "") != digest.group_title
            ):
                continue
            part = payload.get("part", 1)
            if part == 1:
                if first is not None:
                    break  # a second grouped reply: not the one we are finishing
                first = str(message["ts"])
            elif first is not None and isinstance(part, int):
                found.add(part)
        if first is None:
            return None
        messages = render.group_messages(digest, flag_emoji=self.flag_emoji)
        for part, message in enumerate(messages[1:], start=2):
            if part not in found:
                await self.post(channel, message, thread_ts=thread_id)
        return Posted(first, thread_id)

    async def find_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """One top-level message by its ts, metadata included (None if not visible to us)."""
        result = await self.client.conversations_history(
            channel=channel, latest=ts, oldest=ts, inclusive=True, limit=1,
            include_all_metadata=True,
        )  # fmt: skip
        for message in result.get("messages") or []:
            if str(message.get("ts")) == ts:
                return message
        return None

    async def is_member(self, channel: str) -> bool:
        """Whether the bot can read (so post in) `channel`; unknown errors count as yes."""
        try:
            await self.client.conversations_history(channel=channel, limit=1)
        except SlackApiError as exc:
            return exc.response.get("error") not in ("not_in_channel", "channel_not_found")
        return True

    def payload_of(self, message: dict[str, Any], event_type: str) -> dict[str, Any] | None:
        metadata = message.get("metadata") or {}
        if metadata.get("event_type") != event_type or not self.is_ours(message):
            return None
        payload = metadata.get("event_payload")
        return payload if isinstance(payload, dict) else None

    async def _messages(self, method: str, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        call = getattr(self.client, method)
        cursor: str | None = None
        for _ in range(SEARCH_PAGES):
            result = await call(
                **kwargs, limit=SEARCH_PAGE_SIZE, include_all_metadata=True, cursor=cursor
            )
            for message in result.get("messages") or []:
                yield message
            cursor = (result.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    """The text of each block and element: what a reader sees, whatever ids Slack adds."""
    texts = []
    for block in blocks:
        text = block.get("text")
        if isinstance(text, dict):
            texts.append(str(text.get("text")))
        for element in block.get("elements") or []:
            if isinstance(element, dict) and "text" in element:
                texts.append(str(element["text"]))
    return texts
