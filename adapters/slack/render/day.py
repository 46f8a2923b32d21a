"""A day's digest in Slack: the parent message its thread hangs from (the day at a glance),
and the one short message of a day with no merged PRs. The replies are `pr.py` (one a PR)
and `group.py` (the small changes); a weekly rollup's parent is `week.py`."""

from __future__ import annotations

from adapters.slack.limits import MAX_FALLBACK_TEXT, MAX_SECTION_TEXT
from adapters.slack.render.glance import areas_text, head_lines, highlights_text
from adapters.slack.render.metadata import digest_metadata
from adapters.slack.render.mrkdwn import (
    SlackMessage,
    clip_section,
    context,
    emoji_name,
    escape,
    header,
    one_line,
    section,
)
from adapters.slack.render.week import week_parent_message
from bot.core.models import Digest
from bot.digest.glance import empty_note, glance, plural
from bot.digest.text import split_text


def parent_message(digest: Digest, *, flag_emoji: str = "x") -> SlackMessage:
    """The thread's parent, the day at a glance: repo, day and zone, the counts, the
    highlights (same-day reverts as one item each), every PR's area, and how to flag.

    Before the replies exist, highlights link to the PRs' pages and areas list their PR
    numbers; rendered again with `digest.links`, both link to the replies. Every number and
    link comes from `bot.digest.glance`, every piece of PR or model text is escaped. A
    filtered digest says what was kept ("7 of 52 PRs … touch `…`"); a weekly rollup is
    `week_parent_message`.
    """
    if digest.week is not None:
        return week_parent_message(digest, flag_emoji=flag_emoji)
    window = digest.window
    day = window.day.isoformat()
    view = glance(digest)
    c = view.counts
    lines = head_lines(digest, view, day, tokens=True)
    blocks = [
        header(f"{digest.display_name} merged PRs · {day} {window.tz_abbrev}"),
        section(clip_section("\n".join(lines))),
    ]
    if view.items:
        blocks.append(section(highlights_text(view)))
    if view.areas:
        blocks.append(section(areas_text(view)))
    thread = "One reply per PR in this thread, newest merge first"
    if digest.grouped_entries:
        count = len(digest.grouped_entries)
        thread += f", and one listing {plural(count, 'small change')}"
    blocks.append(
        context(
            f"{thread} · react with :{emoji_name(flag_emoji)}: on a summary to flag it as inaccurate"
        )
    )
    fallback = (
        f"{digest.display_name}: {c.merged} PRs merged on {day} ({window.tz_abbrev}), "
        f"{c.substantial} substantial, {c.trivial} trivial"
    )
    return SlackMessage(
        escape(one_line(fallback, MAX_FALLBACK_TEXT)), blocks, digest_metadata(digest, "parent")
    )


def empty_message(digest: Digest) -> SlackMessage:
    """The one short message of a day (or week) with no merged PRs; a filtered digest's says
    "None of the 52 PRs merged into o/r on 2026-02-23 touch `…`."."""
    text = escape(empty_note(digest))
    if len(text) > MAX_SECTION_TEXT:
        text = split_text(text, MAX_SECTION_TEXT)[0]
    return SlackMessage(
        one_line(text, MAX_FALLBACK_TEXT), [section(text)], digest_metadata(digest, "empty")
    )
