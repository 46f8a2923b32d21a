"""One PR's message: its reply in a digest's thread, a /prsummary answer, and what a
correction repeats. Title link, headline, who and what, related PRs, the four sections and
the coverage line, split into continuation messages only when it cannot fit in one."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_FALLBACK_TEXT,
    MAX_RELATED_TITLE,
    MAX_SECTION_TEXT,
    MAX_TITLE,
    paginate,
)
from adapters.slack.render.metadata import pr_metadata, pr_payload
from adapters.slack.render.mrkdwn import (
    SlackMessage,
    context,
    escape,
    link,
    one_line,
    section,
    text_sections,
)
from bot.core.models import Digest, DigestEntry, PullRequest
from bot.digest.glance import related_phrase, related_target
from bot.digest.render_markdown import UNKNOWN_TYPE
from bot.digest.text import merged_time, split_text


def entry_blocks(
    entry: DigestEntry,
    tz: tzinfo | None,
    *,
    position: str | None = None,
    links: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """One PR: title link, its headline, who and what, its related PRs, the four sections
    and the coverage line. A related PR links to a message about it when `links` has one."""
    blocks = [section(_title_line(entry.pr, position))]
    summary = entry.summary
    headline = one_line(summary.sections.headline) if summary else ""
    if headline:
        blocks.extend(section(piece) for piece in split_text(escape(headline), MAX_SECTION_TEXT))
    blocks.append(context(_facts_line(entry, tz)))
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


def _title_line(pr: PullRequest, position: str | None) -> str:
    """`*3/12* · *<url|#5 title>*`, and the state of a PR that was not merged."""
    title = link(pr.url, f"#{pr.number} {one_line(pr.title, MAX_TITLE)}")
    head = f"*{title}*"
    if position:
        head = f"*{position}* · {head}"
    if not pr.is_merged:
        head += f" · `{escape(pr.state.upper())}`"
    return head


def _facts_line(entry: DigestEntry, tz: tzinfo | None) -> str:
    """Who wrote and merged it, when, its files and its type."""
    pr = entry.pr
    facts = [f"by {_person(pr, pr.author)}"]
    if pr.is_merged:
        facts.append(f"merged by {_person(pr, pr.merged_by)}")
        facts.append(f"merged {merged_time(pr, tz)}")
    facts.append(link(pr.files_url, _files_label(pr.files_count)))
    facts.append(f"`{_change_type(entry)}`")
    return " · ".join(facts)


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


def _person(pr: PullRequest, login: str | None) -> str:
    return link(pr.profile_url(login), login) if login else "unknown"


def _change_type(entry: DigestEntry) -> str:
    return entry.summary.change_type.value if entry.summary else UNKNOWN_TYPE


def _files_label(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


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
        metadata = None if payload is None else pr_metadata(payload, part)
        messages.append(SlackMessage(text, page, metadata))
    return messages


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
