"""Code text cut where its brackets and quotes are closed: a signature's parameters at its
commas, a condition's parts at its top-level `or`. A separator inside `f(a, b)` or `"x or y"`
is part of one piece, and never a place to cut."""

from __future__ import annotations

import re

# What each bracket does to the depth of the code around it.
DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def without_strings(code: str) -> str:
    """`code` with each one-line string literal emptied (`"a(b"` becomes `""`): a bracket
    inside a string opens nothing."""
    return _STRING.sub('""', code)


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


def unclosed(code: str, comment: str = "#") -> str:
    """The closers that `code`, cut off mid-expression, still needs, innermost first
    (`x = (` needs `)`, `struct S {` needs `}`); "" when its brackets close, when it ends
    inside a string, or when a closer does not match its opener: no guess is safe then.
    `comment` starts a line comment: `#` in Python, `//` in C (whose `/* */` is skipped too).
    A closer before any opener closes what the fragment started inside: it is passed over."""
    stack: list[str] = []
    quote, i = "", 0
    while i < len(code):
        if quote:
            i, quote = _in_string(code, i, quote)
            continue
        if code.startswith(comment, i) or code.startswith("/*", i) and comment == "//":
            ender = "\n" if code.startswith(comment, i) else "*/"
            end = code.find(ender, i + 2)
            i = len(code) if end < 0 else end + len(ender)
            continue
        ch = code[i]
        if ch in "\"'":
            quote = ch * 3 if comment == "#" and code.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        if ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif ch in ")]}" and stack and stack.pop() != ch:
            return ""
        i += 1
    return "" if len(quote) == 3 else "".join(reversed(stack))


def _in_string(code: str, i: int, quote: str) -> tuple[int, str]:
    """Where the scan goes next inside a string opened by `quote`, and the quote still open
    ("" once it closes). A one-line string never runs past its line."""
    if code.startswith(quote, i):
        return i + len(quote), ""
    step = 2 if code[i] == "\\" else 1
    if len(quote) == 1 and "\n" in code[i : i + step]:
        return i + step, ""
    return i + step, quote
