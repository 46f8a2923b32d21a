"""Code text cut where its brackets and quotes are closed: a signature's parameters at its
commas, a condition's parts at its top-level `or`. A separator inside `f(a, b)` or `"x or y"`
is part of one piece, and never a place to cut."""

from __future__ import annotations

import re


def split_top_level(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` cut at each match of `separator` that stands outside every bracket and
    string, the separators left out; the pieces as they are, unstripped."""
    parts: list[str] = []
    start, depth, quote, i = 0, 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and (m := separator.match(text, i)) and m.end() > i:
            parts.append(text[start:i])
            start = i = m.end()
            continue
        i += 1
    parts.append(text[start:])
    return parts
