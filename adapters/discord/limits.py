"""Every size a Discord message is held to: Discord's own limits, the budgets prdigest keeps
within them, and how text is measured, cut and split to fit.

Everything the renderer builds fits Discord's limits by construction (2000 characters of
content, 256 in a title, 4096 in a description, 1024 in a field, 25 fields an embed, 10
embeds and 6000 characters a message): long text is split across fields, embeds and, as a
last resort, messages, so posting never fails and nothing is cut from a summary. Lengths
are counted in UTF-16 code units, which is never less than what Discord counts.
"""

from __future__ import annotations

import functools
from typing import Any

from bot.digest import text as shared_text
from bot.digest.text import prefix

# -- Discord's limits --------------------------------------------------------------------------

MAX_CONTENT = 2000
MAX_TITLE = 256
MAX_DESCRIPTION = 4096
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FIELDS = 25
MAX_FOOTER = 2048
MAX_EMBEDS = 10
MAX_MESSAGE_EMBEDS_TOTAL = 6000
MAX_THREAD_NAME = 100

# -- prdigest's budgets within them -----------------------------------------------------------

MAX_FILES_LISTED = 15
MAX_GLANCE_TEXT = 150  # characters of a headline, title or area name in the parent
MAX_AREA_NUMBERS = 200  # an area's "#12, #11, …" before its replies exist
MAX_HIGHLIGHTS_TEXT = 2400  # the parent's embed: highlights, then areas in what is left of 4096
MAX_HEADLINE = 1000  # a reply's headline (one sentence; a longer one is cut)
MAX_RELATED_TITLE = 120
MAX_GROUP_LINE = 600
# A filtered digest's "7 of 52 PRs … touch `…`" line, and a model's note on a correction (one
# line of what changed; an intro leaves room for the notice).
MAX_NOTE = 500
MAX_FIRST_LINE = 600  # the parent's identifying first line
MAX_WEEK_DAYS = 1000  # a rollup's days, each linked to the day's thread (else not linked)
MAX_WEEK_AREAS = 1800  # a rollup's areas; its highlights and reverts get the rest of 6000
MIN_WEEK_REVERTS = 400


def text_length(text: str) -> int:
    """Length in UTF-16 code units: what JavaScript counts, and at least what Discord does."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` UTF-16 units, with an ellipsis when something was cut."""
    if text_length(text) <= limit:
        return text
    return prefix(text, limit - 1, text_length).rstrip() + "…"


# The one split_text and the one bounded_lines, counting as Discord does.
split_text = functools.partial(shared_text.split_text, measure=text_length)
bounded_lines = functools.partial(shared_text.bounded_lines, measure=text_length)


def embed_size(embed: dict[str, Any]) -> int:
    """The characters Discord counts against a message's 6000."""
    total = text_length(embed.get("title") or "") + text_length(embed.get("description") or "")
    total += text_length((embed.get("footer") or {}).get("text") or "")
    total += text_length((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or ():
        total += text_length(f["name"]) + text_length(f["value"])
    return total
