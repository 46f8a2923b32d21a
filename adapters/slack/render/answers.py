"""What the user who typed a command is told: that a digest is posted, resumed or already
there (with a link to its thread), or why a PR could not be summarized."""

from __future__ import annotations

from adapters.slack.render.mrkdwn import escape
from bot.core.models import PostStatus


def digest_label(repo: str, day: str, tz_name: str) -> str:
    return f"{escape(repo)} for {day} ({escape(tz_name)})"


def already_text(label: str, link_url: str) -> str:
    return f"The digest of {label} is already in this channel: <{link_url}|open the thread>."


def posted_text(label: str, status: str, link_url: str, failed: int) -> str:
    """What the user who typed /digest is told once the digest is out."""
    thread = f"<{link_url}|open the thread>"
    if status == PostStatus.ALREADY:
        text = f"The digest of {label} is already in this channel: {thread}."
    elif status == PostStatus.RESUMED:
        text = f"Resumed the digest of {label} where it stopped: {thread}."
    else:
        text = f"Posted the digest of {label}: {thread}."
    if failed:
        text += f" {failed} PRs could not be summarized; their replies say why."
    return text


def not_summarized_text(number: int, reason: str | None) -> str:
    return f"Could not summarize #{number}: {escape(reason or 'unknown error')}"
