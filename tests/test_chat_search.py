"""`/digest search` and `/digest ask` through the real Bolt app and the fake Discord gateway:
results only the asker sees, linked to the digest's reply in this channel when there is one,
filters as chat words, escaped PR and model text, ask's citation check and its rate limit."""

from __future__ import annotations

import json

import pytest

from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, FakeInteraction, running_bot
from tests.fakes.openai_api import default_responder, request_text
from tests.fakes.slack import BotUnderTest
from tests.search_corpus import busy_day, stored_pr

CHANNEL = "C0DIGEST"
PR_LINK = f"https://github.com/{REPO}/pull/35156"


def answering(text: str):
    def respond(request: dict) -> str:
        if "You answer a question" in request_text(request):
            return json.dumps({"answer": text})
        return default_responder(request)

    return respond


def shown(body: dict) -> str:
    """Everything a Slack answer shows: fallback text and block texts."""
    parts = [body.get("text", "")]
    for block in body.get("blocks", []):
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts += [e.get("text", "") for e in block.get("elements", [])]
    return "\n".join(parts)


async def slack_answer(bot, slack, text: str, **kw) -> tuple[object, dict]:
    delivery = await bot.command("/digest", text, **kw)
    assert delivery.status == 200
    (answer,) = slack.responses_for(delivery.response_url)
    return delivery, answer


# -- Slack: search ---------------------------------------------------------------------------


async def test_search_answers_the_asker_with_linked_results(bot, slack, llm):
    busy_day(bot.store)
    delivery, answer = await slack_answer(bot, slack, "search fused_moe_lora")
    assert delivery.body == ""  # a bare ack: the results follow through response_url
    assert answer["response_type"] == "ephemeral"
    assert answer["unfurl_links"] is False
    text = shown(answer)
    assert "1 stored PR matches" in text
    assert f"<{PR_LINK}|#35156>  2026-02-23  [LoRA] Fuse the MoE LoRA kernels" in text
    assert "— LoRA adapters on MoE models run in one fused kernel." in text
    assert llm.completions_count == 0


async def test_a_result_links_to_its_reply_in_this_channels_digest(bot, slack, github):
    github.add_pr(REPO, make_pr(35201, "2026-02-23 10:00:00", title="[Core] Add ocelot mode"))
    await bot.command("/digest", "2026-02-23")
    (reply,) = [
        m
        for m in slack.messages
        if m.channel == CHANNEL and m.thread_ts and m.ts != m.thread_ts
        and (m.metadata or {}).get("event_payload", {}).get("pr") == 35201
    ]  # fmt: skip
    _, here = await slack_answer(bot, slack, "search ocelot")
    permalink = f"https://fake-team.slack.com/archives/{CHANNEL}/p{reply.ts.replace('.', '')}"
    assert f"<{permalink}?thread_ts={reply.thread_ts}&amp;cid={CHANNEL}|#35201>" in shown(here)
    _, elsewhere = await slack_answer(bot, slack, "search ocelot", channel="C0OTHER")
    assert f"<https://github.com/{REPO}/pull/35201|#35201>" in shown(elsewhere)


@pytest.mark.parametrize(
    ("words", "found", "absent"),
    [
        ("lora area:doc", "#35160", "#35156"),
        ("lora author:jeejeelee", "#35156", "#35160"),
        ("lora since:2026-02-21 until:2026-02-23", "#35170", "#35160"),
        ("lora type:trivial", "#35160", "#35170"),
        ("area:ROCm", "#35180", "#35156"),
        ('area:"ROCm"', "#35180", "#35160"),
    ],
)
async def test_filters_are_chat_words(bot, slack, words, found, absent):
    busy_day(bot.store)
    _, answer = await slack_answer(bot, slack, f"search {words}")
    assert f"|{found}>" in shown(answer) and f"|{absent}>" not in shown(answer)


async def test_no_match_is_one_line(bot, slack):
    busy_day(bot.store)
    _, answer = await slack_answer(bot, slack, "search <!here> NEAR(*) 🚀")
    assert shown(answer).splitlines()[0] == ('No stored PR matches "&lt;!here&gt; NEAR(*) 🚀".')


async def test_pr_text_in_results_is_escaped(bot, slack):
    stored_pr(bot.store, 40001, "Fix <!channel> <@U0BOSS> parser", headline="Pings <!here> no one.")
    _, answer = await slack_answer(bot, slack, "search parser")
    text = shown(answer)
    assert "<!channel>" not in text and "<!here>" not in text and "<@U0BOSS>" not in text
    assert "Fix &lt;!channel&gt; &lt;@U0BOSS&gt; parser" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("search", "Usage: /digest search"),
        ("search type:huge", "type: 'huge' is not a type"),
        ("ask", "Usage: /digest ask"),
        ("search lora repo:nope", "'nope' is not a repository"),
    ],
)
async def test_bad_input_is_one_line_at_once(bot, slack, text, expected):
    delivery = await bot.command("/digest", text)
    assert delivery.text.startswith(expected) and "\n" not in delivery.text


async def limited_bot(slack, monkeypatch, **env: str) -> BotUnderTest:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return BotUnderTest(Settings.from_env(dotenv=False), slack)


async def test_the_allow_list_holds_for_search(env, slack, monkeypatch):
    limited = await limited_bot(slack, monkeypatch, PRDIGEST_ALLOWED_REPOS=REPO)
    try:
        busy_day(limited.store)
        stored_pr(limited.store, 12, "[LoRA] Widget adapters", repo="acme/widgets")
        refused = await limited.command("/digest", "search lora repo:acme/widgets")
        assert "not one of the repositories" in refused.text
        delivery = await limited.command("/digest", "search lora")  # only the allowed ones
        (answer,) = slack.responses_for(delivery.response_url)
        assert "#35156" in shown(answer) and "acme/widgets" not in shown(answer)
    finally:
        await limited.aclose()


# -- Slack: ask ------------------------------------------------------------------------------


async def test_ask_answers_with_linked_citations_and_drops_invented_ones(bot, slack, llm):
    busy_day(bot.store)
    llm.responder = answering("MoE LoRA runs in one fused kernel (#35156, #99999).")
    delivery, answer = await slack_answer(bot, slack, "ask what changed for LoRA kernels?")
    assert delivery.text == "Reading the stored summaries…"
    text = shown(answer)
    assert f"MoE LoRA runs in one fused kernel (<{PR_LINK}|#35156>)." in text
    assert "99999" not in text
    assert "From the stored summaries of:" in text
    assert answer["response_type"] == "ephemeral"
    assert llm.completions_count == 1


async def test_ask_with_nothing_stored_makes_no_call(bot, slack, llm):
    _, answer = await slack_answer(bot, slack, "ask what changed in LoRA?")
    assert "Nothing stored matches that question." in shown(answer)
    assert llm.completions_count == 0


async def test_an_answer_citing_nothing_lists_the_closest_prs(bot, slack, llm):
    busy_day(bot.store)
    llm.responder = answering("Probably <!channel> something.")
    _, answer = await slack_answer(bot, slack, "ask what changed for LoRA kernels?")
    text = shown(answer)
    assert "The stored summaries do not answer that" in text and "|#35156>" in text
    assert "Probably" not in text and "<!channel>" not in text


async def test_ask_is_rate_limited_like_other_llm_commands(env, slack, llm, monkeypatch):
    limited = await limited_bot(slack, monkeypatch, PRDIGEST_USER_LLM_PER_MINUTE="1")
    try:
        busy_day(limited.store)
        llm.responder = answering("Fused (#35156).")
        await limited.command("/digest", "ask what changed for LoRA kernels?")
        refused = await limited.command("/digest", "ask and for LoRA docs?")
        assert "You have asked for a lot of new summaries" in refused.text
        assert llm.completions_count == 1
    finally:
        await limited.aclose()


async def test_an_ask_that_made_no_call_costs_nothing(env, slack, llm, monkeypatch):
    limited = await limited_bot(slack, monkeypatch, PRDIGEST_USER_LLM_PER_MINUTE="1")
    try:
        await limited.command("/digest", "ask what changed in LoRA?")  # nothing stored
        busy_day(limited.store)
        llm.responder = answering("Fused (#35156).")
        delivery = await limited.command("/digest", "ask what changed for LoRA kernels?")
        assert delivery.text == "Reading the stored summaries…"
        assert llm.completions_count == 1
    finally:
        await limited.aclose()


# -- Discord ---------------------------------------------------------------------------------


async def discord_digest(fake: FakeDiscord, day: str, **options) -> FakeInteraction:
    interaction = fake.slash("digest", {"day": day, **options})
    await fake.wait_for(lambda: interaction.finished, timeout=15, what="/digest to answer")
    return interaction


async def test_discord_search_is_the_immediate_private_response(fake, settings, llm):
    async with running_bot(fake, settings) as bot:
        busy_day(bot.store)
        interaction = await discord_digest(fake, "search fused_moe_lora")
    (callback,) = interaction.callbacks
    assert callback["type"] == 4 and callback["data"]["flags"] & 64  # ephemeral, no defer
    (embed,) = callback["data"]["embeds"]
    assert embed["description"].startswith(f"[#35156]({PR_LINK}) 2026-02-23 **")
    assert "1 stored PR matches" in callback["data"]["content"]
    assert llm.completions_count == 0


async def test_discord_search_takes_the_repo_option(fake, settings):
    async with running_bot(fake, settings) as bot:
        busy_day(bot.store)
        stored_pr(bot.store, 12, "[LoRA] Widget adapters", repo="acme/widgets")
        interaction = await discord_digest(fake, "search lora", repo="acme/widgets")
    text = interaction.text()
    assert "acme/widgets/pull/12" in text and "#35156" not in text


async def test_discord_ask_defers_then_answers_with_checked_citations(fake, settings, llm):
    llm.responder = answering("Fused now (#35156); see also #424242.")
    async with running_bot(fake, settings) as bot:
        busy_day(bot.store)
        interaction = await discord_digest(fake, "ask what changed for LoRA kernels?")
    assert interaction.deferred
    (embed,) = interaction.original["embeds"]
    assert embed["description"].startswith(f"Fused now ([#35156]({PR_LINK}))")
    assert "424242" not in interaction.text()
    assert llm.completions_count == 1


async def test_discord_results_show_pr_text_literally(fake, settings):
    async with running_bot(fake, settings) as bot:
        stored_pr(bot.store, 40001, "Fix [click](https://evil.example) @everyone parser")
        interaction = await discord_digest(fake, "search parser")
    description = interaction.callbacks[0]["data"]["embeds"][0]["description"]
    assert "](https://evil.example)" not in description
    assert "@everyone" not in description.replace("@\u200beveryone", "")
