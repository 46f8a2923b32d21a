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


_CLOSER = {"(": ")", "[": "]", "{": "}"}


def unclosed(code: str) -> str:
    """The closers that Python `code` cut off mid-expression still needs, innermost first
    (`x = (` needs `)`); "" when its brackets close, or when it ends inside a string or has
    a closer with no opener (a fragment that starts mid-expression): no guess is safe then."""
    stack: list[str] = []
    quote, i = "", 0
    while i < len(code):
        if quote:
            if code.startswith(quote, i):
                i, quote = i + len(quote), ""
                continue
            i += 2 if code[i] == "\\" else 1
            if len(quote) == 1 and i < len(code) and code[i - 1] == "\n":
                quote = ""  # a one-line string never runs past its line
            continue
        ch = code[i]
        if ch == "#":
            end = code.find("\n", i)
            i = len(code) if end < 0 else end
            continue
        if ch in "\"'":
            quote = ch * 3 if code.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        if ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return ""
        i += 1
    return "" if quote and len(quote) == 3 else "".join(reversed(stack))
