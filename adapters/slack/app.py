"""The Slack bot: Bolt listeners that ack first, then hand the work to the core.

Every listener acknowledges within Slack's 3 seconds before any GitHub, LLM or posting
work starts; that work runs as a tracked task (`SlackBot.drain()` waits for it, which is
how tests and shutdown know it is over). Parsing and limits live in `bot.chat_commands`,
idempotent posting in `bot.chat_posting`, flags in `bot.flags` and the re-check they start
in `bot.revisions`: this module only maps Slack payloads to those calls and their results
back to Slack messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import tzinfo
from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import render
from adapters.slack.render import SlackMessage, escape
from adapters.slack.transport import PLATFORM, SlackTransport, make_client
from bot.chat.commands import (
    ChatCommands,
    DigestRequest,
    PRRequest,
    SubscriptionCommand,
    error_text,
)
from bot.chat.flag_loop import FlagLoop
from bot.chat.flags import FlagService
from bot.chat.posting import DigestPoster, post_zone
from bot.chat.revisions import RevisionOutcome, RevisionService
from bot.chat.subscribe import handle_subscription_command
from bot.core.day_window import zone
from bot.core.errors import ConfigurationError, PRDigestError
from bot.core.models import DigestEntry, Flag, PostRecord, PRSummary
from bot.core.settings import Settings
from bot.digest.service import DigestService
from bot.ports.schedule import ScheduleControl
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

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


class SlackBot:
    """The Bolt app and the objects it drives, wired once."""

    def __init__(
        self,
        settings: Settings,
        service: DigestService,
        store: Store,
        *,
        client: AsyncWebClient | None = None,
        pace: float | None = None,
        scheduler: ScheduleControl | None = None,
    ):
        """`scheduler`, when the process runs one, serves `/digest subscribe` and friends;
        it may also be set after construction (it needs `self.poster` to be built)."""
        self.settings = settings
        self.scheduler = scheduler
        self.store = store
        self.client = client or make_client(settings.slack_bot_token, settings.slack_api_url)
        self.transport = SlackTransport(
            self.client,
            pace=slack_pace(settings) if pace is None else pace,
            flag_emoji=settings.flag_emoji[0] if settings.flag_emoji else "x",
        )
        self.poster = DigestPoster(store, self.transport)
        self.service = service
        self.commands = ChatCommands(service, settings)
        self.flags = FlagService(store, settings.flag_emoji)
        self.revisions = RevisionService(store, service, settings)
        self.flag_loop = FlagLoop(self.flags, self.revisions, self.spawn)
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
        self._tasks: set[asyncio.Task[None]] = set()
        self._not_ours: set[tuple[str, str]] = set()
        self._adopt_lock = asyncio.Lock()
        # (channel, summary id) -> set once the "thanks" for that summary is out: a re-check
        # runs alongside it but never answers before it.
        self.app.command("/digest")(self.on_digest)
        self.app.command("/prsummary")(self.on_prsummary)
        self.app.event("reaction_added")(self.on_reaction_added)
        self.app.event("reaction_removed")(self.on_reaction_removed)
        self.app.error(self.on_error)

    # -- background work ---------------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` after the ack, keeping a reference so it is neither lost nor orphaned."""
        task = asyncio.ensure_future(self._guard(work, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guard(self, work: Coroutine[Any, Any, None], what: str) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - one command's failure must not stop the bot
            log.exception("%s failed", what)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every piece of work started by a listener has finished."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self._tasks:
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            done, _ = await asyncio.wait(set(self._tasks), timeout=remaining)
            if not done and deadline is not None and loop.time() >= deadline:
                raise TimeoutError(f"{len(self._tasks)} Slack tasks still running")

    async def aclose(self, timeout: float = 10.0) -> None:
        """Let running work finish for a moment, then cancel it: a digest resumes later."""
        try:
            await self.drain(timeout)
        except TimeoutError:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _say(self, respond: Respond, text: str, **kwargs: Any) -> None:
        """An ephemeral line to the user who typed the command (errors, links, progress)."""
        try:
            await respond(text=text, response_type="ephemeral", **kwargs)
        except Exception:  # noqa: BLE001 - the user misses a note; the work itself is done
            log.warning("could not answer through response_url", exc_info=True)

    # -- /digest -----------------------------------------------------------------------------

    async def on_digest(self, ack: Any, command: dict[str, Any], respond: Respond) -> None:
        channel = command.get("channel_id", "")
        user = command.get("user_id", "")
        try:
            request = self.commands.digest_request(command.get("text"), channel)
        except PRDigestError as exc:
            await ack(text=escape(str(exc)))
            return
        if isinstance(request, SubscriptionCommand):
            if self.scheduler is None:
                await ack(text="Daily digests are not scheduled by this process.")
                return
            await ack()
            self.spawn(self._subscription(channel, user, request, respond), "/digest subscription")
            return
        day = request.window.day.isoformat()
        label = f"{escape(request.repo)} for {day} ({escape(request.window.tz_name)})"
        link = self._already_posted(channel, request)
        if link:
            await ack(
                text=f"The digest of {label} is already in this channel: <{link}|open the thread>."
            )
            return
        try:
            # A digest costs the summaries it may still need (none for a day already
            # summarized, a whole minute's worth for a day never listed), not one unit.
            self.commands.check_llm_budget(user, channel, cost=self.commands.digest_cost(request))
        except PRDigestError as exc:
            await ack(text=escape(str(exc)))
            return
        await ack(text=f"Preparing the digest of {label}…")
        self.spawn(self._post_digest(channel, request, label, respond), f"/digest {label}")

    def _already_posted(self, channel: str, request: DigestRequest) -> str | None:
        """A link to the thread when the day's digest is complete here: no work at all."""
        numbers = self.store.get_day(request.repo, request.window)
        return self.poster.finished_link(
            channel, request.repo, request.window.day.isoformat(), numbers
        )

    async def _post_digest(
        self, channel: str, request: DigestRequest, label: str, respond: Respond
    ) -> None:
        try:
            await self.transport.identify()
            digest = await self.commands.build_digest(request)
            outcome = await self.poster.post(channel, digest)
        except SlackApiError as exc:
            log.warning("posting the digest of %s failed: %s", label, exc)
            await self._say(respond, slack_error_text(exc))
            return
        except Exception as exc:  # noqa: BLE001 - the user gets one line, the log the rest
            if not isinstance(exc, PRDigestError):
                log.exception("the digest of %s failed", label)
            await self._say(respond, escape(error_text(exc)))
            return
        thread = f"<{outcome.link}|open the thread>"
        if outcome.status == "already":
            text = f"The digest of {label} is already in this channel: {thread}."
        elif outcome.status == "resumed":
            text = f"Resumed the digest of {label} where it stopped: {thread}."
        else:
            text = f"Posted the digest of {label}: {thread}."
        if digest.failed:
            text += f" {len(digest.failed)} PRs could not be summarized; their replies say why."
        await self._say(respond, text)

    async def _subscription(
        self, channel: str, user: str, request: SubscriptionCommand, respond: Respond
    ) -> None:
        # Anyone can type a slash command in any channel; a digest can only be posted
        # where the bot is a member.
        member = request.action != "subscribe" or await self.transport.is_member(channel)
        try:
            text = await handle_subscription_command(
                request, PLATFORM, channel, SubscriptionStore(self.store), self.scheduler,
                bot_in_channel=member, user=user,
            )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - one line for the user, the log the rest
            if not isinstance(exc, PRDigestError):
                log.exception("/digest %s failed", request.action)
            text = error_text(exc)
        await self._say(respond, escape(text))

    # -- /prsummary --------------------------------------------------------------------------

    async def on_prsummary(self, ack: Any, command: dict[str, Any], respond: Respond) -> None:
        channel = command.get("channel_id", "")
        user = command.get("user_id", "")
        try:
            request = self.commands.pr_request(command.get("text"), channel)
            entry = self.commands.cached(request)
            if entry is None:
                self.commands.check_llm_budget(user, channel)
        except PRDigestError as exc:
            await ack(text=escape(str(exc)))
            return
        if entry is not None:
            await ack()
            self.spawn(self._answer(channel, entry, respond), f"/prsummary #{request.number}")
            return
        await ack(text=f"Summarizing #{request.number}…")
        self.spawn(self._summarize(channel, request, respond), f"/prsummary #{request.number}")

    async def _summarize(self, channel: str, request: PRRequest, respond: Respond) -> None:
        try:
            entry = await self.commands.summarize(request)
        except Exception as exc:  # noqa: BLE001 - not found, an issue, GitHub down...
            if not isinstance(exc, PRDigestError):
                log.exception("/prsummary %s#%s failed", request.repo, request.number)
            await self._say(respond, escape(error_text(exc)))
            return
        if not entry.ok:
            reason = escape(entry.error or "unknown error")
            await self._say(respond, f"Could not summarize #{request.number}: {reason}")
            return
        await self._answer(channel, entry, respond)

    async def _answer(self, channel: str, entry: DigestEntry, respond: Respond) -> None:
        """The summary, through response_url (in the channel unless configured ephemeral)."""
        visibility = (
            "ephemeral" if self.settings.prsummary_visibility == "ephemeral" else "in_channel"
        )
        tz = zone(self.settings.timezone)
        for message in render.summary_messages(entry, tz):
            try:
                response = await respond(
                    response_type=visibility, replace_original=False, **message.as_kwargs()
                )
                delivered = getattr(response, "status_code", 200) == 200
            except Exception:  # noqa: BLE001 - e.g. the response_url expired on a slow model
                log.warning("response_url refused the /prsummary answer", exc_info=True)
                delivered = False
            if not delivered:
                if visibility != "in_channel":
                    return
                # A late in-channel answer still reaches the channel, as a normal message.
                await self._post_answer(channel, entry, message)

    async def _post_answer(self, channel: str, entry: DigestEntry, message: SlackMessage) -> None:
        summary_id = entry.summary.id if entry.summary else None
        record = self.store.begin_post(
            PostRecord(PLATFORM, channel, entry.pr.repo, "", entry.pr.number, "", None, summary_id),
            kind="prsummary",
        )
        ts = await self.transport.post(channel, message)
        self.store.complete_post(record.id, ts)  # type: ignore[arg-type]

    # -- reactions ---------------------------------------------------------------------------

    def _reaction(self, event: dict[str, Any]) -> tuple[str, str, str, str] | None:
        """(channel, ts, user, emoji) of a flag reaction on a message, else None."""
        item = event.get("item") or {}
        emoji = str(event.get("reaction") or "")
        user = str(event.get("user") or "")
        if item.get("type") != "message" or not self.flags.is_flag(emoji) or not user:
            return None
        if user == self.transport.bot_user_id:
            return None
        return str(item.get("channel") or ""), str(item.get("ts") or ""), user, emoji

    async def on_reaction_added(self, event: dict[str, Any]) -> None:
        reaction = self._reaction(event)
        if reaction:
            self.spawn(self._flag(*reaction), "flag")

    async def on_reaction_removed(self, event: dict[str, Any]) -> None:
        reaction = self._reaction(event)
        if reaction:
            self.flags.removed(PLATFORM, *reaction)

    async def _flag(self, channel: str, ts: str, user: str, emoji: str) -> None:
        if self.store.post_by_message(PLATFORM, channel, ts) is None:
            await self._adopt_answer(channel, ts)  # a /prsummary answer sent via response_url
        await self.flag_loop.added(self, PLATFORM, channel, ts, user, emoji)

    def _flagged_post(self, flag: Flag) -> tuple[PostRecord | None, str]:
        """The flagged message's record and the thread to answer in (its own, if none)."""
        post = self.store.post_by_message(PLATFORM, flag.channel, flag.message_id)
        return post, (post.thread_id if post else None) or flag.message_id

    # The three answers to a flag (bot.flag_loop.FlagAnswers); the loop orders them.

    async def thank(self, flag: Flag) -> None:
        _, thread = self._flagged_post(flag)
        await self.transport.post_text(
            flag.channel, render.flag_ack_text(flag.user), thread_ts=thread
        )

    async def post_correction(self, outcome: RevisionOutcome) -> None:
        assert outcome.new is not None
        await self._post_revision(outcome, outcome.new)

    async def post_no_change(self, outcome: RevisionOutcome) -> None:
        _, thread = self._flagged_post(outcome.flag)
        text = render.recheck_text(outcome.flag.user, outcome.note)
        await self.transport.post_text(outcome.flag.channel, text, thread_ts=thread)

    async def _post_revision(self, outcome: RevisionOutcome, new: PRSummary) -> None:
        """The corrected summary in the thread (recorded, so it can be flagged in turn), then
        the flagged message edited to point at it."""
        flag, old = outcome.flag, outcome.old
        post, thread = self._flagged_post(flag)
        day = post.day if post else ""
        pr = self.store.get_pr(new.repo, new.number)
        if pr is None:
            pr = await self.service.pull_request(new.repo, new.number)
        tz = post_zone(post, self.settings.timezone)
        messages = render.revision_messages(
            DigestEntry(pr, new), tz, user_id=flag.user, note=outcome.note, day=day
        )
        record = self.store.begin_post(
            PostRecord(
                PLATFORM,
                flag.channel,
                new.repo,
                day,
                new.number,
                "",
                thread,
                new.id,
                tz_name=post.tz_name if post else None,
            ),  # fmt: skip
            kind="revision",
        )
        try:
            ts = await self.transport.post_all(flag.channel, messages, thread_ts=thread)
        except SlackApiError as exc:  # the new version is stored; reports already show it
            log.warning("could not post revision %s in %s: %s", new.id, flag.channel, exc)
            return
        self.store.complete_post(record.id, ts, thread)  # type: ignore[arg-type]
        log.info("posted revision %s of %s#%s in %s", new.id, new.repo, new.number, flag.channel)
        if post is None or old is None:
            return
        try:
            url = await self.transport.permalink(flag.channel, ts, thread_ts=thread)
            shown = self._as_posted(post, DigestEntry(pr, old), tz)
            await self.transport.update(
                flag.channel, flag.message_id, render.with_revision_notice(shown, url)
            )
        except SlackApiError as exc:  # the correction is out; only the pointer to it is missing
            log.warning(
                "could not mark %s in %s as revised: %s", flag.message_id, flag.channel, exc
            )

    def _as_posted(self, post: PostRecord, entry: DigestEntry, tz: tzinfo | None) -> SlackMessage:
        """The flagged message as it was sent (its first part), rebuilt from the store:
        chat.update replaces all the blocks, so all of them are sent again."""
        kind = self.store.post_kind(post.id)  # type: ignore[arg-type]
        if kind == "pr":
            ids = [
                r.id
                for r in self.store.digest_posts(PLATFORM, post.channel, post.repo, post.day)
                if r.pr_number
            ]
            position = f"{ids.index(post.id) + 1}/{len(ids)}" if post.id in ids else None
            payload = render.pr_payload(entry, day=post.day)
            return render.entry_messages(entry, tz, position=position, payload=payload)[0]
        if kind == "revision" and entry.summary is not None:
            return render.revision_messages(
                entry, tz, user_id=self.store.revision_flagger(entry.summary.id),
                note=entry.summary.change_note, day=post.day,
            )[0]  # fmt: skip
        return render.summary_messages(entry, tz)[0]

    async def _adopt_answer(self, channel: str, ts: str) -> bool:
        """Record a /prsummary answer sent through response_url, whose ts we never saw.

        Its metadata names the summary it showed; only our own bot's messages count.
        """
        if (channel, ts) in self._not_ours:
            return False
        async with self._adopt_lock:
            if self.store.post_by_message(PLATFORM, channel, ts):
                return True
            try:
                await self.transport.identify()
                message = await self.transport.find_message(channel, ts)
            except SlackApiError as exc:
                log.info("cannot read the flagged message %s in %s: %s", ts, channel, exc)
                return False
            payload = self.transport.payload_of(message or {}, render.PR_EVENT)
            summary = None
            if payload and isinstance(payload.get("summary_id"), int):
                summary = self.store.get_summary_by_id(payload["summary_id"])
            if (
                summary is None
                or summary.repo != payload.get("repo")  # type: ignore[union-attr]
                or summary.number != payload.get("pr")  # type: ignore[union-attr]
            ):
                self._not_ours.add((channel, ts))
                return False
            record = self.store.begin_post(
                PostRecord(
                    PLATFORM, channel, summary.repo, "", summary.number, "", None, summary.id
                ),
                kind="prsummary",
            )
            self.store.complete_post(record.id, ts)  # type: ignore[arg-type]
            return True

    # -- errors ------------------------------------------------------------------------------

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error("Slack listener error: %s", error, exc_info=error)


# -- running -------------------------------------------------------------------------------


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
) -> None:
    """Run the Slack bot until cancelled: Socket Mode by default, or HTTP on `port`.

    Pass `bot` to run one built beforehand (e.g. whose `poster` a scheduler also uses);
    `started` is called once the bot is connected (or listening), for callers that wait.
    """
    check_settings(settings, http=http)
    bot = bot or SlackBot(settings, service, store, pace=pace)
    try:
        await bot.transport.identify()
    except SlackApiError as exc:
        raise ConfigurationError(
            f"Slack refused SLACK_BOT_TOKEN ({exc.response.get('error')})"
        ) from None
    closers: list[Callable[[], Awaitable[None]]] = []
    try:
        if http:
            closers.append(await _listen_http(bot, host, port))
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


async def _listen_http(bot: SlackBot, host: str, port: int) -> Callable[[], Awaitable[None]]:
    from aiohttp import web
    from slack_bolt.app.async_server import AsyncSlackAppServer

    # Bolt's own aiohttp app (signature checks included), run on our loop, not its own.
    server = AsyncSlackAppServer(port=port, path=EVENTS_PATH, app=bot.app, host=host)
    runner = web.AppRunner(server.web_app)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise ConfigurationError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return runner.cleanup


async def _connect_socket_mode(bot: SlackBot, app_token: str) -> Callable[[], Awaitable[None]]:
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

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
    return handler.close_async
