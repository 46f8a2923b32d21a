"""Slack's mrkdwn made safe, and the blocks that carry it: what every Slack message is built
from.

Every string that comes from a PR (title, logins, error text) or from the LLM (the four
sections, the model name) goes through `escape()`. The only `<...>` markup in a message is
what the renderer builds itself, around URLs it has checked, so nothing a PR author or a
model writes can ping a channel, mention a user or disguise a link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from adapters.slack.limits import MAX_CONTEXT_ELEMENTS, MAX_HEADER_TEXT, MAX_SECTION_TEXT
from bot.core.untrusted import clean, web_origin
from bot.digest.text import split_text

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


def emoji_name(flag_emoji: str) -> str:
    """The flag emoji's name as `:name:` can hold it (`x` when nothing is left)."""
    return re.sub(r"[^a-z0-9_+\-]", "", flag_emoji.lower()) or "x"


# -- blocks --------------------------------------------------------------------------------


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object that Slack shows as written: with `verbatim`, a URL, channel
    name or `@name` in PR or model text is never turned into a link or a mention. The
    `<url|label>` links and `<@U…>` mentions the renderer builds itself still work."""
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


def clip_section(text: str) -> str:
    return split_text(text, MAX_SECTION_TEXT)[0]
