"""`/digest` on Discord: the thread's shape and limits, idempotency, resuming, rate limits."""

from __future__ import annotations

import re

from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, FakeInteraction, limit_errors, running_bot
from tests.fakes.openai_api import DISTINCT_WORD

DAY = "2026-02-23"
MESSAGE_POSTS = r"^/channels/\d+/messages$"


def add_day(github, count: int) -> None:
    # Distinct merge times, deliberately not in number order, so "newest first" is tested.
    github.add_prs(
        REPO,
        [make_pr(n, f"{DAY} {(n * 7) % 24:02d}:{n % 60:02d}:00") for n in range(1, count + 1)],
    )


async def run_digest(fake: FakeDiscord, **options: str) -> FakeInteraction:
    interaction = fake.slash("digest", options)
    await fake.wait_for(lambda: interaction.finished, timeout=30, what="/digest to answer")
    return interaction


def thread_of(fake: FakeDiscord) -> tuple[dict, dict, list[dict]]:
    (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
    thread = parent["thread"]
    return parent, thread, fake.channel_messages(thread["id"])


async def test_a_52_pr_day_is_a_parent_a_thread_and_one_embed_per_pr(fake, settings, github):
    add_day(github, 52)
    async with running_bot(fake, settings):
        interaction = await run_digest(fake, day=DAY)

    # Deferred at once, privately; the outcome replaces the "thinking…".
    assert interaction.callbacks[0]["type"] == 5
    assert interaction.callbacks[0]["data"]["flags"] & 64
    assert interaction.callback_at - interaction.sent_at < 3
    parent, thread, replies = thread_of(fake)
    assert interaction.original["content"].startswith(f"Posted the digest of `{REPO}` for {DAY}: ")
    assert interaction.original["content"].endswith(
        f"https://discord.com/channels/{fake.guild_id}/{fake.channel_id}/{parent['id']}"
    )

    lines = parent["content"].split("\n")
    assert f"`{REPO}` on {DAY} (PST, America/Los_Angeles)" in lines[0]
    assert re.match(
        r"52 PRs: \d+ substantial, \d+ trivial · \d+ contributors · [\d,]+ tokens$", lines[1]
    )
    assert parent["embeds"][0]["title"] == "The day at a glance"
    assert "❌" in lines[2]
    assert thread["id"] == parent["id"] and thread["name"] == f"vllm {DAY} · 52 PRs"

    assert len(replies) == 52
    by_number = {pr.number: pr for pr in github.repo(REPO).pulls.values()}
    newest_first = sorted(by_number, key=lambda n: by_number[n].merged_at, reverse=True)
    assert [int(m["embeds"][0]["title"].split()[0][1:]) for m in replies] == newest_first
    for index, message in enumerate(replies, start=1):
        assert limit_errors(message) == []
        (embed,) = message["embeds"]
        assert embed["url"] == f"https://github.com/{REPO}/pull/{newest_first[index - 1]}"
        names = [f["name"] for f in embed["fields"]]
        assert names == [
            "Author",
            "Merged by",
            "Type",
            "Files",
            "What changed and why",
            "Technical impact",
            "Potential risks",
            "Key insights",
        ]
        assert embed["footer"]["text"].startswith(f"{index} of 52 · Summary covers all 2 ")
        assert embed["color"] in (0x5865F2, 0x99AAB5)


async def test_every_message_the_bot_sends_allows_no_mentions(fake, settings, github):
    add_day(github, 3)
    async with running_bot(fake, settings):
        await run_digest(fake, day=DAY)
        bad = fake.slash("prsummary", {"pr": "not a pr"})
        await fake.wait_for(lambda: bad.finished)
        good = fake.slash("prsummary", {"pr": "2"})
        await fake.wait_for(lambda: good.finished)
    sending = [
        c
        for c in fake.calls
        if c.method in ("POST", "PATCH")
        and re.search(r"/messages$|/callback$|/webhooks/\d+/[^/]+(/messages/.+)?$", c.path)
        and (c.json or {}).get("type", 4) != 5
    ]
    assert len(sending) >= 7
    for call in sending:
        body = call.json.get("data", call.json) if call.path.endswith("/callback") else call.json
        assert body["allowed_mentions"] == {"parse": []}, call.path


async def test_a_second_digest_links_to_the_thread_already_posted(fake, settings, github, llm):
    add_day(github, 4)
    async with running_bot(fake, settings):
        first = await run_digest(fake, day=DAY)
        posts = len(fake.requests(MESSAGE_POSTS, "POST"))
        completions = llm.completions_count
        second = await run_digest(fake, day=DAY)
    link = first.original["content"].rsplit(" ", 1)[1]
    assert (
        second.original["content"] == f"The digest of `{REPO}` for {DAY} is already posted: {link}"
    )
    assert len(fake.requests(MESSAGE_POSTS, "POST")) == posts
    assert len(fake.requests(r"/threads$")) == 1
    assert llm.completions_count == completions


async def test_an_interrupted_digest_resumes_where_it_stopped(fake, settings, github):
    add_day(github, 12)
    # Discord refuses the 6th reply (the 7th message) (403 is never retried): the post stops there.
    fake.inject(r"^/channels/\d+/messages$", 403, skip=6, times=1, method="POST")
    async with running_bot(fake, settings):
        first = await run_digest(fake, day=DAY)
        assert "interrupted by Discord (403" in first.original["content"]
        assert len(thread_of(fake)[2]) == 5
        second = await run_digest(fake, day=DAY)
    assert second.original["content"].startswith(
        f"Finished the digest of `{REPO}` for {DAY} (7 more"
    )
    _, _, replies = thread_of(fake)
    urls = [m["embeds"][0]["url"] for m in replies]
    assert len(urls) == 12 and len(set(urls)) == 12


async def test_a_reply_sent_but_not_recorded_before_a_crash_is_not_sent_again(
    fake, settings, github
):
    add_day(github, 6)
    # The 4th reply (after the parent and 3 replies) reaches Discord, but the bot never
    # learns its id, as if it had died right then.
    fake.inject(r"^/channels/\d+/messages$", 403, skip=4, times=1, method="POST", commit=True)
    async with running_bot(fake, settings):
        await run_digest(fake, day=DAY)
        assert len(thread_of(fake)[2]) == 4
        second = await run_digest(fake, day=DAY)
    assert second.original["content"].startswith("Finished the digest")
    _, _, replies = thread_of(fake)
    urls = [m["embeds"][0]["url"] for m in replies]
    assert len(urls) == 6 and len(set(urls)) == 6  # the orphan was adopted, not duplicated


async def test_a_parent_sent_but_not_recorded_is_found_and_gets_its_thread(fake, settings, github):
    add_day(github, 2)
    fake.inject(r"^/channels/\d+/messages$", 403, times=1, method="POST", commit=True)
    async with running_bot(fake, settings):
        first = await run_digest(fake, day=DAY)
        assert "interrupted" in first.original["content"]
        assert fake.threads() == []
        await run_digest(fake, day=DAY)
    parents = [m for m in fake.channel_messages(fake.channel_id) if "merged into" in m["content"]]
    assert len(parents) == 1 and parents[0].get("thread")
    assert len(thread_of(fake)[2]) == 2


async def test_rate_limits_are_waited_out_and_no_message_is_dropped(fake, settings, github):
    add_day(github, 8)
    # More 429s in a row than discord.py retries on its own (5), and one on the thread.
    fake.rate_limit(MESSAGE_POSTS, times=7, retry_after=0.01)
    fake.rate_limit(r"/threads$", times=1, retry_after=0.01)
    async with running_bot(fake, settings):
        interaction = await run_digest(fake, day=DAY)
    assert interaction.original["content"].startswith("Posted the digest")
    assert len(thread_of(fake)[2]) == 8
    assert sum(c.status == 429 for c in fake.calls) == 8


def long_summary(request) -> str:
    import json

    from tests.fakes.openai_api import distinct_words

    return json.dumps(
        {
            "headline": "Makes the long path shorter for every caller.",
            "what_changed": distinct_words(1000, 0),
            "technical_impact": distinct_words(1000, 1),
            "potential_risks": distinct_words(1000, 2),
            "key_insights": distinct_words(1000, 3),
            "type": "SUBSTANTIAL",
        }
    )


async def test_a_pr_cut_off_between_its_parts_is_completed_on_resume(fake, settings, github, llm):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    llm.responder = long_summary  # 20,000 characters: more than one message can carry
    # POSTs: the parent, part 1 of the PR, then part 2 is refused.
    fake.inject(MESSAGE_POSTS, 403, skip=2, times=1, method="POST")
    async with running_bot(fake, settings):
        await run_digest(fake, day=DAY)
        assert len(thread_of(fake)[2]) == 1
        await run_digest(fake, day=DAY)
    _, _, replies = thread_of(fake)
    footers = [m["embeds"][0]["footer"]["text"] for m in replies]
    assert len(replies) == 4  # 20,000 characters / 6,000 a message
    assert [f.rsplit(" · ", 1)[1] for f in footers] == [f"part {k} of 4" for k in range(1, 5)]
    words = sum(
        len(DISTINCT_WORD.findall(f["value"]))
        for m in replies
        for e in m["embeds"]
        for f in e["fields"]
    )
    assert words == 4000  # nothing was cut


async def test_a_day_without_merges_is_one_short_message_and_no_thread(fake, settings, github):
    async with running_bot(fake, settings):
        first = await run_digest(fake, day=DAY)
        second = await run_digest(fake, day=DAY)
    (message,) = fake.channel_messages(fake.channel_id)
    assert message["content"].startswith("**vllm** · no pull requests were merged into")
    assert fake.threads() == []
    assert first.original["content"].startswith("Posted the digest")
    assert "already posted" in second.original["content"]


async def test_hostile_pr_text_cannot_ping_or_break_the_layout(fake, settings, github, llm):
    hostile = "@everyone @here <@&1234567890> <@!42> [totally safe](https://evil.example)"
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00", title=f"Fix {hostile}", author="mallory"))

    def responder(request):
        import json

        return json.dumps(
            {
                "headline": f"Pings {hostile}",
                "what_changed": f"It pings {hostile} " + "x" * 3000,
                "technical_impact": "`code` " * 400,
                "potential_risks": "@everyone " * 300,
                "key_insights": "\n\n".join(["paragraph"] * 200),
                "type": "SUBSTANTIAL",
            }
        )

    llm.responder = responder
    async with running_bot(fake, settings):
        interaction = await run_digest(fake, day=DAY)
    assert interaction.original["content"].startswith("Posted the digest")
    _, _, replies = thread_of(fake)
    assert replies, "the PR was posted"
    text = "\n".join(str(m["embeds"]) + m["content"] for m in replies)
    assert "@everyone" not in text and "@here" not in text
    assert "<@&1234567890>" not in text and "<@!42>" not in text
    assert "[totally safe](" not in text
    for message in replies:
        assert limit_errors(message) == []


async def test_digest_input_errors_are_short_and_private(fake, settings):
    async with running_bot(fake, settings):
        future = await run_digest(fake, day="2999-01-01")
        bad_repo = await run_digest(fake, day=DAY, repo="not a repo/../x")
        subscribe = await run_digest(fake, day="subscribe vllm-project/vllm")
    for interaction, expected in [
        (future, "is in the future"),
        (bad_repo, "is not a repository"),
        (subscribe, "not scheduled by this process"),
    ]:
        (callback,) = interaction.callbacks
        assert callback["type"] == 4 and callback["data"]["flags"] & 64
        assert expected in callback["data"]["content"]
        assert len(callback["data"]["content"]) < 300
    assert fake.requests(MESSAGE_POSTS, "POST") == []


async def test_digest_refuses_to_run_inside_a_thread(fake, settings):
    thread = fake.add_thread(fake.channel_id, "a conversation")
    async with running_bot(fake, settings):
        interaction = fake.slash("digest", {"day": DAY}, channel_id=thread["id"])
        await fake.wait_for(lambda: interaction.finished)
    assert "text channel" in interaction.callbacks[0]["data"]["content"]
