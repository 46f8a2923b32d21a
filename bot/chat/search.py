"""`/digest search` and `/digest ask`, for every platform: the store answers a search at once;
an ask costs one LLM call, limited like `/prsummary`. Each result links to its reply in this
channel's digest thread when one was posted there (the posts table knows it), else to the PR.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from dataclasses import replace
from typing import Any, Protocol

from bot.chat.commands import AskRequest, Budget, ChatCommands, SearchRequest
from bot.chat.tasks import report
from bot.core import llm_work
from bot.core.errors import PRDigestError
from bot.core.search import FoundPR
from bot.core.settings import Settings
from bot.digest.ask import answer_question
from bot.digest.search import search
from bot.digest.service import DigestService
from bot.ports.chat import DigestReply, Posted, Transport


class Room(Protocol):
    """What these flows need of a platform's `ChatRoom`."""

    platform: str
    transport: Transport

    async def ready(self) -> None: ...

    async def after_ack(self, work: Coroutine[Any, Any, None], what: str) -> None: ...


class SearchFlows:
    """The platform-neutral side of `/digest search` and `/digest ask`."""

    def __init__(self, service: DigestService, settings: Settings, commands: ChatCommands):
        self.service = service
        self.store = service.store
        self.settings = settings
        self.commands = commands

    @property
    def repos(self) -> tuple[str, ...]:
        """What a search that names no repository looks through: the allowed ones (all when
        no allow-list is set)."""
        return tuple(self.settings.allowed_repos or ())

    async def search(
        self, room: Room, channel: str, request: SearchRequest, reply: DigestReply
    ) -> None:
        await reply.accept()
        await room.after_ack(self._search(room, channel, request, reply), "/digest search")

    async def _search(
        self, room: Room, channel: str, request: SearchRequest, reply: DigestReply
    ) -> None:
        try:
            results = await self.store.aio.read(
                search, self.store, request.terms, self.settings.timezone, repos=self.repos,
                area_map=self.service.area_map,
            )  # fmt: skip
            results = await self._linked(room, channel, results)
        except Exception as exc:  # noqa: BLE001 - one line for the user, the log the rest
            return await reply.error(report(exc, "/digest search"))
        await reply.found(request.terms, results)

    async def ask(
        self, room: Room, channel: str, user: str, request: AskRequest, reply: DigestReply
    ) -> None:
        try:  # one call at most, limited like /prsummary; none made costs nothing
            budget = self.commands.check_llm_budget(user, channel)
        except PRDigestError as exc:
            return await reply.answer(str(exc))
        await reply.accept("Reading the stored summaries…")
        await room.after_ack(self._ask(room, channel, request, reply, budget), "/digest ask")

    async def _ask(
        self, room: Room, channel: str, request: AskRequest, reply: DigestReply, budget: Budget
    ) -> None:
        try:
            with llm_work.metered() as meter:
                try:
                    answer = await answer_question(
                        self.service, request.terms, self.settings.timezone, repos=self.repos
                    )
                finally:
                    self.commands.settle(budget, meter.started)
            cited = await self._linked(room, channel, answer.cited)
            sources = await self._linked(room, channel, answer.sources)
        except Exception as exc:  # noqa: BLE001 - one line for the user, the log the rest
            return await reply.error(report(exc, "/digest ask"))
        await reply.answered(replace(answer, cited=tuple(cited), sources=tuple(sources)))

    async def _linked(
        self, room: Room, channel: str, results: Sequence[FoundPR]
    ) -> list[FoundPR]:
        """Each result with the link to its reply in this channel's digest thread, if any."""
        if not results:
            return []
        await room.ready()  # a Slack link needs the workspace's host
        keys = [(pr.repo, pr.number) for pr in results]
        replies = await self.store.aio.posted_replies(room.platform, channel, keys)
        linked = []
        for pr in results:
            posted = replies.get((pr.repo, pr.number))
            link = (
                room.transport.link(channel, Posted(posted.message_id, posted.thread_id))
                if posted
                else None
            )
            linked.append(pr.with_reply(link))
        return linked

