"""Flags: a reaction that marks one exact summary version as inaccurate, on any platform."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.core.models import Flag
from bot.store.store import Store

log = logging.getLogger(__name__)

# Slack reports reactions by name, Discord by the character: the same flag either way.
EMOJI_NAMES = {
    "x": "❌",
    "-1": "👎",
    "thumbsdown": "👎",
    "warning": "⚠️",
    "no_entry": "⛔",
    "no_entry_sign": "🚫",
    "heavy_multiplication_x": "✖️",
    "triangular_flag_on_post": "🚩",
}


def normalize_emoji(emoji: str) -> str:
    """`x`, `:x:` and `❌` are one flag; Slack skin tones (`-1::skin-tone-3`) are dropped."""
    name = emoji.strip().strip(":").split("::", 1)[0]
    return EMOJI_NAMES.get(name, name).replace("\ufe0f", "")


@dataclass(frozen=True)
class FlagOutcome:
    flag: Flag
    new: bool  # False when this user had already flagged this message
    acknowledge: bool  # True once per summary: the bot says "thanks" in the thread


class FlagService:
    def __init__(self, store: Store, emojis: tuple[str, ...] = ("x",)):
        self.store = store
        self.emojis = {normalize_emoji(e) for e in emojis}

    def is_flag(self, emoji: str) -> bool:
        return normalize_emoji(emoji) in self.emojis

    def added(
        self, platform: str, channel: str, message_id: str, user: str, emoji: str
    ) -> FlagOutcome | None:
        """Record a flag if `emoji` is a flag on a PR summary the bot posted; else None."""
        if not self.is_flag(emoji):
            return None
        post = self.store.post_by_message(platform, channel, message_id)
        if post is None or post.summary_id is None or not post.pr_number:
            return None  # not one of our summaries: the parent, a notice, someone else's message
        flag, new = self.store.add_flag(
            Flag(
                platform=platform,
                channel=channel,
                message_id=message_id,
                user=user,
                repo=post.repo,
                number=post.pr_number,
                summary_id=post.summary_id,
                emoji=normalize_emoji(emoji),
            )
        )
        acknowledge = new and self.store.claim_flag_ack(platform, channel, post.summary_id)
        log.info(
            "flag %s by %s on %s#%s (summary %s)",
            "added" if new else "repeated", user, post.repo, post.pr_number, post.summary_id,
        )  # fmt: skip
        return FlagOutcome(flag, new, acknowledge)

    def removed(
        self, platform: str, channel: str, message_id: str, user: str, emoji: str
    ) -> Flag | None:
        """Remove this user's flag when they take the reaction back."""
        if not self.is_flag(emoji):
            return None
        flag = self.store.remove_flag(platform, channel, message_id, user)
        if flag:
            log.info("flag removed by %s on %s#%s", user, flag.repo, flag.number)
        return flag
