"""Block Kit for digests and summaries: pure functions, core dataclasses in, payloads out.

One module for each thing a digest posts or a command answers:

- `day`: a day's parent message, and the message of a day with no PRs;
- `week`: a weekly rollup's parent;
- `pr`: one PR's message (a reply in the thread, a /prsummary answer);
- `group`: the grouped reply (a day's small changes, a rollup's area);
- `flags`: what a flag gets (thanks, re-check, correction, notice);
- `answers`: what the user who typed a command is told;
- `glance`, `metadata`, `mrkdwn`: the pieces they share (the parent's lines, what each
  message records for crash recovery, escaping and blocks).

Slack's limits, and how a message is measured against them, are `adapters.slack.limits`.
The names below are what the transport, the app and the tests call.
"""

from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_HEADER_TEXT,
    MAX_MESSAGE_TEXT,
    MAX_SECTION_TEXT,
    block_text_length,
    paginate,
)
from adapters.slack.render.answers import (
    already_text,
    digest_label,
    not_summarized_text,
    posted_text,
)
from adapters.slack.render.day import empty_message, parent_message
from adapters.slack.render.flags import (
    REVISED_NOTICE_ID,
    flag_ack_text,
    recheck_text,
    revision_messages,
    with_revision_notice,
)
from adapters.slack.render.group import group_messages
from adapters.slack.render.metadata import DIGEST_EVENT, GROUP_EVENT, PR_EVENT, pr_payload
from adapters.slack.render.mrkdwn import SlackMessage, escape, link, section
from adapters.slack.render.pr import (
    entry_blocks,
    entry_messages,
    reply_messages,
    summary_messages,
)
from adapters.slack.render.week import week_parent_message

__all__ = [
    "DIGEST_EVENT",
    "GROUP_EVENT",
    "MAX_BLOCKS",
    "MAX_HEADER_TEXT",
    "MAX_MESSAGE_TEXT",
    "MAX_SECTION_TEXT",
    "PR_EVENT",
    "REVISED_NOTICE_ID",
    "SlackMessage",
    "already_text",
    "block_text_length",
    "digest_label",
    "empty_message",
    "entry_blocks",
    "entry_messages",
    "escape",
    "flag_ack_text",
    "group_messages",
    "link",
    "not_summarized_text",
    "paginate",
    "parent_message",
    "posted_text",
    "pr_payload",
    "recheck_text",
    "reply_messages",
    "revision_messages",
    "section",
    "summary_messages",
    "week_parent_message",
    "with_revision_notice",
]
