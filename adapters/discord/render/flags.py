"""What a flag gets in Discord: the thanks, the one reply when a re-check finds nothing to
correct, the corrected summary in the flagged message's thread, and the line edited into the
flagged message that points at its correction. Flaggers are named, never pinged."""

from __future__ import annotations

from datetime import tzinfo

from adapters.discord.limits import MAX_CONTENT, MAX_NOTE, clip, text_length
from adapters.discord.render.markdown import Message, untrusted
from adapters.discord.render.pr import entry_messages
from bot.core.models import DigestEntry
from bot.core.untrusted import clean

REVISED_NOTICE = "Revised after a flag — corrected summary: "


def flag_thanks(number: int, user_id: str) -> str:
    """The one reply a flagged summary gets (the user is named, never pinged)."""
    return (
        f"Thanks <@{int(user_id)}>: the summary of #{number} is flagged as inaccurate "
        "and will be looked at."
    )


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
