"""What a flag gets in Slack: the thanks, the one reply when a re-check finds nothing to
correct, the corrected summary in the flagged summary's thread, and the notice edited into
the flagged message that points at its correction. Flaggers are named, never mentioned."""

from __future__ import annotations

from datetime import tzinfo

from adapters.slack.limits import MAX_BLOCKS, MAX_NAME
from adapters.slack.render.metadata import pr_payload
from adapters.slack.render.mrkdwn import SlackMessage, context, escape, link, one_line, section
from adapters.slack.render.pr import entry_messages
from bot.core.models import DigestEntry

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
