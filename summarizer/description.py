"""Cleaning a PR description for the prompt: what the author wrote, not the template."""

from __future__ import annotations

import re

from summarizer.tokens import count_tokens

_HTML_COMMENT = re.compile(r"<!--.*?(-->|$)", re.DOTALL)
_DETAILS = re.compile(r"<details>.*?</details>", re.DOTALL | re.IGNORECASE)
_UNCHECKED = re.compile(r"^\s*[-*]\s+\[ \]\s")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
# Lines that PR templates carry and authors leave untouched.
_TEMPLATE_LINES = re.compile(
    r"(BEFORE SUBMITTING, PLEASE READ|will be removed by GitHub Actions|"
    r"^\s*(FIX|Fixes|Closes)\s*#?\s*(xxxx|XXXX)\b)",
    re.IGNORECASE,
)


def clean_description(body: str | None, max_tokens: int | None = None) -> str:
    """Strip HTML comments, template checklists and empty template headings; cap the length."""
    text = (body or "").replace("\r\n", "\n")
    text = _HTML_COMMENT.sub("", text)
    text = _DETAILS.sub(lambda m: "" if "checklist" in m.group(0).lower() else m.group(0), text)
    lines = [
        line
        for line in text.split("\n")
        if not _UNCHECKED.match(line) and not _TEMPLATE_LINES.search(line)
    ]
    text = "\n".join(_drop_empty_sections(lines)).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    if max_tokens is not None and count_tokens(text) > max_tokens:
        text = _cut(text, max_tokens) + "\n[description cut]"
    return text


def _drop_empty_sections(lines: list[str]) -> list[str]:
    """A heading followed only by blank lines (up to the next heading or the end) goes."""
    kept: list[str] = []
    for i, line in enumerate(lines):
        if _HEADING.match(line):
            rest = lines[i + 1 :]
            body_until_next = []
            for nxt in rest:
                if _HEADING.match(nxt):
                    break
                body_until_next.append(nxt)
            if not any(part.strip() and part.strip() != "---" for part in body_until_next):
                continue
        kept.append(line)
    return kept


def _cut(text: str, max_tokens: int) -> str:
    # Proportional first guess, then shrink: count_tokens may be tiktoken or an estimate.
    cut = text[: max(1, int(len(text) * max_tokens / max(1, count_tokens(text))))]
    while cut and count_tokens(cut) > max_tokens:
        cut = cut[: int(len(cut) * 0.9)]
    return cut.rsplit("\n", 1)[0] if "\n" in cut else cut
