"""The chat core: `/digest`, `/prsummary` and subscriptions, written once for every platform;
flags have their own package, `bot.chat.flags`, whose loop each platform's room holds.

An adapter keeps three pieces: its listeners (which turn the platform's events into calls here,
with a reply object for the command, and its reactions into one `Reaction` for the flag loop),
its transport (send, edit, link, retry on the platform's errors) and its pure renderer. Each
platform the process runs gets a `ChatRoom`: its poster, its tracked tasks and its flag loop,
all over the one `ChatCore`.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bot.chat.acks import timed
from bot.chat.commands import (
    AskRequest,
    Budget,
    ChatCommands,
    PRRequest,
    SearchRequest,
    SubscriptionCommand,
)
from bot.chat.flags.emoji import FlagEmojis
from bot.chat.flags.loop import FlagLoop
from bot.chat.flags.record import FlagRecords
from bot.chat.flags.revisions import RevisionService
from bot.chat.healing import Healer
from bot.chat.posting import DigestPoster
from bot.chat.search import SearchFlows
from bot.chat.styles import DigestStyles
from bot.chat.subscribe import handle_subscription_command
from bot.chat.tasks import Tasks, report
from bot.core import llm_work
from bot.core.errors import PRDigestError
from bot.core.models import DigestEntry, PostKind, PostStatus
from bot.core.scope import DigestScope, TagRange
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.chat import DigestReply, PlatformAnswers, SummaryReply, Transport
from bot.ports.schedule import ScheduleControl
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

log = logging.getLogger(__name__)

NOT_SCHEDULED = "Daily digests are not scheduled by this process."


@dataclass(frozen=True)
class Ask:
    """A command as typed: where, by whom, and its text."""

    channel: str
    user: str
    text: str | None


class ChatCore:
    """The platform-neutral side of every chat command and reaction."""

    def __init__(
        self,
        settings: Settings,
        service: DigestService,
        store: Store,
        *,
        scheduler: ScheduleControl | None = None,
        commands: ChatCommands | None = None,
    ):
        """`scheduler`, when the process runs one, serves `/digest subscribe` and friends."""
        self.settings = settings
        self.service = service
        self.store = store
        self.scheduler = scheduler
        self.commands = commands or ChatCommands(service, settings)
        self.flag_emojis = FlagEmojis(settings.flag_emoji)  # adapters match reactions with it
        self.flag_records = FlagRecords(store)
        # One for all platforms: its per-summary locks make concurrent flags one re-check.
        self.revisions = RevisionService(store, service, settings)
        self.subscriptions = SubscriptionStore(store)
        self.healer = Healer(service)
        self.searches = SearchFlows(service, settings, self.commands)  # search and ask

    def room(
        self, transport: Transport, label: str, answers: PlatformAnswers, *, inline: bool = False
    ) -> ChatRoom:
        """The core as one platform uses it, answering flags through `answers`; `inline`
        platforms (their response is sent by an API call, as Discord's) do the work after the
        acknowledgement in the listener itself, the others (Slack, whose ack is the listener's
        return) in a tracked task."""
        return ChatRoom(self, transport, label, answers, inline=inline)

    # -- /digest ---------------------------------------------------------------------------

    async def digest(self, room: ChatRoom, ask: Ask, reply: DigestReply) -> None:
        reply = timed(reply, room.platform, "digest")  # prdigest_command_ack_seconds
        try:
            request = self.commands.digest_request(ask.text, ask.channel)
        except PRDigestError as exc:
            return await reply.answer(str(exc))
        if isinstance(request, SubscriptionCommand):
            return await self._subscription(room, ask, request, reply)
        if isinstance(request, SearchRequest):
            return await self.searches.search(room, ask.channel, request, reply)
        if isinstance(request, AskRequest):
            return await self.searches.ask(room, ask.channel, ask.user, request, reply)
        refusal = reply.not_here()
        if refusal:
            return await reply.answer(refusal)
        day, tz_name = request.shown_day, request.tz_name
        await self._ready_for_links(room)
        link = await self.store.aio.read(self._already_posted, room, ask.channel, request)
        if link and await reply.already(request.repo, day, tz_name, link):
            return None
        try:
            # A digest costs the summaries it may still need (none for a day already
            # summarized, a whole minute's worth for a day never listed), not one unit.
            cost = await self.commands.digest_cost(request)
            budget = self.commands.check_llm_budget(ask.user, ask.channel, cost=cost)
        except PRDigestError as exc:
            return await reply.answer(str(exc))
        label = f"{request.repo} for {day} ({tz_name})"
        await reply.accept(f"Preparing the digest of {label}…")
        work = self._post_digest(room, ask, request, reply, budget)
        await room.after_ack(work, f"/digest {label}")

    @staticmethod
    async def _ready_for_links(room: ChatRoom) -> None:
        """Learn the workspace's host before an "already posted" link is built (at once when
        the bot identified itself at start); a failure only leaves the link on the default
        host, and is not the command's: the work itself goes on."""
        try:
            await room.ready()
        except Exception:  # noqa: BLE001 - a link on another host beats no answer
            log.warning("could not learn the workspace's URL", exc_info=True)

    @contextmanager
    def _spending(self, budget: Budget) -> Iterator[None]:
        """Keep of a command's LLM budget only what the model was asked for in the block: a
        failed lookup (a repository or PR not found, an issue) costs nothing."""
        with llm_work.metered() as meter:
            try:
                yield
            finally:
                self.commands.settle(budget, meter.started)

    @property
    def styles(self) -> DigestStyles:
        """How each channel shows a digest: its subscription's style, else the defaults."""
        return DigestStyles(self.settings, self.scheduler.subscriptions if self.scheduler else None)

    def _already_posted(
        self, room: ChatRoom, channel: str, request: DigestScope | TagRange
    ) -> str | None:
        """A link to the thread when the day's digest is complete here: no work at all. A
        thread with replies posted as "Summary unavailable" has work: their PRs are tried
        again, and the replies healed."""
        # Only a whole day's thread is checked against its PRs; a rollup's has its own steps.
        whole = request.is_whole_day and isinstance(request, DigestScope)
        numbers = self.store.get_day(request.repo, request.window) if whole else None
        link = room.poster.finished_link(channel, request.repo, request.post_key, numbers)
        failed = self.store.failed_replies(room.platform, channel, request.repo, request.post_key)
        return None if failed else link

    async def _post_digest(
        self, room: ChatRoom, ask: Ask, request: DigestScope | TagRange, reply: DigestReply,
        budget: Budget,
    ) -> None:  # fmt: skip
        day, tz_name = request.shown_day, request.tz_name
        try:
            with self._spending(budget):
                await room.ready()
                styles = self.styles
                built = await self.service.build(request, bots=styles.bots)
            digest = styles.apply(built, room.platform, ask.channel)
            outcome = await room.poster.post(ask.channel, digest)
            if outcome.status == PostStatus.ALREADY:
                # Building the day again just asked the model again for the PRs its thread
                # shows without a summary: their replies are edited in place.
                await self.healer.after_attempt(room.poster, ask.channel, digest)
        except Exception as exc:  # noqa: BLE001 - the user gets one line, the log the rest
            return await reply.failed(exc, f"the digest of {request.repo} {day}")
        await reply.posted(
            request.repo, day, tz_name, outcome.status, outcome.link, outcome.replies_sent,
            len(digest.failed),
        )  # fmt: skip

    async def _subscription(
        self, room: ChatRoom, ask: Ask, request: SubscriptionCommand, reply: DigestReply
    ) -> None:
        if self.scheduler is None:
            return await reply.answer(NOT_SCHEDULED)
        await reply.accept()
        await room.after_ack(self._subscribe(room, ask, request, reply), "/digest subscription")

    async def _subscribe(
        self, room: ChatRoom, ask: Ask, request: SubscriptionCommand, reply: DigestReply
    ) -> None:
        assert self.scheduler is not None
        try:
            # Anyone can type a slash command in any channel; a digest can only be posted
            # where the bot may post.
            member = request.action != "subscribe" or await reply.can_post()
            if request.action == "subscribe" and request.filter.needs_codeowners:
                assert request.repo is not None
                await self.service.owners.require(request.repo)  # a clear error, not silence
            text = await handle_subscription_command(
                request, room.platform, ask.channel, self.subscriptions, self.scheduler,
                bot_in_channel=member, user=ask.user,
            )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - one line for the user, the log the rest
            text = report(exc, f"/digest {request.action}")
        await reply.say(text)

    # -- /prsummary ------------------------------------------------------------------------

    async def prsummary(self, room: ChatRoom, ask: Ask, reply: SummaryReply) -> None:
        reply = timed(reply, room.platform, "prsummary")  # prdigest_command_ack_seconds
        try:
            request = self.commands.pr_request(ask.text, ask.channel)
            # An answer needing no call at all is not rate limited.
            entry = await self.service.find_cached(request.repo, request.number)
            if entry is None:
                budget = self.commands.check_llm_budget(ask.user, ask.channel)
        except PRDigestError as exc:
            return await reply.answer(str(exc))
        what = f"/prsummary #{request.number}"
        if entry is not None:  # stored: the answer itself follows at once
            await reply.accept()
            return await room.after_ack(self._show(room, ask, entry, reply), what)
        await reply.accept(f"Summarizing #{request.number}…")
        await room.after_ack(self._summarize(room, ask, request, reply, budget), what)

    async def _summarize(
        self, room: ChatRoom, ask: Ask, request: PRRequest, reply: SummaryReply, budget: Budget
    ) -> None:
        try:
            with self._spending(budget):
                entry = await self.service.pr_entry(request.repo, request.number)
        except Exception as exc:  # noqa: BLE001 - not found, an issue, GitHub down...
            return await reply.error(report(exc, f"/prsummary {request.repo}#{request.number}"))
        await self._show(room, ask, entry, reply)

    async def _show(self, room: ChatRoom, ask: Ask, entry: DigestEntry, reply: SummaryReply):
        posted = await reply.show(entry)
        if posted is not None:  # in the channel: a flag reaction on it counts too
            await room.poster.record_sent(
                PostKind.PRSUMMARY, posted, channel=ask.channel, repo=entry.pr.repo,
                pr_number=entry.pr.number, summary_id=entry.summary.id if entry.summary else None,
            )  # fmt: skip


class ChatRoom:
    """The chat core as one platform uses it: its poster (the only writer of the posts table),
    its tracked tasks and its flag loop."""

    def __init__(
        self, core: ChatCore, transport: Transport, label: str, answers: PlatformAnswers, *,
        inline: bool,
    ):  # fmt: skip
        self.core = core
        self.transport = transport
        self.platform = transport.platform
        self.poster = DigestPoster(core.store, transport)
        self.tasks = Tasks(label)
        self.flag_loop = FlagLoop(
            core.flag_records, core.revisions, self.poster, answers, self.tasks.spawn
        )
        self.inline = inline

    async def after_ack(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Do the work that follows the acknowledgement: here, or in a tracked task."""
        if self.inline:
            await work
        else:
            self.tasks.spawn(work, what)

    async def ready(self) -> None:
        """Let the transport learn who it is before posting, if it needs to."""
        await self.poster.identified()


class ChatBot:
    """What every platform's bot shares: the core's objects, through its `room`, and the
    tracked tasks. A platform's bot sets `room` (from `ChatCore.room`) in its constructor."""

    room: ChatRoom

    @property
    def core(self) -> ChatCore:
        return self.room.core

    @property
    def settings(self) -> Settings:
        return self.room.core.settings

    @property
    def service(self) -> DigestService:
        return self.room.core.service

    @property
    def store(self) -> Store:
        return self.room.core.store

    @property
    def poster(self) -> DigestPoster:
        return self.room.poster

    @property
    def flag_loop(self) -> FlagLoop:
        return self.room.flag_loop

    @property
    def scheduler(self) -> ScheduleControl | None:
        """The schedule `/digest subscribe` and friends change (None: not run here)."""
        return self.room.core.scheduler

    @scheduler.setter
    def scheduler(self, scheduler: ScheduleControl | None) -> None:
        self.room.core.scheduler = scheduler

    def spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` beside the listener, tracked (see `bot.chat.tasks.Tasks`)."""
        self.room.tasks.spawn(work, what)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every task started by a listener has finished."""
        await self.room.tasks.drain(timeout)

    async def is_connected(self) -> bool:
        """Whether the platform's connection is up now, for /healthz (a bot that can tell
        says so; this one only knows it was started)."""
        return True
