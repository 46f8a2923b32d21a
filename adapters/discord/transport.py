"""The `Transport` of `bot.ports.chat` on Discord: send rendered messages, find sent ones.

`DigestPoster` owns the idempotency records and the posting loop; this only talks to Discord.
A digest is a parent message in the channel, a public thread started from it (whose id is
the parent message's id), and one message per PR in the thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import discord
import yarl

from adapters.discord import render
from bot.core.models import Digest, DigestEntry, Platform
from bot.core.settings import Settings
from bot.ports.chat import Posted

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"

NO_MENTIONS = discord.AllowedMentions.none()
THREAD_ALREADY_EXISTS = 160004  # Discord's error code: the message already has a thread
THREAD_ARCHIVE_MINUTES = 10080  # a week: people react to a digest for days after it is posted
HISTORY_SCAN = 300  # only read after a crash: the unrecorded message is among the newest
EXTRA_429_RETRIES = 5


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at DISCORD_API_URL / DISCORD_GATEWAY_URL (Discord's own by default).

    discord.py has no setting for this; these two class attributes are where it reads the
    REST base and the gateway, which is why pyproject pins discord.py's minor version.
    Always assigned, so one process (or one test run) never keeps a previous value.
    """
    discord.http.Route.BASE = (settings.discord_api_url or DEFAULT_API_URL).rstrip("/")
    gateway = settings.discord_gateway_url or DEFAULT_GATEWAY_URL
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


class DiscordTransport:
    platform = Platform.DISCORD

    def __init__(self, client: discord.Client, *, flag_hint: str | None = None) -> None:
        self.client = client
        self.flag_hint = flag_hint  # the emoji the parent message tells people to react with
        self.guilds: dict[str, int] = {}  # channel id -> guild id, learned from interactions

    # -- Transport -----------------------------------------------------------------------

    async def send_parent(self, channel: str, digest: Digest) -> Posted:
        message = await self.send(channel, render.parent_message(digest, self.flag_hint))
        thread_id = await self._start_thread(channel, str(message.id), digest)
        return Posted(str(message.id), thread_id)

    async def send_reply(
        self, channel: str, thread_id: str, digest: Digest, entry: DigestEntry, index: int
    ) -> Posted:
        parts = self._entry_parts(digest, entry, index)
        first = await self.send(thread_id, parts[0])
        for part in parts[1:]:
            await self.send(thread_id, part)
        return Posted(str(first.id), thread_id)

    async def send_empty(self, channel: str, digest: Digest) -> Posted:
        message = await self.send(channel, render.empty_message(digest))
        return Posted(str(message.id))

    async def send_group(self, channel: str, thread_id: str, digest: Digest) -> Posted:
        parts = render.group_messages(digest, self.flag_hint)
        first = await self.send(thread_id, parts[0])
        for part in parts[1:]:
            await self.send(thread_id, part)
        return Posted(str(first.id), thread_id)

    async def find_group(self, channel: str, thread_id: str, digest: Digest) -> Posted | None:
        """Part 1 of the grouped reply if the thread has it (known by its first line, which
        names a weekly rollup's area), after sending any of its later parts that never got
        there; None when part 1 is not there."""
        found: dict[int, discord.Message] = {}
        async for message in self._own_history(thread_id):
            part = render.group_part_of(message.content, digest.group_title)
            if part is not None:
                found.setdefault(part, message)
        if 1 not in found:
            return None
        parts = render.group_messages(digest, self.flag_hint)
        for number, part in enumerate(parts[1:], start=2):
            if number not in found:
                await self.send(thread_id, part)
        return Posted(str(found[1].id), thread_id)

    async def edit_parent(self, channel: str, posted: Posted, digest: Digest) -> None:
        """Replace the parent's content and embeds with the parent rendered again (now with
        `digest.links`); its first line, which crash recovery looks for, stays the same."""
        message = self._parent(digest)
        target = self._messageable(channel).get_partial_message(int(posted.message_id))
        embeds = [discord.Embed.from_dict(e) for e in message.embeds]
        await _retry_429(
            lambda: target.edit(
                content=message.content or None, embeds=embeds, allowed_mentions=NO_MENTIONS
            )
        )

    async def edit_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> None:
        """Replace a reply posted without a summary with `entry`'s (its embed keeps the PR's
        URL, which crash recovery looks for); a summary too long for one message gets its
        later parts after it, each once."""
        parts = self._entry_parts(digest, entry, index)
        thread = posted.thread_id or channel
        target = self._messageable(thread).get_partial_message(int(posted.message_id))
        embeds = [discord.Embed.from_dict(e) for e in parts[0].embeds]
        await _retry_429(
            lambda: target.edit(
                content=parts[0].content or None, embeds=embeds, allowed_mentions=NO_MENTIONS
            )
        )
        if len(parts) > 1:
            await self.find_reply(channel, thread, digest, entry.pr.number)

    async def shows_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> bool:
        """Whether the reply's first embed already reads as `entry`'s does."""
        expected = self._entry_parts(digest, entry, index)[0].embeds
        message = await self._fetch(posted.thread_id or channel, posted.message_id)
        if message is None or not message.embeds or not expected:
            return False
        return _embed_text(message.embeds[0].to_dict()) == _embed_text(expected[0])

    async def shows_parent(self, channel: str, posted: Posted, digest: Digest) -> bool:
        """Whether the parent's content (its counts) already reads as `digest` renders it."""
        message = await self._fetch(channel, posted.message_id)
        return message is not None and (message.content or "") == self._parent(digest).content

    async def _fetch(self, channel: str, message_id: str) -> discord.Message | None:
        try:
            target = self._messageable(channel)
            return await _retry_429(lambda: target.fetch_message(int(message_id)))
        except discord.NotFound:
            return None

    async def find_parent(self, channel: str, digest: Digest) -> Posted | None:
        expected = self._parent(digest).content.split("\n", 1)[0]
        async for message in self._own_history(channel):
            if message.content.split("\n", 1)[0] == expected:
                if not digest.entries:
                    return Posted(str(message.id))
                # The crash may have come between the message and its thread.
                thread_id = await self._start_thread(channel, str(message.id), digest)
                return Posted(str(message.id), thread_id)
        return None

    async def find_reply(
        self, channel: str, thread_id: str, digest: Digest, pr_number: int
    ) -> Posted | None:
        index, entry = digest.reply_index(pr_number)
        found: dict[int, discord.Message] = {}
        async for message in self._own_history(thread_id):
            if message.embeds and message.embeds[0].url == entry.pr.url:
                found.setdefault(render.part_of(message.embeds[0].to_dict()), message)
        if 1 not in found:
            return None
        # A PR too long for one message may have been cut off between its parts: finish it.
        parts = self._entry_parts(digest, entry, index)
        for number, part in enumerate(parts[1:], start=2):
            if number not in found:
                await self.send(thread_id, part)
        return Posted(str(found[1].id), thread_id)

    def link(self, channel: str, posted: Posted) -> str:
        """The message's URL; a reply's is in its thread, in the parent channel's guild."""
        if posted.thread_id and posted.thread_id != posted.message_id:
            guild = self.guild_of(channel) or "@me"
            return f"https://discord.com/channels/{guild}/{posted.thread_id}/{posted.message_id}"
        return self.message_link(channel, posted.message_id)

    # -- helpers (also used by the command handlers) ---------------------------------------

    def message_link(self, channel: str, message_id: str) -> str:
        guild = self.guild_of(channel)
        return f"https://discord.com/channels/{guild or '@me'}/{channel}/{message_id}"

    def guild_of(self, channel: str) -> int | None:
        cached = self.client.get_channel(int(channel))
        guild = getattr(cached, "guild", None)
        return guild.id if guild is not None else self.guilds.get(channel)

    async def send(self, channel: str, message: render.Message) -> discord.Message:
        """Send one rendered message; no mention in it can ping anyone."""
        target = self._messageable(channel)
        embeds = [discord.Embed.from_dict(e) for e in message.embeds]
        return await _retry_429(
            lambda: target.send(
                content=message.content or None, embeds=embeds, allowed_mentions=NO_MENTIONS
            )
        )

    async def edit_content(
        self, channel: str, message_id: str, change: Callable[[str], str]
    ) -> None:
        """Replace one of the bot's messages' content with `change(current content)`.

        Read first (so a line is added, not the content lost), then PATCH with the content
        only: the embeds stay as they are.
        """
        target = self._messageable(channel)
        message = await _retry_429(lambda: target.fetch_message(int(message_id)))
        content = change(message.content or "")
        await _retry_429(lambda: message.edit(content=content, allowed_mentions=NO_MENTIONS))

    def _parent(self, digest: Digest) -> render.Message:
        if not digest.entries:
            return render.empty_message(digest)
        return render.parent_message(digest, self.flag_hint)

    def _entry_parts(self, digest: Digest, entry: DigestEntry, index: int) -> list[render.Message]:
        return render.entry_messages(
            entry,
            digest.window.start.tzinfo,
            index=index,
            total=len(digest.thread_entries),
            links=digest.links,
        )

    def _messageable(self, channel: str) -> Any:
        cached = self.client.get_channel(int(channel))
        if isinstance(cached, discord.abc.Messageable):
            return cached
        return self.client.get_partial_messageable(int(channel), guild_id=self.guilds.get(channel))

    async def _own_history(self, channel: str):
        bot_id = self.client.user.id if self.client.user else None
        target = self._messageable(channel)
        async for message in target.history(limit=HISTORY_SCAN):
            if message.author.id == bot_id:
                yield message

    async def _start_thread(self, channel: str, message_id: str, digest: Digest) -> str:
        # The HTTP call, not Message.create_thread: that needs the guild in the cache, and a
        # resumed post may run before the gateway has delivered it.
        try:
            data = await _retry_429(
                lambda: self.client.http.start_thread_with_message(
                    int(channel),
                    int(message_id),
                    name=render.thread_name(digest),
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                )
            )
        except discord.HTTPException as exc:
            if exc.code == THREAD_ALREADY_EXISTS:
                return message_id  # a thread started from a message has the message's id
            raise
        return str(data["id"])


async def _retry_429(call):
    """discord.py waits out a 429 five times per request; keep waiting rather than drop."""
    for attempt in range(EXTRA_429_RETRIES + 1):
        try:
            return await call()
        except discord.HTTPException as exc:
            if exc.status != 429 or attempt == EXTRA_429_RETRIES:
                raise
            retry_after = _retry_after(exc)
            log.warning("Discord kept rate limiting a request; waiting %.1fs", retry_after)
            await asyncio.sleep(retry_after)
    raise AssertionError("unreachable")


def _retry_after(exc: discord.HTTPException) -> float:
    try:
        return max(0.0, float(exc.response.headers.get("Retry-After") or 1.0))
    except (AttributeError, ValueError):
        return 1.0


def _embed_text(embed: dict[str, Any]) -> tuple[Any, ...]:
    """What a reader sees of an embed, whatever defaults Discord adds to it."""
    fields = tuple((f.get("name"), f.get("value")) for f in embed.get("fields") or [])
    return embed.get("title"), embed.get("description"), fields
