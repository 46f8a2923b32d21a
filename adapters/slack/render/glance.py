"""What a day's parent and a week's rollup share: their first lines (repository, when, the
counts, what a filter kept, recent flags) and the highlights and areas sections. Every
number and link comes from `bot.digest.glance`, every piece of PR or model text is escaped.
"""

from __future__ import annotations

from adapters.slack.limits import (
    MAX_AREA_NUMBERS,
    MAX_GLANCE_TEXT,
    MAX_NOTE,
    MAX_SECTION_TEXT,
)
from adapters.slack.render.mrkdwn import escape, link, one_line
from bot.core.models import Digest
from bot.digest.glance import Glance, GlanceArea, GlancePR, number_list, plural, scope_note
from bot.digest.text import bounded_lines


def head_lines(digest: Digest, view: Glance, when: str, *, tokens: bool) -> list[str]:
    """A parent's first lines, a day's or a week's: the repository, when and in which zone,
    the counts, what a filter kept, and the flags of the last day."""
    c = view.counts
    counts = [f"*{c.merged}* merged", f"*{c.substantial}* substantial", f"*{c.trivial}* trivial"]
    if c.unsummarized:
        counts.append(f"*{c.unsummarized}* without a summary")
    counts.append(f"*{c.contributors}* contributor{'' if c.contributors == 1 else 's'}")
    if tokens:
        counts.append(f"{c.tokens:,} tokens")
    lines = [
        f"*{link(_repo_url(digest), digest.repo)}* · {when} ({escape(digest.window.tz_name)})",
        " · ".join(counts),
    ]
    note = scope_note(digest)
    if note:
        lines.append(escape(one_line(note, MAX_NOTE)))
    if digest.recent_flags:
        lines.append(f"{flags_line(digest.recent_flags)} on {escape(digest.repo)} in the last day")
    return lines


def _repo_url(digest: Digest) -> str:
    base = digest.entries[0].pr.html_base if digest.entries else "https://github.com"
    return f"{base.rstrip('/')}/{digest.repo}"


def flags_line(count: int) -> str:
    return f"{count} summar{'y' if count == 1 else 'ies'} flagged as inaccurate"


def highlights_text(
    view: Glance, *, items: tuple[GlancePR, ...] | None = None, limit: int = MAX_SECTION_TEXT
) -> str:
    """`*Highlights*` and one line per item (by default the highlights, then the same-day
    reverts), within one section."""
    lines = [_highlight_line(item) for item in (view.items if items is None else items)]
    return bounded_lines("*Highlights*", lines, limit, lambda n: f"_…and {n} more_")


def reverts_text(
    view: Glance, *, limit: int = MAX_SECTION_TEXT, within: str = "the week",
    more: tuple[str, ...] = (),
) -> str:  # fmt: skip
    """`*Reverted within the week*` (or the range, or a tag range's tags) and each revert
    pair that is not a highlight, then `more` lines (a rollup's reverts of earlier PRs)."""
    lines = [_highlight_line(item) for item in view.reverts] + list(more)
    title = f"*Reverted within {escape(within)}*"
    return bounded_lines(title, lines, limit, lambda n: f"_…and {n} more_")


def _highlight_line(item: GlancePR) -> str:
    number = link(item.link, f"#{item.number}")
    if item.reverted_by is None:
        return f"• {number} {escape(one_line(item.headline, MAX_GLANCE_TEXT))}"
    by = item.reverted_by
    return (
        f"• {number} {escape(one_line(item.title, MAX_GLANCE_TEXT))} — merged, then reverted"
        f" by {link(by.link, f'#{by.number}')}"
    )


def areas_text(
    view: Glance, *, title: str = "*Areas*", numbers: bool = True, limit: int = MAX_SECTION_TEXT
) -> str:
    """`*Areas*` and one line per area with its count: a link to its first reply once the
    replies exist, else (with `numbers`) its PR numbers; areas that do not fit are summed up
    in one line."""
    lines = [_area_line(area, numbers=numbers) for area in view.areas]
    areas = view.areas

    def more(n: int) -> str:
        prs = sum(a.count for a in areas[len(areas) - n :])
        return f"_…and {plural(n, 'more area')} ({plural(prs, 'PR')})_"

    return bounded_lines(title, lines, limit, more)


def _area_line(area: GlanceArea, *, numbers: bool = True) -> str:
    name = one_line(area.name, MAX_GLANCE_TEXT)
    if area.link:
        return f"• {link(area.link, name)} ({area.count})"
    if not numbers:
        return f"• *{escape(name)}* ({area.count})"
    return f"• *{escape(name)}* ({area.count}): {number_list(area.numbers, MAX_AREA_NUMBERS)}"
