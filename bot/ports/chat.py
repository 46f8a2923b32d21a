"""The chat transport, flag reactions and flag answers: what a platform adapter hands to and
implements for the chat core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo
from typing import Protocol

from bot.core.models import Digest, DigestEntry, Flag, PostRecord, RevisionOutcome
from bot.core.search import AskAnswer, FoundPR, SearchTerms


@dataclass(frozen=True)
class Posted:
    message_id: str
    thread_id: str | None = None  # Slack: the parent's ts; Discord: the thread channel's id


@dataclass(frozen=True)
class Reaction:
    """A flag emoji put on (or taken off) a message: the one value an adapter makes of the
    platform's reaction event, after matching its emoji (`bot.chat.flags.emoji`)."""

    platform: str
    channel: str  # the channel the message was posted to: a thread's parent, on Discord
    message_id: str
    user: str
    emoji: str  # the flag, normalized as it is recorded (`x` and `:x:` are `❌`)
    added: bool = True  # False: the reaction was taken off
    thread: str | None = None  # the thread the message is in, when it has its own id (Discord)

    @property
    def channels(self) -> tuple[str, ...]:
        """Where the message's record may be: its channel; else its thread (a /prsummary
        answer given inside a thread is recorded there)."""
        return (self.channel, self.thread) if self.thread else (self.channel,)


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

    async def send_group(self, channel: str, thread_id: str, digest: Digest) -> Posted:
        """Post the grouped reply: one line per PR of `digest.grouped_entries` (more than one
        message only when the lines do not fit in one); the first message's id."""

    async def find_group(self, channel: str, thread_id: str, digest: Digest) -> Posted | None:
        """The grouped reply sent before a crash that was not recorded, if the platform has it
        (after sending any of its later parts that never got there)."""

    async def edit_parent(self, channel: str, posted: Posted, digest: Digest) -> None:
        """Render the parent again and replace it: the same day at a glance, now with
        `digest.links` to the replies. Editing twice gives the same message."""

    async def edit_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> None:
        """Replace a reply posted without a summary with `entry`'s, in place (and add the
        continuation messages a long summary needs). Editing twice gives the same message."""

    async def shows_reply(
        self, channel: str, posted: Posted, digest: Digest, entry: DigestEntry, index: int
    ) -> bool:
        """Whether the reply already shows `entry`'s summary: an edit made before a crash that
        was not recorded."""

    async def shows_parent(self, channel: str, posted: Posted, digest: Digest) -> bool:
        """Whether the parent already shows `digest` as `edit_parent` renders it."""

    async def find_parent(self, channel: str, digest: Digest) -> Posted | None:
        """The parent sent before a crash that was not recorded, if the platform has it."""

    async def find_reply(
        self, channel: str, thread_id: str, digest: Digest, pr_number: int
    ) -> Posted | None:
        """A reply sent before a crash that was not recorded, if the platform has it."""

    def link(self, channel: str, posted: Posted) -> str:
        """A URL to the message, for "already posted: <link>" answers; a reply's URL opens it
        in its thread (`posted.thread_id` differs from its `message_id`)."""


class CommandReply(Protocol):
    """One slash command's way back to whoever typed it; the adapter renders and escapes.

    `answer` is the immediate, final answer (a refusal, a short result); `accept` acknowledges
    within the platform's 3 seconds that more will follow (`note` is plain text it may show);
    `say` is that later private line; `error` is a later error line, already worded.
    """

    async def answer(self, text: str) -> None: ...

    async def accept(self, note: str | None = None) -> None: ...

    async def say(self, text: str) -> None: ...

    async def error(self, text: str) -> None: ...

    async def failed(self, exc: Exception, what: str) -> None:
        """Show a failure of the work after `accept`: the platform's own API errors in its
        words, anything else through `bot.chat.tasks.report`."""


class DigestReply(CommandReply, Protocol):
    """`/digest`'s answers, besides the common ones."""

    def not_here(self) -> str | None:
        """Why a digest cannot be posted where the command was typed (a thread), if so."""

    async def already(self, repo: str, day: str, tz_name: str, link: str) -> bool:
        """Answer at once that the day is already posted here; False to post (and so answer
        "already") the usual way instead."""

    async def posted(
        self, repo: str, day: str, tz_name: str, status: str, link: str, sent: int, failed: int
    ) -> None:
        """The outcome of posting the digest: posted, resumed where it stopped, or already."""

    async def can_post(self) -> bool:
        """Whether the bot may post a digest in this channel (`/digest subscribe`)."""

    async def found(self, terms: SearchTerms, results: Sequence[FoundPR]) -> None:
        """`/digest search`'s results, best first (none: nothing matched), to the user who
        searched; each links to its reply in this channel's digest thread, else to the PR."""

    async def answered(self, answer: AskAnswer) -> None:
        """`/digest ask`'s answer, to the user who asked (after `accept`)."""


class SummaryReply(CommandReply, Protocol):
    """`/prsummary`'s answer: the summary itself."""

    async def show(self, entry: DigestEntry) -> Posted | None:
        """Show the summary; the first message's id when it is in the channel for everyone
        (the core records it, so it can be flagged), else None."""


class PlatformAnswers(Protocol):
    """How one platform answers a flag; `post` is the flagged message's record, read once when
    the reaction came (None when the message is not one the posts table knows)."""

    async def adopt(self, reaction: Reaction) -> PostRecord | None:
        """The record of a reacted-to message the posts table does not know, when the platform
        can tell it is a summary the bot sent (Slack: a /prsummary answer sent through a
        response_url, recorded now); else None."""

    async def thank(self, flag: Flag, post: PostRecord | None) -> None: ...

    async def no_change(self, outcome: RevisionOutcome, post: PostRecord | None) -> None: ...

    async def send_revision(
        self, outcome: RevisionOutcome, post: PostRecord | None, entry: DigestEntry, tz: tzinfo
    ) -> Posted:
        """Post the corrected summary next to the flagged one; its first message."""

    async def mark_revised(
        self, outcome: RevisionOutcome, post: PostRecord | None, old: DigestEntry, tz: tzinfo,
        posted: Posted,
    ) -> None:  # fmt: skip
        """Edit the flagged message to point at the correction (best effort)."""
