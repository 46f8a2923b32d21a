"""The Slack bot: Bolt listeners that ack first, then hand the work to the chat core.

Every listener acknowledges within Slack's 3 seconds before any GitHub, LLM or posting
work starts; that work runs as a tracked task (`SlackBot.drain()` waits for it, which is
how tests and shutdown know it is over). The flows live in `bot.chat.core` and, for flags,
`bot.chat.flags`, once for every platform: this module maps Slack payloads to those calls
(with a reply object per command, one `Reaction` per flag reaction) and their results back to
Slack messages, rendered by `adapters.slack.render`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import tzinfo
from typing import Any

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import render
from adapters.slack.render import SlackMessage, escape
from adapters.slack.render import search as render_search
from adapters.slack.transport import PLATFORM, SlackTransport, make_client
from adapters.slack.users import UserNames
from bot.chat.core import Ask, ChatBot, ChatCore
from bot.chat.tasks import report
from bot.chat.web_site import start_site
from bot.core.day_window import zone
from bot.core.errors import ConfigurationError
from bot.core.models import (
    DigestEntry,
    Flag,
    PostKind,
    PostRecord,
    RevisionOutcome,
)
from bot.core.search import AskAnswer, FoundPR, SearchTerms
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.chat import Posted, Reaction
from bot.store.store import Store

log = logging.getLogger(__name__)

Respond = Callable[..., Awaitable[Any]]


class _SkipUnusedTokenWarning(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN from the environment even when given a client, then warns
    that it is unused; we always pass our own client (it carries SLACK_API_URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


logging.getLogger("slack_bolt.AsyncApp").addFilter(_SkipUnusedTokenWarning())

EVENTS_PATH = "/slack/events"
NOT_IN_CHANNEL = ("not_in_channel", "channel_not_found", "is_archived")


def slack_pace(settings: Settings) -> float:
    """Seconds between two messages in one channel (PRDIGEST_SLACK_PACE, default 1)."""
    return max(0.0, settings.slack_pace)


def slack_error_text(exc: SlackApiError) -> str:
    error = str(exc.response.get("error", "") if exc.response is not None else "")
    if error in NOT_IN_CHANNEL:
        return (
            "I can't post in this channel: invite me with `/invite @prdigest`, then run the "
            "command again (a digest picks up where it stopped)."
        )
    reason = escape(error or "unknown error")
    return f"Slack refused a message ({reason}). Run the command again to resume."


class SlackBot(ChatBot):
    """The Bolt app and its listeners over the chat core; `transport` talks to Slack."""

    def __init__(
        self,
        settings: Settings,
        service: DigestService,
        store: Store,
        *,
        client: AsyncWebClient | None = None,
        pace: float | None = None,
        core: ChatCore | None = None,
        **core_options: Any,
    ):
        """`core` is the chat core shared by every platform of the process (the composition
        root passes it); one is made over `service` and `store` (with `core_options`, such as
        `scheduler`) when none is given."""
        core = core or ChatCore(settings, service, store, **core_options)
        self.client = client or make_client(settings.slack_bot_token, settings.slack_api_url)
        self.transport = SlackTransport(
            self.client,
            pace=slack_pace(settings) if pace is None else pace,
            flag_emoji=settings.flag_emoji[0] if settings.flag_emoji else "x",
        )
        self.names = UserNames(self.client)  # who flagged, by name, for the whole process
        self.room = core.room(self.transport, "Slack", SlackAnswers(self))
        self.app = AsyncApp(
            client=self.client,
            # Socket Mode requests are not signed; HTTP ones are verified against this.
            signing_secret=settings.slack_signing_secret or "",
            name="prdigest",
            # Our listeners only ack and hand the work to a tracked task, so Bolt may as well
            # wait for them: the response still leaves in milliseconds, and every task exists
            # by the time dispatch returns (drain() and shutdown see all of them).
            process_before_response=True,
        )
        self.app.command("/digest")(self.on_digest)
        self.app.command("/prsummary")(self.on_prsummary)
        self.app.event("reaction_added")(self.on_reaction_added)
        self.app.event("reaction_removed")(self.on_reaction_removed)
        self.app.error(self.on_error)
        self.socket_mode: Any = None  # the Socket Mode client once connected (None over HTTP)

    async def is_connected(self) -> bool:
        """Over Socket Mode, whether its WebSocket is open now (it reconnects by itself)."""
        return self.socket_mode is None or await self.socket_mode.is_connected()

    # -- background work ---------------------------------------------------------------------

    async def aclose(self, timeout: float = 10.0) -> None:
        """Let running work finish for a moment, then cancel it: a digest resumes later."""
        await self.room.tasks.finish(timeout)

    # -- listeners ---------------------------------------------------------------------------

    async def on_digest(self, ack: Any, command: dict[str, Any], respond: Respond) -> None:
        reply = SlackDigestReply(self, ack, respond, command.get("channel_id", ""))
        await self.core.digest(self.room, _ask(command), reply)

    async def on_prsummary(self, ack: Any, command: dict[str, Any], respond: Respond) -> None:
        reply = SlackSummaryReply(self, ack, respond, command.get("channel_id", ""))
        await self.core.prsummary(self.room, _ask(command), reply)

    def _reaction(self, event: dict[str, Any], *, added: bool) -> Reaction | None:
        """The flag a reaction event is, on a message and by someone else than the bot; else
        None."""
        item = event.get("item") or {}
        emoji = self.core.flag_emojis.match(str(event.get("reaction") or ""))
        user = str(event.get("user") or "")
        if item.get("type") != "message" or emoji is None or not user:
            return None
        if user == self.transport.bot_user_id:
            return None
        channel, ts = str(item.get("channel") or ""), str(item.get("ts") or "")
        return Reaction(PLATFORM, channel, ts, user, emoji, added)

    async def on_reaction_added(self, event: dict[str, Any]) -> None:
        reaction = self._reaction(event, added=True)
        if reaction:
            self.spawn(self.flag_loop.on_reaction(reaction), "flag")

    async def on_reaction_removed(self, event: dict[str, Any]) -> None:
        reaction = self._reaction(event, added=False)
        if reaction:
            await self.flag_loop.on_reaction(reaction)

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error("Slack listener error: %s", error, exc_info=error)


def _ask(command: dict[str, Any]) -> Ask:
    return Ask(command.get("channel_id", ""), command.get("user_id", ""), command.get("text"))


class _SlackReply:
    """The answers every command shares: through ack, then response_url (ephemeral)."""

    def __init__(self, bot: SlackBot, ack: Any, respond: Respond, channel: str):
        self.bot = bot
        self.ack = ack
        self.respond = respond
        self.channel = channel

    async def answer(self, text: str) -> None:
        await self.ack(text=escape(text))

    async def accept(self, note: str | None = None) -> None:
        if note is None:
            await self.ack()
        else:
            await self.ack(text=escape(note))

    async def say(self, text: str) -> None:
        await self._say(escape(text))

    async def error(self, text: str) -> None:
        await self._say(escape(text))

    async def failed(self, exc: Exception, what: str) -> None:
        if isinstance(exc, SlackApiError):
            log.warning("%s failed: %s", what, exc)
            return await self._say(slack_error_text(exc))
        await self._say(escape(report(exc, what)))

    async def _say(self, text: str, **kwargs: Any) -> None:
        """An ephemeral line to the user who typed the command (errors, links, progress)."""
        try:
            await self.respond(text=text, response_type="ephemeral", **kwargs)
        except Exception:  # noqa: BLE001 - the user misses a note; the work itself is done
            log.warning("could not answer through response_url", exc_info=True)


class SlackDigestReply(_SlackReply):
    def not_here(self) -> str | None:
        return None

    async def already(self, repo: str, day: str, tz_name: str, link: str) -> bool:
        await self.ack(text=render.already_text(render.digest_label(repo, day, tz_name), link))
        return True

    async def posted(
        self, repo: str, day: str, tz_name: str, status: str, link: str, sent: int, failed: int
    ) -> None:
        label = render.digest_label(repo, day, tz_name)
        await self._say(render.posted_text(label, status, link, failed))

    async def can_post(self) -> bool:
        return await self.bot.transport.is_member(self.channel)

    async def found(self, terms: SearchTerms, results: Sequence[FoundPR]) -> None:
        await self._say_message(render_search.search_message(terms, results))

    async def answered(self, answer: AskAnswer) -> None:
        await self._say_message(render_search.answer_message(answer))

    async def _say_message(self, message: SlackMessage) -> None:
        await self._say(message.text, blocks=message.blocks, unfurl_links=False)


class SlackSummaryReply(_SlackReply):
    async def show(self, entry: DigestEntry) -> Posted | None:
        """The summary, through response_url (in the channel unless configured ephemeral);
        a late in-channel answer still reaches the channel, as a normal recorded message."""
        if not entry.ok:
            await self._say(render.not_summarized_text(entry.pr.number, entry.error))
            return None
        ephemeral = self.bot.settings.prsummary_visibility == "ephemeral"
        visibility = "ephemeral" if ephemeral else "in_channel"
        for message in render.summary_messages(entry, zone(self.bot.settings.timezone)):
            try:
                response = await self.respond(
                    response_type=visibility, replace_original=False, **message.as_kwargs()
                )
                delivered = getattr(response, "status_code", 200) == 200
            except Exception:  # noqa: BLE001 - e.g. the response_url expired on a slow model
                log.warning("response_url refused the /prsummary answer", exc_info=True)
                delivered = False
            if not delivered:
                if ephemeral:
                    return None
                await self._post(entry, message)
        return None  # response_url answers are recorded when flagged (see SlackAnswers.adopt)

    async def _post(self, entry: DigestEntry, message: SlackMessage) -> None:
        async def send() -> Posted:
            return Posted(await self.bot.transport.post(self.channel, message))

        await self.bot.poster.send_recorded(
            PostKind.PRSUMMARY, send, channel=self.channel, repo=entry.pr.repo,
            pr_number=entry.pr.number, summary_id=entry.summary.id if entry.summary else None,
        )  # fmt: skip


class SlackAnswers:
    """How Slack answers a flag: in the flagged message's thread, by chat.update for marks."""

    def __init__(self, bot: SlackBot):
        self.bot = bot
        self.transport = bot.transport
        self._not_ours: set[tuple[str, str]] = set()
        self._adopt_lock = asyncio.Lock()

    async def adopt(self, reaction: Reaction) -> PostRecord | None:
        """Record a /prsummary answer sent through response_url, whose ts we never saw.

        Its metadata names the summary it showed; only our own bot's messages count.
        """
        channel, ts = reaction.channel, reaction.message_id
        if (channel, ts) in self._not_ours:
            return None
        async with self._adopt_lock:
            known = await self.bot.store.aio.post_by_message(PLATFORM, channel, ts)
            if known is not None:  # adopted by a flag that came a moment before
                return known
            try:
                await self.transport.identify()
                message = await self.transport.find_message(channel, ts)
            except SlackApiError as exc:
                log.info("cannot read the flagged message %s in %s: %s", ts, channel, exc)
                return None
            payload = self.transport.payload_of(message or {}, render.PR_EVENT) or {}
            summary_id = payload.get("summary_id")
            summary = (
                await self.bot.store.aio.get_summary_by_id(summary_id)
                if isinstance(summary_id, int)
                else None
            )
            if summary is None or (summary.repo, summary.number) != (
                payload.get("repo"),
                payload.get("pr"),
            ):
                self._not_ours.add((channel, ts))
                return None
            return await self.bot.poster.record_sent(
                PostKind.PRSUMMARY, Posted(ts), channel=channel, repo=summary.repo,
                pr_number=summary.number, summary_id=summary.id,
            )  # fmt: skip

    @staticmethod
    def _thread(flag: Flag, post: PostRecord | None) -> str:
        return (post.thread_id if post else None) or flag.message_id

    async def thank(self, flag: Flag, post: PostRecord | None) -> None:
        text = render.flag_ack_text(await self.bot.names.name(flag.user))
        await self.transport.post_text(flag.channel, text, thread_ts=self._thread(flag, post))

    async def no_change(self, outcome: RevisionOutcome, post: PostRecord | None) -> None:
        text = render.recheck_text(await self.bot.names.name(outcome.flag.user), outcome.note)
        thread = self._thread(outcome.flag, post)
        await self.transport.post_text(outcome.flag.channel, text, thread_ts=thread)

    async def send_revision(
        self, outcome: RevisionOutcome, post: PostRecord | None, entry: DigestEntry, tz: tzinfo
    ) -> Posted:
        flag, thread = outcome.flag, self._thread(outcome.flag, post)
        who = await self.bot.names.name(flag.user)
        messages = render.revision_messages(
            entry, tz, who=who, note=outcome.note, day=post.day if post else ""
        )
        ts = await self.transport.post_all(flag.channel, messages, thread_ts=thread)
        return Posted(ts, thread)

    async def mark_revised(
        self, outcome: RevisionOutcome, post: PostRecord | None, old: DigestEntry, tz: tzinfo,
        posted: Posted,
    ) -> None:  # fmt: skip
        """chat.update replaces all the blocks, so the flagged message is rebuilt as it was
        sent, from the store, with the notice added."""
        flag = outcome.flag
        if post is None:
            return
        try:
            url = await self.transport.permalink(
                flag.channel, posted.message_id, thread_ts=posted.thread_id
            )
            flagger = await self.bot.store.aio.read(self._revision_flagger, post, old)
            who = await self.bot.names.name(flagger) if flagger else None
            shown = await self.bot.store.aio.read(self._as_posted, post, old, tz, who)
            await self.transport.update(
                flag.channel, flag.message_id, render.with_revision_notice(shown, url)
            )
        except SlackApiError as exc:  # the correction is out; only the pointer to it is missing
            log.warning(
                "could not mark %s in %s as revised: %s", flag.message_id, flag.channel, exc
            )

    def _revision_flagger(self, post: PostRecord, entry: DigestEntry) -> str | None:
        """Who flagged the summary a flagged correction revised (its intro names them)."""
        store = self.bot.store
        if post.kind != PostKind.REVISION or entry.summary is None or entry.summary.id is None:
            return None
        return store.revision_flagger(entry.summary.id)

    def _as_posted(
        self, post: PostRecord, entry: DigestEntry, tz: tzinfo | None, who: str | None
    ) -> SlackMessage:
        """The flagged message as it was sent (its first part), rebuilt from the store; `who`
        is the name a correction's intro gives its flagger."""
        store = self.bot.store
        kind = post.kind
        if kind == PostKind.PR:
            ids = [
                r.id
                for r in store.digest_posts(PLATFORM, post.channel, post.repo, post.day)
                if r.pr_number
            ]
            position = f"{ids.index(post.id) + 1}/{len(ids)}" if post.id in ids else None
            payload = render.pr_payload(entry, day=post.day)
            return render.entry_messages(entry, tz, position=position, payload=payload)[0]
        if kind == PostKind.REVISION and entry.summary is not None:
            return render.revision_messages(
                entry, tz, who=who, note=entry.summary.change_note, day=post.day
            )[0]
        return render.summary_messages(entry, tz)[0]


# -- running -------------------------------------------------------------------------------


def create_bot(settings: Settings, service: DigestService, store: Store, **kwargs) -> SlackBot:
    """The one place a SlackBot is made (the composition root calls it with the chat core)."""
    return SlackBot(settings, service, store, **kwargs)


def check_settings(settings: Settings, *, http: bool) -> None:
    if not settings.slack_bot_token:
        raise ConfigurationError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-…)")
    if http and not settings.slack_signing_secret:
        raise ConfigurationError("HTTP mode needs SLACK_SIGNING_SECRET (Basic Information page)")
    if not http and not settings.slack_app_token:
        raise ConfigurationError(
            "Socket Mode needs SLACK_APP_TOKEN (an xapp-… token with connections:write); "
            "or run with --http and SLACK_SIGNING_SECRET"
        )


async def run_slack(
    settings: Settings,
    service: DigestService,
    store: Store,
    *,
    http: bool = False,
    port: int = 3000,
    host: str = "0.0.0.0",
    pace: float | None = None,
    started: Callable[[SlackBot], None] | None = None,
    bot: SlackBot | None = None,
    routes: Callable[[web.Application], None] | None = None,
) -> None:
    """Run the Slack bot until cancelled: Socket Mode by default, or HTTP on `port`.

    Pass `bot` to run one built beforehand (e.g. whose `poster` a scheduler also uses);
    `started` is called once the bot is connected (or listening), for callers that wait;
    `routes` adds the process' own routes (/healthz, /metrics) to the HTTP server.
    """
    check_settings(settings, http=http)
    bot = bot or create_bot(settings, service, store, pace=pace)
    try:
        await bot.transport.identify()
    except SlackApiError as exc:
        raise ConfigurationError(
            f"Slack refused SLACK_BOT_TOKEN ({exc.response.get('error')})"
        ) from None
    closers: list[Callable[[], Awaitable[None]]] = []
    try:
        if http:
            closers.append(await _listen_http(bot, host, port, routes))
            log.info("Slack bot listening on http://%s:%d%s", host, port, EVENTS_PATH)
        else:
            closers.append(await _connect_socket_mode(bot, settings.slack_app_token or ""))
            log.info("Slack bot connected in Socket Mode")
        if started:
            started(bot)
        await asyncio.Event().wait()  # until cancelled (Ctrl-C, SIGTERM)
    finally:
        for close in reversed(closers):
            try:
                await close()
            except Exception:  # noqa: BLE001 - shutting down anyway
                log.debug("error while closing the Slack connection", exc_info=True)
        await bot.aclose()


async def _listen_http(
    bot: SlackBot, host: str, port: int, routes: Callable[[web.Application], None] | None = None
) -> Callable[[], Awaitable[None]]:
    # Bolt's own aiohttp app (signature checks included), run on our loop, not its own.
    server = AsyncSlackAppServer(port=port, path=EVENTS_PATH, app=bot.app, host=host)
    if routes is not None:
        routes(server.web_app)
    runner = await start_site(server.web_app, host, port, failure=f"Cannot listen on {host}:{port}")
    return runner.cleanup


async def _connect_socket_mode(bot: SlackBot, app_token: str) -> Callable[[], Awaitable[None]]:
    # The aiohttp handler asks for the WebSocket URL with the client it is given, so
    # apps.connections.open goes to SLACK_API_URL like every other call.
    handler = AsyncSocketModeHandler(bot.app, app_token, web_client=bot.client)
    try:
        # Asked once here so a bad app token fails now instead of retrying forever.
        handler.client.wss_uri = await handler.client.issue_new_wss_url()
    except SlackApiError as exc:
        await handler.close_async()
        raise ConfigurationError(
            f"Slack refused SLACK_APP_TOKEN ({exc.response.get('error')}); "
            "it must be an app-level token with connections:write"
        ) from None
    await handler.connect_async()
    bot.socket_mode = handler.client
    return handler.close_async
