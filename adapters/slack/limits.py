"""Every size a Slack message is held to: Slack's own limits, the budgets prdigest keeps
within them, and how Slack counts a block's text (`block_text_length`) and how blocks are
grouped into messages that fit (`paginate`).

Slack's limits are met by construction: a section's text is split before 3,000 characters
and a message is split before 50 blocks or ~10,000 characters of text, never truncated.
"""

from __future__ import annotations

from typing import Any

# -- Slack's limits ----------------------------------------------------------------------------

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
# Slack refuses (or silently cuts) messages whose blocks hold much more than 12,000
# characters; the margin leaves room for the fallback text and the markup we add.
MAX_MESSAGE_TEXT = 10_000
MAX_NAME = 80  # characters of a flagger's display name (Slack allows 80)

# -- prdigest's budgets within them -----------------------------------------------------------

MAX_FALLBACK_TEXT = 300
MAX_TITLE = 200
MAX_GLANCE_TEXT = 150  # characters of a headline, title or area name in the parent
MAX_AREA_NUMBERS = 200  # characters of an area's "#12, #11, …" before its replies exist
MAX_RELATED_TITLE = 120
MAX_GROUP_HEADLINE = 300
MAX_NOTE = 600  # characters of a filtered digest's "7 of 52 PRs … touch `…`" before escaping
MAX_WEEK_SUMMARY = 1500  # a rollup's first section: repo, week, counts, filter
MAX_WEEK_DAYS = 1500  # its days, each linked to the day's thread (else not linked)
MIN_WEEK_SECTION = 500  # what a rollup's later sections are sure to keep of the message


def block_text_length(block: dict[str, Any]) -> int:
    """The characters of text a block carries, as Slack counts them against its limits."""
    total = 0
    text = block.get("text")
    if isinstance(text, dict):
        total += len(text.get("text", ""))
    for element in block.get("elements", []) or []:
        if isinstance(element, dict) and isinstance(element.get("text"), str):
            total += len(element["text"])
    for field in block.get("fields", []) or []:
        total += len(field.get("text", ""))
    return total


def paginate(
    blocks: list[dict[str, Any]],
    *,
    max_blocks: int = MAX_BLOCKS,
    max_chars: int = MAX_MESSAGE_TEXT,
) -> list[list[dict[str, Any]]]:
    """Group blocks into as few messages as fit Slack's per-message limits, in order."""
    pages: list[list[dict[str, Any]]] = []
    page: list[dict[str, Any]] = []
    size = 0
    for block in blocks:
        length = block_text_length(block)
        if page and (len(page) >= max_blocks or size + length > max_chars):
            pages.append(page)
            page, size = [], 0
        page.append(block)
        size += length
    if page:
        pages.append(page)
    return pages
