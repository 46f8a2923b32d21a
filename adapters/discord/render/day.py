"""A day's digest in Discord: the channel message its thread hangs from (with the day at a
glance in an embed), the thread's name, and the one message of a day with no PR. The
thread's messages are `pr.py` (one a PR) and `group.py` (the small changes); a weekly
rollup's parent is `week.py`."""

from __future__ import annotations

from typing import Any

from adapters.discord.limits import (
    MAX_CONTENT,
    MAX_DESCRIPTION,
    MAX_FIRST_LINE,
    MAX_HIGHLIGHTS_TEXT,
    MAX_NOTE,
    MAX_THREAD_NAME,
    bounded_lines,
    clip,
    text_length,
)
from adapters.discord.render.glance import (
    areas_text,
    head_lines,
    highlight_line,
    parent_first_line,
)
from adapters.discord.render.markdown import COLOURS, Message, literal, more_items, sanitize
from adapters.discord.render.week import week_parent_message
from bot.core.models import ChangeType, Digest
from bot.digest.glance import Glance, empty_note, glance, plural, rollup_when

GLANCE_TITLE = "The day at a glance"


def parent_message(digest: Digest, flag_emoji: str | None = None) -> Message:
    """The channel message a digest's thread hangs from: the identifying first line, the
    counts and tokens, what a filter kept ("7 of 52 PRs … touch `…`"), how to flag; and the
    day at a glance in an embed (`glance_embed`). A weekly rollup's is `week_parent_message`."""
    if digest.week is not None:
        return week_parent_message(digest, flag_emoji)
    view = glance(digest)
    lines = head_lines(digest, view, tokens=True)
    lines.append("One message per PR in the thread, newest merge first.")
    if digest.grouped_entries:
        small = plural(len(digest.grouped_entries), "small change")
        lines[-1] = (
            f"One message per PR in the thread, newest merge first, and one listing {small}."
        )
    if flag_emoji:
        lines[-1] += f" React with {flag_emoji} on a summary that is wrong."
    embeds = (glance_embed(digest, view),) if digest.entries else ()
    return Message(content=clip("\n".join(lines), MAX_CONTENT), embeds=embeds)


def glance_embed(digest: Digest, view: Glance | None = None) -> dict[str, Any]:
    """The day at a glance as one embed: the highlights (each linked to its reply once
    there is one, else to the PR), same-day reverts, and every PR's area with its count."""
    view = view or glance(digest)
    parts = []
    if view.items:
        lines = [highlight_line(item) for item in view.items]
        parts.append(bounded_lines("**Highlights**", lines, MAX_HIGHLIGHTS_TEXT, more_items))
    room = MAX_DESCRIPTION - sum(text_length(p) + 2 for p in parts)
    if view.areas:
        parts.append(areas_text(view, "**Areas**", room))
    return {
        "title": GLANCE_TITLE,
        "description": clip("\n\n".join(parts), MAX_DESCRIPTION) or "—",
        "color": COLOURS[ChangeType.SUBSTANTIAL],
    }


def empty_message(digest: Digest) -> Message:
    """The one message of a day (or week) with no PR: its identifying first line; a filtered
    digest's then says "None of the 52 PRs merged into o/r on 2026-02-23 touch `…`."."""
    first = parent_first_line(digest)
    if not (digest.scope_clause and digest.scope_total):
        return Message(content=clip(first, MAX_CONTENT))
    note = clip(sanitize(empty_note(digest, repo=literal)), MAX_NOTE)
    return Message(content=f"{clip(first, MAX_FIRST_LINE)}\n{note}")


def thread_name(digest: Digest) -> str:
    total = len(digest.entries)
    day = digest.window.day.isoformat()
    when = rollup_when(digest) if digest.week is not None else day
    name = f"{digest.display_name} {when} · {total} PRs"
    # Thread names are plain text, but a name is still shown in mentions and lists.
    return clip(sanitize(" ".join(name.split())), MAX_THREAD_NAME)
