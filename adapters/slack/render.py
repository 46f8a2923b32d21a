"""Block Kit for digests and summaries: pure functions, core dataclasses in, payloads out.

Every string that comes from a PR (title, logins, error text) or from the LLM (the four
sections, the model name) goes through `escape()`. The only `<...>` markup in a message is
what this module builds itself, around URLs it has checked, so nothing a PR author or a model
writes can ping a channel, mention a user or disguise a link.

Slack's limits are met by construction: a section's text is split before 3,000 characters
and a message is split before 50 blocks or ~10,000 characters of text, never truncated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from bot.core.models import Digest, DigestEntry, PostStatus, PullRequest
from bot.core.untrusted import clean, web_origin
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
    scope_note,
    span_text,
    week_days,
    week_title,
)
from bot.digest.render_markdown import UNKNOWN_TYPE
from bot.digest.text import bounded_lines, merged_time, split_text

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
# Slack refuses (or silently cuts) messages whose blocks hold much more than 12,000
# characters; the margin leaves room for the fallback text and the markup we add.
MAX_MESSAGE_TEXT = 10_000
MAX_FALLBACK_TEXT = 300
MAX_TITLE = 200
MAX_GLANCE_TEXT = 150  # characters of a headline, title or area name in the parent
MAX_AREA_NUMBERS = 200  # characters of an area's "#12, #11, …" before its replies exist
MAX_RELATED_TITLE = 120
MAX_GROUP_HEADLINE = 300
MAX_NAME = 80  # characters of a flagger's display name (Slack allows 80)
MAX_NOTE = 600  # characters of a filtered digest's "7 of 52 PRs … touch `…`" before escaping
MAX_WEEK_SUMMARY = 1500  # a rollup's first section: repo, week, counts, filter
MAX_WEEK_DAYS = 1500  # its days, each linked to the day's thread (else not linked)
MIN_WEEK_SECTION = 500  # what a rollup's later sections are sure to keep of the message

DIGEST_EVENT = "prdigest_digest"  # metadata of a digest's parent (or empty-day) message
PR_EVENT = "prdigest_pr"  # metadata of one PR's summary, in a thread or as a /prsummary answer
GROUP_EVENT = "prdigest_group"  # metadata of each part of a digest's grouped reply
GROUP_TITLE = "Small changes"

ZWJ = "\u200d"
# Bare "@channel" is only a mention with link_names, which we never send; the joiner makes
# sure no client or gateway that does parse it turns PR text into a broadcast.
_BROADCAST = re.compile(r"@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)
_URL = re.compile(r"^https?://[^\s<>|]+$", re.IGNORECASE)


@dataclass(frozen=True)
class SlackMessage:
    """One message to send: the notification fallback text, the blocks and the metadata."""

    text: str
    blocks: list[dict[str, Any]]
    metadata: dict[str, Any] | None = None

    def as_kwargs(self) -> dict[str, Any]:
        """Arguments for chat.postMessage (and respond()), link unfurls off."""
        kwargs: dict[str, Any] = {
            "text": self.text,
            "blocks": self.blocks,
            "unfurl_links": False,
            "unfurl_media": False,
        }
        if self.metadata is not None:
            kwargs["metadata"] = self.metadata
        return kwargs


# -- escaping ------------------------------------------------------------------------------


def escape(text: object) -> str:
    """Text safe for Slack mrkdwn: `&`, `<`, `>` escaped and broadcasts defused.

    With `<` escaped, no `<!channel>`, `<!here>`, `<!subteam^…>`, `<@U…>` or `<http…|…>`
    can survive; already-escaped input (`&lt;`) is escaped again and so shows literally.
    """
    value = clean("" if text is None else str(text))
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub("@" + ZWJ, value)


def safe_url(url: str | None) -> str | None:
    """An http(s) URL fit to sit inside `<…|…>`, or None when it is anything else."""
    value = (url or "").strip()
    if not _URL.match(value) or web_origin(value) is None:  # parsed: no userinfo, no `\\`
        return None
    return value.replace("&", "&amp;")


def link(url: str | None, label: str) -> str:
    """`<url|label>` with the label escaped; just the label when the URL is not http(s)."""
    text = escape(one_line(label))
    target = safe_url(url)
    return f"<{target}|{text}>" if target else text


def one_line(text: str | None, limit: int | None = None) -> str:
    value = " ".join((text or "").split())
    if limit is not None and len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return value


# -- limits --------------------------------------------------------------------------------


def block_text_length(block: dict[str, Any]) -> int:
    """The characters of text a block carries, as Slack counts them against its limits."""
    total = 0
    text = block.get("text")
    if isinstance(text, dict):
        total += len(text.get("text", ""))
    for element in block.get("elements", []) or []:
        if isinstance(element, dict) and isinstance(element.get("text"), str):
            total += len(element["text"])
    for field in block.get("fields", []) or []:
        total += len(field.get("text", ""))
    return total


def paginate(
    blocks: list[dict[str, Any]],
    *,
    max_blocks: int = MAX_BLOCKS,
    max_chars: int = MAX_MESSAGE_TEXT,
) -> list[list[dict[str, Any]]]:
    """Group blocks into as few messages as fit Slack's per-message limits, in order."""
    pages: list[list[dict[str, Any]]] = []
    page: list[dict[str, Any]] = []
    size = 0
    for block in blocks:
        length = block_text_length(block)
        if page and (len(page) >= max_blocks or size + length > max_chars):
            pages.append(page)
            page, size = [], 0
        page.append(block)
        size += length
    if page:
        pages.append(page)
    return pages


# -- blocks --------------------------------------------------------------------------------


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object that Slack shows as written: with `verbatim`, a URL, channel
    name or `@name` in PR or model text is never turned into a link or a mention. The
    `<url|label>` links and `<@U…>` mentions this module builds itself still work."""
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def section(text: str) -> dict[str, Any]:
    # A section's text must not be empty; Slack rejects the whole message otherwise.
    return {"type": "section", "text": mrkdwn(text or " ")}


def context(*texts: str) -> dict[str, Any]:
    elements = [mrkdwn(t) for t in texts if t][:MAX_CONTEXT_ELEMENTS]
    return {"type": "context", "elements": elements or [mrkdwn(" ")]}


def header(text: str) -> dict[str, Any]:
    # plain_text is never read as markup; a broadcast is defused all the same.
    value = one_line(_BROADCAST.sub("@" + ZWJ, text or ""), MAX_HEADER_TEXT)
    return {"type": "header", "text": {"type": "plain_text", "text": value, "emoji": True}}


def text_sections(heading: str, body: str) -> list[dict[str, Any]]:
    """`*Heading*` and the escaped body, as one section or several when it is long."""
    head = f"*{escape(heading)}*\n"
    pieces = split_text(escape(body.strip()) or "_(empty)_", MAX_SECTION_TEXT - len(head))
    return [section(head + pieces[0])] + [section(piece) for piece in pieces[1:]]


def _person(pr: PullRequest, login: str | None) -> str:
    return link(pr.profile_url(login), login) if login else "unknown"


def _change_type(entry: DigestEntry) -> str:
    return entry.summary.change_type.value if entry.summary else UNKNOWN_TYPE


def _files_label(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


# -- one PR --------------------------------------------------------------------------------


def entry_blocks(
    entry: DigestEntry,
    tz: tzinfo | None,
    *,
    position: str | None = None,
    links: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """One PR: title link, its headline, who and what, its related PRs, the four sections
    and the coverage line. A related PR links to a message about it when `links` has one."""
    pr = entry.pr
    title = link(pr.url, f"#{pr.number} {one_line(pr.title, MAX_TITLE)}")
    head = f"*{title}*"
    if position:
        head = f"*{position}* · {head}"
    if not pr.is_merged:
        head += f" · `{escape(pr.state.upper())}`"
    facts = [f"by {_person(pr, pr.author)}"]
    if pr.is_merged:
        facts.append(f"merged by {_person(pr, pr.merged_by)}")
        facts.append(f"merged {merged_time(pr, tz)}")
    facts.append(link(pr.files_url, _files_label(pr.files_count)))
    facts.append(f"`{_change_type(entry)}`")
    blocks = [section(head)]
    summary = entry.summary
    headline = one_line(summary.sections.headline) if summary else ""
    if headline:
        blocks.extend(section(piece) for piece in split_text(escape(headline), MAX_SECTION_TEXT))
    blocks.append(context(" · ".join(facts)))
    related = related_lines(entry, links)
    if related:
        blocks.append(context(related))
    if summary is None:
        reason = escape(entry.error or "unknown error")
        blocks.append(section(split_text(f"*Summary unavailable:* {reason}", MAX_SECTION_TEXT)[0]))
        return blocks
    if summary.revision > 1:
        blocks.append(context(f"_Revised after a flag (revision {summary.revision})._"))
    for heading, text in entry.shown_sections():
        blocks.extend(text_sections(heading, text))
    blocks.append(context(escape(summary.coverage_line)))
    return blocks


def related_lines(entry: DigestEntry, links: Mapping[int, str] | None = None) -> str:
    """ "Merged, then reverted by #B (same day)", "Follow-up to #N <title>"...: one line per
    related PR, its number linked, within one context element's 3,000 characters."""
    lines: list[str] = []
    used = 0
    for i, related in enumerate(entry.related):
        phrase = related_phrase(related)
        text = f"{phrase.lead} {link(related_target(related, links), f'#{phrase.number}')}"
        if phrase.title:
            text += f" {escape(one_line(phrase.title, MAX_RELATED_TITLE))}"
        text += phrase.tail
        more = len(entry.related) - i
        if used + len(text) + 1 > MAX_SECTION_TEXT - 40:
            lines.append(f"_…and {more} more_")
            break
        lines.append(text)
        used += len(text) + 1
    return "\n".join(lines)


def entry_fallback(entry: DigestEntry) -> str:
    pr = entry.pr
    text = f"#{pr.number} {one_line(pr.title)} ({_change_type(entry)})"
    return escape(one_line(text, MAX_FALLBACK_TEXT))


def entry_messages(
    entry: DigestEntry,
    tz: tzinfo | None,
    *,
    position: str | None = None,
    payload: dict[str, Any] | None = None,
    links: Mapping[int, str] | None = None,
) -> list[SlackMessage]:
    """One PR's message, split into continuation messages only when it cannot fit in one.

    Every part carries `PR_EVENT` metadata with its `part` number: part 1 is the message
    flags attach to and the one crash recovery looks for.
    """
    blocks = entry_blocks(entry, tz, position=position, links=links)
    # One block of each continuation page is its "(continued)" line.
    pages = paginate(blocks, max_blocks=MAX_BLOCKS - 1)
    fallback = entry_fallback(entry)
    messages = []
    for part, page in enumerate(pages, start=1):
        text = fallback
        if part > 1:
            note = f"#{entry.pr.number} continued ({part}/{len(pages)})"
            page = [context(f"_{note}_"), *page]
            text = f"{fallback} (continued)"
        metadata = None
        if payload is not None:
            metadata = {"event_type": PR_EVENT, "event_payload": {**payload, "part": part}}
        messages.append(SlackMessage(text, page, metadata))
    return messages


def pr_payload(entry: DigestEntry, *, day: str = "") -> dict[str, Any]:
    """What a PR message's metadata records: enough to find it again and to flag it."""
    payload: dict[str, Any] = {"repo": entry.pr.repo, "pr": entry.pr.number}
    if day:
        payload["day"] = day
    if entry.summary and entry.summary.id is not None:
        payload["summary_id"] = entry.summary.id
    return payload


def reply_messages(digest: Digest, entry: DigestEntry, index: int) -> list[SlackMessage]:
    """One PR's reply in the digest's thread; `index` counts the PRs that get a reply of
    their own (`digest.thread_entries`), not those of the grouped reply."""
    return entry_messages(
        entry,
        digest.window.start.tzinfo,
        position=f"{index}/{len(digest.thread_entries)}",
        payload=pr_payload(entry, day=digest.window.day.isoformat()),
        links=digest.links,
    )


def summary_messages(entry: DigestEntry, tz: tzinfo | None) -> list[SlackMessage]:
    """A /prsummary answer."""
    return entry_messages(entry, tz, payload=pr_payload(entry))


# -- a day ---------------------------------------------------------------------------------


def _digest_metadata(digest: Digest, kind: str) -> dict[str, Any]:
    """What a parent or empty-day message records: repo, day and, for a filtered digest or a
    weekly rollup, its `scope`, so crash recovery never takes one digest's message for
    another's (a whole day's has no scope, as before scopes existed)."""
    payload: dict[str, Any] = {
        "repo": digest.repo,
        "day": digest.window.day.isoformat(),
        "tz": digest.window.tz_name,
        "kind": kind,
    }
    if digest.scope:
        payload["scope"] = digest.scope
    return {"event_type": DIGEST_EVENT, "event_payload": payload}


def _repo_url(digest: Digest) -> str:
    base = digest.entries[0].pr.html_base if digest.entries else "https://github.com"
    return f"{base.rstrip('/')}/{digest.repo}"


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
    lines = _head_lines(digest, view, day, tokens=True)
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
            f"{thread} · react with :{_emoji(flag_emoji)}: on a summary to flag it as inaccurate"
        )
    )
    fallback = (
        f"{digest.display_name}: {c.merged} PRs merged on {day} ({window.tz_abbrev}), "
        f"{c.substantial} substantial, {c.trivial} trivial"
    )
    return SlackMessage(
        escape(one_line(fallback, MAX_FALLBACK_TEXT)), blocks, _digest_metadata(digest, "parent")
    )


def _head_lines(digest: Digest, view: Glance, when: str, *, tokens: bool) -> list[str]:
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


def week_parent_message(digest: Digest, *, flag_emoji: str = "x") -> SlackMessage:
    """A weekly rollup's parent: the week and zone, the counts (and the filter), the PRs of
    each day (linked to the day's thread where there is one), of each area (linked to its
    reply once it exists), the week's highlights and the reverts within the week.

    Within one message whatever the week: each later section gets what the earlier ones
    left of `MAX_MESSAGE_TEXT`, up to `MAX_SECTION_TEXT`, and says how many lines it left out.
    """
    assert digest.week is not None
    view = glance(digest)
    c = view.counts
    lines = _head_lines(digest, view, span_text(digest, "to"), tokens=False)
    foot = context(
        "One reply per area in this thread, one line per PR · to flag a summary, run "
        f"/prsummary &lt;number&gt; and react to the answer with :{_emoji(flag_emoji)}:"
    )
    blocks = [
        header(week_title(digest)),
        section(split_text("\n".join(lines), MAX_WEEK_SUMMARY)[0]),
        section(days_text(week_days(digest))),
    ]
    later = [
        lambda limit: areas_text(view, title="*By area*", numbers=False, limit=limit),
        lambda limit: highlights_text(view, items=view.highlights, limit=limit),
        lambda limit: reverts_text(view, limit=limit),
    ]
    wanted = [bool(view.areas), bool(view.highlights), bool(view.reverts)]
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
        escape(one_line(fallback, MAX_FALLBACK_TEXT)), blocks, _digest_metadata(digest, "parent")
    )


def days_text(days: tuple[GlanceDay, ...]) -> str:
    """`*By day*` and `Mon 02-23: 12 · Tue 02-24: 8 · …`, each day linked to its thread when
    it has one (and the links fit in `MAX_WEEK_DAYS`)."""
    linked = " · ".join(f"{link(d.link, d.label)}: {d.count}" for d in days)
    if len(linked) > MAX_WEEK_DAYS:
        linked = " · ".join(f"{d.label}: {d.count}" for d in days)
    return f"*By day*\n{linked}"


def highlights_text(
    view: Glance, *, items: tuple[GlancePR, ...] | None = None, limit: int = MAX_SECTION_TEXT
) -> str:
    """`*Highlights*` and one line per item (by default the highlights, then the same-day
    reverts), within one section."""
    lines = [_highlight_line(item) for item in (view.items if items is None else items)]
    return bounded_lines("*Highlights*", lines, limit, lambda n: f"_…and {n} more_")


def reverts_text(view: Glance, *, limit: int = MAX_SECTION_TEXT) -> str:
    """`*Reverted within the week*` and each revert pair that is not a highlight."""
    lines = [_highlight_line(item) for item in view.reverts]
    return bounded_lines("*Reverted within the week*", lines, limit, lambda n: f"_…and {n} more_")


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


def clip_section(text: str) -> str:
    return split_text(text, MAX_SECTION_TEXT)[0]


def _emoji(flag_emoji: str) -> str:
    return re.sub(r"[^a-z0-9_+\-]", "", flag_emoji.lower()) or "x"


def flag_hint(flag_emoji: str) -> str:
    """How to flag a PR of the grouped reply, whose lines cannot be reacted to one by one."""
    return (
        "To flag one of these summaries, run /prsummary <number> and react to the answer "
        f"with :{_emoji(flag_emoji)}:."
    )


# -- the grouped reply ------------------------------------------------------------------------


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
    day = digest.window.day.isoformat()
    messages = []
    for part, page in enumerate(pages, start=1):
        label = f"{count} (part {part} of {len(pages)})" if len(pages) > 1 else count
        blocks = [section(f"*{escape(title)}* · {label}"), *page]
        if part == len(pages):
            blocks.append(hint)
        payload: dict[str, Any] = {"repo": digest.repo, "day": day, "part": part}
        if digest.group_title:
            payload["title"] = digest.group_title
        metadata = {"event_type": GROUP_EVENT, "event_payload": payload}
        fallback = escape(one_line(f"{title} · {label}", MAX_FALLBACK_TEXT))
        messages.append(SlackMessage(fallback, blocks, metadata))
    return messages


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


def flags_line(count: int) -> str:
    return f"{count} summar{'y' if count == 1 else 'ies'} flagged as inaccurate"


def empty_message(digest: Digest) -> SlackMessage:
    """The one short message of a day (or week) with no merged PRs; a filtered digest's says
    "None of the 52 PRs merged into o/r on 2026-02-23 touch `…`."."""
    text = escape(empty_note(digest))
    if len(text) > MAX_SECTION_TEXT:
        text = split_text(text, MAX_SECTION_TEXT)[0]
    return SlackMessage(
        one_line(text, MAX_FALLBACK_TEXT), [section(text)], _digest_metadata(digest, "empty")
    )


# -- flags and revisions ---------------------------------------------------------------------

REVISED_NOTICE_ID = "prdigest_revised"  # block_id of the notice on a summary that was corrected


def flagger(name: str) -> str:
    """Who flagged, by name (see `adapters.slack.users`): text the user typed in a profile,
    escaped, so it shows as written and is never a mention; nobody is notified."""
    return escape(one_line(name, MAX_NAME)) or "someone"


def flag_ack_text(name: str) -> str:
    return f"Flagged as inaccurate by {flagger(name)} — thanks."


def revision_intro(name: str | None, note: str | None) -> str:
    """`Revised after a flag by Alice: <what changed>`; the note is LLM text, so escaped."""
    who = f" by {flagger(name)}" if name else ""
    text = one_line(note)
    return f"Revised after a flag{who}: {escape(text)}" if text else f"Revised after a flag{who}."


def revision_messages(
    entry: DigestEntry,
    tz: tzinfo | None,
    *,
    who: str | None,
    note: str | None,
    day: str = "",
) -> list[SlackMessage]:
    """The corrected summary, replied in the flagged summary's thread: the intro line (`who`
    is the flagger's name), then the same blocks (and metadata, naming the new version) as
    any PR's reply."""
    intro = revision_intro(who, note)
    messages = entry_messages(entry, tz, payload=pr_payload(entry, day=day))
    first = messages[0]
    # Part 1 holds at most MAX_BLOCKS - 1 blocks (see entry_messages): the intro fits.
    messages[0] = SlackMessage(intro, [section(intro), *first.blocks], first.metadata)
    return messages


def recheck_text(name: str, note: str | None) -> str:
    """The one reply when a re-check found nothing to correct."""
    text = one_line(note)
    reason = f" — {escape(text)}" if text else "."
    return f"Re-checked after a flag by {flagger(name)}: no correction needed{reason}"


def with_revision_notice(message: SlackMessage, url: str | None) -> SlackMessage:
    """`message` with a context line pointing at its correction, for chat.update.

    The line goes right under the PR's facts (else at the end); a notice from an earlier
    edit is replaced, never repeated.
    """
    notice = {
        **context(
            f"_Revised after a flag — {link(url, 'see the corrected summary')} in this thread_"
        ),
        "block_id": REVISED_NOTICE_ID,
    }
    blocks = [b for b in message.blocks if b.get("block_id") != REVISED_NOTICE_ID]
    facts = next((i for i, b in enumerate(blocks) if b.get("type") == "context"), None)
    blocks.insert(len(blocks) if facts is None else facts + 1, notice)
    return SlackMessage(message.text, blocks[:MAX_BLOCKS], message.metadata)


# -- command answers ---------------------------------------------------------------------------


def digest_label(repo: str, day: str, tz_name: str) -> str:
    return f"{escape(repo)} for {day} ({escape(tz_name)})"


def already_text(label: str, link_url: str) -> str:
    return f"The digest of {label} is already in this channel: <{link_url}|open the thread>."


def posted_text(label: str, status: str, link_url: str, failed: int) -> str:
    """What the user who typed /digest is told once the digest is out."""
    thread = f"<{link_url}|open the thread>"
    if status == PostStatus.ALREADY:
        text = f"The digest of {label} is already in this channel: {thread}."
    elif status == PostStatus.RESUMED:
        text = f"Resumed the digest of {label} where it stopped: {thread}."
    else:
        text = f"Posted the digest of {label}: {thread}."
    if failed:
        text += f" {failed} PRs could not be summarized; their replies say why."
    return text


def not_summarized_text(number: int, reason: str | None) -> str:
    return f"Could not summarize #{number}: {escape(reason or 'unknown error')}"
