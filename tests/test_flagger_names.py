"""The answers to a flag name the flagger by display name, and notify nobody.

Signed reaction events into the real Bolt app; the fake Slack answers `users.info` as Slack
does (a profile, `user_not_found`, or `missing_scope` for an app installed without
`users:read`). On Discord the flagger is a `<@id>` that the client shows as the member's
display name, sent with no mention allowed, so nobody is pinged there either.
"""

from __future__ import annotations

import json

import pytest

from adapters.slack.users import MISS_TTL, NAME_TTL, UserNames
from tests.conftest import REPO, make_pr
from tests.fakes.discord import post_digest, running_bot
from tests.fakes.slack import DEFAULT_SCOPES, BotUnderTest, FakeSlack, Message

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"


async def posted_thread(bot: BotUnderTest, slack: FakeSlack, github) -> list[Message]:
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2, 3)])
    await bot.command("/digest", DAY)
    _parent, *replies = slack.posted(CHANNEL)
    return replies


def thanks(slack: FakeSlack) -> list[Message]:
    return [m for m in slack.posted(CHANNEL) if m.text.startswith("Flagged as inaccurate")]


def no_mention_anywhere(message: Message) -> bool:
    """Neither the notification text nor any block holds a `<@…>`, `<!…>` or `<#…>`."""
    return not any(s in message.text + json.dumps(message.blocks) for s in ("<@", "<!", "<#"))


async def test_the_thanks_names_the_flagger_by_display_name(env, slack, github, llm):
    bot = BotUnderTest(env, slack)
    try:
        replies = await posted_thread(bot, slack, github)
        await bot.react(CHANNEL, replies[0].ts, user="U0ALICE")
        await bot.react(CHANNEL, replies[1].ts, user="U0BOB")  # no display name: the real name
        await bot.react(CHANNEL, replies[2].ts, user="U0ALICE")
    finally:
        await bot.aclose()
    # Before: "Flagged as inaccurate by <@U0ALICE> — thanks." (a mention: Alice was notified)
    assert [m.text for m in thanks(slack)] == [
        "Flagged as inaccurate by Alice — thanks.",
        "Flagged as inaccurate by Bob Stone — thanks.",
        "Flagged as inaccurate by Alice — thanks.",
    ]
    assert all(no_mention_anywhere(m) for m in thanks(slack))
    asked = [call.query.get("user") for call in slack.api_calls("users.info")]
    assert asked == ["U0ALICE", "U0BOB"]  # each user asked once: cached


async def test_a_hostile_display_name_is_text(env, slack, github, llm):
    slack.add_user("U0EVE", display_name="<!channel> @here <@U0ALICE> <https://x.test|hi>")
    bot = BotUnderTest(env, slack)
    try:
        replies = await posted_thread(bot, slack, github)
        await bot.react(CHANNEL, replies[0].ts, user="U0EVE")
    finally:
        await bot.aclose()
    (thanked,) = thanks(slack)
    assert thanked.text == (
        "Flagged as inaccurate by &lt;!channel&gt; @\u200dhere &lt;@U0ALICE&gt; "
        "&lt;https://x.test|hi&gt; — thanks."
    )
    assert no_mention_anywhere(thanked)


@pytest.mark.parametrize(
    "scopes, user",
    [
        pytest.param([s for s in DEFAULT_SCOPES if s != "users:read"], "U0ALICE", id="no-scope"),
        pytest.param(DEFAULT_SCOPES, "U0STRANGER", id="user-not-found"),
    ],
)
async def test_without_a_name_the_id_is_shown_as_text(env, github, llm, scopes, user):
    with FakeSlack(scopes=tuple(scopes)) as slack:
        bot = BotUnderTest(env, slack)
        try:
            replies = await posted_thread(bot, slack, github)
            await bot.react(CHANNEL, replies[0].ts, user=user)
        finally:
            await bot.aclose()
        (thanked,) = thanks(slack)
    assert thanked.text == f"Flagged as inaccurate by {user} — thanks."
    assert no_mention_anywhere(thanked)


async def test_names_are_asked_again_after_their_time(slack):
    from adapters.slack.transport import make_client

    now = [0.0]
    names = UserNames(make_client(slack.bot_token, slack.api_url), clock=lambda: now[0])
    assert await names.name("U0ALICE") == "Alice"
    slack.add_user("U0ALICE", display_name="Alice L.")
    now[0] = NAME_TTL - 1
    assert await names.name("U0ALICE") == "Alice"  # cached
    now[0] = NAME_TTL
    assert await names.name("U0ALICE") == "Alice L."  # renamed: seen within the hour
    assert await names.name("U0NOBODY") == "U0NOBODY"
    slack.add_user("U0NOBODY", display_name="Nobody")
    now[0] += MISS_TTL
    assert await names.name("U0NOBODY") == "Nobody"  # a miss is retried sooner
    assert len(slack.api_calls("users.info")) == 4


async def test_discord_names_the_flagger_without_a_ping(fake, settings, github):
    alice = "4000000000000000001"
    async with running_bot(fake, settings):
        parent, replies = await post_digest(fake, github)
        fake.react(parent["id"], replies[0]["id"], "❌", user_id=alice)
        await fake.wait_for(
            lambda: [m for m in fake.channel_messages(parent["id"]) if "flagged" in m["content"]],
            what="the thanks",
        )
    (thanked,) = [m for m in fake.channel_messages(parent["id"]) if "flagged" in m["content"]]
    # The client shows <@id> as the member's display name; no mention is allowed: no ping.
    assert thanked["content"].startswith(f"Thanks <@{alice}>: the summary of #2 is flagged")
    assert thanked["allowed_mentions"] == {"parse": []}
