"""The Discord bot: a discord.py Client with `/digest`, `/prsummary` and flag reactions.

Listeners stay thin: they hand the command, with a reply object that answers (or defers)
through the interaction, to the platform-neutral `bot.chat.core.ChatCore`, which runs the
flow. Only the guilds and guild-reactions intents are used: no privileged intent, no message
content.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, tzinfo
from typing import Any

import discord
from discord import app_commands

from adapters.discord import render
from adapters.discord.render import search as render_search
from adapters.discord.transport import NO_MENTIONS, DiscordTransport, apply_endpoints
from bot.chat.core import Ask, ChatBot, ChatCore
from bot.chat.flags.emoji import EMOJI_NAMES
from bot.chat.posting import PostOutcome
from bot.chat.tasks import report
from bot.core.day_window import zone
from bot.core.errors import ConfigurationError
from bot.core.models import Digest, DigestEntry, Flag, Platform, PostRecord, RevisionOutcome
from bot.core.search import AskAnswer, FoundPR, SearchTerms
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.chat import Posted, Reaction
from bot.store.store import Store

log = logging.getLogger(__name__)

PLATFORM = Platform.DISCORD
THREAD_TYPES = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
RECENT_DAYS = 7  # dates offered by /digest's autocomplete besides today and yesterday
SUBSCRIPTION_WORDS = ("subscribe", "unsubscribe", "subscriptions")
SEARCH_WORDS = ("search", "ask")
# What posting a digest takes in a channel (the invite asks for these, plus add_reactions).
POSTING_PERMISSIONS = (
    "send_messages",
    "create_public_threads",
    "send_messages_in_threads",
    "embed_links",
    "read_message_history",
)
SHUTDOWN_GRACE = 5.0  # seconds a closing bot lets a re-check in flight finish before cancelling


def digest_text(day: str | None, repo: str | None) -> str:
    """The options of `/digest` as the text the core parses (what Slack users type).

    The `day` field also takes `subscribe …`, `unsubscribe` and `subscriptions`; the
    repository then goes right after that word, where the core expects it.
    """
    words = (day or "").split()
    if repo and words and words[0].lower() in SUBSCRIPTION_WORDS:
        return " ".join([words[0], repo, *words[1:]])
    if repo and words and words[0].lower() in SEARCH_WORDS:  # a search's words stay words
        return " ".join([*words, f"repo:{repo}"])
    return " ".join(part for part in (day, repo) if part)


def intents() -> discord.Intents:
    value = discord.Intents.none()
    value.guilds = True  # channels and threads in the cache, and interactions' guilds
    value.guild_reactions = True  # MESSAGE_REACTION_ADD / _REMOVE
    return value


def flag_display(settings: Settings) -> str | None:
    """The first flag emoji as Discord shows it (`x` → ❌), for the parent message's hint."""
    if not settings.flag_emoji:
        return None
    name = settings.flag_emoji[0].strip().strip(":")
    return EMOJI_NAMES.get(name, name if not name.isascii() else f":{name}:")


def day_choices(
    current: str, tz_name: str, now: datetime | None = None
) -> list[app_commands.Choice[str]]:
    """Autocomplete for `/digest day`: today, yesterday and the dates of the last week."""
    today = (now or datetime.now(zone(tz_name))).astimezone(zone(tz_name)).date()
    options = [
        ("today", f"today ({today.isoformat()})"),
        ("yesterday", f"yesterday ({(today - timedelta(days=1)).isoformat()})"),
    ]
    for back in range(2, RECENT_DAYS + 2):
        day = today - timedelta(days=back)
        options.append((day.isoformat(), f"{day.isoformat()} ({day.strftime('%A')})"))
    needle = current.strip().lower()
    return [
        app_commands.Choice(name=label, value=value)
        for value, label in options
        if not needle or needle in label.lower()
    ][:25]


class DiscordBot(ChatBot, discord.Client):
    """The Discord side of prdigest; `start(token)`/`close()` run it on any event loop."""

    def __init__(
        self,
        settings: Settings,
        service: DigestService,
        store: Store,
        *,
        guild_ready_timeout: float = 2.0,
        core: ChatCore | None = None,
        **core_options: Any,
    ) -> None:
        """`core` is the chat core shared by every platform of the process (the composition
        root passes it); one is made over `service` and `store` (with `core_options`:
        `scheduler`, `commands`) when none is given."""
        if not settings.discord_bot_token:
            raise ConfigurationError("DISCORD_BOT_TOKEN is not set")
        apply_endpoints(settings)  # before the first request, however the bot was built
        # The bot never joins a voice channel: a warning about voice libraries is only noise.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            intents=intents(),
            # Client-wide as well as per message: nothing the bot sends can ping anyone.
            allowed_mentions=NO_MENTIONS,
            guild_ready_timeout=guild_ready_timeout,
        )
        core = core or ChatCore(settings, service, store, **core_options)
        self.shutdown_grace = SHUTDOWN_GRACE
        self.transport = DiscordTransport(self, flag_hint=flag_display(settings))
        # Interactions are answered by API calls, so the work after a defer runs right here.
        self.room = core.room(
            self.transport, "Discord", DiscordAnswers(self.transport), inline=True
        )
        self.tree = app_commands.CommandTree(self)
        self.on_ready_callbacks: list[Callable[[DiscordBot], None]] = []
        self._register_commands()

    async def on_ready(self) -> None:
        log.info("Discord bot connected as %s", self.user)
        for callback in self.on_ready_callbacks:
            callback(self)
        self.on_ready_callbacks.clear()  # on_ready fires again after a reconnect

    async def is_connected(self) -> bool:
        """Whether the gateway's WebSocket is open now (between a drop and its resume, not)."""
        return not self.is_closed() and self.ws is not None and self.ws.open

    async def close(self) -> None:
        """Let re-checks in flight finish (for `shutdown_grace` seconds), cancel the rest,
        then disconnect: they post through this client, so they go first."""
        self.room.tasks.closing = True
        await self.finish_background(self.shutdown_grace)
        await super().close()

    def clear(self) -> None:
        """discord.py's reset for a client started again after close()."""
        super().clear()
        self.room.tasks.closing = False

    # -- background work -----------------------------------------------------------------

    @property
    def _background(self) -> set[asyncio.Task[None]]:
        return self.room.tasks.running

    async def finish_background(self, timeout: float) -> None:
        """Drain for up to `timeout` seconds, then cancel what is left and wait for it."""
        await self.room.tasks.finish(timeout)

    async def post_digest(self, channel: str, digest: Digest) -> PostOutcome:
        """Post (or finish posting) a digest in `channel`: for scheduled digests."""
        return await self.poster.post(channel, digest)

    # -- connection ----------------------------------------------------------------------

    async def setup_hook(self) -> None:
        """Sync the commands before connecting: to each configured guild, else globally."""
        guilds = self.settings.discord_guilds
        if not guilds:
            await self.tree.sync()
            log.info("Discord commands synced globally (can take up to an hour to appear)")
        for guild_id in guilds:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            try:
                await self.tree.sync(guild=guild)
            except discord.Forbidden:
                log.error(
                    "Cannot register commands in guild %s: invite the bot there first "
                    "(prdigest discord-invite)", guild_id,
                )  # fmt: skip

    # -- listeners -----------------------------------------------------------------------

    def _register_commands(self) -> None:
        @self.tree.command(name="digest", description="Post a day's merged PRs as a thread")
        @app_commands.describe(
            day="yesterday, YYYY-MM-DD, 'week [of D]'; filters like paths:vllm/** (default: yesterday)",
            repo="owner/name (default: the configured repository)",
        )
        @app_commands.guild_only()
        async def digest(
            interaction: discord.Interaction, day: str | None = None, repo: str | None = None
        ) -> None:
            await self.handle_digest(interaction, day, repo)

        @digest.autocomplete("day")
        async def digest_day(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return day_choices(current, self.settings.timezone)

        @self.tree.command(name="prsummary", description="Summarize one pull request")
        @app_commands.describe(pr="35156, #35156, owner/repo#35156 or a PR link")
        @app_commands.guild_only()
        async def prsummary(interaction: discord.Interaction, pr: str) -> None:
            await self.handle_prsummary(interaction, pr)

    async def handle_digest(
        self, interaction: discord.Interaction, day: str | None, repo: str | None
    ) -> None:
        self._learn_guild(interaction)
        ask = Ask(str(interaction.channel_id), str(interaction.user.id), digest_text(day, repo))
        await self.core.digest(self.room, ask, DiscordDigestReply(interaction))

    async def handle_prsummary(self, interaction: discord.Interaction, pr: str) -> None:
        self._learn_guild(interaction)
        ephemeral = self.settings.prsummary_visibility == "ephemeral"
        reply = DiscordSummaryReply(interaction, ephemeral, zone(self.settings.timezone))
        try:
            await self.core.prsummary(
                self.room, Ask(str(interaction.channel_id), str(interaction.user.id), pr), reply
            )
        except discord.HTTPException as exc:  # e.g. the interaction token expired
            log.warning("could not answer /prsummary %s: %s", pr[:80], exc)

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        reaction = await self._reaction(payload, added=True)
        if reaction:
            await self.flag_loop.on_reaction(reaction)

    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent) -> None:
        reaction = await self._reaction(payload, added=False)
        if reaction:
            await self.flag_loop.on_reaction(reaction)

    async def _reaction(
        self, payload: discord.RawReactionActionEvent, *, added: bool
    ) -> Reaction | None:
        """The flag a reaction event is, by someone else than the bot; else None."""
        emoji = self.core.flag_emojis.match(_emoji_name(payload.emoji))
        own = self.user is not None and payload.user_id == self.user.id
        if own or emoji is None:
            return None
        if added and payload.guild_id:  # for jump links to messages in this channel (or thread)
            self.transport.guilds.setdefault(str(payload.channel_id), payload.guild_id)
        channel, thread = await self._place(payload.channel_id)
        user = str(payload.user_id)
        return Reaction(PLATFORM, channel, str(payload.message_id), user, emoji, added, thread)

    async def _place(self, channel_id: int) -> tuple[str, str | None]:
        """(channel, thread) of a message: a digest reply lives in the thread but is recorded
        under the channel the digest was posted to (the thread's parent)."""
        channel = self.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.fetch_channel(channel_id)
            except discord.HTTPException:
                return str(channel_id), None
        parent_id = getattr(channel, "parent_id", None)
        return (str(parent_id), str(channel_id)) if parent_id else (str(channel_id), None)

    def _learn_guild(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id and interaction.channel_id:
            self.transport.guilds[str(interaction.channel_id)] = interaction.guild_id


class _DiscordReply:
    """The answers every command shares, through the interaction."""

    def __init__(self, interaction: discord.Interaction):
        self.interaction = interaction

    async def answer(self, text: str) -> None:
        """A short answer only the user sees."""
        text = render.clip(render.sanitize(text), render.MAX_CONTENT)
        if self.interaction.response.is_done():
            await self.interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await self.interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def say(self, text: str) -> None:
        await self.answer(text)

    async def finish(self, text: str) -> None:
        """Replace an ephemeral "thinking…" with the outcome (the token may have expired)."""
        text = render.clip(render.sanitize(text), render.MAX_CONTENT)
        try:
            await self.interaction.edit_original_response(
                content=text, allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as exc:
            log.warning("could not update the /digest reply: %s", exc)

    async def failed(self, exc: Exception, what: str) -> None:
        if isinstance(exc, discord.HTTPException):
            log.warning("posting %s failed: %s", what, exc)
            return await self.finish(interrupted_notice(exc))
        await self.finish(report(exc, what))


class DiscordDigestReply(_DiscordReply):
    async def accept(self, note: str | None = None) -> None:
        # Within Discord's 3 seconds, before any GitHub or model call; a subscription
        # command (no note) answers at once instead.
        if note is not None:
            await self.interaction.response.defer(ephemeral=True, thinking=True)

    async def error(self, text: str) -> None:
        if not self.interaction.response.is_done():  # a search answers without deferring
            return await self.answer(text)
        await self.finish(text)

    def not_here(self) -> str | None:
        channel = self.interaction.channel
        if channel is not None and channel.type in THREAD_TYPES:
            return "Run /digest in a text channel: a digest opens a thread of its own."
        return None

    async def already(self, repo: str, day: str, tz_name: str, link: str) -> bool:
        return False  # the digest is "posted" again, which answers "already" with its link

    async def posted(
        self, repo: str, day: str, tz_name: str, status: str, link: str, sent: int, failed: int
    ) -> None:
        await self.finish(render.posted_notice(status, repo, day, link, sent))

    async def can_post(self) -> bool:
        # The interaction says what the bot may do in this channel: a digest needs all of it.
        allowed = self.interaction.app_permissions
        return all(getattr(allowed, name) for name in POSTING_PERMISSIONS)

    async def found(self, terms: SearchTerms, results: Sequence[FoundPR]) -> None:
        """The results as the interaction's response, seen only by who searched."""
        message = render_search.search_message(terms, results)
        send = (
            self.interaction.followup.send
            if self.interaction.response.is_done()
            else self.interaction.response.send_message
        )
        await send(
            message.content, embeds=_embeds(message), ephemeral=True, allowed_mentions=NO_MENTIONS
        )

    async def answered(self, answer: AskAnswer) -> None:
        """The answer, in place of "thinking…"."""
        message = render_search.answer_message(answer)
        try:
            await self.interaction.edit_original_response(
                content=message.content, embeds=_embeds(message), allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as exc:
            log.warning("could not show the /digest ask answer: %s", exc)


class DiscordSummaryReply(_DiscordReply):
    def __init__(self, interaction: discord.Interaction, ephemeral: bool, tz: tzinfo):
        super().__init__(interaction)
        self.ephemeral = ephemeral
        self.tz = tz

    async def accept(self, note: str | None = None) -> None:
        if note is not None:  # a summary still to make: "thinking…" until it is
            await self.interaction.response.defer(ephemeral=self.ephemeral, thinking=True)

    async def error(self, text: str) -> None:
        if self.ephemeral:
            return await self.finish(text)
        # A public "thinking…" must not turn into a public error: swap it for a private one.
        try:
            await self.interaction.delete_original_response()
            await self.interaction.followup.send(
                render.clip(render.sanitize(text), render.MAX_CONTENT),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            log.warning("could not show a /prsummary error: %s", exc)

    async def show(self, entry: DigestEntry) -> Posted | None:
        """The summary as the response (cached) or in place of "thinking…"; continuations as
        follow-ups. Its first message, when everyone in the channel sees it."""
        parts = render.entry_messages(entry, self.tz)
        if not self.interaction.response.is_done():  # cached: the answer is the response
            callback = await self.interaction.response.send_message(
                embeds=_embeds(parts[0]), ephemeral=self.ephemeral, allowed_mentions=NO_MENTIONS
            )
            first_id = callback.message_id if callback else None
        else:
            message = await self.interaction.edit_original_response(
                content=None, embeds=_embeds(parts[0]), allowed_mentions=NO_MENTIONS
            )
            first_id = message.id
        for part in parts[1:]:
            await self.interaction.followup.send(
                embeds=_embeds(part), ephemeral=self.ephemeral, allowed_mentions=NO_MENTIONS,
                wait=True,
            )  # fmt: skip
        if self.ephemeral or first_id is None:
            return None
        return Posted(str(first_id))


class DiscordAnswers:
    """How Discord answers a flag: in the digest's thread, or the channel of an answer."""

    def __init__(self, transport: DiscordTransport):
        self.transport = transport

    async def adopt(self, reaction: Reaction) -> PostRecord | None:
        """Every summary the bot shows on Discord is recorded when sent: none to adopt."""
        return None

    @staticmethod
    def _target(flag: Flag, post: PostRecord | None) -> str:
        return (post.thread_id if post else None) or flag.channel

    async def thank(self, flag: Flag, post: PostRecord | None) -> None:
        text = render.flag_thanks(flag.number, flag.user)
        await self.transport.send(self._target(flag, post), render.Message(content=text))

    async def no_change(self, outcome: RevisionOutcome, post: PostRecord | None) -> None:
        text = render.recheck_text(outcome.flag.user, outcome.note)
        await self.transport.send(self._target(outcome.flag, post), render.Message(content=text))

    async def send_revision(
        self, outcome: RevisionOutcome, post: PostRecord | None, entry: DigestEntry, tz: tzinfo
    ) -> Posted:
        target = self._target(outcome.flag, post)
        messages = render.revision_messages(entry, tz, user_id=outcome.flag.user, note=outcome.note)
        first = await self.transport.send(target, messages[0])
        for part in messages[1:]:  # only when the summary is too long for one message
            await self.transport.send(target, part)
        return Posted(str(first.id))

    async def mark_revised(
        self, outcome: RevisionOutcome, post: PostRecord | None, old: DigestEntry, tz: tzinfo,
        posted: Posted,
    ) -> None:  # fmt: skip
        flag, target = outcome.flag, self._target(outcome.flag, post)
        link = self.transport.message_link(target, posted.message_id)
        try:
            await self.transport.edit_content(
                target, flag.message_id, lambda content: render.with_revision_notice(content, link)
            )
        except discord.HTTPException as exc:  # the correction is out; only the pointer is not
            log.warning("could not mark %s in %s as revised: %s", flag.message_id, target, exc)


def interrupted_notice(exc: discord.HTTPException) -> str:
    """What a user is told when Discord stopped a post part-way: why, and how to finish."""
    detail = exc.text[:100] or "no details"
    note = f"Posting the digest was interrupted by Discord ({exc.status}: {detail})."
    if exc.status == 403:
        note += (
            " The bot needs Send Messages, Create Public Threads, Send Messages in Threads,"
            " Embed Links and Read Message History in this channel."
        )
    return note + " Run the same /digest again to finish it."


def _embeds(message: render.Message) -> list[discord.Embed]:
    return [discord.Embed.from_dict(e) for e in message.embeds]


def _emoji_name(emoji: discord.PartialEmoji) -> str:
    # Unicode emoji arrive as the character itself, custom ones by name: FlagEmojis
    # matches either against PRDIGEST_FLAG_EMOJI (where `x` and ❌ are the same flag).
    return emoji.name or ""


async def run_discord(
    settings: Settings, service: DigestService, store: Store, *,
    started: Callable[[DiscordBot], None] | None = None, bot: DiscordBot | None = None,
    **options: Any,
) -> None:  # fmt: skip
    """Run the Discord bot until cancelled; for `prdigest run`, beside Slack on one loop.

    Pass `bot` to run one built beforehand (e.g. whose `poster` a scheduler also uses), else
    `options` are the bot's (`core`, or `scheduler`, `commands` for a core of its
    own); `started` is called once the bot is connected and its guilds are loaded (on_ready).
    """
    bot = bot or create_bot(settings, service, store, **options)
    async with bot:
        if started is not None:
            bot.on_ready_callbacks.append(started)
        await start_bot(bot, settings)


def create_bot(settings: Settings, service: DigestService, store: Store, **kwargs) -> DiscordBot:
    """The one place a DiscordBot is made (the composition root calls it with the chat core);
    raises ConfigurationError without DISCORD_BOT_TOKEN."""
    return DiscordBot(settings, service, store, **kwargs)


async def start_bot(bot: DiscordBot, settings: Settings) -> None:
    """Log in (a bad token is one line, not a traceback) and stay connected until closed."""
    try:
        await bot.login(settings.discord_bot_token or "")
    except discord.LoginFailure:
        raise ConfigurationError("Discord rejected DISCORD_BOT_TOKEN") from None
    await bot.connect(reconnect=True)
