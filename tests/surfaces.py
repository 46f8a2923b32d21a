"""How a reader's client reads what prdigest writes, surface by surface: the links it would
make clickable, the pings it would send, and the characters that should never reach a reader.

These are written from the platforms' documented behaviour, independently of the renderers:
the Markdown report is read by GitHub's own renderer (cmarkgfm, GitHub Flavored Markdown with
its autolink extension); Discord and Slack text by the rules their clients apply.
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

# -- characters ---------------------------------------------------------------------------------

BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bad_characters(text: str) -> list[str]:
    """Control characters (but a line break and a tab), escape sequences and bidirectional
    formatting characters in `text`, as code points."""
    return [
        f"U+{ord(c):04X}"
        for c in text
        if (unicodedata.category(c) == "Cc" and c not in "\n\t") or c in BIDI
    ]


# -- Markdown, as GitHub renders it -------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("href", "src", "action", "formaction", "srcset") and value is not None:
                self.hrefs.append(value)


def github_html(markdown: str) -> str:
    """The report as GitHub renders it (raw HTML let through, so any that slips shows)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def markdown_links(markdown: str) -> list[str]:
    """Every URL a reader could follow in the rendered report."""
    parser = _Links()
    parser.feed(github_html(markdown))
    return parser.hrefs


def markdown_tags(markdown: str) -> list[str]:
    parser = _Links()
    parser.feed(github_html(markdown))
    return parser.tags


# -- Discord ------------------------------------------------------------------------------------

_CODE = re.compile(r"(?<![\\`])(`+)(?!`)[\s\S]*?[^`]\1(?!`)")  # a \` is no fence
_DISCORD_MASKED = re.compile(r"(?<!\\)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^\s)>]+)>?\s*\)")
_DISCORD_BARE = re.compile(r"(?<![\\\w])(?:https?|steam|discord)://[^\s<]+", re.I)
_WEB = re.compile(r"https?://", re.I)  # the only targets Discord makes a masked link of
_DISCORD_ANGLE = re.compile(r"(?<!\\)<((?:https?)://[^\s>]+)>", re.I)


def discord_links(text: str) -> list[str]:
    """URLs Discord would make clickable in Markdown text (content, embed descriptions and
    field values): masked links, `<url>` and bare URLs, outside code."""
    plain = _CODE.sub(" ", text)
    found = [m.group(2) for m in _DISCORD_MASKED.finditer(plain) if _WEB.match(m.group(2))]
    plain = _DISCORD_MASKED.sub(lambda m: m.group(1), plain)
    found += _DISCORD_ANGLE.findall(plain)
    found += [u.rstrip(".,;:!?)") for u in _DISCORD_BARE.findall(_DISCORD_ANGLE.sub(" ", plain))]
    return found


DISCORD_PINGS = re.compile(r"(?<!\\)<@[!&]?\d+>|@(?:everyone|here)\b", re.I)


def discord_pings(text: str) -> list[str]:
    """Mentions Discord would parse (a zero-width space after `@` or a backslash before `<`
    keeps one as text)."""
    return DISCORD_PINGS.findall(text)


def discord_texts(messages) -> list[str]:
    """Every Markdown-rendered string of Discord messages (`Message` objects or payloads)."""
    out = []
    for message in messages:
        content = getattr(message, "content", None)
        embeds = getattr(message, "embeds", None)
        if isinstance(message, dict):
            content, embeds = message.get("content"), message.get("embeds")
        out.append(content or "")
        for embed in embeds or ():
            out.append(embed.get("description") or "")
            out += [f.get("value") or "" for f in embed.get("fields") or ()]
            out += [f.get("name") or "" for f in embed.get("fields") or ()]
            out.append(embed.get("title") or "")
            out.append((embed.get("footer") or {}).get("text") or "")
            out.append((embed.get("author") or {}).get("name") or "")
    return out


def embed_urls(messages) -> list[str]:
    """The URLs set on embeds (their title's link)."""
    urls = []
    for message in messages:
        embeds = message.get("embeds") if isinstance(message, dict) else message.embeds
        urls += [e["url"] for e in embeds or () if e.get("url")]
    return urls


# -- Slack --------------------------------------------------------------------------------------

SLACK_PINGS = re.compile(
    r"<!(?:channel|here|everyone|subteam)|<@[UW][A-Z0-9]+(?:\|[^>]*)?>"
    r"|(?<![\w\u200d])@(?:channel|here|everyone)\b",
    re.I,
)


def slack_objects(message) -> list[dict]:
    """Every text object of a Slack message: its notification text (as plain text), each
    block's text, context elements and fields."""
    objects = [{"type": "plain_text", "text": message.text}]
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            objects.append(block["text"])
        objects += [e for e in block.get("elements", []) if isinstance(e, dict)]
        objects += [f for f in block.get("fields", []) if isinstance(f, dict)]
    return objects


def slack_text(message) -> str:
    """All the text of a Slack message, one object a line."""
    return "\n".join(obj.get("text") or "" for obj in slack_objects(message))
