"""/digest through the real Bolt app: the thread's shape and limits, idempotency and resume."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from adapters.slack.limits import MAX_BLOCKS, MAX_SECTION_TEXT, block_text_length
from tests.conftest import REPO, make_pr
from tests.fakes.openai_api import huge_sections
from tests.fakes.slack import BotUnderTest, FakeSlack, Message

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
HOSTILE_TITLE = "<!channel> ping <@U0BOSS> see <https://evil.example|github.com> & @here"


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack(not_member=("C0OUTSIDE",)) as srv:
        yield srv


def add_day(github, count: int) -> list[int]:
    """`count` PRs merged on DAY; returns their numbers newest merge first."""
    prs = []
    for n in range(1, count + 1):
        minute = (n * 17) % (24 * 60)  # merge order differs from number order
        title = HOSTILE_TITLE if n == 7 else ("Huge change" if n == 11 else None)
        prs.append(make_pr(n, f"{DAY} {minute // 60:02d}:{minute % 60:02d}:00", title=title))
    github.add_prs(REPO, prs)
    return [p.number for p in sorted(prs, key=lambda p: p.merged_at, reverse=True)]


def message_text(message: Message) -> str:
    parts = [message.text]
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts.extend(e.get("text", "") for e in block.get("elements", []))
    return "\n".join(parts)


def first_parts(messages: list[Message]) -> list[Message]:
    return [m for m in messages if (m.metadata or {}).get("event_payload", {}).get("part") == 1]


def reply_numbers(slack: FakeSlack, parent: Message) -> list[int]:
    return [
        m.metadata["event_payload"]["pr"] for m in first_parts(slack.thread(CHANNEL, parent.ts))
    ]


async def test_a_52_pr_day_is_one_parent_and_one_reply_per_pr_within_slack_limits(
    bot, slack, github, llm
):
    order = add_day(github, 52)
    llm.responder = huge_sections
    started = time.monotonic()
    delivery = await bot.driver.command("/digest", DAY)
    assert delivery.status == 200
    assert time.monotonic() - started < 1.0  # the ack does no GitHub or LLM work
    assert delivery.text.startswith(f"Preparing the digest of {REPO} for {DAY}")
    assert delivery.ack.get("response_type") != "in_channel"
    await bot.bot.drain(20)

    posted = slack.posted(CHANNEL)
    parent = posted[0]
    assert parent.thread_ts is None
    assert parent.metadata["event_payload"]["kind"] == "parent"
    head = message_text(parent)
    assert "2026-02-23 (America/Los_Angeles)" in head
    assert "*52* merged · *" in head and "tokens" in head
    assert "*Highlights*" in head and "*Areas*" in head  # the day at a glance

    replies = slack.thread(CHANNEL, parent.ts)
    assert len(posted) == 1 + len(replies)
    assert reply_numbers(slack, parent) == order  # newest merge first, each PR once
    assert len(replies) > 52  # the huge PR was split into continuation messages
    for index, reply in enumerate(first_parts(replies), start=1):
        assert message_text(reply).count(f"*{index}/52* · ") == 1

    for message in posted:
        assert message.args["unfurl_links"] is False and message.args["unfurl_media"] is False
        assert message.text  # the notification fallback
        assert 0 < len(message.blocks) <= MAX_BLOCKS
        assert sum(block_text_length(b) for b in message.blocks) <= 10_000
        for block in message.blocks:
            if block["type"] == "section":
                assert len(block["text"]["text"]) <= MAX_SECTION_TEXT
        text = message_text(message)
        for forbidden in ("<!channel>", "<!here>", "<@U0BOSS>", "<https://evil", "@here"):
            assert forbidden not in text

    hostile = next(m for m in first_parts(replies) if m.metadata["event_payload"]["pr"] == 7)
    assert "&lt;!channel&gt; ping &lt;@U0BOSS&gt;" in message_text(hostile)
    (done,) = slack.responses_for(delivery.response_url)
    assert done["response_type"] == "ephemeral"
    assert f"/archives/{CHANNEL}/p{parent.ts.replace('.', '')}|open the thread>" in done["text"]


async def test_a_posted_day_answers_with_a_link_and_posts_nothing(bot, slack, github, llm):
    add_day(github, 3)
    await bot.command("/digest", DAY)
    posts, completions = len(slack.posted()), llm.completions_count
    parent = slack.posted(CHANNEL)[0]

    again = await bot.command("/digest", DAY)
    assert "is already in this channel" in again.text
    assert f"p{parent.ts.replace('.', '')}|open the thread>" in again.text
    assert len(slack.posted()) == posts
    assert llm.completions_count == completions

    # In another channel the same day is a new thread.
    await bot.command("/digest", DAY, channel="C0OTHER")
    assert len(slack.posted("C0OTHER")) == 4


@pytest.mark.parametrize("mode", ["refuse", "lose"])
async def test_an_interrupted_digest_resumes_after_a_restart_without_duplicates(
    env, slack, github, mode
):
    order = add_day(github, 12)
    first = BotUnderTest(env, slack)
    slack.fail_post(8, mode)  # the parent and six replies go through, the 7th reply fails
    delivery = await first.command("/digest", DAY)
    (error,) = slack.responses_for(delivery.response_url)
    assert "Run the command again to resume" in error["text"]
    parent = slack.posted(CHANNEL)[0]
    kept = 7 if mode == "lose" else 6
    assert len(slack.thread(CHANNEL, parent.ts)) == kept
    await first.aclose()

    restarted = BotUnderTest(env, slack)  # a new process over the same database
    try:
        delivery = await restarted.command("/digest", DAY)
        assert delivery.text.startswith("Preparing the digest")
        (done,) = slack.responses_for(delivery.response_url)
        assert done["text"].startswith(f"Resumed the digest of {REPO}")
        assert reply_numbers(slack, parent) == order  # each PR exactly once, in order
        assert len(slack.posted(CHANNEL)) == 13
        # Only the slot that was being sent is looked for on Slack.
        assert len(slack.api_calls("conversations.replies")) == 1
        again = await restarted.command("/digest", DAY)
        assert "is already in this channel" in again.text
    finally:
        await restarted.aclose()


async def test_rate_limits_are_waited_out_and_no_reply_is_dropped(bot, slack, github):
    order = add_day(github, 3)
    slack.rate_limit(times=2, retry_after=0)
    await bot.command("/digest", DAY)
    parent = slack.posted(CHANNEL)[0]
    assert reply_numbers(slack, parent) == order
    statuses = [r.status for r in slack.api_calls("chat.postMessage")]
    assert statuses.count(429) == 2 and statuses.count(200) == 4


async def test_replies_are_paced_per_channel(env, slack, github):
    add_day(github, 4)
    paced = BotUnderTest(env, slack, pace=0.1)
    try:
        await paced.command("/digest", DAY)
    finally:
        await paced.aclose()
    times = [r.received_at for r in slack.api_calls("chat.postMessage")]
    assert len(times) == 5
    assert all(b - a >= 0.09 for a, b in zip(times, times[1:], strict=False))


async def test_an_empty_day_is_one_short_message(bot, slack, github):
    delivery = await bot.command("/digest", "2026-02-22")
    (message,) = slack.posted(CHANNEL)
    assert message.text == (
        f"No pull requests were merged into {REPO} on 2026-02-22 (America/Los_Angeles)."
    )
    assert message.thread_ts is None
    assert "Posted the digest" in slack.responses_for(delivery.response_url)[0]["text"]
    again = await bot.command("/digest", "2026-02-22")
    assert "is already in this channel" in again.text
    assert len(slack.posted()) == 1


async def test_a_named_repository_and_the_default_day(bot, slack, github):
    add_day(github, 2)
    delivery = await bot.command("/digest", f"{DAY} {REPO}")
    assert delivery.text.startswith(f"Preparing the digest of {REPO} for {DAY}")
    assert len(slack.posted(CHANNEL)) == 3
    yesterday = await bot.command("/digest", "")
    assert "for " in yesterday.text and yesterday.status == 200


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2026-13-45", "Bad date"),
        ("next week", "Bad date"),
        ("2999-01-01", "is in the future"),
        ("a/b c/d", "Name one repository"),
        ("help", "Usage: /digest"),
    ],
)
async def test_bad_input_is_a_short_ephemeral_answer(bot, slack, text, message):
    delivery = await bot.command("/digest", text)
    assert delivery.status == 200
    assert message in delivery.text
    assert delivery.ack.get("response_type") != "in_channel"
    assert slack.api_calls("chat.postMessage") == []


async def test_a_channel_the_bot_is_not_in_gets_told_how_to_invite_it(bot, slack, github):
    add_day(github, 2)
    delivery = await bot.command("/digest", DAY, channel="C0OUTSIDE")
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "ephemeral"
    assert "/invite @prdigest" in answer["text"]


async def test_unsigned_forged_and_stale_requests_are_refused(bot, slack):
    forged = await bot.driver.command("/digest", DAY, signature="v0=" + "0" * 64)
    stale = await bot.driver.command("/digest", DAY, timestamp=int(time.time()) - 600)
    assert forged.status == stale.status == 401
    assert slack.api_calls("chat.postMessage") == []


async def test_subscription_commands_are_carried_out_by_the_scheduler(bot, slack):
    from bot.schedule.scheduler import DigestScheduler
    from bot.schedule.subscriptions import Subscriptions
    from bot.store.lease import Lease

    absent = await bot.command("/digest", f"subscribe {REPO}")
    assert absent.text == "Daily digests are not scheduled by this process."

    lease = Lease(bot.store)
    bot.bot.scheduler = DigestScheduler(
        bot.service, {"slack": bot.bot.poster},
        Subscriptions.from_settings(bot.settings, bot.store), bot.settings, lease=lease,
    )  # fmt: skip
    try:
        subscribed = await bot.command("/digest", f"subscribe {REPO} at 08:30")
        listed = await bot.command("/digest", "subscriptions")
        outside = await bot.command("/digest", f"subscribe {REPO}", channel="C0OUTSIDE")
    finally:
        lease.close()
    assert subscribed.status == 200 and subscribed.body == ""
    (answer,) = slack.responses_for(subscribed.response_url)
    assert answer["response_type"] == "ephemeral"
    assert answer["text"].startswith(
        f"Subscribed: the digest of {REPO} is posted here every day at 08:30"
    )
    assert REPO in slack.responses_for(listed.response_url)[0]["text"]
    assert "invite me first" in slack.responses_for(outside.response_url)[0]["text"]
    assert slack.api_calls("chat.postMessage") == []
