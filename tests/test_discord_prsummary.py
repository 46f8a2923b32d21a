"""`/prsummary` on Discord: cached answers at once, others deferred, short private errors."""

from __future__ import annotations

import pytest

from bot.core.settings import Settings
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, FakeInteraction, running_bot
from tests.fakes.github import FakePR

DAY = "2026-02-23"


async def ask(fake: FakeDiscord, pr: str) -> FakeInteraction:
    interaction = fake.slash("prsummary", {"pr": pr})
    await fake.wait_for(lambda: interaction.finished, timeout=15, what="/prsummary to answer")
    return interaction


@pytest.mark.parametrize(
    "text", ["35156", "#35156", f"{REPO}#35156", f"https://github.com/{REPO}/pull/35156"]
)
async def test_a_new_summary_is_deferred_then_shown_and_recorded(fake, settings, github, text):
    github.add_pr(REPO, make_pr(35156, f"{DAY} 10:00:00", title="[Core] Faster scheduler"))
    async with running_bot(fake, settings):
        interaction = await ask(fake, text)
    first = interaction.callbacks[0]
    assert first["type"] == 5 and not first.get("data", {}).get("flags")  # public "thinking…"
    assert interaction.callback_at - interaction.sent_at < 3
    (message,) = interaction.messages
    (embed,) = message["embeds"]
    assert embed["title"] == "#35156 [Core] Faster scheduler"
    assert embed["url"] == f"https://github.com/{REPO}/pull/35156"
    assert [f["name"] for f in embed["fields"]][-4:] == [
        "What changed and why",
        "Technical impact",
        "Potential risks",
        "Key insights",
    ]
    assert embed["footer"]["text"].startswith("Summary covers all 2 changed files")
    assert message in fake.channel_messages(fake.channel_id)  # public, so it can be flagged
    record = Store(settings.db_path).post_by_message("discord", fake.channel_id, message["id"])
    assert record is not None and record.pr_number == 35156 and record.summary_id


async def test_a_cached_summary_is_the_immediate_response(fake, settings, github, llm):
    github.add_pr(REPO, make_pr(7, f"{DAY} 10:00:00"))
    async with running_bot(fake, settings):
        await ask(fake, "7")
        completions = llm.completions_count
        again = await ask(fake, "#7")
    (callback,) = again.callbacks
    assert callback["type"] == 4  # no defer: answered in the first response
    assert callback["data"]["embeds"][0]["url"].endswith("/pull/7")
    assert llm.completions_count == completions
    record = Store(settings.db_path).post_by_message(
        "discord", fake.channel_id, again.original["id"]
    )
    assert record is not None and record.pr_number == 7


async def test_an_open_pr_shows_its_state(fake, settings, github):
    github.add_pr(REPO, FakePR(number=9, title="WIP: new kernel", state="open"))
    async with running_bot(fake, settings):
        interaction = await ask(fake, "9")
    fields = {f["name"]: f["value"] for f in interaction.messages[0]["embeds"][0]["fields"]}
    assert fields["State"] == "OPEN" and "Merged by" not in fields


@pytest.mark.parametrize(
    "text, expected",
    [
        ("hello", "'hello' is not a PR number"),
        ("1 2", "Give one PR"),
        ("https://example.com/a/b/pull/1", "Only links to github.com"),
        ("help", "Usage: /prsummary"),
    ],
)
async def test_bad_input_is_a_short_private_answer(fake, settings, text, expected):
    async with running_bot(fake, settings):
        interaction = await ask(fake, text)
    (callback,) = interaction.callbacks
    assert callback["type"] == 4 and callback["data"]["flags"] & 64
    assert expected in callback["data"]["content"]
    assert fake.channel_messages(fake.channel_id) == []


async def test_a_missing_pr_replaces_the_public_thinking_with_a_private_error(
    fake, settings, github
):
    github.add_issue(REPO, 5, "Just an issue")
    async with running_bot(fake, settings):
        missing = await ask(fake, "404404")
        issue = await ask(fake, "5")
    for interaction in (missing, issue):
        assert interaction.deferred and interaction.deleted_original
        (followup,) = interaction.followups
        assert followup["flags"] & 64
        assert len(followup["content"]) < 300
    assert "404404" in missing.followups[0]["content"]
    assert fake.channel_messages(fake.channel_id) == []  # nothing public was left behind


async def test_the_ephemeral_setting_keeps_answers_private(fake, settings, github, monkeypatch):
    monkeypatch.setenv("PRDIGEST_PRSUMMARY_VISIBILITY", "ephemeral")
    github.add_pr(REPO, make_pr(3, f"{DAY} 10:00:00"))
    async with running_bot(fake, Settings.from_env(dotenv=False)):
        fresh = await ask(fake, "3")
        cached = await ask(fake, "3")
    assert fresh.callbacks[0]["data"]["flags"] & 64 and fresh.ephemeral
    assert cached.callbacks[0]["data"]["flags"] & 64
    assert fake.channel_messages(fake.channel_id) == []


async def test_the_per_user_llm_limit_answers_privately(fake, settings, github, monkeypatch):
    monkeypatch.setenv("PRDIGEST_USER_LLM_PER_MINUTE", "1")
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2)])
    async with running_bot(fake, Settings.from_env(dotenv=False)):
        await ask(fake, "1")
        limited = await ask(fake, "2")
        cached = await ask(fake, "1")  # a stored summary costs nothing: never limited
    assert "wait a moment" in limited.callbacks[0]["data"]["content"]
    assert limited.callbacks[0]["data"]["flags"] & 64
    assert cached.callbacks[0]["type"] == 4 and cached.callbacks[0]["data"]["embeds"]


async def test_a_summary_too_long_for_one_message_continues_in_followups(
    fake, settings, github, llm
):
    import json

    github.add_pr(REPO, make_pr(12, f"{DAY} 10:00:00"))
    from tests.fakes.openai_api import DISTINCT_WORD, distinct_words

    llm.responder = lambda request: json.dumps(
        {
            "headline": "Speeds up the long path for every caller.",
            "what_changed": distinct_words(1500, 0),
            "technical_impact": distinct_words(1500, 1),
            "potential_risks": distinct_words(1500, 2),
            "key_insights": distinct_words(1500, 3),
            "type": "SUBSTANTIAL",
        }
    )
    async with running_bot(fake, settings):
        interaction = await ask(fake, "12")
        await fake.wait_for(lambda: len(interaction.messages) == 6, what="every part")
    footers = [m["embeds"][0]["footer"]["text"] for m in interaction.messages]
    assert [f.rsplit(" · ", 1)[1] for f in footers] == [f"part {k} of 6" for k in range(1, 7)]
    words = sum(
        len(DISTINCT_WORD.findall(f["value"]))
        for m in interaction.messages
        for e in m["embeds"]
        for f in e["fields"]
    )
    assert words == 4 * 1500
    assert all(m["allowed_mentions"] == {"parse": []} for m in interaction.messages)
