"""The Discord bot: a discord.py Client with `/digest`, `/prsummary` and flag reactions.

Handlers stay thin: answer Discord (or defer) first, hand the text to the platform-neutral
`ChatCommands`/`FlagService`/`DigestPoster`, then show the result. Only the guilds and
guild-reactions intents are used: no privileged intent, no message content.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

import discord
from discord import app_commands

from adapters.discord import render
from adapters.discord.transport import (
    NO_MENTIONS,
    DiscordTransport,
    apply_endpoints,
)
from bot.chat.commands import ChatCommands, PRRequest, SubscriptionCommand, error_text
from bot.chat.flag_loop import FlagLoop
from bot.chat.flags import EMOJI_NAMES, FlagService
from bot.chat.posting import DigestPoster, PostOutcome, post_zone
from bot.chat.revisions import RevisionOutcome, RevisionService
from bot.chat.subscribe import handle_subscription_command
from bot.core.day_window import zone
from bot.core.errors import ConfigurationError, PRDigestError
from bot.core.models import Digest, DigestEntry, Flag, Platform, PostRecord
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.schedule import ScheduleControl
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

log = logging.getLogger(__name__)

PLATFORM = Platform.DISCORD
THREAD_TYPES = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
RECENT_DAYS = 7  # dates offered by /digest's autocomplete besides today and yesterday
SUBSCRIPTION_WORDS = ("subscribe", "unsubscribe", "subscriptions")
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


class DiscordBot(discord.Client):
    """The Discord side of prdigest; `start(token)`/`close()` run it on any event loop."""

    def __init__(
        self,
        settings: Settings,
        service: DigestService,
        store: Store,
        *,
        commands: ChatCommands | None = None,
        flags: FlagService | None = None,
        scheduler: ScheduleControl | None = None,
        guild_ready_timeout: float = 2.0,
    ) -> None:
        """`scheduler`, when the process runs one, serves `/digest subscribe` and friends;
        it may also be set after construction (it needs `self.poster` to be built)."""
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
        self.settings = settings
        self.service = service
        self.store = store
        self.scheduler = scheduler
        self.commands = commands or ChatCommands(service, settings)
        self.flags = flags or FlagService(store, settings.flag_emoji)
        # One per bot: its per-summary locks are what make concurrent flags one re-check.
        self.revisions = RevisionService(store, service, settings)
        self.flag_loop = FlagLoop(self.flags, self.revisions, self.spawn)
        self.shutdown_grace = SHUTDOWN_GRACE
        self._background: set[asyncio.Task[None]] = set()
        self._shutting_down = False
        # (channel, summary id) -> set once that summary's "thanks" is out: a re-check runs
        # alongside the thanks but never answers before it.
        self.transport = DiscordTransport(self, flag_hint=flag_display(settings))
        self.poster = DigestPoster(store, self.transport)
        self.tree = app_commands.CommandTree(self)
        self.on_ready_callbacks: list[Callable[[DiscordBot], None]] = []
        self._register_commands()

    async def on_ready(self) -> None:
        log.info("Discord bot connected as %s", self.user)
        for callback in self.on_ready_callbacks:
            callback(self)
        self.on_ready_callbacks.clear()  # on_ready fires again after a reconnect

    async def close(self) -> None:
        """Let re-checks in flight finish (for `shutdown_grace` seconds), cancel the rest,
        then disconnect: they post through this client, so they go first."""
        self._shutting_down = True
        await self.finish_background(self.shutdown_grace)
        await super().close()

    def clear(self) -> None:
        """discord.py's reset for a client started again after close()."""
        super().clear()
        self._shutting_down = False

    # -- background work -----------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` beside the event handler, keeping a reference so it is neither lost
        (garbage-collected mid-way) nor orphaned at shutdown."""
        if self._shutting_down:
            work.close()
            log.info("not starting %s: the bot is shutting down", what)
            return
        task = asyncio.create_task(self._guard(work, what), name=what)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _guard(self, work: Coroutine[Any, Any, None], what: str) -> None:
        try:
            await work
        except asyncio.CancelledError:
            log.info("%s cancelled", what)
            raise
        except Exception:  # noqa: BLE001 - one flag's failure must not stop the bot
            log.exception("%s failed", what)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every background task has finished (TimeoutError after `timeout`)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self._background:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                raise TimeoutError(
                    f"{len(self._background)} Discord background tasks still running"
                )
            await asyncio.wait(set(self._background), timeout=remaining)

    async def finish_background(self, timeout: float) -> None:
        """Drain for up to `timeout` seconds, then cancel what is left and wait for it."""
        try:
            await self.drain(timeout)
        except TimeoutError:
            left = list(self._background)
            log.info("cancelling %d background task(s) at shutdown", len(left))
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)

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

    # -- /digest -------------------------------------------------------------------------

    def _register_commands(self) -> None:
        @self.tree.command(name="digest", description="Post a day's merged PRs as a thread")
        @app_commands.describe(
            day="today, yesterday, YYYY-MM-DD or 'N days ago' (default: yesterday)",
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
        channel = str(interaction.channel_id)
        self._learn_guild(interaction)
        try:
            request = self.commands.digest_request(digest_text(day, repo), channel)
        except PRDigestError as exc:
            return await self._error(interaction, error_text(exc))
        if isinstance(request, SubscriptionCommand):
            return await self.handle_subscription(interaction, request)
        if interaction.channel is not None and interaction.channel.type in THREAD_TYPES:
            return await self._error(
                interaction, "Run /digest in a text channel: a digest opens a thread of its own."
            )
        try:
            # A digest costs the summaries it may still need (none for a day already
            # summarized, a whole minute's worth for a day never listed), not one unit.
            cost = self.commands.digest_cost(request)
            self.commands.check_llm_budget(str(interaction.user.id), channel, cost=cost)
        except PRDigestError as exc:
            return await self._error(interaction, error_text(exc))
        # Within Discord's 3 seconds, before any GitHub or model call.
        await interaction.response.defer(ephemeral=True, thinking=True)
        day_text = request.window.day.isoformat()
        try:
            digest = await self.commands.build_digest(request)
            outcome = await self.poster.post(channel, digest)
        except discord.HTTPException as exc:
            log.warning("posting the digest of %s %s failed: %s", request.repo, day_text, exc)
            return await self._finish(interaction, interrupted_notice(exc))
        except Exception as exc:  # noqa: BLE001 - every failure becomes one line for the user
            if not isinstance(exc, PRDigestError):
                log.exception("/digest %s %s failed", request.repo, day_text)
            return await self._finish(interaction, error_text(exc))
        notice = render.posted_notice(
            outcome.status, request.repo, day_text, outcome.link, outcome.replies_sent
        )
        await self._finish(interaction, notice)

    async def handle_subscription(
        self, interaction: discord.Interaction, request: SubscriptionCommand
    ) -> None:
        """`/digest day:subscribe repo:owner/name` and friends, through the core's handler."""
        if self.scheduler is None:
            return await self._error(
                interaction, "Daily digests are not scheduled by this process."
            )
        # The interaction says what the bot may do in this channel: a digest needs all of it.
        allowed = interaction.app_permissions
        can_post = all(getattr(allowed, name) for name in POSTING_PERMISSIONS)
        try:
            text = await handle_subscription_command(
                request, PLATFORM, str(interaction.channel_id), SubscriptionStore(self.store),
                self.scheduler, bot_in_channel=can_post, user=str(interaction.user.id),
            )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - one line for the user, the log the rest
            if not isinstance(exc, PRDigestError):
                log.exception("/digest %s failed", request.action)
            text = error_text(exc)
        await self._error(interaction, text)

    # -- /prsummary ----------------------------------------------------------------------

    async def handle_prsummary(self, interaction: discord.Interaction, pr: str) -> None:
        channel = str(interaction.channel_id)
        self._learn_guild(interaction)
        ephemeral = self.settings.prsummary_visibility == "ephemeral"
        try:
            request = self.commands.pr_request(pr, channel)
            entry = self.commands.cached(request)
            if entry is None:
                self.commands.check_llm_budget(str(interaction.user.id), channel)
        except PRDigestError as exc:
            return await self._error(interaction, error_text(exc))
        try:
            entry, first_id = await self._answer(interaction, request, entry, ephemeral)
        except discord.HTTPException as exc:  # e.g. the interaction token expired
            log.warning("could not answer /prsummary %s: %s", pr[:80], exc)
            return
        if not ephemeral and first_id is not None and entry is not None:
            self._record_answer(channel, entry, str(first_id))

    async def _answer(
        self,
        interaction: discord.Interaction,
        request: PRRequest,
        entry: DigestEntry | None,
        ephemeral: bool,
    ) -> tuple[DigestEntry | None, int | None]:
        """Show the summary (`entry` when cached, else made now); returns it and the id of
        its (first) message, or (None, None) after an error shown to the user."""
        tz = zone(self.settings.timezone)
        if entry is not None:  # cached: the answer itself is the response, at once
            parts = render.entry_messages(entry, tz)
            callback = await interaction.response.send_message(
                embeds=_embeds(parts[0]), ephemeral=ephemeral, allowed_mentions=NO_MENTIONS
            )
            first_id = callback.message_id if callback else None
        else:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            try:
                entry = await self.commands.summarize(request)
            except Exception as exc:  # noqa: BLE001 - every failure becomes one line for the user
                if not isinstance(exc, PRDigestError):
                    log.exception("/prsummary %s#%s failed", request.repo, request.number)
                await self._deferred_error(interaction, error_text(exc), ephemeral)
                return None, None
            parts = render.entry_messages(entry, tz)
            message = await interaction.edit_original_response(
                content=None, embeds=_embeds(parts[0]), allowed_mentions=NO_MENTIONS
            )
            first_id = message.id
        for part in parts[1:]:
            await interaction.followup.send(
                embeds=_embeds(part), ephemeral=ephemeral, allowed_mentions=NO_MENTIONS, wait=True
            )
        return entry, first_id

    def _record_answer(self, channel: str, entry: DigestEntry, message_id: str) -> None:
        """Recorded like a digest reply, so a flag reaction on the answer counts too."""
        record = self.store.begin_post(
            PostRecord(
                platform=PLATFORM,
                channel=channel,
                repo=entry.pr.repo,
                day="",
                pr_number=entry.pr.number,
                message_id="",
                summary_id=entry.summary.id if entry.summary else None,
            ),
            kind="prsummary",
        )
        self.store.complete_post(record.id, message_id)

    # -- flags ---------------------------------------------------------------------------

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        emoji = _emoji_name(payload.emoji)
        if self._ignored(payload, emoji):
            return
        if payload.guild_id:  # for jump links to messages in this channel (or thread)
            self.transport.guilds.setdefault(str(payload.channel_id), payload.guild_id)
        channel = await self._record_channel(payload.channel_id, payload.message_id)
        await self.flag_loop.added(
            self, PLATFORM, channel, str(payload.message_id), str(payload.user_id), emoji
        )

    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent) -> None:
        emoji = _emoji_name(payload.emoji)
        if self._ignored(payload, emoji):
            return
        channel = await self._record_channel(payload.channel_id, payload.message_id)
        self.flags.removed(PLATFORM, channel, str(payload.message_id), str(payload.user_id), emoji)

    def _ignored(self, payload: discord.RawReactionActionEvent, emoji: str) -> bool:
        own = self.user is not None and payload.user_id == self.user.id
        return own or not self.flags.is_flag(emoji)

    async def _record_channel(self, channel_id: int, message_id: int) -> str:
        """The channel a message's post record names: a digest reply lives in the thread but
        is recorded under the channel the digest was posted to (the thread's parent)."""
        channel = str(channel_id)
        if self.store.post_by_message(PLATFORM, channel, str(message_id)) is not None:
            return channel
        thread = self.get_channel(channel_id)
        if thread is None:
            try:
                thread = await self.fetch_channel(channel_id)
            except discord.HTTPException:
                return channel
        parent_id = getattr(thread, "parent_id", None)
        return str(parent_id) if parent_id else channel

    # -- re-checks after a flag ---------------------------------------------------------

    # The three answers to a flag (bot.flag_loop.FlagAnswers); the loop orders them.

    async def thank(self, flag: Flag) -> None:
        _, target = self._flagged_post(flag)
        await self.transport.send(
            target, render.Message(content=render.flag_thanks(flag.number, flag.user))
        )

    async def post_correction(self, outcome: RevisionOutcome) -> None:
        await self._post_revision(outcome)

    async def post_no_change(self, outcome: RevisionOutcome) -> None:
        _, target = self._flagged_post(outcome.flag)
        text = render.recheck_text(outcome.flag.user, outcome.note)
        await self.transport.send(target, render.Message(content=text))

    def _flagged_post(self, flag: Flag) -> tuple[PostRecord | None, str]:
        """The flagged message's record, and where it is (and its correction goes): the
        digest's thread, or the channel of a /prsummary answer."""
        post = self.store.post_by_message(PLATFORM, flag.channel, flag.message_id)
        return post, (post.thread_id if post else None) or flag.channel

    async def _post_revision(self, outcome: RevisionOutcome) -> None:
        """The corrected summary next to the flagged one (recorded, so it can be flagged in
        turn), then the flagged message edited to point at it."""
        flag, new = outcome.flag, outcome.new
        assert new is not None and new.id is not None
        post, target = self._flagged_post(flag)
        day = post.day if post else ""
        pr = self.store.get_pr(new.repo, new.number)
        if pr is None:
            pr = await self.service.pull_request(new.repo, new.number)
        messages = render.revision_messages(
            DigestEntry(pr, new),
            post_zone(post, self.settings.timezone),
            user_id=flag.user,
            note=outcome.note,
        )
        record = self.store.begin_post(
            PostRecord(
                platform=PLATFORM,
                channel=flag.channel,
                repo=new.repo,
                day=day,
                pr_number=new.number,
                message_id="",
                thread_id=post.thread_id if post else None,
                summary_id=new.id,
                tz_name=post.tz_name if post else None,
            ),
            kind="revision",
        )
        first = await self.transport.send(target, messages[0])
        self.store.complete_post(record.id, str(first.id))  # type: ignore[arg-type]
        for part in messages[1:]:  # only when the summary is too long for one message
            await self.transport.send(target, part)
        log.info(
            "posted revision %s of %s#%s in %s after a flag by %s",
            new.id, new.repo, new.number, target, flag.user,
        )  # fmt: skip
        link = self.transport.message_link(target, str(first.id))
        try:
            await self.transport.edit_content(
                target, flag.message_id, lambda content: render.with_revision_notice(content, link)
            )
        except discord.HTTPException as exc:  # the correction is out; only the pointer is not
            log.warning("could not mark %s in %s as revised: %s", flag.message_id, target, exc)

    # -- answering -----------------------------------------------------------------------

    def _learn_guild(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id and interaction.channel_id:
            self.transport.guilds[str(interaction.channel_id)] = interaction.guild_id

    async def _error(self, interaction: discord.Interaction, text: str) -> None:
        """A short answer only the user sees."""
        text = render.clip(render.sanitize(text), render.MAX_CONTENT)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=NO_MENTIONS
            )

    async def _finish(self, interaction: discord.Interaction, text: str) -> None:
        """Replace an ephemeral "thinking…" with the outcome (the token may have expired)."""
        text = render.clip(render.sanitize(text), render.MAX_CONTENT)
        try:
            await interaction.edit_original_response(content=text, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not update the /digest reply: %s", exc)

    async def _deferred_error(
        self, interaction: discord.Interaction, text: str, ephemeral: bool
    ) -> None:
        if ephemeral:
            return await self._finish(interaction, text)
        # A public "thinking…" must not turn into a public error: swap it for a private one.
        try:
            await interaction.delete_original_response()
            await interaction.followup.send(
                render.clip(render.sanitize(text), render.MAX_CONTENT),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            log.warning("could not show a /prsummary error: %s", exc)


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
    # Unicode emoji arrive as the character itself, custom ones by name: FlagService
    # matches either against PRDIGEST_FLAG_EMOJI (where `x` and ❌ are the same flag).
    return emoji.name or ""


async def run_discord(
    settings: Settings,
    service: DigestService,
    store: Store,
    *,
    commands: ChatCommands | None = None,
    flags: FlagService | None = None,
    scheduler: ScheduleControl | None = None,
    started: Callable[[DiscordBot], None] | None = None,
    bot: DiscordBot | None = None,
) -> None:
    """Run the Discord bot until cancelled; for `prdigest run`, beside Slack on one loop.

    Pass `bot` to run one built beforehand (e.g. whose `poster` a
    scheduler also uses); `started` is called once the bot is connected and its guilds
    are loaded (on_ready).
    """
    if bot is None:
        bot = create_bot(
            settings, service, store, commands=commands, flags=flags, scheduler=scheduler
        )
    elif scheduler is not None:
        bot.scheduler = scheduler
    async with bot:
        if started is not None:
            bot.on_ready_callbacks.append(started)
        await start_bot(bot, settings)


def create_bot(settings: Settings, service: DigestService, store: Store, **kwargs) -> DiscordBot:
    """The same as `DiscordBot(...)`: raises ConfigurationError without DISCORD_BOT_TOKEN."""
    return DiscordBot(settings, service, store, **kwargs)


async def start_bot(bot: DiscordBot, settings: Settings) -> None:
    """Log in (a bad token is one line, not a traceback) and stay connected until closed."""
    try:
        await bot.login(settings.discord_bot_token or "")
    except discord.LoginFailure:
        raise ConfigurationError("Discord rejected DISCORD_BOT_TOKEN") from None
    await bot.connect(reconnect=True)
