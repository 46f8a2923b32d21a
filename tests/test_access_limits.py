"""Abuse and access: per-user and per-channel limits on LLM work, repo and channel allow-lists.

Through the real Bolt app (and discord.py for the allow-lists): a person or a channel cannot
make the model summarize more than the configured number of new PRs a minute, is told so
politely, and still gets cached answers at once; a bot invited to a workspace only answers
in its allowed channels and only about its allowed repositories, whatever its token can read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.chat.commands import RateLimiter
from bot.core.settings import Settings
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.discord import running_bot
from tests.fakes.figures import figures
from tests.fakes.slack import BotUnderTest, FakeSlack

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
USER_LIMIT_TEXT = "You have asked for a lot of new summaries in the last minute"
CHANNEL_LIMIT_TEXT = "This channel has asked for a lot of new summaries in the last minute"


def settings_with(monkeypatch, **values: str) -> Settings:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env(dotenv=False)


def add_prs(github, count: int, repo: str = REPO, day: str = DAY) -> None:
    github.add_prs(
        repo, [make_pr(n, f"{day} {n % 24:02d}:{n % 60:02d}:00") for n in range(1, count + 1)]
    )


def answer_of(slack: FakeSlack, delivery) -> str:
    """What the user saw: the ack's text, then anything sent through response_url."""
    texts = [delivery.text] if delivery.text else []
    texts += [r.get("text", "") for r in slack.responses_for(delivery.response_url)]
    return "\n".join(texts)


def stored(settings: Settings) -> dict[str, int]:
    store = Store(settings.db_path)
    try:
        return {t: store.db[t].count for t in ("pull_requests", "summaries", "llm_calls", "posts")}
    finally:
        store.close()


# -- limits on LLM work -------------------------------------------------------------------------


async def test_one_user_gets_5_new_summaries_a_minute_and_unlimited_cached_ones(
    env, slack, github, llm
):
    add_prs(github, 40)
    bot = BotUnderTest(env, slack)
    try:
        new = [await bot.command("/prsummary", str(n)) for n in range(1, 41)]
        summarized = [d for d in new if d.text.startswith("Summarizing #")]
        refused = [d for d in new if USER_LIMIT_TEXT in d.text]
        assert len(summarized) == env.user_llm_per_minute == 5
        assert len(refused) == 35
        assert all(len(d.text) < 200 and "\n" not in d.text for d in refused)
        assert llm.completions_count == 5
        # The five already summarized, asked again 20 times each: all answered, no LLM call.
        cached = [await bot.command("/prsummary", str(n)) for n in range(1, 6) for _ in range(20)]
        in_channel = [
            r for d in cached for r in slack.responses_for(d.response_url)
            if r.get("response_type") == "in_channel"
        ]  # fmt: skip
        assert len(in_channel) == 100 and not any(USER_LIMIT_TEXT in d.text for d in cached)
        assert llm.completions_count == 5
    finally:
        await bot.aclose()
    figures(
        "per-user LLM limit (/prsummary, one minute)",
        requests=40,
        summarized=len(summarized),
        refused_politely=len(refused),
        cached_requests=100,
        cached_answered=len(in_channel),
        llm_calls=llm.completions_count,
    )


async def test_a_channel_gets_20_new_summaries_a_minute_whoever_asks(env, slack, github, llm):
    add_prs(github, 30)
    bot = BotUnderTest(env, slack)
    try:
        deliveries = []
        for user in range(6):  # six people, five PRs each: within each one's own limit
            for k in range(5):
                number = user * 5 + k + 1
                deliveries.append(await bot.command("/prsummary", str(number), user=f"U0P{user}"))
    finally:
        await bot.aclose()
    summarized = [d for d in deliveries if d.text.startswith("Summarizing #")]
    refused = [d for d in deliveries if CHANNEL_LIMIT_TEXT in d.text]
    assert len(summarized) == env.channel_llm_per_minute == 20
    assert len(refused) == 10
    assert llm.completions_count == 20
    figures(
        "per-channel LLM limit (6 users x 5 /prsummary)",
        requests=30,
        summarized=len(summarized),
        refused_politely=len(refused),
    )


async def test_the_limits_are_configurable(env, slack, github, llm, monkeypatch):
    settings = settings_with(
        monkeypatch, PRDIGEST_USER_LLM_PER_MINUTE="2", PRDIGEST_CHANNEL_LLM_PER_MINUTE="3"
    )
    add_prs(github, 6)
    bot = BotUnderTest(settings, slack)
    try:
        alice = [await bot.command("/prsummary", str(n)) for n in (1, 2, 3)]
        bob = [await bot.command("/prsummary", str(n), user="U0BOB") for n in (4, 5)]
    finally:
        await bot.aclose()
    assert [d.text.startswith("Summarizing") for d in alice] == [True, True, False]
    assert USER_LIMIT_TEXT in alice[2].text
    assert bob[0].text.startswith("Summarizing") and CHANNEL_LIMIT_TEXT in bob[1].text
    assert llm.completions_count == 3


def test_the_window_slides_and_a_refusal_costs_nothing():
    limiter = RateLimiter(5, window=60)
    assert [limiter.allow("u", now=t) for t in range(6)] == [True] * 5 + [False]
    assert limiter.allow("u", now=59.9) is False  # refused: and not counted
    assert limiter.allow("u", now=60.0) is True  # the first event has left the window
    assert limiter.allow("u", now=60.5, cost=3) is False  # 4 in the window + 3 > 5
    assert limiter.allow("u", now=121.0, cost=9) is True  # an empty window: a cost counts as 5
    assert RateLimiter(0).allow("u", cost=1000) is True  # 0 turns the limit off


async def test_a_new_digest_needs_budget_but_a_posted_one_is_a_free_link(env, slack, github):
    add_prs(github, 3)
    bot = BotUnderTest(env, slack)
    try:
        first = await bot.command("/digest", DAY)
        assert first.text.startswith("Preparing the digest")
        for n in range(1, 6):  # spend the rest of the minute on new summaries
            await bot.command("/prsummary", f"acme/x#{n}")
        refused = await bot.command("/digest", "2026-02-20")
        link = await bot.command("/digest", DAY)
    finally:
        await bot.aclose()
    assert USER_LIMIT_TEXT in refused.text
    assert "is already in this channel" in link.text


async def test_one_user_cannot_summarize_hundreds_of_prs_a_minute_through_digest(
    env, slack, github, llm
):
    days = [f"2026-02-{d:02d}" for d in range(10, 16)]
    for offset, day in enumerate(days):
        github.add_prs(
            REPO,
            [make_pr(100 * offset + n, f"{day} {n % 24:02d}:{n:02d}:00") for n in range(1, 41)],
        )
    bot = BotUnderTest(env, slack)
    try:
        for day in days:
            await bot.command("/digest", day)
    finally:
        await bot.aclose()
    figures("PRs one user got summarized in a minute via /digest", llm_calls=llm.completions_count)
    assert llm.completions_count <= 2 * 40  # at most a day or two, never hundreds


# -- allow-lists -----------------------------------------------------------------------------


@pytest.fixture
def locked(env, monkeypatch) -> Settings:
    return settings_with(
        monkeypatch,
        PRDIGEST_ALLOWED_REPOS="VLLM-project/vllm",  # case does not matter
        PRDIGEST_ALLOWED_CHANNELS=f"{CHANNEL},C0SECOND",
    )


async def test_only_allowed_repos_even_if_the_token_can_read_others(locked, slack, github, llm):
    github.add_repo("acme/secret", private=True)
    add_prs(github, 2, repo="acme/secret")
    add_prs(github, 2)
    bot = BotUnderTest(locked, slack)
    try:
        attempts = [
            ("/prsummary", "acme/secret#1"),
            ("/prsummary", "https://github.com/acme/secret/pull/2"),
            ("/digest", f"{DAY} acme/secret"),
            ("/digest", "subscribe acme/secret at 09:00"),
        ]
        refused = [await bot.command(cmd, text) for cmd, text in attempts]
        before = (len(github.requests), llm.completions_count, stored(locked))
        allowed = await bot.command("/prsummary", "vllm-project/vllm#1")
    finally:
        await bot.aclose()
    for delivery in refused:
        assert "acme/secret is not one of the repositories this bot may summarize" in (
            answer_of(slack, delivery)
        )
    assert before == (0, 0, {"pull_requests": 0, "summaries": 0, "llm_calls": 0, "posts": 0})
    assert allowed.text.startswith("Summarizing #1")
    assert not any("acme/secret" in r.path for r in github.requests)
    figures(
        "repo allow-list",
        refused=len(refused),
        github_calls_for_refused=before[0],
        llm_calls_for_refused=before[1],
    )


async def test_only_allowed_channels_even_for_cached_answers(locked, slack, github, llm):
    add_prs(github, 2)
    bot = BotUnderTest(locked, slack)
    try:
        await bot.command("/prsummary", "1")  # cached from now on
        elsewhere = [
            await bot.command(cmd, text, channel="C0ELSEWHERE")
            for cmd, text in [
                ("/prsummary", "1"),
                ("/prsummary", "2"),
                ("/digest", DAY),
                ("/digest", "subscriptions"),
                ("/digest", f"subscribe {REPO}"),
            ]
        ]
        second = await bot.command("/prsummary", "2", channel="C0SECOND")
    finally:
        await bot.aclose()
    for delivery in elsewhere:
        assert answer_of(slack, delivery) == "This bot is not enabled in this channel"
    assert slack.posted("C0ELSEWHERE") == []
    assert second.text.startswith("Summarizing #2")
    assert llm.completions_count == 2


async def test_discord_honours_both_allow_lists_and_the_user_limit(
    env, fake, github, llm, monkeypatch
):
    other = fake.add_channel("1300000000000000099", "random")
    settings = settings_with(
        monkeypatch,
        DISCORD_BOT_TOKEN=fake.token,
        DISCORD_API_URL=fake.api_url,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        PRDIGEST_DISCORD_GUILDS=fake.guild_id,
        PRDIGEST_ALLOWED_REPOS=REPO,
        PRDIGEST_ALLOWED_CHANNELS=fake.channel_id,
        PRDIGEST_USER_LLM_PER_MINUTE="2",
    )
    github.add_repo("acme/secret", private=True)
    add_prs(github, 2, repo="acme/secret")
    add_prs(github, 4)

    async def ask(name: str, options: dict, channel: str | None = None):
        interaction = fake.slash(name, options, channel_id=channel)
        await fake.wait_for(lambda: interaction.finished, timeout=15, what=f"/{name}")
        return interaction

    async with running_bot(fake, settings):
        wrong_repo = await ask("prsummary", {"pr": "acme/secret#1"})
        wrong_channel = await ask("prsummary", {"pr": "1"}, channel=other["id"])
        digest_elsewhere = await ask("digest", {"day": DAY}, channel=other["id"])
        ok = [await ask("prsummary", {"pr": str(n)}) for n in (1, 2)]
        limited = await ask("prsummary", {"pr": "3"})
        cached = await ask("prsummary", {"pr": "1"})
        await asyncio.sleep(0)

    def text(interaction) -> str:
        return interaction.callbacks[0].get("data", {}).get("content", "") or ""

    assert "acme/secret is not one of the repositories" in text(wrong_repo)
    assert (
        text(wrong_channel) == text(digest_elsewhere) == "This bot is not enabled in this channel"
    )
    for refused in (wrong_repo, wrong_channel, digest_elsewhere, limited):
        assert refused.callbacks[0]["data"]["flags"] & 64  # only the asker sees it
    assert USER_LIMIT_TEXT in text(limited)
    assert all(i.messages and i.messages[0]["embeds"] for i in ok)
    assert cached.messages[0]["embeds"][0]["url"].endswith("/pull/1")
    assert llm.completions_count == 2
    assert not any("acme/secret" in r.path for r in github.requests)


# -- load: bench/load.py, in CI at a shorter LLM latency ---------------------------------------


async def test_200_concurrent_prsummary_commands_for_50_prs(tmp_path):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(
        "bench_load", Path(__file__).resolve().parents[1] / "bench" / "load.py"
    )
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench_load"] = bench  # its dataclasses look their module up there
    spec.loader.exec_module(bench)
    result = await bench.run_load(commands=200, prs=50, latency=0.3, db=tmp_path / "load.db")
    for line in result.lines():
        print(line)
    assert len(result.acks) == 200 and result.acks_over_limit == 0
    assert result.answered == 200, result.wrong_or_missing[:5]
    assert result.llm_calls == result.summaries_stored == 50  # each PR summarized once
    assert result.github_pr_fetches == 50  # and read from GitHub once
    figures(
        "200 concurrent /prsummary for 50 PRs (LLM latency 0.3 s)",
        answered=result.answered,
        max_ack_seconds=round(max(result.acks), 3),
        llm_calls=result.llm_calls,
        github_pr_reads=result.github_pr_fetches,
        wall_seconds=round(result.wall, 2),
    )
