"""The grouped reply: a day's small changes (or, in a weekly rollup, one area's PRs) as one
line a PR, in as many messages as Slack's limits need, ending with how to flag one."""

from __future__ import annotations

from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_FALLBACK_TEXT,
    MAX_GLANCE_TEXT,
    MAX_GROUP_HEADLINE,
    MAX_MESSAGE_TEXT,
    MAX_SECTION_TEXT,
    MAX_TITLE,
    block_text_length,
    paginate,
)
from adapters.slack.render.metadata import group_metadata
from adapters.slack.render.mrkdwn import (
    SlackMessage,
    context,
    emoji_name,
    escape,
    link,
    one_line,
    section,
)
from bot.core.models import Digest, DigestEntry
from bot.digest.glance import plural
from bot.digest.text import split_text

GROUP_TITLE = "Small changes"


def group_messages(digest: Digest, *, flag_emoji: str = "x") -> list[SlackMessage]:
    """The grouped reply: one line per PR of `digest.grouped_entries` (number and title
    linked to the PR, then its headline), in as many messages as Slack's limits need.

    Each message opens with `*Small changes* · n PRs` (a weekly rollup's area reply: the
    area's name, `digest.group_title`, instead) and "(part k of n)" when split, carries
    `GROUP_EVENT` metadata with its `part` (and the `title`, when set), and the last ends
    with how to flag.
    """
    entries = digest.grouped_entries
    lines = [_group_line(e) for e in entries]
    sections = [section(piece) for piece in _pack_lines(lines, MAX_SECTION_TEXT)]
    hint = context(f"_{escape(flag_hint(flag_emoji))}_")
    count = plural(len(entries), "PR")
    title = one_line(digest.group_title, MAX_GLANCE_TEXT) or GROUP_TITLE
    heading = f"*{escape(title)}* · {count}"
    # The hint and each page's first line (its heading, and "(part k of n)").
    reserve = block_text_length(hint) + max(100, len(heading) + 40)
    pages = paginate(sections, max_blocks=MAX_BLOCKS - 2, max_chars=MAX_MESSAGE_TEXT - reserve)
    messages = []
    for part, page in enumerate(pages, start=1):
        label = f"{count} (part {part} of {len(pages)})" if len(pages) > 1 else count
        blocks = [section(f"*{escape(title)}* · {label}"), *page]
        if part == len(pages):
            blocks.append(hint)
        fallback = escape(one_line(f"{title} · {label}", MAX_FALLBACK_TEXT))
        messages.append(SlackMessage(fallback, blocks, group_metadata(digest, part)))
    return messages


def flag_hint(flag_emoji: str) -> str:
    """How to flag a PR of the grouped reply, whose lines cannot be reacted to one by one."""
    return (
        "To flag one of these summaries, run /prsummary <number> and react to the answer "
        f"with :{emoji_name(flag_emoji)}:."
    )


def _group_line(entry: DigestEntry) -> str:
    pr = entry.pr
    text = f"• {link(pr.url, f'#{pr.number} {one_line(pr.title, MAX_TITLE)}')}"
    headline = (
        one_line(entry.summary.sections.headline, MAX_GROUP_HEADLINE) if entry.summary else ""
    )
    if headline:
        text += f" — {escape(headline)}"
    elif entry.summary is None:
        text += " — _summary unavailable_"
    return text


def _pack_lines(lines: list[str], limit: int) -> list[str]:
    """Lines joined into as few pieces of at most `limit` characters as they fit in."""
    pieces: list[str] = []
    current = ""
    for line in lines:
        for chunk in split_text(line, limit):  # a line is far shorter; just in case
            if current and len(current) + 1 + len(chunk) > limit:
                pieces.append(current)
                current = ""
            current = f"{current}\n{chunk}" if current else chunk
    if current or not pieces:
        pieces.append(current)
    return pieces
