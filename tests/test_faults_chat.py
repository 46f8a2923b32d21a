"""Slack and Discord answering 429 and 5xx while a 52-reply digest thread is posted.

Through the real Bolt app and the real discord.py client against the fakes: every reply ends
up in the thread exactly once, in order, whatever the platform answered on the way. 429s are
waited out by the client libraries, gateway errors (502/503/504) are retried by DigestPoster
after checking the message did not get through, and a 500 after the message was accepted is
reconciled by the next run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

import bot.chat.posting
from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, running_bot
from tests.fakes.figures import figures
from tests.fakes.http_server import Response
from tests.fakes.openai_api import huge_sections
from tests.fakes.slack import BotUnderTest, FakeSlack, Message

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
POSTS = r"^/api/chat\.postMessage$"
MESSAGE_POSTS = r"^/channels/\d+/messages$"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real pauses are 0.5-4 s; the behaviour under test is the same with short ones.
    monkeypatch.setattr(bot.chat.posting, "RETRY_DELAYS", (0.05, 0.05, 0.05, 0.05))


def add_day(github, count: int) -> list[int]:
    """`count` PRs merged on DAY; their numbers newest merge first."""
    prs = [
        make_pr(n, f"{DAY} {(n * 17) // 60 % 24:02d}:{(n * 17) % 60:02d}:00")
        for n in range(1, count + 1)
    ]
    github.add_prs(REPO, prs)
    return [p.number for p in sorted(prs, key=lambda p: p.merged_at, reverse=True)]


# -- Slack ---------------------------------------------------------------------------------


class LossySlack(FakeSlack):
    """Keeps the message, then answers an error anyway (the answer was lost on the way back),
    for the chat.postMessage calls numbered in `lose_at` (1-based, calls that reached Slack)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.lose_at: dict[int, int] = {}  # call number -> status answered

    def _m_chat_postMessage(self, args: dict[str, Any]) -> Response:
        response = super()._m_chat_postMessage(args)
        with self._state:
            status = self.lose_at.pop(self._post_calls, None)
        if status and isinstance(response.body, dict) and response.body.get("ok"):
            return Response(status, {"ok": False, "error": "service_unavailable"})
        return response


@pytest.fixture
def slack() -> Iterator[LossySlack]:
    with LossySlack() as srv:
        yield srv


def first_parts(messages: list[Message]) -> list[Message]:
    return [m for m in messages if (m.metadata or {}).get("event_payload", {}).get("part") == 1]


def slack_replies(slack: FakeSlack) -> tuple[Message, list[int]]:
    parent = slack.posted(CHANNEL)[0]
    numbers = [
        m.metadata["event_payload"]["pr"] for m in first_parts(slack.thread(CHANNEL, parent.ts))
    ]
    return parent, numbers


async def test_slack_429s_and_5xx_during_a_52_reply_thread_lose_and_double_nothing(
    env, slack, github
):
    order = add_day(github, 52)
    rate_limited = slack.inject(POSTS, 429, body={"ok": False, "error": "ratelimited"},
                                headers={"Retry-After": "0"}, every=10)  # fmt: skip
    unavailable = slack.inject(POSTS, 503, body={"ok": False, "error": "service_unavailable"},
                               every=11)  # fmt: skip
    bad_gateway = slack.inject(POSTS, 502, body="<html>502 Bad Gateway</html>", after=30)
    slack.lose_at.update({15: 503, 35: 504})  # accepted by Slack, the answer lost
    slack.fail_post(45, "lose")  # accepted, then a 500: left for the next run to reconcile

    bot = BotUnderTest(env, slack)
    try:
        started = time.monotonic()
        first = await bot.command("/digest", DAY)
        (answer,) = slack.responses_for(first.response_url)
        assert "Run the command again to resume" in answer["text"]  # stopped at the 500
        second = await bot.command("/digest", DAY)
        elapsed = time.monotonic() - started
    finally:
        await bot.aclose()
    (done,) = slack.responses_for(second.response_url)
    assert done["text"].startswith(f"Resumed the digest of {REPO}")

    parent, numbers = slack_replies(slack)
    assert numbers == order  # every PR once, newest merge first
    assert len(slack.posted(CHANNEL)) == 53  # one parent, 52 replies, nothing twice
    calls = slack.api_calls("chat.postMessage")
    statuses = [c.status for c in calls]
    assert rate_limited.fired >= 5 and unavailable.fired >= 4 and bad_gateway.fired == 1
    found = len(slack.api_calls("conversations.replies"))
    assert found >= 3  # the lost answers were looked for, not re-sent
    figures(
        "slack 429 + 5xx during a 52-reply thread",
        replies=len(numbers),
        duplicates=len(numbers) - len(set(numbers)),
        missing=len(set(order) - set(numbers)),
        in_order=numbers == order,
        post_calls=len(calls),
        answered_429=statuses.count(429),
        answered_5xx=sum(s >= 500 for s in statuses),
        accepted_but_answer_lost=3,
        lookups_before_retry=found,
        runs=2,
        seconds=round(elapsed, 2),
    )


async def test_slack_a_failure_between_the_parts_of_a_long_reply_loses_no_part(
    env, slack, github, llm
):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00", title="Huge change"))
    llm.responder = huge_sections
    slack.inject(POSTS, 503, body={"ok": False, "error": "service_unavailable"}, after=2)
    bot = BotUnderTest(env, slack)
    try:
        await bot.command("/digest", DAY)
    finally:
        await bot.aclose()
    parent = slack.posted(CHANNEL)[0]
    replies = slack.thread(CHANNEL, parent.ts)
    parts = [m.metadata["event_payload"]["part"] for m in replies]
    assert len(parts) > 1 and parts == list(range(1, len(parts) + 1))


# -- Discord -------------------------------------------------------------------------------


@pytest.fixture
def discord_settings(env: Settings, fake: FakeDiscord, monkeypatch) -> Settings:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
    return Settings.from_env(dotenv=False)


RATE_LIMIT_HEADERS = {
    "Via": "1.1 google",
    "Retry-After": "0.01",
    "X-RateLimit-Limit": "5",
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-Reset-After": "0.01",
    "X-RateLimit-Bucket": "fakebucket",
    "X-RateLimit-Scope": "user",
}


async def test_discord_429s_and_5xx_during_a_52_reply_thread_lose_and_double_nothing(
    fake, discord_settings, github
):
    add_day(github, 52)
    body = {"message": "You are being rate limited.", "retry_after": 0.01, "global": False}
    fake.inject(MESSAGE_POSTS, 429, body, RATE_LIMIT_HEADERS, every=9, method="POST")
    fake.inject(MESSAGE_POSTS, 503, every=13, method="POST")
    fake.inject(MESSAGE_POSTS, 503, skip=20, times=1, method="POST", commit=True)  # answer lost
    fake.inject(MESSAGE_POSTS, 502, skip=40, times=1, method="POST")  # discord.py retries it
    async with running_bot(fake, discord_settings):
        started = time.monotonic()
        interaction = fake.slash("digest", {"day": DAY})
        await fake.wait_for(lambda: interaction.finished, timeout=60, what="/digest")
        elapsed = time.monotonic() - started
    assert interaction.original["content"].startswith("Posted the digest"), interaction.original

    (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
    replies = fake.channel_messages(parent["thread"]["id"])
    urls = [m["embeds"][0]["url"] for m in replies]
    by_number = {pr.number: pr for pr in github.repo(REPO).pulls.values()}
    newest_first = sorted(by_number, key=lambda n: by_number[n].merged_at, reverse=True)
    assert urls == [f"https://github.com/{REPO}/pull/{n}" for n in newest_first]
    posts = fake.requests(MESSAGE_POSTS, "POST")
    statuses = [c.status for c in posts]
    assert statuses.count(429) >= 5 and sum(s >= 500 for s in statuses) >= 5
    figures(
        "discord 429 + 5xx during a 52-reply thread",
        replies=len(urls),
        duplicates=len(urls) - len(set(urls)),
        missing=52 - len(set(urls)),
        in_order=True,
        post_calls=len(posts),
        answered_429=statuses.count(429),
        answered_5xx=sum(s >= 500 for s in statuses),
        accepted_but_answer_lost=1,
        seconds=round(elapsed, 2),
    )
