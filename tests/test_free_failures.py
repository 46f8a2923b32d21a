"""A failed lookup costs nothing: only LLM work that starts counts against the chat limits.

Through the real Bolt app and discord.py: a typo (`/digest foo/bar`, an issue's number, a bad
date) answers one line and leaves the user's minute untouched, so the next command is not
refused as "too many new summaries"; a stored summary costs nothing; a summary the model was
asked for counts, even when the model failed.
"""

from __future__ import annotations

from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.discord import running_bot
from tests.fakes.slack import BotUnderTest, FakeSlack

DAY = "2026-02-23"
USER_LIMIT = (
    "You have asked for a lot of new summaries in the last minute: "
    "please wait a moment and try again."
)


def answer_of(slack: FakeSlack, delivery) -> str:
    """What the user saw: the ack's text, then anything sent through response_url."""
    texts = [delivery.text] if delivery.text else []
    texts += [r.get("text", "") for r in slack.responses_for(delivery.response_url)]
    return "\n".join(texts)


def add_prs(github, count: int) -> None:
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n % 10}:00:00") for n in range(1, count + 1)])


async def test_a_digest_of_a_repository_that_does_not_exist_costs_nothing(env, slack, github):
    add_prs(github, 5)
    bot = BotUnderTest(env, slack)
    try:
        typo = await bot.command("/digest", f"foo/bar {DAY}")
        after = [await bot.command("/prsummary", str(n)) for n in range(1, 6)]
        sixth = await bot.command("/prsummary", "6")
    finally:
        await bot.aclose()
    first, *rest = answer_of(slack, typo).splitlines()
    assert first == f"Preparing the digest of foo/bar for {DAY} (America/Los_Angeles)…"
    assert len(rest) == 1 and "foo/bar not found" in rest[0]  # (github_source's wording)
    # Before: the typo had spent the whole minute, and this was the USER_LIMIT line.
    assert [d.text for d in after] == [f"Summarizing #{n}…" for n in range(1, 6)]
    assert sixth.text == USER_LIMIT  # the five real summaries still count


async def test_an_issue_a_missing_pr_a_bad_date_and_stored_answers_cost_nothing(
    env, slack, github, llm
):
    add_prs(github, 6)
    github.add_issue(REPO, 900, "Not a PR")
    bot = BotUnderTest(env, slack)
    try:
        stored = await bot.command("/prsummary", "1")  # one real summary
        failures = [
            await bot.command("/prsummary", "900"),  # an issue
            await bot.command("/prsummary", "foo/bar#1"),  # no such repository
            await bot.command("/prsummary", "99999"),  # no such PR
            await bot.command("/digest", "2026-02-31"),  # no such day
        ]
        again = [await bot.command("/prsummary", "1") for _ in range(10)]  # stored: free
        rest = [await bot.command("/prsummary", str(n)) for n in range(2, 7)]
    finally:
        await bot.aclose()
    assert stored.text == "Summarizing #1…"
    answers = [answer_of(slack, d).splitlines() for d in failures]
    # "Summarizing #900…", then one line (its wording is the GitHub source's); one line for
    # the date, at once.
    assert [len(a) for a in answers] == [2, 2, 2, 1], answers
    for answer, words in zip(
        [a[-1] for a in answers], ["#900 is an issue", "foo/bar not found", "#99999 not found", "2026-02-31"],
        strict=True,
    ):  # fmt: skip
        assert words in answer
    assert all(d.text == "" for d in again)  # answered at once, in the channel
    # Four new summaries fit after the first; the fifth is the one over the limit.
    assert [d.text for d in rest] == [f"Summarizing #{n}…" for n in range(2, 6)] + [USER_LIMIT]
    assert llm.completions_count == 5


async def test_a_summary_the_model_failed_still_counts(env, slack, github, llm):
    add_prs(github, 6)
    llm.fault_every(1, [("status", 500)])  # every call fails
    bot = BotUnderTest(env, slack)
    try:
        failed = [await bot.command("/prsummary", str(n)) for n in range(1, 6)]
        refused = await bot.command("/prsummary", "6")
    finally:
        await bot.aclose()
    assert all(d.text.startswith("Summarizing #") for d in failed)
    assert all("Could not summarize" in answer_of(slack, d) for d in failed)
    assert refused.text == USER_LIMIT  # the model was asked five times: that is the minute


async def test_discord_shares_the_rule(env, fake, github, llm, monkeypatch):
    for name, value in {
        "DISCORD_BOT_TOKEN": fake.token,
        "DISCORD_API_URL": fake.api_url,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "PRDIGEST_DISCORD_GUILDS": fake.guild_id,
        "PRDIGEST_USER_LLM_PER_MINUTE": "2",
    }.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_env(dotenv=False)
    add_prs(github, 3)

    async def ask(name: str, options: dict):
        interaction = fake.slash(name, options)
        await fake.wait_for(lambda: interaction.finished, timeout=15, what=f"/{name}")
        return interaction

    def shown(interaction) -> list[str]:
        texts = [interaction.callbacks[0].get("data", {}).get("content") or ""]
        return texts + [m.get("content") or "" for m in interaction.messages]

    async with running_bot(fake, settings):
        typo = await ask("digest", {"day": DAY, "repo": "foo/bar"})
        ok = [await ask("prsummary", {"pr": str(n)}) for n in (1, 2)]
        limited = await ask("prsummary", {"pr": "3"})
    assert "foo/bar not found" in "\n".join(shown(typo))
    assert all(i.messages and i.messages[0]["embeds"] for i in ok)  # before: refused
    assert shown(limited)[0] == USER_LIMIT
    assert llm.completions_count == 2
