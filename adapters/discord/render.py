"""Digests and summaries as Discord messages: pure functions, core types in, JSON-shaped out.

Everything here fits Discord's limits by construction (2000 characters of content, 256 in a
title, 4096 in a description, 1024 in a field, 25 fields an embed, 10 embeds and 6000
characters a message): long text is split across fields, embeds and, as a last resort,
messages, so posting never fails and nothing is cut from a summary. Lengths are counted in
UTF-16 code units, which is never less than what Discord counts.

Every piece of text that came from GitHub or the model goes through `sanitize`, so even if
`allowed_mentions` were ever lost a PR title could not ping anyone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from bot.core.models import ChangeType, Digest, DigestEntry
from bot.core.untrusted import clean
from bot.digest import text as shared_text
from bot.digest.glance import (
    Glance,
    GlanceArea,
    GlanceDay,
    GlancePR,
    empty_note,
    glance,
    number_list,
    plural,
    related_phrase,
    related_target,
    scope_filters,
    scope_note,
    span_text,
    week_days,
    week_title,
)
from bot.digest.text import code_span, merged_time, prefix

MAX_CONTENT = 2000
MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FIELDS = 25
MAX_FOOTER = 2048
MAX_EMBEDS = 10
MAX_MESSAGE_EMBEDS_TOTAL = 6000
MAX_THREAD_NAME = 100
MAX_FILES_LISTED = 15
MAX_GLANCE_TEXT = 150  # characters of a headline, title or area name in the parent
MAX_AREA_NUMBERS = 200  # an area's "#12, #11, …" before its replies exist
MAX_HIGHLIGHTS_TEXT = 2400  # the parent's embed: highlights, then areas in what is left of 4096
MAX_HEADLINE = 1000  # a reply's headline (one sentence; a longer one is cut)
MAX_RELATED_TITLE = 120
MAX_GROUP_LINE = 600
MAX_NOTE = 600  # a filtered digest's "7 of 52 PRs … touch `…`" line
MAX_FIRST_LINE = 600  # the parent's identifying first line
MAX_WEEK_DAYS = 1000  # a rollup's days, each linked to the day's thread (else not linked)
MAX_WEEK_AREAS = 1800  # a rollup's areas; its highlights and reverts get the rest of 6000
MIN_WEEK_REVERTS = 400
GLANCE_TITLE = "The day at a glance"
GROUP_TITLE = "Small changes"

COLOURS = {ChangeType.SUBSTANTIAL: 0x5865F2, ChangeType.TRIVIAL: 0x99AAB5}
FAILED_COLOUR = 0xED4245
CONTINUED = " (continued)"
_PART_RESERVE = len(" · part 999 of 999")

_EVERYONE = re.compile(r"@(everyone|here)", re.IGNORECASE)
_MENTION = re.compile(r"<(@[!&]?|#)(\d+)>")
_MASKED_LINK = re.compile(r"\[([^\]\n]*)\]\(")
_LINK_START = re.compile(r"[a-z][a-z0-9+.-]*:|www\.|@|//", re.IGNORECASE)
_MARKDOWN = re.compile(r"([\\*_~|`\[\]<>])")
# What starts a block at the beginning of a line in Discord: a heading, subtext, a quote,
# a list item.
_BLOCK_START = re.compile(r"#|-#|>|[-*+] |\d{1,9}[.)] ")
_GROUP_TAIL = r" · \d+ PRs?(?: \(part (?P<part>\d+) of \d+\))?$"


@dataclass(frozen=True)
class Message:
    """One message to send: `embeds` are Discord embed objects as dicts."""

    content: str = ""
    embeds: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def text_length(text: str) -> int:
    """Length in UTF-16 code units: what JavaScript counts, and at least what Discord does."""
    return len(text.encode("utf-16-le")) // 2


def sanitize(text: str | None) -> str:
    """Text made unable to ping or to disguise a link, for where Discord shows no Markdown
    (an embed's title, a footer): `@everyone`/`@here` and `<@id>`, `<@&id>`, `<#id>` get a
    zero-width space so Discord shows them as typed; `[text](url)` loses its mask."""
    value = _EVERYONE.sub("@\u200b\\1", clean(text))
    value = _MENTION.sub(lambda m: f"<{m.group(1)}\u200b{m.group(2)}>", value)
    return _MASKED_LINK.sub(lambda m: f"[{m.group(1)}]\u200b(", value)


def unlinked(text: str | None) -> str:
    """`sanitize`d untrusted text where a URL-like token stays words: its scheme, `www.`,
    `@` and `//` are broken by a zero-width space (an embed's title, a literal label)."""
    return "".join(
        _LINK_START.sub(lambda m: m.group(0) + "\u200b", piece)
        if kind == "link" or (kind == "code" and shared_text.is_linkish(piece))
        else piece
        for kind, piece in shared_text.inline_parts(sanitize(text))
    )


def untrusted(text: str | None) -> str:
    """Text from a PR or a model (a section, a headline, a note) as Discord Markdown that
    shows it as written and cannot ping, link or change the layout around it: code spans
    kept, a URL-like token shown as code, markup escaped, each paragraph on one line whose
    first character is escaped when it could start a heading, quote or list."""
    paragraphs = []
    for paragraph in re.split(r"\n[ \t]*\n", clean(text).strip()):
        line = _inline(" ".join(paragraph.split()))
        if _BLOCK_START.match(line):
            line = "\\" + line
        if line:
            paragraphs.append(line)
    return "\n\n".join(paragraphs)


def literal(text: str | None) -> str:
    """Untrusted text on one line with Markdown's markup escaped, so a title or an area name
    shows as written even inside a link's label or next to our own bold and links; a URL in
    it is shown, never made a link."""
    value = _inline(" ".join(clean(text).split()), code=False)
    return "\\" + value if _BLOCK_START.match(value) else value


def _inline(text: str, *, code: bool = True) -> str:
    out = []
    for kind, piece in shared_text.inline_parts(text):
        if kind == "code" and code:
            fence = len(piece) - len(piece.lstrip("`"))
            out.append(_inline_code(sanitize(piece[fence:-fence])))
        elif kind == "link" and code:
            out.append(_inline_code(sanitize(piece)))
        else:
            out.append(_MARKDOWN.sub(r"\\\1", unlinked(piece)))
        if len(out) > 1 and out[-2].endswith("`") and out[-1].startswith("`"):
            out[-1] = " " + out[-1]  # two code spans that touch would read as one fence
    return "".join(out)


def _inline_code(text: str) -> str:
    """Inline code as Discord has it: one or two backticks (three are a code block wherever
    they stand); text holding a run of two is shown escaped instead."""
    if "``" in text or text.strip("` ") == "":
        return literal(text)
    return code_span(text)


def masked_link(url: str, label: str) -> str:
    """`[label](url)` for an embed, built by us: the label is ours or `literal()` text, the
    URL a PR's page or one of our messages."""
    return f"[{label}]({url})"


# The one split_text, counting as Discord does.
split_text = functools.partial(shared_text.split_text, measure=text_length)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` UTF-16 units, with an ellipsis when something was cut."""
    if text_length(text) <= limit:
        return text
    return prefix(text, limit - 1, text_length).rstrip() + "…"


# -- the parent message and its thread ---------------------------------------------------


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
            f"**{name}** · weekly rollup of pull requests merged into `{repo}` from {day}{suffix}"
        )
    return f"**{name}** · pull requests merged into `{repo}` on {day}{suffix}"


def parent_message(digest: Digest, flag_emoji: str | None = None) -> Message:
    """The channel message a digest's thread hangs from: the identifying first line, the
    counts and tokens, what a filter kept ("7 of 52 PRs … touch `…`"), how to flag; and the
    day at a glance in an embed (`glance_embed`). A weekly rollup's is `week_parent_message`."""
    if digest.week is not None:
        return week_parent_message(digest, flag_emoji)
    view = glance(digest)
    lines = _head_lines(digest, view, tokens=True)
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


def _head_lines(digest: Digest, view: Glance, *, tokens: bool) -> list[str]:
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


def week_parent_message(digest: Digest, flag_emoji: str | None = None) -> Message:
    """A weekly rollup's parent: the identifying first line, the counts (and the filter), how
    to flag; then two embeds, within 6000 characters together whatever the week: the week
    (its PRs by day, each day linked to its thread when there is one, and by area, each
    linked to its reply once it exists), and its highlights and the reverts within it."""
    assert digest.week is not None
    view = glance(digest)
    lines = _head_lines(digest, view, tokens=False)
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
        limit = min(MAX_HIGHLIGHTS_TEXT, room - (MIN_WEEK_REVERTS if view.reverts else 0))
        lines = [_highlight_line(item) for item in view.highlights]
        parts.append(bounded_lines("**Highlights**", lines, limit, _more_items))
    if view.reverts:
        limit = room - sum(text_length(p) + 2 for p in parts)
        lines = [_highlight_line(item) for item in view.reverts]
        parts.append(bounded_lines("**Reverted within the week**", lines, limit, _more_items))
    embeds = [week]
    if parts:
        embeds.append({"description": "\n\n".join(parts), "color": COLOURS[ChangeType.SUBSTANTIAL]})
    return Message(content=content, embeds=tuple(embeds))


def days_text(days: tuple[GlanceDay, ...]) -> str:
    """`**By day**` and `Mon 02-23: 12 · Tue 02-24: 8 · …`, each day linked to its thread when
    it has one (and the links fit in `MAX_WEEK_DAYS`)."""

    def label(day: GlanceDay, linked: bool) -> str:
        return masked_link(day.link, day.label) if linked and day.link else day.label

    text = " · ".join(f"{label(d, True)}: {d.count}" for d in days)
    if text_length(text) > MAX_WEEK_DAYS:
        text = " · ".join(f"{label(d, False)}: {d.count}" for d in days)
    return f"**By day**\n{text}"


def areas_text(view: Glance, title: str, limit: int, *, numbers: bool = True) -> str:
    """`title` and one line per area with its count (a link to its reply once it exists, else
    with `numbers` its PR numbers), within `limit`; the areas left out summed up in one line."""
    areas = view.areas

    def more(n: int) -> str:
        prs = sum(a.count for a in areas[len(areas) - n :])
        return f"*…and {plural(n, 'more area')} ({plural(prs, 'PR')})*"

    lines = [_area_line(area, numbers=numbers) for area in areas]
    return bounded_lines(title, lines, limit, more)


def glance_embed(digest: Digest, view: Glance | None = None) -> dict[str, Any]:
    """The day at a glance as one embed: the highlights (each linked to its reply once
    there is one, else to the PR), same-day reverts, and every PR's area with its count."""
    view = view or glance(digest)
    parts = []
    if view.items:
        lines = [_highlight_line(item) for item in view.items]
        parts.append(bounded_lines("**Highlights**", lines, MAX_HIGHLIGHTS_TEXT, _more_items))
    room = MAX_DESCRIPTION - sum(text_length(p) + 2 for p in parts)
    if view.areas:
        parts.append(areas_text(view, "**Areas**", room))
    return {
        "title": GLANCE_TITLE,
        "description": clip("\n\n".join(parts), MAX_DESCRIPTION) or "—",
        "color": COLOURS[ChangeType.SUBSTANTIAL],
    }


def _more_items(n: int) -> str:
    return f"*…and {n} more*"


def _highlight_line(item: GlancePR) -> str:
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


# The one bounded_lines, counting as Discord does.
bounded_lines = functools.partial(shared_text.bounded_lines, measure=text_length)


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
    when = f"week of {day}" if digest.week is not None else day
    name = f"{digest.display_name} {when} · {total} PRs"
    # Thread names are plain text, but a name is still shown in mentions and lists.
    return clip(sanitize(" ".join(name.split())), MAX_THREAD_NAME)


# -- one PR ------------------------------------------------------------------------------


def entry_messages(
    entry: DigestEntry,
    tz: tzinfo | None = None,
    *,
    index: int | None = None,
    total: int | None = None,
    links: Mapping[int, str] | None = None,
) -> list[Message]:
    """One PR as embeds: normally one message; more only when its text exceeds 6000.

    The embed's description is the summary's headline (and "revised" when it is a
    revision); a "Related" field lists the PRs it reverts, is reverted by or follows up,
    each number linked to a message about it when `links` has one, else to its page.

    Every embed carries the PR's URL, which is how a message sent but not recorded before a
    crash is recognised again; the first embed of each extra message says "part k of n".
    """
    pr = entry.pr
    summary = entry.summary
    head: dict[str, Any] = {
        "title": clip(unlinked(f"#{pr.number} {pr.title}"), MAX_TITLE),
        "url": pr.url,
        "color": COLOURS.get(summary.change_type, COLOURS[ChangeType.SUBSTANTIAL])
        if summary
        else FAILED_COLOUR,
    }
    if summary is None:
        head["description"] = clip(
            "Summary unavailable: " + untrusted(entry.error or "unknown error"), MAX_DESCRIPTION
        )
    else:
        lines = []
        headline = " ".join(summary.sections.headline.split())
        if headline:
            lines.append(untrusted(clip(headline, MAX_HEADLINE)))
        if summary.revision > 1:
            lines.append(f"*Revised after a flag (revision {summary.revision}).*")
        if lines:
            head["description"] = "\n".join(lines)

    items = _base_fields(entry, tz)
    related = related_value(entry, links)
    if related:
        items.append({"name": "Related", "value": related, "inline": False})
    if summary is not None:
        for heading, text in entry.shown_sections():
            chunks = split_text(untrusted(text), MAX_FIELD_VALUE)
            for i, chunk in enumerate(chunks):
                name = heading if i == 0 else heading + CONTINUED
                items.append({"name": name, "value": chunk or "—", "inline": False})

    footer_parts = []
    if index is not None:
        footer_parts.append(f"{index} of {total}" if total else str(index))
    if summary is not None:
        footer_parts.append(sanitize(summary.coverage_line))
    footer = clip(" · ".join(footer_parts), MAX_FOOTER - _PART_RESERVE)
    return _pack(head, items, footer)


def related_value(entry: DigestEntry, links: Mapping[int, str] | None = None) -> str:
    """One line per related PR ("Merged, then reverted by #B (same day)"), within a field."""
    lines: list[str] = []
    for related in entry.related:
        phrase = related_phrase(related)
        text = f"{phrase.lead} {masked_link(related_target(related, links), f'#{phrase.number}')}"
        if phrase.title:
            text += f" {literal(clip(phrase.title, MAX_RELATED_TITLE))}"
        lines.append(text + phrase.tail)
    return bounded_lines("", lines, MAX_FIELD_VALUE, _more_items).lstrip("\n")


def _base_fields(entry: DigestEntry, tz: tzinfo | None) -> list[dict[str, Any]]:
    pr = entry.pr
    fields = []
    if not pr.is_merged:
        fields.append({"name": "State", "value": pr.state.upper() or "?", "inline": True})
    fields.append({"name": "Author", "value": _profile(entry, pr.author), "inline": True})
    if pr.is_merged:
        when = merged_time(pr, tz, unknown="unknown time")
        fields.append(
            {
                "name": "Merged by",
                "value": f"{_profile(entry, pr.merged_by)} · {when}",
                "inline": True,
            }
        )
    change_type = entry.summary.change_type.value if entry.summary else "UNKNOWN"
    fields.append({"name": "Type", "value": change_type, "inline": True})
    fields.append({"name": "Files", "value": _files(entry), "inline": False})
    return fields


def _profile(entry: DigestEntry, login: str | None) -> str:
    if not login:
        return "unknown"
    # Only a login GitHub could have given out is linked; anything else is shown as text.
    url = entry.pr.profile_url(login)
    return f"[{literal(login)}]({url})" if url else literal(clip(login, 100))


def _files(entry: DigestEntry) -> str:
    files, count = entry.pr.files, entry.pr.files_count
    header = f"[{count} changed file{'s' if count != 1 else ''}]({entry.pr.files_url})"
    lines = [header]
    used = text_length(header)
    shown = 0
    for f in files[:MAX_FILES_LISTED]:
        line = _inline_code(sanitize(clip(f.filename, 200)))
        more = count - shown - 1
        reserve = len(f"\n… and {more} more") if more else 0
        if used + 1 + text_length(line) + reserve > MAX_FIELD_VALUE:
            break
        lines.append(line)
        used += 1 + text_length(line)
        shown += 1
    if shown < count:
        lines.append(f"… and {count - shown} more")
    return "\n".join(lines)


def embed_size(embed: dict[str, Any]) -> int:
    """The characters Discord counts against a message's 6000."""
    total = text_length(embed.get("title") or "") + text_length(embed.get("description") or "")
    total += text_length((embed.get("footer") or {}).get("text") or "")
    total += text_length((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or ():
        total += text_length(f["name"]) + text_length(f["value"])
    return total


def _pack(head: dict[str, Any], items: list[dict[str, Any]], footer: str) -> list[Message]:
    """Fill embeds with fields and messages with embeds, within every limit, in order."""
    reserve = text_length(footer) + _PART_RESERVE if footer else _PART_RESERVE
    continued = {
        "title": clip(head["title"], MAX_TITLE - len(CONTINUED)) + CONTINUED,
        "url": head["url"],
        "color": head["color"],
    }
    pages: list[list[dict[str, Any]]] = [[{**head, "fields": []}]]

    def size(page: list[dict[str, Any]]) -> int:
        return sum(embed_size(e) for e in page) + reserve

    for item in items:
        page = pages[-1]
        embed = page[-1]
        item_size = text_length(item["name"]) + text_length(item["value"])
        if len(embed["fields"]) < MAX_FIELDS and size(page) + item_size <= MAX_MESSAGE_EMBEDS_TOTAL:
            embed["fields"].append(item)
            continue
        fresh = {**continued, "fields": [item]}
        if len(page) < MAX_EMBEDS and size(page) + embed_size(fresh) <= MAX_MESSAGE_EMBEDS_TOTAL:
            page.append(fresh)
        else:
            pages.append([fresh])

    messages = []
    for number, page in enumerate(pages, start=1):
        text = footer
        if len(pages) > 1:
            text = (
                f"{footer} · part {number} of {len(pages)}"
                if footer
                else f"part {number} of {len(pages)}"
            )
        if text:
            page[0]["footer"] = {"text": text}
        embeds = tuple({k: v for k, v in e.items() if k != "fields" or v} for e in page)
        messages.append(Message(embeds=embeds))
    return messages


def part_of(embed: dict[str, Any]) -> int:
    """Which part of a PR's messages an embed opens (1 unless its footer says "part k of n")."""
    match = re.search(r"part (\d+) of \d+$", (embed.get("footer") or {}).get("text") or "")
    return int(match.group(1)) if match else 1


# -- the grouped reply --------------------------------------------------------------------


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


# -- short notices -----------------------------------------------------------------------


def flag_thanks(number: int, user_id: str) -> str:
    """The one reply a flagged summary gets (the user is named, never pinged)."""
    return (
        f"Thanks <@{int(user_id)}>: the summary of #{number} is flagged as inaccurate "
        "and will be looked at."
    )


def posted_notice(status: str, repo: str, day: str, link: str, replies: int) -> str:
    if status == "posted":
        return f"Posted the digest of `{repo}` for {day}: {link}"
    if status == "resumed":
        return f"Finished the digest of `{repo}` for {day} ({replies} more PRs): {link}"
    return f"The digest of `{repo}` for {day} is already posted: {link}"


# -- flags and revisions -----------------------------------------------------------------

REVISED_NOTICE = "Revised after a flag — corrected summary: "
MAX_NOTE = 500  # a note is one line of what changed; an intro leaves room for the notice


def _note(note: str | None) -> str:
    """A model's note as one defused line (it is LLM text, like a summary)."""
    return untrusted(clip(" ".join(clean(note).split()), MAX_NOTE))


def revision_intro(user_id: str, note: str | None) -> str:
    """`Revised after a flag by <@user>: <what changed>` (named, never pinged)."""
    text = _note(note)
    who = f"<@{int(user_id)}>"
    return f"Revised after a flag by {who}: {text}" if text else f"Revised after a flag by {who}."


def revision_messages(
    entry: DigestEntry, tz: tzinfo | None, *, user_id: str, note: str | None
) -> list[Message]:
    """The corrected summary for the flagged message's thread: the intro line, then the same
    embeds as any PR's reply (which say "revision n")."""
    parts = entry_messages(entry, tz)
    first = parts[0]
    parts[0] = Message(content=revision_intro(user_id, note), embeds=first.embeds)
    return parts


def recheck_text(user_id: str, note: str | None) -> str:
    """The one reply when a re-check found nothing to correct."""
    text = _note(note)
    reason = f" — {text}" if text else "."
    return f"Re-checked after a flag by <@{int(user_id)}>: no correction needed{reason}"


def with_revision_notice(content: str, link: str) -> str:
    """A flagged message's content with one line pointing at its correction.

    Only the content changes (its embeds are left as they are); a notice from an earlier edit
    is replaced, never repeated, and the notice is what is kept if something must be cut.
    """
    notice = REVISED_NOTICE + link
    lines = [line for line in (content or "").split("\n") if not line.startswith(REVISED_NOTICE)]
    kept = "\n".join(lines).strip()
    if not kept:
        return clip(notice, MAX_CONTENT)
    return clip(kept, MAX_CONTENT - text_length(notice) - 1) + "\n" + notice
