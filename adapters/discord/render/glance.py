"""What a day's parent and a week's rollup share: the identifying first line, the counts,
what a filter kept and recent flags, and the highlights and areas lines. Every number and
link comes from `bot.digest.glance`, every piece of PR or model text is defused."""

from __future__ import annotations

from adapters.discord.limits import (
    MAX_AREA_NUMBERS,
    MAX_FIRST_LINE,
    MAX_GLANCE_TEXT,
    MAX_NOTE,
    bounded_lines,
    clip,
)
from adapters.discord.render.markdown import literal, masked_link, sanitize, unlinked
from bot.core.models import Digest
from bot.digest.glance import (
    Glance,
    GlanceArea,
    GlancePR,
    number_list,
    plural,
    rollup_name,
    scope_filters,
    scope_note,
    span_text,
)
from bot.digest.text import code_span


def _day_label(digest: Digest) -> str:
    window = digest.window
    if digest.week is not None:
        return f"{span_text(digest, 'to')} ({window.tz_name})"
    return f"{window.day.isoformat()} ({window.tz_abbrev}, {window.tz_name})"


def parent_first_line(digest: Digest) -> str:
    """The line that identifies a digest's parent (or empty-day) message in a channel: one
    per repo, day and scope, so crash recovery never takes a filtered digest or a weekly
    rollup for the whole day's (whose line is what it always was). A filtered digest's ends
    with ` · ` and its filter; a rollup's says so, with its first and last day."""
    name, repo, day = unlinked(digest.display_name), digest.repo, _day_label(digest)
    filters = scope_filters(digest)
    suffix = f" · {code_span(sanitize(filters))}" if filters else ""
    span = "from" if digest.week is not None else "on"
    if not digest.entries:
        which = "matching pull requests" if digest.scope_clause else "pull requests"
        line = f"**{name}** · no {which} were merged into `{repo}` {span} {day}"
        return f"{line}{suffix}" if suffix else f"{line}."
    if digest.week is not None:
        return (
            f"**{name}** · {sanitize(rollup_name(digest))} of pull requests merged into `{repo}` "
            f"from {day}{suffix}"
        )
    return f"**{name}** · pull requests merged into `{repo}` on {day}{suffix}"


def head_lines(digest: Digest, view: Glance, *, tokens: bool) -> list[str]:
    """A parent's first lines, a day's or a week's: the identifying first line, the counts,
    what a filter kept, and the flags of the last day."""
    c = view.counts
    counts = [f"{c.substantial} substantial", f"{c.trivial} trivial"]
    if c.unsummarized:
        counts.append(f"{c.unsummarized} without a summary")
    total = (
        f"{plural(c.merged, 'PR')}: {', '.join(counts)} · {plural(c.contributors, 'contributor')}"
    )
    lines = [
        clip(parent_first_line(digest), MAX_FIRST_LINE),
        total + (f" · {c.tokens:,} tokens" if tokens else ""),
    ]
    note = scope_note(digest)
    if note:
        lines.append(clip(sanitize(note), MAX_NOTE))
    if digest.recent_flags:
        count = digest.recent_flags
        lines.append(f"{count} summar{'y' if count == 1 else 'ies'} flagged in the last day")
    return lines


def areas_text(view: Glance, title: str, limit: int, *, numbers: bool = True) -> str:
    """`title` and one line per area with its count (a link to its reply once it exists, else
    with `numbers` its PR numbers), within `limit`; the areas left out summed up in one line."""
    areas = view.areas

    def more(n: int) -> str:
        prs = sum(a.count for a in areas[len(areas) - n :])
        return f"*…and {plural(n, 'more area')} ({plural(prs, 'PR')})*"

    lines = [_area_line(area, numbers=numbers) for area in areas]
    return bounded_lines(title, lines, limit, more)


def highlight_line(item: GlancePR) -> str:
    number = masked_link(item.link, f"#{item.number}")
    if item.reverted_by is None:
        return f"• {number} {literal(clip(item.headline, MAX_GLANCE_TEXT))}"
    by = item.reverted_by
    title = literal(clip(item.title, MAX_GLANCE_TEXT))
    return f"• {number} {title} — merged, then reverted by {masked_link(by.link, f'#{by.number}')}"


def _area_line(area: GlanceArea, *, numbers: bool = True) -> str:
    name = literal(clip(area.name, MAX_GLANCE_TEXT))
    if area.link:
        return f"• {masked_link(area.link, name)} ({area.count})"
    if not numbers:
        return f"• **{name}** ({area.count})"
    return f"• **{name}** ({area.count}): {number_list(area.numbers, MAX_AREA_NUMBERS)}"
