"""Text helpers every renderer shares (the Markdown report, Slack, Discord): one code span,
one merge-time format, one way to split long text."""

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
