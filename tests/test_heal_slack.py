"""A Slack reply posted as "Summary unavailable" heals in place once a later attempt succeeds.

The LLM fails for one PR while the digest is posted. Then the next scheduled run, `/digest`
of that day in that channel, or the background retry asks the model again for that PR only;
the reply is edited in place (`chat.update` of the same ts) to show the summary, and the
parent is edited so its counts agree. Nothing new is posted, and doing it again edits nothing.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta

import pytest

from bot.core.clock import utcnow
from bot.core.models import Subscription
from bot.core.settings import Settings
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import StaticSubscriptions
from bot.store.lease import Lease
from tests.conftest import REPO, make_pr
from tests.fakes.slack import BotUnderTest, FakeSlack, Message

DAY = "2026-02-23"
NEXT_DAY = "2026-02-24"
CHANNEL = "C0DIGEST"
TZ = "America/Los_Angeles"


@pytest.fixture
def settings(env, monkeypatch) -> Settings:
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "0")  # one 500 costs the PR its summary
    monkeypatch.setenv("PRDIGEST_TIMEZONE", TZ)
    return Settings.from_env(dotenv=False)


def text_of(message: Message) -> str:
    parts = [message.text]
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts.extend(e.get("text", "") for e in block.get("elements", []))
    return "\n".join(parts)


async def post_with_one_failure(settings, slack: FakeSlack, github, llm) -> BotUnderTest:
    """Two PRs merged on DAY; the model answers the first summary request with a 500."""
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2)])
    llm.script([("status", 500)])
    bot = BotUnderTest(settings, slack)
    await bot.command("/digest", DAY)
    return bot


def thread(slack: FakeSlack) -> tuple[Message, Message, Message]:
    """(the parent, the reply without a summary, the other reply), as Slack shows them now."""
    parent, *replies = [m for m in slack.posted(CHANNEL) if m.ts]
    failed = [m for m in replies if "Summary unavailable" in text_of(m)]
    assert len(replies) == 2 and len(failed) <= 1
    if not failed:  # healed: the reply once without a summary is the one edited
        (failed,) = [m for m in replies if m.edits]
    else:
        failed = failed[0]
    (other,) = [m for m in replies if m is not failed]
    return parent, failed, other


def assert_failed_first(slack: FakeSlack) -> tuple[Message, Message]:
    parent, failed, _ = thread(slack)
    assert "Summary unavailable" in text_of(failed)
    assert "*1* without a summary" in text_of(parent)
    return parent, failed


def assert_healed(slack: FakeSlack, parent: Message, failed: Message, posted: int) -> None:
    """The reply shows its summary in place, the parent's counts agree, nothing new posted."""
    assert len(slack.posted(CHANNEL)) == posted
    reply = slack.message(CHANNEL, failed.ts)
    assert reply is not None and reply.thread_ts == parent.ts
    assert "Summary unavailable" not in text_of(reply)
    assert "*What changed and why*" in text_of(reply)
    assert reply.metadata["event_payload"]["summary_id"]  # a flag on it counts for the summary
    assert len(slack.updated(CHANNEL, failed.ts)) == 1
    head = slack.message(CHANNEL, parent.ts)
    assert head is not None and "without a summary" not in text_of(head)
    assert "*2* merged" in text_of(head)


def make_scheduler(bot: BotUnderTest, *, clock=utcnow) -> DigestScheduler:
    sub = Subscription(REPO, "slack", CHANNEL, post_time="09:00", tz_name=TZ)
    return DigestScheduler(
        bot.service,
        {"slack": bot.bot.poster},
        StaticSubscriptions((sub,)),
        bot.settings,
        lease=Lease(bot.store),
        clock=clock,
    )


async def test_slash_digest_of_that_day_retries_the_failed_pr_and_heals_its_reply(
    settings, slack, github, llm
):
    bot = await post_with_one_failure(settings, slack, github, llm)
    try:
        parent, failed = assert_failed_first(slack)
        posted, calls = len(slack.posted(CHANNEL)), llm.completions_count

        # The retry costs an LLM call, counted against the user's limit: the user whose
        # /digest of a never-listed day just spent a whole minute's worth is told to wait.
        refused = await bot.command("/digest", DAY)
        assert "wait a moment" in refused.text and slack.updated(CHANNEL, failed.ts) == []

        delivery = await bot.command("/digest", DAY, user="U0BOB")
        assert llm.completions_count - calls == 1  # the failed PR only
        assert_healed(slack, parent, failed, posted)
        assert len(slack.updated(CHANNEL, parent.ts)) == 2  # its links, then its counts
        (answer,) = slack.responses_for(delivery.response_url)
        assert "already in this channel" in answer["text"]
        assert parent.ts.replace(".", "") in answer["text"]

        # Again: the day is whole, so the answer comes at once, with no call and no edit.
        updates = len(slack.updated())
        again = await bot.command("/digest", DAY, user="U0CAROL")
        assert "already in this channel" in again.text
        assert len(slack.updated()) == updates and llm.completions_count - calls == 1
    finally:
        await bot.aclose()


async def test_the_next_scheduled_run_heals_the_earlier_digest(settings, slack, github, llm):
    bot = await post_with_one_failure(settings, slack, github, llm)
    try:
        parent, failed = assert_failed_first(slack)
        github.add_prs(REPO, [make_pr(3, f"{NEXT_DAY} 10:00:00")])
        scheduler = make_scheduler(bot)

        outcome = await scheduler.run_once(
            scheduler.subscriptions.all()[0], date.fromisoformat(NEXT_DAY)
        )
        assert outcome is not None and outcome.status == "posted"
        # The next day's parent and its one reply are the only new messages.
        assert_healed(slack, parent, failed, 3 + 2)

        updates, calls = len(slack.updated()), llm.completions_count
        await scheduler.run_once(scheduler.subscriptions.all()[0], date.fromisoformat(NEXT_DAY))
        assert len(slack.updated()) == updates and llm.completions_count == calls
    finally:
        await bot.aclose()


async def test_the_background_retry_heals_after_its_delay_and_logs_each_attempt(
    settings, slack, github, llm, caplog
):
    caplog.set_level(logging.INFO, logger="bot.chat.healing")
    bot = await post_with_one_failure(settings, slack, github, llm)
    try:
        parent, failed = assert_failed_first(slack)
        posted = len(slack.posted(CHANNEL))
        now = utcnow()
        scheduler = make_scheduler(bot, clock=lambda: now)

        assert await scheduler.heal_due() == 0  # not due yet: the first retry waits 5 minutes
        assert slack.updated(CHANNEL, failed.ts) == []

        # Six minutes on, the model fails again: the next retry waits longer.
        now += timedelta(minutes=6)
        calls = llm.completions_count
        llm.script([("status", 500)])
        assert await scheduler.heal_due() == 0
        assert llm.completions_count - calls == 1
        now += timedelta(minutes=6)
        assert await scheduler.heal_due() == 0 and llm.completions_count - calls == 1

        # Twenty minutes after that, it succeeds.
        now += timedelta(minutes=20)
        assert await scheduler.heal_due() == 1
        assert llm.completions_count - calls == 2
        assert_healed(slack, parent, failed, posted)

        updates = len(slack.updated())
        now += timedelta(hours=2)
        assert await scheduler.heal_due() == 0
        assert len(slack.updated()) == updates and llm.completions_count - calls == 2
    finally:
        await bot.aclose()
    attempts = [r.getMessage() for r in caplog.records if "heal attempt" in r.getMessage()]
    assert len(attempts) == 2 and all("\n" not in line for line in attempts)
    assert "0 of 1" in attempts[0] and "1 of 1" in attempts[1]


async def test_a_summary_made_by_the_report_heals_the_reply_with_no_call(
    settings, slack, github, llm
):
    bot = await post_with_one_failure(settings, slack, github, llm)
    try:
        parent, failed = assert_failed_first(slack)
        posted = len(slack.posted(CHANNEL))
        await bot.service.digest(REPO, _window())  # as `prdigest report` would
        calls = llm.completions_count
        await bot.command("/digest", DAY, user="U0BOB")
        assert llm.completions_count == calls
        assert_healed(slack, parent, failed, posted)
    finally:
        await bot.aclose()


def _window():
    from bot.core.day_window import day_window

    return day_window(date.fromisoformat(DAY), TZ)
