"""One PR as Discord embeds: its message in a digest's thread, a /prsummary answer, and what
a correction repeats. Normally one message; more only when its text exceeds 6000."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from adapters.discord.limits import (
    MAX_DESCRIPTION,
    MAX_EMBEDS,
    MAX_FIELD_VALUE,
    MAX_FIELDS,
    MAX_FILES_LISTED,
    MAX_FOOTER,
    MAX_HEADLINE,
    MAX_MESSAGE_EMBEDS_TOTAL,
    MAX_RELATED_TITLE,
    MAX_TITLE,
    bounded_lines,
    clip,
    embed_size,
    split_text,
    text_length,
)
from adapters.discord.render.markdown import (
    COLOURS,
    FAILED_COLOUR,
    Message,
    inline_code,
    literal,
    masked_link,
    more_items,
    sanitize,
    unlinked,
    untrusted,
)
from bot.core.models import ChangeType, DigestEntry
from bot.digest.glance import related_phrase, related_target
from bot.digest.text import merged_time

CONTINUED = " (continued)"
_PART_RESERVE = len(" · part 999 of 999")


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
    head = _head_embed(entry)
    items = _base_fields(entry, tz)
    related = related_value(entry, links)
    if related:
        items.append({"name": "Related", "value": related, "inline": False})
    items.extend(_section_fields(entry))
    return _pack(head, items, _footer(entry, index, total))


def _head_embed(entry: DigestEntry) -> dict[str, Any]:
    """The first embed's title, link and colour, and its description: the headline (and
    "revised"), or why there is no summary."""
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
        return head
    lines = []
    headline = " ".join(summary.sections.headline.split())
    if headline:
        lines.append(untrusted(clip(headline, MAX_HEADLINE)))
    if summary.revision > 1:
        lines.append(f"*Revised after a flag (revision {summary.revision}).*")
    if lines:
        head["description"] = "\n".join(lines)
    return head


def _section_fields(entry: DigestEntry) -> list[dict[str, Any]]:
    """The summary's sections, each split across fields of 1024 when it is longer."""
    if entry.summary is None:
        return []
    items = []
    for heading, text in entry.shown_sections():
        chunks = split_text(untrusted(text), MAX_FIELD_VALUE)
        for i, chunk in enumerate(chunks):
            name = heading if i == 0 else heading + CONTINUED
            items.append({"name": name, "value": chunk or "—", "inline": False})
    return items


def _footer(entry: DigestEntry, index: int | None, total: int | None) -> str:
    """The footer, "3 of 52 · <coverage line>", with room left for " · part k of n"."""
    footer_parts = []
    if index is not None:
        footer_parts.append(f"{index} of {total}" if total else str(index))
    if entry.summary is not None:
        footer_parts.append(sanitize(entry.summary.coverage_line))
    return clip(" · ".join(footer_parts), MAX_FOOTER - _PART_RESERVE)


def related_value(entry: DigestEntry, links: Mapping[int, str] | None = None) -> str:
    """One line per related PR ("Merged, then reverted by #B (same day)"), within a field."""
    lines: list[str] = []
    for related in entry.related:
        phrase = related_phrase(related)
        text = f"{phrase.lead} {masked_link(related_target(related, links), f'#{phrase.number}')}"
        if phrase.title:
            text += f" {literal(clip(phrase.title, MAX_RELATED_TITLE))}"
        lines.append(text + phrase.tail)
    return bounded_lines("", lines, MAX_FIELD_VALUE, more_items).lstrip("\n")


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
        line = inline_code(sanitize(clip(f.filename, 200)))
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
    return _messages(pages, footer)


def _messages(pages: list[list[dict[str, Any]]], footer: str) -> list[Message]:
    """The packed pages as messages, the first embed of each with the footer (and "part k
    of n" when there are several); a continued embed's empty fields list is dropped."""
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
