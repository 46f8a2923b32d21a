"""/prsummary through the real Bolt app: every input form, the cache, visibility and errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.models import PostRecord
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakePR
from tests.fakes.slack import BotUnderTest

CHANNEL = "C0DIGEST"


@pytest.fixture
def prs(github):
    github.add_pr(REPO, make_pr(35156, "2026-02-23 10:00:00", title="Speed up <!here> decoding"))
    github.add_repo("acme/widgets")
    github.add_pr("acme/widgets", make_pr(12, "2026-02-23 11:00:00", title="Widget fix"))
    github.add_issue(REPO, 35200, "A bug report")


def blocks_text(body: dict) -> str:
    return "\n".join(
        [body.get("text", "")]
        + [b["text"]["text"] for b in body.get("blocks", []) if isinstance(b.get("text"), dict)]
        + [e["text"] for b in body.get("blocks", []) for e in b.get("elements", [])]
    )


@pytest.mark.parametrize(
    ("text", "repo", "number"),
    [
        ("35156", REPO, 35156),
        ("#35156", REPO, 35156),
        (f"https://github.com/{REPO}/pull/35156", REPO, 35156),
        (f"https://github.com/{REPO}/pull/35156/files", REPO, 35156),
        ("acme/widgets#12", "acme/widgets", 12),
        ("  #35156  ", REPO, 35156),
    ],
)
async def test_every_input_form_is_summarized_in_the_channel(
    bot, slack, llm, prs, text, repo, number
):
    delivery = await bot.command("/prsummary", text)
    assert delivery.status == 200
    assert delivery.text == f"Summarizing #{number}…"
    assert delivery.ack.get("response_type") != "in_channel"  # the progress note is private
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "in_channel"
    assert answer["replace_original"] is False
    assert answer["unfurl_links"] is False and answer["unfurl_media"] is False
    payload = answer["metadata"]["event_payload"]
    assert answer["metadata"]["event_type"] == "prdigest_pr"
    assert (payload["repo"], payload["pr"], payload["part"]) == (repo, number, 1)
    assert isinstance(payload["summary_id"], int)
    body = blocks_text(answer)
    assert f"pull/{number}|#{number} " in body
    assert "*What changed and why*" in body and "*Key insights*" in body
    assert llm.completions_count == 1


async def test_a_cached_summary_answers_at_once_without_the_llm(bot, slack, llm, prs):
    await bot.command("/prsummary", "35156")
    assert llm.completions_count == 1
    delivery = await bot.command("/prsummary", "#35156")
    assert delivery.status == 200 and delivery.body == ""  # a bare ack: the answer follows
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "in_channel"
    assert llm.completions_count == 1


async def test_pr_text_in_the_answer_is_escaped(bot, slack, llm, prs):
    delivery = await bot.command("/prsummary", "35156")
    body = blocks_text(slack.responses_for(delivery.response_url)[0])
    assert "<!here>" not in body
    assert "Speed up &lt;!here&gt; decoding" in body


async def test_answers_can_be_configured_ephemeral(env, slack, llm, prs):
    private = BotUnderTest(replace(env, prsummary_visibility="ephemeral"), slack)
    try:
        delivery = await private.command("/prsummary", "35156")
    finally:
        await private.aclose()
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "ephemeral"
    assert slack.posted(CHANNEL) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("abc", "is not a PR number"),
        ("#-5", "is not a PR number"),
        ("0", "is not a PR number"),
        ("", "Usage: /prsummary"),
        ("1 2", "Give one PR"),
        ("https://gitlab.com/o/r/pull/1", "Only links to github.com"),
        (f"https://github.com/{REPO}/issues/35200", "not a pull request link"),
        ("<!channel>", "&lt;!channel&gt;' is not a PR number"),
    ],
)
async def test_malformed_input_is_refused_in_the_ack(bot, slack, llm, text, message):
    delivery = await bot.command("/prsummary", text)
    assert message in delivery.text
    assert "<!" not in delivery.text  # what the user typed is echoed escaped
    assert delivery.ack.get("response_type") != "in_channel"
    assert slack.responses_for(delivery.response_url) == []
    assert llm.completions_count == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("99999", f"{REPO}#99999 not found"),
        ("35200", f"{REPO}#35200 is an issue, not a pull request"),
        ("nobody/nothing#3", "not found"),
    ],
)
async def test_not_found_and_issues_are_short_private_answers(bot, slack, llm, prs, text, message):
    delivery = await bot.command("/prsummary", text)
    assert delivery.text.startswith("Summarizing #")
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "ephemeral"
    assert message in answer["text"]
    assert "\n" not in answer["text"] and len(answer["text"]) < 200
    assert llm.completions_count == 0


async def test_an_llm_failure_is_a_short_private_answer(bot, slack, llm, prs):
    llm.responder = lambda request: "not json at all"
    delivery = await bot.command("/prsummary", "35156")
    (answer,) = slack.responses_for(delivery.response_url)
    assert answer["response_type"] == "ephemeral"
    assert answer["text"].startswith("Could not summarize #35156: ")
    assert slack.posted() == []


async def test_new_summaries_are_rate_limited_per_user(env, slack, llm, prs):
    limited = BotUnderTest(replace(env, user_llm_per_minute=1), slack)
    try:
        await limited.command("/prsummary", "acme/widgets#12")
        second = await limited.command("/prsummary", "35156")
        cached = await limited.command("/prsummary", "acme/widgets#12")
    finally:
        await limited.aclose()
    assert "please wait a moment" in second.text
    assert cached.status == 200 and cached.body == ""  # cached answers cost nothing
    assert llm.completions_count == 1


async def test_an_expired_response_url_still_answers_in_the_channel_and_is_flaggable(
    bot, slack, llm, prs
):
    delivery = await bot.command("/prsummary", "35156", response_url=f"{slack.url}/respond/expired")
    assert delivery.text == "Summarizing #35156…"
    (message,) = slack.posted(CHANNEL)
    assert message.via == "chat.postMessage"
    assert message.metadata["event_payload"]["pr"] == 35156
    record = bot.store.post_by_message("slack", CHANNEL, message.ts)
    assert isinstance(record, PostRecord)
    assert (record.pr_number, record.day) == (35156, "")
    assert record.summary_id == message.metadata["event_payload"]["summary_id"]


async def test_summaries_of_open_prs_show_their_state(bot, slack, llm, github):
    github.add_pr(REPO, FakePR(number=400, title="Still in review", state="open"))
    delivery = await bot.command("/prsummary", "400")
    body = blocks_text(slack.responses_for(delivery.response_url)[0])
    assert "`OPEN`" in body


async def test_two_summaries_at_once_make_one_llm_call(bot, slack, llm, prs):
    llm.latency = 0.2  # the second command arrives while the first is being summarized
    first = await bot.driver.command("/prsummary", "35156")
    second = await bot.driver.command("/prsummary", "35156", user="U0BOB")
    await bot.bot.drain(20)
    assert llm.completions_count == 1
    for delivery in (first, second):
        (answer,) = slack.responses_for(delivery.response_url)
        assert answer["response_type"] == "in_channel"
