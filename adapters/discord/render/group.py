"""The grouped reply: a day's small changes (or, in a weekly rollup, one area's PRs) as one
line a PR in an embed, in as many messages as needed, ending with how to flag one; and how
crash recovery recognises each of its parts by its first line."""

from __future__ import annotations

import re

from adapters.discord.limits import (
    MAX_DESCRIPTION,
    MAX_GLANCE_TEXT,
    MAX_GROUP_LINE,
    clip,
    text_length,
)
from adapters.discord.render.markdown import COLOURS, Message, literal, masked_link
from bot.core.models import ChangeType, Digest, DigestEntry
from bot.digest.glance import plural

GROUP_TITLE = "Small changes"
_GROUP_TAIL = r" · \d+ PRs?(?: \(part (?P<part>\d+) of \d+\))?$"


def group_messages(digest: Digest, flag_emoji: str | None = None) -> list[Message]:
    """The grouped reply: one line per PR of `digest.grouped_entries` (number and title
    linked to the PR, then its headline) in an embed, in as many messages as needed.

    Each message's content is its recognisable first line, `**Small changes** · n PRs` (a
    weekly rollup's area reply: the area's name, `digest.group_title`, instead) and
    " (part k of n)" when split; the last one ends with how to flag one of them.
    """
    entries = digest.grouped_entries
    lines = [_group_line(e) for e in entries]
    hint = f"*{group_flag_hint(flag_emoji)}*"
    pages: list[list[str]] = [[]]
    used = 0
    limit = MAX_DESCRIPTION - text_length(hint) - 2
    for line in lines:
        size = text_length(line) + 1
        if pages[-1] and used + size > limit:
            pages.append([])
            used = 0
        pages[-1].append(line)
        used += size
    title = f"{group_heading(digest.group_title)} · {plural(len(entries), 'PR')}"
    messages = []
    for part, page in enumerate(pages, start=1):
        content = title if len(pages) == 1 else f"{title} (part {part} of {len(pages)})"
        description = "\n".join(page)
        if part == len(pages):
            description = f"{description}\n\n{hint}" if description else hint
        embed = {"description": description, "color": COLOURS[ChangeType.TRIVIAL]}
        messages.append(Message(content=content, embeds=(embed,)))
    return messages


def group_flag_hint(flag_emoji: str | None) -> str:
    emoji = flag_emoji or "the flag emoji"
    return (
        f"To flag one of these summaries, run /prsummary <number> and react to the answer "
        f"with {emoji}."
    )


def group_heading(title: str = "") -> str:
    """`**Small changes**`, or `**<area>**` for the area reply titled `title`."""
    return f"**{literal(clip(title, MAX_GLANCE_TEXT))}**" if title else f"**{GROUP_TITLE}**"


def group_part_of(content: str | None, title: str = "") -> int | None:
    """Which part of the grouped reply titled `title` ("" for the day's small changes) a
    message is, by its first line; None if it is not one."""
    pattern = re.escape(group_heading(title)) + _GROUP_TAIL
    match = re.match(pattern, (content or "").split("\n", 1)[0])
    if match is None:
        return None
    return int(match.group("part") or 1)


def _group_line(entry: DigestEntry) -> str:
    pr = entry.pr
    title = literal(clip(pr.title, MAX_GLANCE_TEXT))
    text = f"• {masked_link(pr.url, f'#{pr.number} {title}')}"
    headline = " ".join(entry.summary.sections.headline.split()) if entry.summary else ""
    if headline:
        text += f" — {literal(headline)}"
    elif entry.summary is None:
        text += " — *summary unavailable*"
    return clip(text, MAX_GROUP_LINE)
