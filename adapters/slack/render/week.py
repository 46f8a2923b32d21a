"""A rollup's parent (a week's, a range's, a tag range's): its days and zone, the counts (and
the filter), the PRs of each day and of each area, the highlights and the reverts within it
(with those of earlier PRs), all within one message whatever the range. Its area replies are
the grouped reply (`group.py`), one an area.
"""

from __future__ import annotations

from adapters.slack.limits import (
    MAX_FALLBACK_TEXT,
    MAX_GLANCE_TEXT,
    MAX_MESSAGE_TEXT,
    MAX_SECTION_TEXT,
    MAX_WEEK_DAYS,
    MAX_WEEK_SUMMARY,
    MIN_WEEK_SECTION,
    block_text_length,
)
from adapters.slack.render.glance import areas_text, head_lines, highlights_text, reverts_text
from adapters.slack.render.metadata import digest_metadata
from adapters.slack.render.mrkdwn import (
    SlackMessage,
    context,
    emoji_name,
    escape,
    header,
    link,
    one_line,
    section,
)
from bot.core.models import Digest
from bot.digest.glance import (
    GlanceDay,
    GlanceUndo,
    earlier_reverts,
    glance,
    rollup_span,
    span_text,
    week_days,
    week_title,
)
from bot.digest.text import split_text


def week_parent_message(digest: Digest, *, flag_emoji: str = "x") -> SlackMessage:
    """A rollup's parent: its days and zone, the counts (and the filter), the PRs of
    each day (linked to the day's thread where there is one), of each area (linked to its
    reply once it exists), the week's highlights and the reverts within the week.

    Within one message whatever the week: each later section gets what the earlier ones
    left of `MAX_MESSAGE_TEXT`, up to `MAX_SECTION_TEXT`, and says how many lines it left out.
    """
    assert digest.week is not None
    view = glance(digest)
    c = view.counts
    lines = head_lines(digest, view, span_text(digest, "to"), tokens=False)
    foot = context(
        "One reply per area in this thread, one line per PR · to flag a summary, run "
        f"/prsummary &lt;number&gt; and react to the answer with :{emoji_name(flag_emoji)}:"
    )
    blocks = [
        header(week_title(digest)),
        section(split_text("\n".join(lines), MAX_WEEK_SUMMARY)[0]),
        section(days_text(week_days(digest))),
    ]
    undone = tuple(undo_line(u) for u in earlier_reverts(digest))
    within = rollup_span(digest)
    later = [
        lambda limit: areas_text(view, title="*By area*", numbers=False, limit=limit),
        lambda limit: highlights_text(view, items=view.highlights, limit=limit),
        lambda limit: reverts_text(view, limit=limit, within=within, more=undone),
    ]
    wanted = [bool(view.areas), bool(view.highlights), bool(view.reverts or undone)]
    for i, (make, want) in enumerate(zip(later, wanted, strict=True)):
        if not want:
            continue
        used = sum(block_text_length(b) for b in [*blocks, foot])
        after = sum(wanted[i + 1 :]) * MIN_WEEK_SECTION
        blocks.append(section(make(min(MAX_SECTION_TEXT, MAX_MESSAGE_TEXT - used - after))))
    blocks.append(foot)
    fallback = (
        f"{week_title(digest)}: {c.merged} PRs merged, {c.substantial} substantial, "
        f"{c.trivial} trivial"
    )
    return SlackMessage(
        escape(one_line(fallback, MAX_FALLBACK_TEXT)), blocks, digest_metadata(digest, "parent")
    )


def undo_line(undo: GlanceUndo) -> str:
    """`• #B Revert "…" — undoes #A Title (merged 2026-01-20)`: a revert of an earlier PR."""
    revert, undone = undo.revert, undo.undone
    merged = f" (merged {undone.merged_day})" if undone.merged_day else ""
    return (
        f"• {link(revert.link, f'#{revert.number}')} "
        f"{escape(one_line(revert.title, MAX_GLANCE_TEXT))} — undoes "
        f"{link(undone.url, f'#{undone.number}')} "
        f"{escape(one_line(undone.title, MAX_GLANCE_TEXT))}{merged}"
    )


def days_text(days: tuple[GlanceDay, ...]) -> str:
    """`*By day*` and `Mon 02-23: 12 · Tue 02-24: 8 · …`, each day linked to its thread when
    it has one (and the links fit in `MAX_WEEK_DAYS`)."""
    linked = " · ".join(f"{link(d.link, d.label)}: {d.count}" for d in days)
    if len(linked) > MAX_WEEK_DAYS:
        linked = " · ".join(f"{d.label}: {d.count}" for d in days)
    return f"*By day*\n{linked}"
