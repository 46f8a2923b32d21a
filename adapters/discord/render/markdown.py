"""Discord Markdown made safe, and the message it goes in: what every Discord message is
built from.

Every piece of text that came from GitHub or the model goes through `sanitize` (and, where
Discord shows Markdown, `untrusted` or `literal`), so even if `allowed_mentions` were ever
lost a PR title could not ping anyone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.core.models import ChangeType
from bot.core.untrusted import clean
from bot.digest import text as shared_text
from bot.digest.text import code_span

COLOURS = {ChangeType.SUBSTANTIAL: 0x5865F2, ChangeType.TRIVIAL: 0x99AAB5}
FAILED_COLOUR = 0xED4245

_EVERYONE = re.compile(r"@(everyone|here)", re.IGNORECASE)
_MENTION = re.compile(r"<(@[!&]?|#)(\d+)>")
_MASKED_LINK = re.compile(r"\[([^\]\n]*)\]\(")
_LINK_START = re.compile(r"[a-z][a-z0-9+.-]*:|www\.|@|//", re.IGNORECASE)
_MARKDOWN = re.compile(r"([\\*_~|`\[\]<>])")
# What starts a block at the beginning of a line in Discord: a heading, subtext, a quote,
# a list item.
_BLOCK_START = re.compile(r"#|-#|>|[-*+] |\d{1,9}[.)] ")


@dataclass(frozen=True)
class Message:
    """One message to send: `embeds` are Discord embed objects as dicts."""

    content: str = ""
    embeds: tuple[dict[str, Any], ...] = field(default_factory=tuple)


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
            out.append(inline_code(sanitize(piece[fence:-fence])))
        elif kind == "link" and code:
            out.append(inline_code(sanitize(piece)))
        else:
            out.append(_MARKDOWN.sub(r"\\\1", unlinked(piece)))
        if len(out) > 1 and out[-2].endswith("`") and out[-1].startswith("`"):
            out[-1] = " " + out[-1]  # two code spans that touch would read as one fence
    return "".join(out)


def inline_code(text: str) -> str:
    """Inline code as Discord has it: one or two backticks (three are a code block wherever
    they stand); text holding a run of two is shown escaped instead."""
    if "``" in text or text.strip("` ") == "":
        return literal(text)
    return code_span(text)


def masked_link(url: str, label: str) -> str:
    """`[label](url)` for an embed, built by us: the label is ours or `literal()` text, the
    URL a PR's page or one of our messages."""
    return f"[{label}]({url})"


def more_items(n: int) -> str:
    """The last line of a list cut short."""
    return f"*…and {n} more*"
