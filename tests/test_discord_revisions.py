"""A flag on Discord closes the loop: the summary is re-checked and the thread hears the outcome.

Driven end to end: reactions over the fake gateway into the real discord.py bot, the real
store, digest service and summarizer, against the fake Discord, GitHub and OpenAI servers.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest

from bot.core.settings import Settings
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord, message_text, post_digest, running_bot
from tests.fakes.openai_api import FakeOpenAI

DAY = "2026-02-23"
ALICE, BOB = "4000000000000000001", "4000000000000000002"
NOTE = "Corrected the description of `y_0`."
NEW_TEXT = "It sets `y_0` to 2 as the new value."


def answer(changed: bool = True, note: str = NOTE, what: str = NEW_TEXT) -> str:
    """The revision answer the fake LLM gives: the four sections, the type, and the verdict."""
    return json.dumps(
        {"headline": "Fixes the claimed speed-up in the summary.", "what_changed": what, "technical_impact": "Same speed.", "potential_risks": "None.",
         "key_insights": "Simpler.", "type": "TRIVIAL", "changed": changed, "change_note": note}
    )  # fmt: skip


def summary_edits(fake) -> list:
    """The edits of summaries: not the digest parent's own edit, which links its replies
    (the parent is the one message edited in the channel itself, not in a thread)."""
    return [e for e in fake.edits() if not e.path.startswith(f"/channels/{fake.channel_id}/")]


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    store = Store(settings.db_path)
    yield store
    store.close()


def starting(fake: FakeDiscord, channel: str, prefix: str) -> list[dict]:
    return [m for m in fake.channel_messages(channel) if m["content"].startswith(prefix)]


def corrections(fake: FakeDiscord, channel: str) -> list[dict]:
    return starting(fake, channel, "Revised after a flag by")


def revision_requests(llm: FakeOpenAI) -> int:
    return sum(
        1
        for r in list(llm.chat_requests)
        if ((r.get("response_format") or {}).get("json_schema") or {}).get("name")
        == "pr_summary_revision"
    )


def jump_link(fake: FakeDiscord, channel: str, message_id: str) -> str:
    return f"https://discord.com/channels/{fake.guild_id}/{channel}/{message_id}"


async def test_a_flag_posts_the_correction_in_the_thread_and_edits_the_original(
    fake, settings, github, llm, store
):
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread, top = parent["id"], replies[0]  # #2
        old = store.post_by_message("discord", fake.channel_id, top["id"])
        llm.script([("content", answer())])

        start = time.perf_counter()
        fake.react(thread, top["id"], "❌", user_id=ALICE)
        await fake.wait_for(
            lambda: corrections(fake, thread) and fake.edits(thread, top["id"]),
            timeout=5,
            what="the correction and the edit",
        )
        elapsed = time.perf_counter() - start
        print(f"\nDiscord flag -> correction posted and original edited: {elapsed * 1000:.0f} ms")
        assert elapsed < 5
        await bot.drain(5)

    # In the thread: the two summaries, the thanks, then the correction.
    messages = fake.channel_messages(thread)
    assert len(messages) == 4
    assert messages[2]["content"].startswith(f"Thanks <@{ALICE}>: the summary of #2 is flagged")
    correction = messages[3]
    assert correction["content"] == f"Revised after a flag by <@{ALICE}>: {NOTE}"
    assert correction["allowed_mentions"] == {"parse": []}  # named, not pinged
    text = message_text(correction)
    assert NEW_TEXT in text and "*Revised after a flag (revision 2).*" in text
    assert correction["embeds"][0]["url"] == top["embeds"][0]["url"]
    assert revision_requests(llm) == 1

    # A new version, recorded as that message, so it can be flagged in turn.
    new_id = store.latest_summary(REPO, 2).id
    assert new_id != old.summary_id and store.get_summary_by_id(old.summary_id).superseded
    record = store.post_by_message("discord", fake.channel_id, correction["id"])
    assert (record.summary_id, record.pr_number, record.thread_id, record.day) == (
        new_id,
        2,
        thread,
        DAY,
    )
    assert store.post_kind(record.id) == "revision"

    # The original: its content gains a line linking to the correction; its embeds stay.
    (edit,) = summary_edits(fake)
    link = jump_link(fake, thread, correction["id"])
    assert edit.path == f"/channels/{thread}/messages/{top['id']}"
    assert edit.json["content"] == f"Revised after a flag — corrected summary: {link}"
    assert "embeds" not in edit.json and edit.json["allowed_mentions"] == {"parse": []}
    edited = fake.channel_messages(thread)[0]
    assert edited["embeds"] == top["embeds"] and edited["edited_timestamp"]


async def test_the_correction_can_be_flagged_and_corrected_in_turn(
    fake, settings, github, llm, store
):
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread = parent["id"]
        llm.script([("content", answer())])
        fake.react(thread, replies[0]["id"], "❌", user_id=ALICE)
        (first,) = await fake.wait_for(lambda: corrections(fake, thread), what="a correction")
        await bot.drain(5)

        llm.script([("content", answer(note="Named the slices.", what="Sets it for 3 slices."))])
        fake.react(thread, first["id"], "❌", user_id=BOB)
        await fake.wait_for(lambda: fake.edits(thread, first["id"]), what="the second edit")
        await bot.drain(5)

    (flag,) = store.active_flags(
        store.post_by_message("discord", fake.channel_id, first["id"]).summary_id
    )
    assert (flag.user, flag.message_id) == (BOB, first["id"])
    second = corrections(fake, thread)[-1]
    assert second["content"] == f"Revised after a flag by <@{BOB}>: Named the slices."
    assert store.latest_summary(REPO, 2).revision == 3
    # The first correction keeps its own line, and gains the pointer to the second.
    (edit,) = fake.edits(thread, first["id"])
    assert edit.json["content"] == (
        f"{first['content']}\n"
        f"Revised after a flag — corrected summary: {jump_link(fake, thread, second['id'])}"
    )
    assert len(starting(fake, thread, "Thanks")) == 2  # one per summary version


async def test_nothing_to_correct_is_one_short_reply(fake, settings, github, llm, store):
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread, top = parent["id"], replies[0]
        llm.script([("content", answer(changed=False, note="The summary matches the diff."))])
        start = time.perf_counter()
        fake.react(thread, top["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: starting(fake, thread, "Re-checked"), timeout=5)
        print(
            f"\nDiscord flag -> 'no correction needed' posted: {(time.perf_counter() - start) * 1000:.0f} ms"
        )
        await bot.drain(5)

    (recheck,) = starting(fake, thread, "Re-checked")
    assert recheck["content"] == (
        f"Re-checked after a flag by <@{ALICE}>: no correction needed — "
        "The summary matches the diff."
    )
    assert recheck["allowed_mentions"] == {"parse": []} and not recheck["embeds"]
    assert len(fake.channel_messages(thread)) == 4  # two summaries, the thanks, this
    assert corrections(fake, thread) == [] and summary_edits(fake) == []
    summary = store.post_by_message("discord", fake.channel_id, top["id"]).summary_id
    assert not store.get_summary_by_id(summary).superseded


async def test_llm_text_in_the_note_is_defused(fake, settings, github, llm):
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread = parent["id"]
        llm.script(
            [("content", answer(note="Fixed @everyone <@123> [docs](https://evil.example)\nok"))]
        )
        fake.react(thread, replies[0]["id"], "❌", user_id=ALICE)
        (correction,) = await fake.wait_for(lambda: corrections(fake, thread))
        await bot.drain(5)
    assert correction["content"] == (
        f"Revised after a flag by <@{ALICE}>: Fixed @\u200beveryone \\<@\u200b123\\> "
        "`[docs]\u200b(https://evil.example)` ok"
    )


async def test_a_flag_removed_before_the_recheck_finishes_posts_nothing(
    fake, settings, github, llm, store
):
    release = threading.Event()

    def slow(request: dict) -> str:  # the fake LLM thinks until the test lets it answer
        release.wait(5)
        return answer()

    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread, top = parent["id"], replies[0]
        llm.responder = slow
        try:
            fake.react(thread, top["id"], "❌", user_id=ALICE)
            await fake.wait_for(lambda: revision_requests(llm) == 1, what="the re-check")
            # The handler is not held up by the model: the thanks is out while it thinks.
            await fake.wait_for(lambda: starting(fake, thread, "Thanks"), what="the thanks")
            assert not release.is_set()
            summary = store.post_by_message("discord", fake.channel_id, top["id"]).summary_id
            fake.unreact(thread, top["id"], "❌", user_id=ALICE)
            await fake.wait_for(lambda: store.active_flags(summary) == [], what="the removal")
        finally:
            release.set()
        await bot.drain(5)
        posted = len(fake.channel_messages(thread))

    assert posted == 3  # the two summaries and the thanks: no correction, no re-check note
    assert summary_edits(fake) == []
    assert not store.get_summary_by_id(summary).superseded
    outcomes = store.db.execute("SELECT outcome FROM revision_attempts").fetchall()
    assert outcomes == [("withdrawn",)]


async def test_ten_users_flagging_at_once_cause_one_regeneration(
    fake, settings, github, llm, store
):
    users = [f"40000000000000001{i:02d}" for i in range(10)]
    async with running_bot(fake, settings) as bot:
        parent, replies = await post_digest(fake, github)
        thread, top = parent["id"], replies[1]  # #1
        summary = store.post_by_message("discord", fake.channel_id, top["id"]).summary_id
        llm.script([("content", answer())])
        for user in users:
            fake.react(thread, top["id"], "❌", user_id=user)
        await fake.wait_for(lambda: len(store.active_flags(summary)) == 10, what="ten flags")
        await fake.wait_for(lambda: summary_edits(fake), what="the edit")
        await bot.drain(5)
        messages = fake.channel_messages(thread)

    assert sorted(f.user for f in store.active_flags(summary)) == users
    assert revision_requests(llm) == 1
    assert len(corrections(fake, thread)) == 1 and len(summary_edits(fake)) == 1
    assert len(starting(fake, thread, "Thanks")) == 1
    assert starting(fake, thread, "Re-checked") == []
    assert len(messages) == 4
    # Whoever's flag made the re-check is named, and the thanks comes first.
    assert messages[2]["content"].startswith("Thanks <@")
    assert messages[3]["content"].startswith("Revised after a flag by <@")


async def test_a_flagged_prsummary_answer_is_corrected_in_its_channel(
    fake, settings, github, llm, store
):
    github.add_pr(REPO, make_pr(11, f"{DAY} 10:00:00"))
    async with running_bot(fake, settings) as bot:
        interaction = fake.slash("prsummary", {"pr": "11"})
        await fake.wait_for(lambda: interaction.finished)
        answer_message = interaction.messages[0]
        llm.script([("content", answer())])
        fake.react(fake.channel_id, answer_message["id"], "❌", user_id=ALICE)
        await fake.wait_for(lambda: fake.edits(fake.channel_id, answer_message["id"]))
        await bot.drain(5)

    (correction,) = corrections(fake, fake.channel_id)
    record = store.post_by_message("discord", fake.channel_id, correction["id"])
    assert record.thread_id is None and record.summary_id == store.latest_summary(REPO, 11).id
    (edit,) = fake.edits()
    assert edit.json["content"] == (
        "Revised after a flag — corrected summary: "
        + jump_link(fake, fake.channel_id, correction["id"])
    )


async def test_shutdown_cancels_a_recheck_that_does_not_finish_in_time(
    fake, settings, github, llm, store
):
    release = threading.Event()

    def stuck(request: dict) -> str:
        release.wait(5)
        return answer()

    try:
        async with running_bot(fake, settings) as bot:
            parent, replies = await post_digest(fake, github)
            thread = parent["id"]
            llm.responder = stuck
            fake.react(thread, replies[0]["id"], "❌", user_id=ALICE)
            await fake.wait_for(lambda: revision_requests(llm) == 1, what="the re-check")
            bot.shutdown_grace = 0.2
            start = time.perf_counter()
            await bot.close()
            closed_in = time.perf_counter() - start
            assert not bot._background
            # A flag arriving while closing starts nothing.
            bot.spawn(asyncio.sleep(10), "late work")
            assert not bot._background
    finally:
        release.set()
    assert closed_in < 2
    assert corrections(fake, thread) == [] and summary_edits(fake) == []
