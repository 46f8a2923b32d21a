"""Text helpers every renderer shares (the Markdown report, Slack, Discord): one code span,
one merge-time format, one way to split long text, and one reading of untrusted text into
code, URL-like tokens and plain words (`inline_parts`), which the renderers escape for their
own syntax."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import tzinfo

from bot.core.models import PullRequest

MERGED_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # as the seed reports print it


def merged_time(pr: PullRequest, tz: tzinfo | None, unknown: str = "unknown") -> str:
    """When the PR was merged, in `tz`, as the report shows it everywhere."""
    if pr.merged_at is None:
        return unknown
    moment = pr.merged_at.astimezone(tz) if tz else pr.merged_at
    return moment.strftime(MERGED_TIME_FORMAT)


def code_span(text: str) -> str:
    """`text` as inline code, shown literally even when it holds backticks.

    The fence is one backtick longer than the longest run inside, so no run can close it;
    a space pads each side when the text starts or ends with a backtick (it would join the
    fence otherwise), which CommonMark, Slack and Discord all drop again.
    """
    runs = re.findall(r"`+", text)
    fence = "`" * (max((len(r) for r in runs), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def split_text(text: str, limit: int, *, measure: Callable[[str], int] = len) -> list[str]:
    """Cut `text` into pieces of at most `limit` (as `measure` counts: characters, or
    Discord's UTF-16 units) at the best boundary in the second half of each piece: a
    paragraph, a line, a sentence, a word. A hard cut never lands inside an entity such as
    `&amp;` (Slack's escaping) or half a surrogate pair. Only whitespace at the cuts is lost.
    """
    rest = text.strip()
    pieces: list[str] = []
    while measure(rest) > limit:
        head = prefix(rest, limit, measure)
        cut = _cut_point(head)
        piece = rest[:cut].rstrip()
        if piece:
            pieces.append(piece)
        rest = rest[cut:].lstrip()
    if rest or not pieces:
        pieces.append(rest)
    return pieces


def prefix(text: str, limit: int, measure: Callable[[str], int] = len) -> str:
    """The longest prefix of `text` that `measure` counts within `limit`."""
    head = text[:limit]  # no longer prefix can fit: each character counts at least one
    if measure(head) <= limit:
        return head
    while head and measure(head) > limit:
        head = head[:-1]
    return head


def _cut_point(head: str) -> int:
    for separator in ("\n\n", "\n", ". ", " "):
        at = head.rfind(separator)
        if at >= len(head) // 2:
            return at + len(separator)
    amp = head.rfind("&", max(0, len(head) - 6))
    if amp > 0 and ";" not in head[amp:]:
        return amp
    return max(1, len(head))


def bounded_lines(
    title: str,
    lines: list[str],
    limit: int,
    more: Callable[[int], str],
    measure: Callable[[str], int] = len,
) -> str:
    """`title` and as many `lines` as fit in `limit` (as `measure` counts), in order; `more(n)`
    is the last line when the n others do not fit (no line is cut, so no escape or link is)."""
    reserve = max((measure(more(n)) for n in range(1, len(lines) + 1)), default=0) + 1
    text = title
    for i, line in enumerate(lines):
        room = limit - measure(text) - 1 - (reserve if i < len(lines) - 1 else 0)
        if measure(line) > room:
            return f"{text}\n{more(len(lines) - i)}"
        text += "\n" + line
    return text


# -- untrusted text: code, URL-like tokens and plain words -------------------------------------

_TICKS = re.compile(r"`+")
# Schemes a browser or a chat client would follow without `//`.
_BARE_SCHEMES = re.compile(
    r"(?:^|[^a-z0-9+.-])(?:javascript|vbscript|data|file|mailto|tel|sms|blob|xmpp|irc|ftp)s?:",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[^\s@]@[^\s@]*[a-z0-9-]\.[a-z]", re.IGNORECASE)


def code_span_ranges(text: str) -> list[tuple[int, int]]:
    """Where CommonMark (and Discord, and Slack) see code spans in `text`: a run of n
    backticks up to the next run of exactly n; a run with no such partner is literal."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    spans, i = [], 0
    while i < len(runs):
        start, end = runs[i]
        width = end - start
        close = next((k for k in range(i + 1, len(runs)) if runs[k][1] - runs[k][0] == width), 0)
        if close:
            spans.append((start, runs[close][1]))
            i = close + 1
        else:
            i += 1
    return spans


def is_linkish(token: str) -> bool:
    """Whether some surface could read `token` as a link, however it is written: a scheme
    and `//` (also with backslashes or escapes in between), `//host`, `www.`, `javascript:`
    and other schemes that need no slashes, or an e-mail address."""
    plain = token.replace("\\", "/").lower()
    plain = re.sub(r"/{2,}", "//", plain)
    return (
        "://" in plain
        or plain.lstrip("([<\"'*_~|").startswith("//")
        or "www." in plain
        or bool(_BARE_SCHEMES.search(plain))
        or bool(_EMAIL.search(plain))
    )


def inline_parts(text: str) -> list[tuple[str, str]]:
    """`text` read as untrusted inline text: ("code", a whole code span as written),
    ("link", a whitespace-delimited token some surface could make a link of) and ("text",
    anything else). Renderers keep code as is, show links as code, and escape text."""
    parts: list[tuple[str, str]] = []
    last = 0
    for start, end in code_span_ranges(text):
        parts += _words(text[last:start])
        parts.append(("code", text[start:end]))
        last = end
    parts += _words(text[last:])
    return parts


def _words(text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    for piece in re.split(r"(\s+)", text):
        if not piece:
            continue
        kind = "link" if not piece.isspace() and is_linkish(piece) else "text"
        if kind == "text" and parts and parts[-1][0] == "text":
            parts[-1] = ("text", parts[-1][1] + piece)
        else:
            parts.append((kind, piece))
    return parts
