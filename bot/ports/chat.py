"""The chat transport and flag answers: what a platform adapter implements for the chat core."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.core.models import Digest, DigestEntry, Flag, RevisionOutcome


@dataclass(frozen=True)
class Posted:
    message_id: str
    thread_id: str | None = None  # Slack: the parent's ts; Discord: the thread channel's id


class Transport(Protocol):
    """What an adapter implements: sending rendered messages and finding ones it sent."""

    platform: str

    async def send_parent(self, channel: str, digest: Digest) -> Posted:
        """Post the digest's parent message (and, on Discord, create its thread)."""

    async def send_reply(
        self, channel: str, thread_id: str, digest: Digest, entry: DigestEntry, index: int
    ) -> Posted:
        """Post one PR's summary into the thread."""

    async def send_empty(self, channel: str, digest: Digest) -> Posted:
        """Post the one short message of a day with no merged PRs."""

    async def find_parent(self, channel: str, digest: Digest) -> Posted | None:
        """The parent sent before a crash that was not recorded, if the platform has it."""

    async def find_reply(
        self, channel: str, thread_id: str, digest: Digest, pr_number: int
    ) -> Posted | None:
        """A reply sent before a crash that was not recorded, if the platform has it."""

    def link(self, channel: str, posted: Posted) -> str:
        """A URL to the message, for "already posted: <link>" answers."""


class FlagAnswers(Protocol):
    """The platform's three ways to answer a flag."""

    async def thank(self, flag: Flag) -> None: ...

    async def post_correction(self, outcome: RevisionOutcome) -> None: ...

    async def post_no_change(self, outcome: RevisionOutcome) -> None: ...
