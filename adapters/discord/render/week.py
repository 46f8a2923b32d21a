"""A rollup's parent in Discord (a week's, a range's, a tag range's): the identifying first
line, the counts (and the filter) and how to flag, then two embeds within 6000 characters
together whatever the range. Its area replies are the grouped reply (`group.py`), one an
area."""

from __future__ import annotations

from adapters.discord.limits import (
    MAX_CONTENT,
    MAX_DESCRIPTION,
    MAX_GLANCE_TEXT,
    MAX_HIGHLIGHTS_TEXT,
    MAX_MESSAGE_EMBEDS_TOTAL,
    MAX_TITLE,
    MAX_WEEK_AREAS,
    MAX_WEEK_DAYS,
    MIN_WEEK_REVERTS,
    bounded_lines,
    clip,
    embed_size,
    text_length,
)
from adapters.discord.render.glance import areas_text, head_lines, highlight_line
from adapters.discord.render.markdown import (
    COLOURS,
    Message,
    literal,
    masked_link,
    more_items,
    sanitize,
)
from bot.core.models import ChangeType, Digest
from bot.digest.glance import (
    GlanceDay,
    GlanceUndo,
    earlier_reverts,
    glance,
    rollup_span,
    week_days,
    week_title,
)


def week_parent_message(digest: Digest, flag_emoji: str | None = None) -> Message:
    """A rollup's parent: the identifying first line, the counts (and the filter), how
    to flag; then two embeds, within 6000 characters together whatever the week: the week
    (its PRs by day, each day linked to its thread when there is one, and by area, each
    linked to its reply once it exists), and its highlights and the reverts within it."""
    assert digest.week is not None
    view = glance(digest)
    lines = head_lines(digest, view, tokens=False)
    last = "One message per area in the thread, one line per PR."
    if flag_emoji:
        last += f" To flag a summary, run /prsummary <number> and react to the answer with {flag_emoji}."
    lines.append(last)
    content = clip("\n".join(lines), MAX_CONTENT)
    if not digest.entries:
        return Message(content=content)

    parts = [days_text(week_days(digest))]
    if view.areas:
        parts.append(areas_text(view, "**By area**", MAX_WEEK_AREAS, numbers=False))
    week = {
        "title": clip(sanitize(week_title(digest)), MAX_TITLE),
        "description": "\n\n".join(parts),
        "color": COLOURS[ChangeType.SUBSTANTIAL],
    }
    room = min(MAX_DESCRIPTION, MAX_MESSAGE_EMBEDS_TOTAL - embed_size(week))
    parts = []
    if view.highlights:
        reverts = view.reverts or earlier_reverts(digest)
        limit = min(MAX_HIGHLIGHTS_TEXT, room - (MIN_WEEK_REVERTS if reverts else 0))
        lines = [highlight_line(item) for item in view.highlights]
        parts.append(bounded_lines("**Highlights**", lines, limit, more_items))
    undone = [undo_line(u) for u in earlier_reverts(digest)]
    if view.reverts or undone:
        limit = room - sum(text_length(p) + 2 for p in parts)
        lines = [highlight_line(item) for item in view.reverts] + undone
        title = f"**Reverted within {literal(rollup_span(digest))}**"
        parts.append(bounded_lines(title, lines, limit, more_items))
    embeds = [week]
    if parts:
        embeds.append({"description": "\n\n".join(parts), "color": COLOURS[ChangeType.SUBSTANTIAL]})
    return Message(content=content, embeds=tuple(embeds))


def undo_line(undo: GlanceUndo) -> str:
    """`• #B Revert "…" — undoes #A Title (merged 2026-01-20)`: a revert of an earlier PR."""
    revert, undone = undo.revert, undo.undone
    merged = f" (merged {undone.merged_day})" if undone.merged_day else ""
    return (
        f"• {masked_link(revert.link, f'#{revert.number}')} "
        f"{literal(clip(revert.title, MAX_GLANCE_TEXT))} — undoes "
        f"{masked_link(undone.url, f'#{undone.number}')} "
        f"{literal(clip(undone.title, MAX_GLANCE_TEXT))}{merged}"
    )


def days_text(days: tuple[GlanceDay, ...]) -> str:
    """`**By day**` and `Mon 02-23: 12 · Tue 02-24: 8 · …`, each day linked to its thread when
    it has one (and the links fit in `MAX_WEEK_DAYS`)."""

    def label(day: GlanceDay, linked: bool) -> str:
        return masked_link(day.link, day.label) if linked and day.link else day.label

    text = " · ".join(f"{label(d, True)}: {d.count}" for d in days)
    if text_length(text) > MAX_WEEK_DAYS:
        text = " · ".join(f"{label(d, False)}: {d.count}" for d in days)
    return f"**By day**\n{text}"
