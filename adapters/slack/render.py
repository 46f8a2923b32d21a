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
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from bot.core.models import ChangeType, Digest, DigestEntry, PostStatus, PullRequest
from bot.digest.render_markdown import UNKNOWN_TYPE
from bot.digest.text import merged_time, split_text

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
# Slack refuses (or silently cuts) messages whose blocks hold much more than 12,000
# characters; the margin leaves room for the fallback text and the markup we add.
MAX_MESSAGE_TEXT = 10_000
MAX_FALLBACK_TEXT = 300
MAX_TITLE = 200
TOP_TITLES = 5

DIGEST_EVENT = "prdigest_digest"  # metadata of a digest's parent (or empty-day) message
PR_EVENT = "prdigest_pr"  # metadata of one PR's summary, in a thread or as a /prsummary answer

ZWJ = "\u200d"
# Bare "@channel" is only a mention with link_names, which we never send; the joiner makes
# sure no client or gateway that does parse it turns PR text into a broadcast.
_BROADCAST = re.compile(r"@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)
_URL = re.compile(r"^https?://[^\s<>|]+$", re.IGNORECASE)
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,20}$")


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
    value = "" if text is None else str(text)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub("@" + ZWJ, value)


def safe_url(url: str | None) -> str | None:
    """An http(s) URL fit to sit inside `<…|…>`, or None when it is anything else."""
    value = (url or "").strip()
    if not _URL.match(value):
        return None
    return value.replace("&", "&amp;")


def link(url: str | None, label: str) -> str:
    """`<url|label>` with the label escaped; just the label when the URL is not http(s)."""
    text = escape(one_line(label))
    target = safe_url(url)
    return f"<{target}|{text}>" if target else text


def mention(user_id: str) -> str:
    """A user mention built by us from a Slack user id, never from text."""
    return f"<@{user_id}>" if _USER_ID.match(user_id or "") else escape(user_id)


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
    return {
        "type": "header",
        "text": {"type": "plain_text", "text": one_line(text, MAX_HEADER_TEXT), "emoji": True},
    }


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
    entry: DigestEntry, tz: tzinfo | None, *, position: str | None = None
) -> list[dict[str, Any]]:
    """One PR: title link, who and what, the four sections and the coverage line."""
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
    facts.append(link(pr.files_url, _files_label(len(pr.files))))
    facts.append(f"`{_change_type(entry)}`")
    blocks = [section(head), context(" · ".join(facts))]
    summary = entry.summary
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
) -> list[SlackMessage]:
    """One PR's message, split into continuation messages only when it cannot fit in one.

    Every part carries `PR_EVENT` metadata with its `part` number: part 1 is the message
    flags attach to and the one crash recovery looks for.
    """
    blocks = entry_blocks(entry, tz, position=position)
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
    """One PR's reply in the digest's thread."""
    return entry_messages(
        entry,
        digest.window.start.tzinfo,
        position=f"{index}/{len(digest.entries)}",
        payload=pr_payload(entry, day=digest.window.day.isoformat()),
    )


def summary_messages(entry: DigestEntry, tz: tzinfo | None) -> list[SlackMessage]:
    """A /prsummary answer."""
    return entry_messages(entry, tz, payload=pr_payload(entry))


# -- a day ---------------------------------------------------------------------------------


def _digest_metadata(digest: Digest, kind: str) -> dict[str, Any]:
    return {
        "event_type": DIGEST_EVENT,
        "event_payload": {
            "repo": digest.repo,
            "day": digest.window.day.isoformat(),
            "tz": digest.window.tz_name,
            "kind": kind,
        },
    }


def _repo_url(digest: Digest) -> str:
    base = digest.entries[0].pr.html_base if digest.entries else "https://github.com"
    return f"{base.rstrip('/')}/{digest.repo}"


def top_entries(digest: Digest, limit: int = TOP_TITLES) -> list[DigestEntry]:
    """The titles the parent shows: substantial changes first, each group newest first."""
    substantial = [
        e for e in digest.entries if e.summary and e.summary.change_type == ChangeType.SUBSTANTIAL
    ]
    rest = [e for e in digest.entries if e not in substantial]
    return (substantial + rest)[:limit]


def parent_message(digest: Digest, *, flag_emoji: str = "x") -> SlackMessage:
    """The thread's parent: repo, day and zone, counts, tokens and the top titles."""
    window = digest.window
    day = window.day.isoformat()
    total = len(digest.entries)
    substantial = digest.count(ChangeType.SUBSTANTIAL)
    trivial = digest.count(ChangeType.TRIVIAL)
    failed = len(digest.failed)
    counts = [
        f"*{total}* merged",
        f"*{substantial}* substantial",
        f"*{trivial}* trivial",
    ]
    if failed:
        counts.append(f"*{failed}* without a summary")
    counts.append(f"{digest.usage.total_tokens:,} tokens")
    lines = [
        f"*{link(_repo_url(digest), digest.repo)}* · {day} ({escape(window.tz_name)})",
        " · ".join(counts),
    ]
    if digest.recent_flags:
        lines.append(f"{flags_line(digest.recent_flags)} on {escape(digest.repo)} in the last day")
    top = top_entries(digest)
    titles = [
        f"• {link(e.pr.url, f'#{e.pr.number}')} {escape(one_line(e.pr.title, 150))}" for e in top
    ]
    if total > len(top):
        titles.append(f"_…and {total - len(top)} more in the thread_")
    emoji = re.sub(r"[^a-z0-9_+\-]", "", flag_emoji.lower()) or "x"
    blocks = [
        header(f"{digest.display_name} merged PRs · {day} {window.tz_abbrev}"),
        section("\n".join(lines)),
        section("*Top changes*\n" + "\n".join(titles)),
        context(
            "One reply per PR in this thread, newest merge first · "
            f"react with :{emoji}: on a summary to flag it as inaccurate"
        ),
    ]
    fallback = (
        f"{digest.display_name}: {total} PRs merged on {day} ({window.tz_abbrev}), "
        f"{substantial} substantial, {trivial} trivial"
    )
    return SlackMessage(escape(fallback), blocks, _digest_metadata(digest, "parent"))


def flags_line(count: int) -> str:
    return f"{count} summar{'y' if count == 1 else 'ies'} flagged as inaccurate"


def empty_message(digest: Digest) -> SlackMessage:
    """The one short message of a day with no merged PRs."""
    window = digest.window
    day = window.day.isoformat()
    text = (
        f"No pull requests were merged into {escape(digest.repo)} on {day} "
        f"({escape(window.tz_name)})."
    )
    return SlackMessage(text, [section(text)], _digest_metadata(digest, "empty"))


# -- flags and revisions ---------------------------------------------------------------------

REVISED_NOTICE_ID = "prdigest_revised"  # block_id of the notice on a summary that was corrected


def flag_ack_text(user_id: str) -> str:
    return f"Flagged as inaccurate by {mention(user_id)} — thanks."


def revision_intro(user_id: str | None, note: str | None) -> str:
    """`Revised after a flag by @user: <what changed>`; the note is LLM text, so escaped."""
    who = f" by {mention(user_id)}" if user_id else ""
    text = one_line(note)
    return f"Revised after a flag{who}: {escape(text)}" if text else f"Revised after a flag{who}."


def revision_messages(
    entry: DigestEntry,
    tz: tzinfo | None,
    *,
    user_id: str | None,
    note: str | None,
    day: str = "",
) -> list[SlackMessage]:
    """The corrected summary, replied in the flagged summary's thread: the intro line, then
    the same blocks (and metadata, naming the new version) as any PR's reply."""
    intro = revision_intro(user_id, note)
    messages = entry_messages(entry, tz, payload=pr_payload(entry, day=day))
    first = messages[0]
    # Part 1 holds at most MAX_BLOCKS - 1 blocks (see entry_messages): the intro fits.
    messages[0] = SlackMessage(intro, [section(intro), *first.blocks], first.metadata)
    return messages


def recheck_text(user_id: str, note: str | None) -> str:
    """The one reply when a re-check found nothing to correct."""
    text = one_line(note)
    reason = f" — {escape(text)}" if text else "."
    return f"Re-checked after a flag by {mention(user_id)}: no correction needed{reason}"


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
