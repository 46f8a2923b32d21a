"""Flag reactions through the real Bolt app: recorded per user and summary, acknowledged once."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conftest import REPO, make_pr
from tests.fakes.slack import BotUnderTest, FakeSlack, Message

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
THANKS = "Flagged as inaccurate by {} — thanks."


@pytest.fixture
async def thread(bot, slack, github, llm) -> tuple[Message, list[Message]]:
    """A posted digest of three PRs: (parent, replies)."""
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2, 3)])
    await bot.command("/digest", DAY)
    parent, *replies = slack.posted(CHANNEL)
    return parent, replies


def acks(slack: FakeSlack) -> list[Message]:
    return [m for m in slack.posted(CHANNEL) if m.text.startswith("Flagged as inaccurate")]


async def test_a_flag_is_recorded_with_user_message_pr_and_summary_version(bot, slack, thread):
    parent, replies = thread
    reply = replies[1]
    payload = reply.metadata["event_payload"]
    delivery = await bot.react(CHANNEL, reply.ts, user="U0ALICE")
    assert delivery.status == 200

    (flag,) = bot.store.active_flags(payload["summary_id"])
    assert (flag.user, flag.channel, flag.message_id) == ("U0ALICE", CHANNEL, reply.ts)
    assert (flag.repo, flag.number, flag.summary_id) == (REPO, payload["pr"], payload["summary_id"])
    assert flag.emoji == "❌"
    summary = bot.store.get_summary_by_id(flag.summary_id)
    assert summary.number == payload["pr"]  # the exact version that was shown

    (thanks,) = acks(slack)
    assert thanks.text == THANKS.format("Alice")  # the display name: nobody is notified
    assert thanks.thread_ts == parent.ts  # in the digest's thread
    assert thanks.args["unfurl_links"] is False


async def test_the_thanks_is_said_once_per_summary(bot, slack, thread):
    _, replies = thread
    reply = replies[0]
    summary_id = reply.metadata["event_payload"]["summary_id"]
    await bot.react(CHANNEL, reply.ts, user="U0ALICE")
    await bot.react(CHANNEL, reply.ts, user="U0BOB")
    await bot.react(CHANNEL, reply.ts, user="U0ALICE")  # a second flag emoji, same user
    assert [f.user for f in bot.store.active_flags(summary_id)] == ["U0ALICE", "U0BOB"]
    assert len(acks(slack)) == 1

    await bot.react(CHANNEL, replies[2].ts, user="U0BOB")  # another summary: thanked again
    assert len(acks(slack)) == 2


async def test_removing_the_reaction_removes_only_that_users_flag(bot, slack, thread):
    _, replies = thread
    reply = replies[0]
    summary_id = reply.metadata["event_payload"]["summary_id"]
    await bot.react(CHANNEL, reply.ts, user="U0ALICE")
    await bot.react(CHANNEL, reply.ts, user="U0BOB")
    delivery = await bot.react(CHANNEL, reply.ts, user="U0ALICE", removed=True)
    assert delivery.status == 200
    assert [f.user for f in bot.store.active_flags(summary_id)] == ["U0BOB"]
    removed = bot.store.db.execute(
        "SELECT removed_at FROM flags WHERE user = 'U0ALICE'"
    ).fetchone()[0]
    assert removed  # kept for the record, marked removed

    await bot.react(CHANNEL, reply.ts, user="U0ALICE")  # flagged again: recorded, not re-thanked
    assert [f.user for f in bot.store.active_flags(summary_id)] == ["U0BOB", "U0ALICE"]
    assert len(acks(slack)) == 1


async def test_other_reactions_and_other_messages_are_ignored(bot, slack, thread):
    parent, replies = thread
    human = slack.add_message(CHANNEL, "lunch?")
    posts = len(slack.posted())
    await bot.react(CHANNEL, replies[0].ts, reaction="tada")
    await bot.react(CHANNEL, parent.ts)
    await bot.react(CHANNEL, human)
    await bot.react(CHANNEL, human)  # looked up once, then remembered as not ours
    await bot.react(CHANNEL, replies[0].ts, user=slack.bot_user_id)  # the bot's own reaction
    await bot.react(CHANNEL, replies[0].ts, removed=True)  # nothing to remove
    await bot.driver.event(
        slack.event_payload(
            {"type": "reaction_added", "user": "U0ALICE", "reaction": "x",
             "item": {"type": "file", "file": "F0001"}}
        )
    )  # fmt: skip
    await bot.bot.drain(5)
    assert bot.store.db.execute("SELECT count(*) FROM flags").fetchone()[0] == 0
    assert len(slack.posted()) == posts
    assert len(slack.api_calls("conversations.history")) == 1  # the human's, once


async def test_a_prsummary_answer_sent_through_response_url_can_be_flagged(bot, slack, github, llm):
    github.add_pr(REPO, make_pr(35156, f"{DAY} 10:00:00"))
    delivery = await bot.command("/prsummary", "35156")
    (answer,) = slack.posted(CHANNEL, via="response_url")
    summary_id = answer.metadata["event_payload"]["summary_id"]

    await bot.react(CHANNEL, answer.ts, user="U0CAROL")
    (flag,) = bot.store.active_flags(summary_id)
    assert (flag.user, flag.message_id, flag.number) == ("U0CAROL", answer.ts, 35156)
    (thanks,) = acks(slack)
    assert thanks.thread_ts == answer.ts  # a thread under the answer itself
    assert delivery.status == 200

    await bot.react(CHANNEL, answer.ts, user="U0CAROL", removed=True)
    assert bot.store.active_flags(summary_id) == []
    assert len(slack.api_calls("conversations.history")) == 1  # recorded once found


async def test_any_configured_flag_emoji_counts(env, slack, github, llm):
    configured = BotUnderTest(replace(env, flag_emoji=("x", "thumbsdown")), slack)
    try:
        github.add_prs(REPO, [make_pr(1, f"{DAY} 10:00:00")])
        await configured.command("/digest", DAY)
        _, reply = slack.posted(CHANNEL)
        await configured.react(CHANNEL, reply.ts, user="U0ALICE", reaction="-1::skin-tone-3")
        await configured.react(CHANNEL, reply.ts, user="U0BOB", reaction="x")
        await configured.react(CHANNEL, reply.ts, user="U0CAROL", reaction="heart")
        summary_id = reply.metadata["event_payload"]["summary_id"]
        flags = configured.store.active_flags(summary_id)
    finally:
        await configured.aclose()
    assert [(f.user, f.emoji) for f in flags] == [("U0ALICE", "👎"), ("U0BOB", "❌")]
