"""A Discord reply posted as "Summary unavailable" heals in place once a later attempt succeeds.

As on Slack (tests/test_heal_slack.py): the LLM fails for one PR while the digest is posted;
`/digest` of that day, the next scheduled run or the background retry makes the summary, and
the reply's message is edited (a PATCH of the same message id), then the parent's counts.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bot.core.clock import utcnow
from bot.core.models import Subscription
from bot.core.settings import Settings
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import StaticSubscriptions
from bot.store.lease import Lease
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, FakeInteraction, running_bot

DAY = "2026-02-23"
NEXT_DAY = "2026-02-24"
TZ = "America/Los_Angeles"
UNAVAILABLE = "Summary unavailable"


@pytest.fixture
def settings(env, fake: FakeDiscord, monkeypatch) -> Settings:
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "0")  # one 500 costs the PR its summary
    monkeypatch.setenv("PRDIGEST_TIMEZONE", TZ)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
    return Settings.from_env(dotenv=False)


async def run_digest(fake: FakeDiscord, user: str | None = None) -> FakeInteraction:
    kwargs = {"user": fake.user(user, f"user{user[-2:]}")} if user else {}
    interaction = fake.slash("digest", {"day": DAY}, **kwargs)
    await fake.wait_for(lambda: interaction.finished, timeout=30, what="/digest to answer")
    return interaction


def description(message: dict) -> str:
    return (message.get("embeds") or [{}])[0].get("description") or ""


def thread(fake: FakeDiscord) -> tuple[dict, list[dict]]:
    parents = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
    return parents[0], fake.channel_messages(parents[0]["id"])


async def post_with_one_failure(fake: FakeDiscord, github, llm) -> tuple[dict, dict]:
    """Two PRs merged on DAY; the model answers the first summary request with a 500.
    Returns the parent and the reply without a summary."""
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2)])
    llm.script([("status", 500)])
    await run_digest(fake)
    parent, replies = thread(fake)
    (failed,) = [m for m in replies if description(m).startswith(UNAVAILABLE)]
    assert "1 without a summary" in parent["content"]
    return parent, failed


def assert_healed(fake: FakeDiscord, parent: dict, failed: dict, messages: int) -> None:
    """The reply shows its summary in place, the parent's counts agree, nothing new posted."""
    assert sum(len(fake.channel_messages(c)) for c in (fake.channel_id, parent["id"])) == messages
    now_parent, replies = thread(fake)
    (reply,) = [m for m in replies if m["id"] == failed["id"]]
    assert not description(reply).startswith(UNAVAILABLE)
    assert "What changed and why" in [f["name"] for f in reply["embeds"][0]["fields"]]
    assert len(fake.edits(parent["id"], failed["id"])) == 1
    assert "without a summary" not in now_parent["content"]
    assert now_parent["content"].split("\n")[1].startswith("2 PRs: ")


def message_count(fake: FakeDiscord, parent: dict) -> int:
    return sum(len(fake.channel_messages(c)) for c in (fake.channel_id, parent["id"]))


def scheduler_of(bot, channel: str, *, clock=utcnow) -> DigestScheduler:
    sub = Subscription(REPO, "discord", channel, post_time="09:00", tz_name=TZ)
    return DigestScheduler(
        bot.service,
        {"discord": bot.poster},
        StaticSubscriptions((sub,)),
        bot.settings,
        lease=Lease(bot.store),
        clock=clock,
    )


async def test_slash_digest_of_that_day_heals_the_reply_with_a_message_edit(
    fake, settings, github, llm
):
    async with running_bot(fake, settings):
        parent, failed = await post_with_one_failure(fake, github, llm)
        messages, calls = message_count(fake, parent), llm.completions_count

        interaction = await run_digest(fake, user="4000000000000000077")
        assert llm.completions_count - calls == 1  # the failed PR only
        assert_healed(fake, parent, failed, messages)
        assert "already" in interaction.original["content"]

        edits = len(fake.edits())
        await run_digest(fake, user="4000000000000000078")
        assert len(fake.edits()) == edits and llm.completions_count - calls == 1


async def test_the_next_scheduled_run_heals_the_earlier_digest(fake, settings, github, llm):
    async with running_bot(fake, settings) as bot:
        parent, failed = await post_with_one_failure(fake, github, llm)
        github.add_prs(REPO, [make_pr(3, f"{NEXT_DAY} 10:00:00")])
        scheduler = scheduler_of(bot, fake.channel_id)
        sub = scheduler.subscriptions.all()[0]

        outcome = await scheduler.run_once(sub, date.fromisoformat(NEXT_DAY))
        assert outcome is not None and outcome.status == "posted"
        assert_healed(fake, parent, failed, message_count(fake, parent))
        assert len(fake.channel_messages(fake.channel_id)) == 2  # the two days' parents

        edits, calls = len(fake.edits()), llm.completions_count
        await scheduler.run_once(sub, date.fromisoformat(NEXT_DAY))
        assert len(fake.edits()) == edits and llm.completions_count == calls


async def test_the_background_retry_heals_after_its_delay(fake, settings, github, llm):
    async with running_bot(fake, settings) as bot:
        parent, failed = await post_with_one_failure(fake, github, llm)
        messages = message_count(fake, parent)
        now = utcnow()
        scheduler = scheduler_of(bot, fake.channel_id, clock=lambda: now)

        assert await scheduler.heal_due() == 0  # the first retry waits 5 minutes
        now += timedelta(minutes=6)
        assert await scheduler.heal_due() == 1
        assert_healed(fake, parent, failed, messages)

        edits, calls = len(fake.edits()), llm.completions_count
        now += timedelta(hours=2)
        assert await scheduler.heal_due() == 0
        assert len(fake.edits()) == edits and llm.completions_count == calls
