"""Block Kit rendering: hostile text escaped, Slack's limits met by splitting, never failing."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from adapters.slack import render
from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_MESSAGE_TEXT,
    MAX_SECTION_TEXT,
    block_text_length,
)
from adapters.slack.render.mrkdwn import escape
from bot.core.day_window import day_window
from bot.core.models import (
    ChangedFile,
    ChangeType,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    SummarySections,
    Usage,
)
from bot.digest.text import split_text

WINDOW = day_window(date(2026, 2, 23), "America/Los_Angeles")

HOSTILE = (
    "<!channel> <!here> <!everyone> <!subteam^S0123|@team> <@U0BOSS> <#C0SECRET> "
    "<https://evil.example|https://github.com/safe> &lt;!channel&gt; @channel @here @everyone "
    "<!date^1392734382^{date}|x> a & b > c"
)
# Markup a message may carry: links we build around checked URLs, and nothing else.
OUR_MARKUP = re.compile(r"<https://(github\.com|example\.test)/[^<>|\s]*\|[^<>]*>")


def make_entry(
    number: int = 7,
    *,
    title: str = "Fix the scheduler",
    text: str = "It changes the scheduler.",
    author: str = "alice",
    change_type: ChangeType = ChangeType.SUBSTANTIAL,
    summary: bool = True,
    error: str | None = None,
    files: int = 3,
) -> DigestEntry:
    pr = PullRequest(
        repo="o/r", number=number, title=title, url=f"https://github.com/o/r/pull/{number}",
        author=author, state="merged", merged_by="bob",
        merged_at=datetime(2026, 2, 23, 20, tzinfo=UTC) - timedelta(minutes=number),
        files=tuple(ChangedFile(f"f{i}.py") for i in range(files)),
    )  # fmt: skip
    if not summary:
        return DigestEntry(pr, error=error or "the model's answer was invalid twice")
    return DigestEntry(
        pr,
        PRSummary(
            repo="o/r", number=number, revision_sha="abc", prompt_version="1", model="gpt-test",
            change_type=change_type, sections=SummarySections(text, text, text, text),
            files_covered=files, files_total=files, usage=Usage(1000, 200), id=number * 10,
        ),
    )  # fmt: skip


def all_text(blocks: list[dict]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts.extend(e["text"] for e in block.get("elements", []))
    return "\n".join(parts)


def assert_no_markup_but_ours(text: str) -> None:
    leftover = OUR_MARKUP.sub("", text)
    assert "<" not in leftover and ">" not in leftover, leftover
    assert "@channel" not in text and "@here" not in text and "@everyone" not in text


def assert_within_limits(message: render.SlackMessage) -> None:
    assert 0 < len(message.blocks) <= MAX_BLOCKS
    assert sum(block_text_length(b) for b in message.blocks) <= MAX_MESSAGE_TEXT
    for block in message.blocks:
        if block["type"] == "section":
            assert 0 < len(block["text"]["text"]) <= MAX_SECTION_TEXT
        if block["type"] == "context":
            assert 0 < len(block["elements"]) <= 10
    assert message.text


# -- escaping ------------------------------------------------------------------------------


def test_escape_leaves_no_slack_markup():
    escaped = escape(HOSTILE)
    assert "<" not in escaped and ">" not in escaped
    assert "&lt;!channel&gt;" in escaped
    assert "&amp;lt;!channel&amp;gt;" in escaped  # already-escaped text shows literally
    assert "a &amp; b &gt; c" in escaped
    assert "@\u200dchannel @\u200dhere @\u200deveryone" in escaped


def test_links_only_wrap_http_urls_and_escape_their_labels():
    assert render.link("https://github.com/o/r/pull/1", "<!here> & co") == (
        "<https://github.com/o/r/pull/1|&lt;!here&gt; &amp; co>"
    )
    assert render.link("javascript:alert(1)", "click") == "click"
    assert render.link("https://x.test/a|<!channel>", "click") == "click"
    assert render.link("https://x.test/?a=1&b=2", "q") == "<https://x.test/?a=1&amp;b=2|q>"


def test_a_flagger_is_named_as_text_never_a_mention():
    assert render.flag_ack_text("Alice") == "Flagged as inaccurate by Alice — thanks."
    assert render.flag_ack_text("<@U0BOB>") == "Flagged as inaccurate by &lt;@U0BOB&gt; — thanks."
    assert "<" not in render.flag_ack_text("<!channel>")
    assert render.flag_ack_text("@here") == "Flagged as inaccurate by @\u200dhere — thanks."


def test_hostile_pr_and_llm_text_is_escaped_everywhere():
    entry = make_entry(title=HOSTILE, text=HOSTILE, author="<!channel>", error=None)
    digest = Digest("o/r", "r", WINDOW, (entry,))
    messages = [
        *render.reply_messages(digest, entry, 1),
        render.parent_message(digest),
        *render.summary_messages(entry, None),
        *render.reply_messages(digest, make_entry(title=HOSTILE, summary=False, error=HOSTILE), 1),
    ]
    for message in messages:
        assert_no_markup_but_ours(all_text(message.blocks))
        assert_no_markup_but_ours(message.text)


# -- limits --------------------------------------------------------------------------------


def test_split_text_prefers_boundaries_and_never_cuts_an_escape():
    text = ("word " * 2000).strip()
    pieces = split_text(text, 3000)
    assert all(len(p) <= 3000 for p in pieces)
    assert " ".join(pieces) == text
    dense = "&amp;" * 1000  # no whitespace at all
    pieces = split_text(dense, 2998)
    assert "".join(pieces) == dense
    assert all(p.startswith("&amp;") and p.endswith("&amp;") for p in pieces)


def test_long_sections_are_split_into_several_blocks():
    entry = make_entry(text="A sentence of the summary. " * 300)  # ~8,000 characters each
    messages = render.reply_messages(Digest("o/r", "r", WINDOW, (entry,)), entry, 1)
    for message in messages:
        assert_within_limits(message)
    sections = [b for m in messages for b in m.blocks if b["type"] == "section"]
    assert len(sections) > 1 + 4
    assert len(messages) > 1  # 4 × 8,000 characters cannot fit one message


def test_a_huge_summary_is_split_across_messages_with_the_first_one_flaggable():
    entry = make_entry(text="x" * 60_000)
    messages = render.reply_messages(Digest("o/r", "r", WINDOW, (entry,)), entry, 3)
    assert len(messages) >= 24
    for part, message in enumerate(messages, start=1):
        assert_within_limits(message)
        payload = message.metadata["event_payload"]
        assert payload == {
            "repo": "o/r",
            "pr": 7,
            "day": "2026-02-23",
            "summary_id": 70,
            "part": part,
        }
    assert "continued" in all_text(messages[1].blocks)
    joined = "".join(all_text(m.blocks) for m in messages)
    assert joined.count("x") >= 4 * 60_000  # nothing dropped


def test_paginate_respects_block_count():
    blocks = [render.section("hi") for _ in range(120)]
    pages = render.paginate(blocks)
    assert [len(p) for p in pages] == [50, 50, 20]


# -- shapes --------------------------------------------------------------------------------


def test_reply_has_link_people_files_type_sections_and_coverage():
    entry = make_entry(number=35156, title="Speed up <decode>", files=12)
    digest = Digest("o/r", "r", WINDOW, (entry, make_entry(5)))
    (message,) = render.reply_messages(digest, entry, 1)
    text = all_text(message.blocks)
    assert "*1/2* · *<https://github.com/o/r/pull/35156|#35156 Speed up &lt;decode&gt;>*" in text
    assert "by <https://github.com/alice|alice>" in text
    assert "merged by <https://github.com/bob|bob>" in text
    assert "<https://github.com/o/r/pull/35156/files|12 files>" in text
    assert "`SUBSTANTIAL`" in text
    for heading in ("What changed and why", "Technical impact", "Potential risks", "Key insights"):
        assert f"*{heading}*\nIt changes the scheduler." in text
    assert "Summary covers all 12 changed files · gpt-test" in text
    assert message.text == "#35156 Speed up &lt;decode&gt; (SUBSTANTIAL)"
    assert message.metadata == {
        "event_type": "prdigest_pr",
        "event_payload": {
            "repo": "o/r",
            "pr": 35156,
            "day": "2026-02-23",
            "summary_id": 351560,
            "part": 1,
        },
    }
    assert message.as_kwargs()["unfurl_links"] is False
    assert message.as_kwargs()["unfurl_media"] is False


def test_failed_entry_says_why_and_has_no_summary_id():
    entry = make_entry(summary=False, error="LLM timed out")
    (message,) = render.reply_messages(Digest("o/r", "r", WINDOW, (entry,)), entry, 1)
    assert "*Summary unavailable:* LLM timed out" in all_text(message.blocks)
    assert "`UNKNOWN`" in all_text(message.blocks)
    assert "summary_id" not in message.metadata["event_payload"]


def test_open_pr_answer_shows_its_state():
    entry = make_entry()
    open_pr = DigestEntry(
        PullRequest(**{**entry.pr.__dict__, "state": "open", "merged_at": None}), entry.summary
    )
    (message,) = render.summary_messages(open_pr, None)
    text = all_text(message.blocks)
    assert "`OPEN`" in text and "merged by" not in text
    assert "day" not in message.metadata["event_payload"]


def test_parent_has_repo_day_zone_counts_tokens_highlights_and_areas():
    entries = tuple(
        make_entry(
            n,
            title=f"Change {n}",
            change_type=ChangeType.TRIVIAL if n % 3 else ChangeType.SUBSTANTIAL,
        )
        for n in range(12, 0, -1)
    ) + (make_entry(99, summary=False),)
    digest = Digest("o/r", "r", WINDOW, entries)
    message = render.parent_message(digest, flag_emoji="x")
    assert_within_limits(message)
    text = all_text(message.blocks)
    assert message.blocks[0]["text"]["text"] == "r merged PRs · 2026-02-23 PST"
    assert "*<https://github.com/o/r|o/r>* · 2026-02-23 (America/Los_Angeles)" in text
    assert (
        "*13* merged · *4* substantial · *8* trivial · *1* without a summary · *1* contributor"
        " · 14,400 tokens" in text
    )
    # Without an overview the rule picks: substantial first, then the rest newest first.
    highlights = next(b["text"]["text"] for b in message.blocks if "*Highlights*" in str(b))
    assert re.findall(r"\|#(\d+)>", highlights) == ["12", "9", "6", "3", "11"]
    assert "• *Other* (13): #12, #11, #10" in text
    assert ":x:" in text
    assert message.text == "r: 13 PRs merged on 2026-02-23 (PST), 4 substantial, 8 trivial"
    assert message.metadata["event_payload"] == {
        "repo": "o/r", "day": "2026-02-23", "tz": "America/Los_Angeles", "kind": "parent",
    }  # fmt: skip


def test_empty_day_is_one_short_message():
    message = render.empty_message(Digest("o/r", "r", WINDOW, ()))
    assert (
        message.text == "No pull requests were merged into o/r on 2026-02-23 (America/Los_Angeles)."
    )
    assert len(message.blocks) == 1
    assert message.metadata["event_payload"]["kind"] == "empty"


def test_the_parent_shows_the_repos_flags_of_the_last_day_when_there_are_any():
    entries = tuple(make_entry(n) for n in range(3, 0, -1))
    quiet = all_text(render.parent_message(Digest("o/r", "r", WINDOW, entries)).blocks)
    flagged = render.parent_message(Digest("o/r", "r", WINDOW, entries, recent_flags=2))
    assert "flagged as inaccurate" not in quiet
    assert "2 summaries flagged as inaccurate on o/r in the last day" in all_text(flagged.blocks)
