"""Recording a flag against the exact summary version the flagged message showed, and
withdrawing it when the reaction is taken back. Each function here runs inside one store
call (`store.aio.read` or `store.aio.write`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.core.models import Flag, PostRecord
from bot.ports.chat import Reaction
from bot.store.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlagOutcome:
    flag: Flag
    post: PostRecord  # the flagged message's record, read once and given to every answer
    new: bool  # False when this user had already flagged this message
    acknowledge: bool  # True once per summary: the bot says "thanks" in the thread


class FlagRecords:
    """The flags table as the flag path uses it."""

    def __init__(self, store: Store):
        self.store = store

    def post_of(self, reaction: Reaction) -> PostRecord | None:
        """The reacted-to message's record (a read): under its channel, else its thread."""
        for channel in reaction.channels:
            post = self.store.post_by_message(reaction.platform, channel, reaction.message_id)
            if post is not None:
                return post
        return None

    def added(self, reaction: Reaction, post: PostRecord | None) -> FlagOutcome | None:
        """Record the flag when `post` is a PR summary the bot posted; else None (the parent,
        a notice, someone else's message). `reaction.emoji` is already a flag."""
        if post is None or post.summary_id is None or not post.pr_number:
            return None
        flag, new = self.store.add_flag(
            Flag(
                platform=reaction.platform,
                channel=post.channel,
                message_id=reaction.message_id,
                user=reaction.user,
                repo=post.repo,
                number=post.pr_number,
                summary_id=post.summary_id,
                emoji=reaction.emoji,
            )
        )
        acknowledge = new and self.store.claim_flag_ack(
            reaction.platform, post.channel, post.summary_id
        )
        log.info(
            "flag %s by %s on %s#%s (summary %s)",
            "added" if new else "repeated", reaction.user, post.repo, post.pr_number,
            post.summary_id,
        )  # fmt: skip
        return FlagOutcome(flag, post, new, acknowledge)

    def removed(self, reaction: Reaction) -> Flag | None:
        """Withdraw this user's flag on the message, if they had one."""
        for channel in reaction.channels:
            flag = self.store.remove_flag(
                reaction.platform, channel, reaction.message_id, reaction.user
            )
            if flag is not None:
                log.info("flag removed by %s on %s#%s", reaction.user, flag.repo, flag.number)
                return flag
        return None
