"""Digests and summaries as Discord messages: pure functions, core types in, JSON-shaped out.

One module for each thing a digest posts or a command answers:

- `day`: a day's parent message (the day at a glance), its thread's name, and the message
  of a day with no PR;
- `week`: a weekly rollup's parent;
- `pr`: one PR's embeds (a message in the thread, a /prsummary answer);
- `group`: the grouped reply (a day's small changes, a rollup's area);
- `flags`: what a flag gets (thanks, re-check, correction, notice);
- `answers`: what the user who typed a command is told;
- `glance`, `markdown`: the pieces they share (the parent's lines; defusing untrusted
  text, links, the `Message` and its colours).

Discord's limits, and how text is measured, cut and split to meet them, are
`adapters.discord.limits`. The names below are what the transport, the client and the
tests call.
"""

from adapters.discord.limits import (
    MAX_CONTENT,
    MAX_DESCRIPTION,
    MAX_EMBEDS,
    MAX_MESSAGE_EMBEDS_TOTAL,
    MAX_THREAD_NAME,
    clip,
    embed_size,
    split_text,
    text_length,
)
from adapters.discord.render.answers import posted_notice
from adapters.discord.render.day import empty_message, parent_message, thread_name
from adapters.discord.render.flags import (
    flag_thanks,
    recheck_text,
    revision_messages,
    with_revision_notice,
)
from adapters.discord.render.glance import parent_first_line
from adapters.discord.render.group import group_messages, group_part_of
from adapters.discord.render.markdown import COLOURS, FAILED_COLOUR, Message, sanitize
from adapters.discord.render.pr import entry_messages, part_of
from adapters.discord.render.week import week_parent_message

__all__ = [
    "COLOURS",
    "FAILED_COLOUR",
    "MAX_CONTENT",
    "MAX_DESCRIPTION",
    "MAX_EMBEDS",
    "MAX_MESSAGE_EMBEDS_TOTAL",
    "MAX_THREAD_NAME",
    "Message",
    "clip",
    "embed_size",
    "empty_message",
    "entry_messages",
    "flag_thanks",
    "group_messages",
    "group_part_of",
    "parent_first_line",
    "parent_message",
    "part_of",
    "posted_notice",
    "recheck_text",
    "revision_messages",
    "sanitize",
    "split_text",
    "text_length",
    "thread_name",
    "week_parent_message",
    "with_revision_notice",
]
