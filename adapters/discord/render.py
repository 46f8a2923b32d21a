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
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from bot.core.models import ChangeType, Digest, DigestEntry
from bot.digest import text as shared_text
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

COLOURS = {ChangeType.SUBSTANTIAL: 0x5865F2, ChangeType.TRIVIAL: 0x99AAB5}
FAILED_COLOUR = 0xED4245
CONTINUED = " (continued)"
_PART_RESERVE = len(" · part 999 of 999")

_EVERYONE = re.compile(r"@(everyone|here)", re.IGNORECASE)
_MENTION = re.compile(r"<(@[!&]?|#)(\d+)>")
_MASKED_LINK = re.compile(r"\[([^\]\n]*)\]\(")


@dataclass(frozen=True)
class Message:
    """One message to send: `embeds` are Discord embed objects as dicts."""

    content: str = ""
    embeds: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def text_length(text: str) -> int:
    """Length in UTF-16 code units: what JavaScript counts, and at least what Discord does."""
    return len(text.encode("utf-16-le")) // 2


def sanitize(text: str | None) -> str:
    """Text from a PR or a model, made unable to ping or to disguise a link.

    `@everyone`/`@here` and `<@id>`, `<@&id>`, `<#id>` get a zero-width space so Discord
    shows them as typed; `[text](url)` loses its mask so a link shows where it goes.
    """
    value = text or ""
    value = _EVERYONE.sub("@\u200b\\1", value)
    value = _MENTION.sub(lambda m: f"<{m.group(1)}\u200b{m.group(2)}>", value)
    return _MASKED_LINK.sub(lambda m: f"[{m.group(1)}]\u200b(", value)


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
    return f"{window.day.isoformat()} ({window.tz_abbrev}, {window.tz_name})"


def parent_first_line(digest: Digest) -> str:
    """The line that identifies a digest's parent (or empty-day) message in a channel."""
    name, repo, day = sanitize(digest.display_name), digest.repo, _day_label(digest)
    if not digest.entries:
        return f"**{name}** · no pull requests were merged into `{repo}` on {day}."
    return f"**{name}** · pull requests merged into `{repo}` on {day}"


def parent_message(digest: Digest, flag_emoji: str | None = None) -> Message:
    """The channel message a digest's thread hangs from: repo, day and zone, counts, tokens."""
    counts = [
        f"{digest.count(ChangeType.SUBSTANTIAL)} substantial",
        f"{digest.count(ChangeType.TRIVIAL)} trivial",
    ]
    if digest.failed:
        counts.append(f"{len(digest.failed)} without a summary")
    total = len(digest.entries)
    lines = [
        clip(parent_first_line(digest), 600),
        f"{total} PR{'s' if total != 1 else ''}: {', '.join(counts)} · "
        f"{digest.usage.total_tokens:,} tokens",
        "One message per PR in the thread, newest merge first.",
    ]
    if digest.recent_flags:
        count = digest.recent_flags
        lines.insert(2, f"{count} summar{'y' if count == 1 else 'ies'} flagged in the last day")
    if flag_emoji:
        lines[-1] += f" React with {flag_emoji} on a summary that is wrong."
    return Message(content=clip("\n".join(lines), MAX_CONTENT))


def empty_message(digest: Digest) -> Message:
    return Message(content=clip(parent_first_line(digest), MAX_CONTENT))


def thread_name(digest: Digest) -> str:
    total = len(digest.entries)
    name = f"{digest.display_name} {digest.window.day.isoformat()} · {total} PRs"
    # Thread names are plain text, but a name is still shown in mentions and lists.
    return clip(sanitize(" ".join(name.split())), MAX_THREAD_NAME)


# -- one PR ------------------------------------------------------------------------------


def entry_messages(
    entry: DigestEntry,
    tz: tzinfo | None = None,
    *,
    index: int | None = None,
    total: int | None = None,
) -> list[Message]:
    """One PR as embeds: normally one message; more only when its text exceeds 6000.

    Every embed carries the PR's URL, which is how a message sent but not recorded before a
    crash is recognised again; the first embed of each extra message says "part k of n".
    """
    pr = entry.pr
    summary = entry.summary
    head: dict[str, Any] = {
        "title": clip(sanitize(f"#{pr.number} {pr.title}"), MAX_TITLE),
        "url": pr.url,
        "color": COLOURS.get(summary.change_type, COLOURS[ChangeType.SUBSTANTIAL])
        if summary
        else FAILED_COLOUR,
    }
    if summary is None:
        head["description"] = clip(
            sanitize(f"Summary unavailable: {entry.error or 'unknown error'}"), MAX_DESCRIPTION
        )
    elif summary.revision > 1:
        head["description"] = f"*Revised after a flag (revision {summary.revision}).*"

    items = _base_fields(entry, tz)
    if summary is not None:
        for heading, text in entry.shown_sections():
            chunks = split_text(sanitize(text), MAX_FIELD_VALUE)
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
    # Logins are [A-Za-z0-9-]; anything else did not come from GitHub and is shown as text.
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?", login):
        return clip(sanitize(login), 100)
    return f"[{login}]({entry.pr.profile_url(login)})"


def _files(entry: DigestEntry) -> str:
    files = entry.pr.files
    header = f"[{len(files)} changed file{'s' if len(files) != 1 else ''}]({entry.pr.files_url})"
    lines = [header]
    used = text_length(header)
    shown = 0
    for f in files[:MAX_FILES_LISTED]:
        line = code_span(clip(f.filename, 200))
        more = len(files) - shown - 1
        reserve = len(f"\n… and {more} more") if more else 0
        if used + 1 + text_length(line) + reserve > MAX_FIELD_VALUE:
            break
        lines.append(line)
        used += 1 + text_length(line)
        shown += 1
    if shown < len(files):
        lines.append(f"… and {len(files) - shown} more")
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
    return clip(sanitize(" ".join((note or "").split())), MAX_NOTE)


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
