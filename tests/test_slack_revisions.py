"""A flag on Slack closes the loop: the summary is re-checked and the thread hears the outcome.

Driven end to end: signed reaction events into the real Bolt app, the real store, digest
service and summarizer, against the fake Slack, GitHub and OpenAI servers.
"""

from __future__ import annotations

import asyncio
import copy
import json
import statistics
import threading
import time
from collections.abc import Callable

import pytest

from adapters.slack.render.flags import REVISED_NOTICE_ID
from tests.conftest import REPO, make_pr
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.slack import FakeSlack, Message

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
NOTE = "Corrected the description of `y_0`."


def answer(
    changed: bool = True,
    note: str = NOTE,
    what: str = "It sets `y_0` to 2 as the new value.",
) -> str:
    """The revision answer the fake LLM gives: the four sections, the type, and the verdict."""
    return json.dumps(
        {"headline": "Fixes the claimed speed-up in the summary.", "what_changed": what, "technical_impact": "Same speed.", "potential_risks": "None.",
         "key_insights": "Simpler.", "type": "TRIVIAL", "changed": changed, "change_note": note}
    )  # fmt: skip


def summary_updates(slack) -> list:
    """The edits of summaries: not the digest parent's own edit, which links its replies."""
    return [u for u in slack.updated() if (u.metadata or {}).get("event_type") != "prdigest_digest"]


@pytest.fixture
async def thread(bot, slack, github, llm) -> tuple[Message, list[Message]]:
    """A posted digest of three PRs: (parent, replies)."""
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2, 3)])
    await bot.command("/digest", DAY)
    parent, *replies = slack.posted(CHANNEL)
    return parent, replies


async def until(predicate: Callable[[], object], timeout: float = 5.0) -> float:
    """Poll (letting the bot's tasks run) until `predicate` holds; returns when, in seconds."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise AssertionError(f"not within {timeout} s")
        await asyncio.sleep(0.001)
    return time.perf_counter()


def in_thread(slack: FakeSlack, parent: Message, prefix: str) -> list[Message]:
    return [m for m in slack.thread(CHANNEL, parent.ts) if m.text.startswith(prefix)]


def corrections(slack: FakeSlack, parent: Message) -> list[Message]:
    return in_thread(slack, parent, "Revised after a flag")


def revision_requests(llm: FakeOpenAI) -> int:
    return sum(
        1
        for r in llm.chat_requests
        if ((r.get("response_format") or {}).get("json_schema") or {}).get("name")
        == "pr_summary_revision"
    )


def summary_id(message: Message) -> int:
    return message.metadata["event_payload"]["summary_id"]


def texts(blocks: list[dict]) -> str:
    return json.dumps(blocks, ensure_ascii=False)


async def test_a_flag_posts_the_correction_in_the_thread_and_marks_the_original(
    bot, slack, llm, thread
):
    parent, replies = thread
    reply = replies[1]  # "2/3" in the thread
    shown = copy.deepcopy(reply.blocks)  # the fake edits the kept message in place
    old_id = summary_id(reply)
    llm.script([("content", answer())])

    start = time.perf_counter()
    delivery = await bot.driver.react(CHANNEL, reply.ts, user="U0ALICE")
    assert delivery.status == 200
    done = await until(lambda: corrections(slack, parent) and slack.updated(CHANNEL, reply.ts))
    assert done - start < 5
    await bot.bot.drain(5)

    # The corrected summary, as one reply in the digest's thread, after the thanks.
    (correction,) = corrections(slack, parent)
    intro = f"Revised after a flag by Alice: {NOTE}"
    assert correction.text == intro
    assert correction.blocks[0] == {
        "type": "section",
        "text": {"type": "mrkdwn", "text": intro, "verbatim": True},
    }
    assert "It sets `y_0` to 2 as the new value." in texts(correction.blocks)
    assert "_Revised after a flag (revision 2)._" in texts(correction.blocks)
    assert correction.args["unfurl_links"] is False
    thanks, after = [m.text for m in slack.thread(CHANNEL, parent.ts)][-2:]
    assert thanks.startswith("Flagged as inaccurate by Alice") and after == intro
    assert revision_requests(llm) == 1

    # A new version, recorded as that reply, so a flag on the correction flags it.
    new_id = summary_id(correction)
    assert new_id != old_id
    assert bot.store.get_summary_by_id(old_id).superseded
    new = bot.store.get_summary_by_id(new_id)
    assert (new.revision, new.change_note) == (2, NOTE)
    record = bot.store.post_by_message("slack", CHANNEL, correction.ts)
    assert (record.summary_id, record.pr_number, record.thread_id) == (
        new_id,
        new.number,
        parent.ts,
    )
    assert record.day == DAY and bot.store.post_kind(record.id) == "revision"
    assert correction.metadata["event_payload"] == {
        "repo": REPO, "pr": new.number, "day": DAY, "summary_id": new_id, "part": 1,
    }  # fmt: skip

    # The original: the same blocks, plus one line linking to the correction.
    (edit,) = slack.updated(CHANNEL, reply.ts)
    notice = next(b for b in edit.blocks if b.get("block_id") == REVISED_NOTICE_ID)
    link = (
        f"https://fake-team.slack.com/archives/{CHANNEL}/p{correction.ts.replace('.', '')}"
        f"?thread_ts={parent.ts}&amp;cid={CHANNEL}"
    )
    assert notice["elements"][0]["text"] == (
        f"_Revised after a flag — <{link}|see the corrected summary> in this thread_"
    )
    assert [b for b in edit.blocks if b is not notice] == shown  # position "2/3" included
    assert edit.blocks[edit.blocks.index(notice) - 1]["type"] == "context"  # under the facts
    assert (
        edit.metadata == reply.metadata and edit.metadata["event_payload"]["summary_id"] == old_id
    )
    assert slack.api_calls("conversations.replies") == []  # rebuilt from the store, not read back


async def test_the_correction_can_be_flagged_and_corrected_in_turn(bot, slack, llm, thread):
    parent, replies = thread
    llm.script([("content", answer())])
    await bot.react(CHANNEL, replies[0].ts, user="U0ALICE")
    (first,) = corrections(slack, parent)
    shown = copy.deepcopy(first.blocks)

    llm.script([("content", answer(note="Named the slices.", what="Sets `y_1` to 2 as well."))])
    await bot.react(CHANNEL, first.ts, user="U0BOB")

    (flag,) = bot.store.active_flags(summary_id(first))
    assert (flag.user, flag.message_id) == ("U0BOB", first.ts)
    second = corrections(slack, parent)[-1]
    assert second.text == "Revised after a flag by Bob Stone: Named the slices."
    assert bot.store.get_summary_by_id(summary_id(second)).revision == 3
    # The first correction is marked in turn, its intro (and who flagged) kept as shown.
    (edit,) = slack.updated(CHANNEL, first.ts)
    assert [b for b in edit.blocks if b.get("block_id") != REVISED_NOTICE_ID] == shown
    assert len(summary_updates(slack)) == 2


async def test_the_correction_never_overtakes_the_thanks(bot, slack, llm, thread):
    parent, replies = thread
    transport = bot.bot.transport
    post_text = transport.post_text

    async def slow_thanks(channel: str, text: str, **kw):
        if text.startswith("Flagged as inaccurate"):
            await asyncio.sleep(0.2)  # the re-check is done long before this is sent
        return await post_text(channel, text, **kw)

    transport.post_text = slow_thanks
    llm.script([("content", answer())])
    await bot.react(CHANNEL, replies[0].ts, user="U0ALICE")
    *_, thanks, last = slack.thread(CHANNEL, parent.ts)
    assert thanks.text.startswith("Flagged as inaccurate")
    assert last.text.startswith("Revised after a flag by Alice")


async def test_nothing_to_correct_is_one_short_reply(bot, slack, llm, thread):
    parent, replies = thread
    reply = replies[0]
    llm.script([("content", answer(changed=False, note="The summary matches the diff."))])
    await bot.react(CHANNEL, reply.ts, user="U0ALICE")

    (recheck,) = in_thread(slack, parent, "Re-checked")
    assert recheck.text == (
        "Re-checked after a flag by Alice: no correction needed — The summary matches the diff."
    )
    assert corrections(slack, parent) == [] and summary_updates(slack) == []
    assert not bot.store.get_summary_by_id(summary_id(reply)).superseded


async def test_llm_text_in_the_notes_is_escaped(bot, slack, llm, thread):
    parent, replies = thread
    llm.script([("content", answer(note="Fixed <!channel> & <https://evil.example|docs>."))])
    await bot.react(CHANNEL, replies[0].ts, user="U0ALICE")
    (correction,) = corrections(slack, parent)
    assert correction.text == (
        "Revised after a flag by Alice: Fixed &lt;!channel&gt; &amp; "
        "&lt;https://evil.example|docs&gt;."
    )


async def test_a_flag_removed_before_the_recheck_finishes_posts_nothing(bot, slack, llm, thread):
    parent, replies = thread
    reply = replies[0]
    release = threading.Event()

    def slow(request: dict) -> str:  # the fake LLM thinks until the test lets it answer
        release.wait(5)
        return answer()

    llm.responder = slow
    before = len(llm.chat_requests)
    try:
        delivery = await bot.driver.react(CHANNEL, reply.ts, user="U0ALICE")
        assert delivery.status == 200 and not release.is_set()  # acked while the LLM works
        await until(lambda: len(llm.chat_requests) > before)
        await until(lambda: in_thread(slack, parent, "Flagged as inaccurate"))
        posted = len(slack.posted())
        await bot.driver.react(CHANNEL, reply.ts, user="U0ALICE", removed=True)
    finally:
        release.set()
    await bot.bot.drain(5)

    assert len(slack.posted()) == posted and summary_updates(slack) == []
    assert not bot.store.get_summary_by_id(summary_id(reply)).superseded
    outcome = bot.store.db.execute("SELECT outcome FROM revision_attempts").fetchall()
    assert outcome == [("withdrawn",)]


async def test_ten_users_flagging_at_once_cause_one_recheck(bot, slack, llm, thread):
    parent, replies = thread
    reply = replies[2]
    llm.script([("content", answer())])
    users = [f"U0USER{i}" for i in range(10)]
    deliveries = await asyncio.gather(
        *(bot.driver.react(CHANNEL, reply.ts, user=user) for user in users)
    )
    await bot.bot.drain(10)

    assert {d.status for d in deliveries} == {200}
    assert sorted(f.user for f in bot.store.active_flags(summary_id(reply))) == users
    assert revision_requests(llm) == 1
    assert len(corrections(slack, parent)) == 1
    assert len(in_thread(slack, parent, "Flagged as inaccurate")) == 1
    assert in_thread(slack, parent, "Re-checked") == []
    assert len(slack.updated(CHANNEL, reply.ts)) == 1


async def test_limited_and_failed_rechecks_post_nothing_more(bot, slack, llm, thread):
    parent, replies = thread
    reply = replies[0]
    llm.script([("status", 500)] * 8)  # every attempt of every re-check fails
    await bot.react(CHANNEL, reply.ts, user="U0ALICE")
    # A failed re-check does not use up the hour: the next flag tries again (and fails too).
    await bot.react(CHANNEL, reply.ts, user="U0BOB")
    outcomes = bot.store.db.execute("SELECT outcome FROM revision_attempts").fetchall()
    assert outcomes == [("failed",), ("failed",)]
    thread_texts = [m.text for m in slack.thread(CHANNEL, parent.ts)][len(replies) :]
    assert thread_texts == ["Flagged as inaccurate by Alice — thanks."]
    assert summary_updates(slack) == []


async def test_time_from_reaction_to_posted_correction(bot, slack, llm, thread):
    """Prints the latency of the whole loop against the fakes (see it with `pytest -s`)."""
    parent, replies = thread
    rows = []
    for reply in replies:
        llm.script([("content", answer())])
        start = time.perf_counter()
        await bot.driver.react(CHANNEL, reply.ts, user="U0ALICE")
        acked = time.perf_counter()
        seen = len(corrections(slack, parent))
        thanks = len(in_thread(slack, parent, "Flagged as inaccurate"))
        thanked = await until(
            lambda n=thanks: len(in_thread(slack, parent, "Flagged as inaccurate")) > n
        )
        corrected = await until(lambda n=seen: len(corrections(slack, parent)) > n)
        edited = await until(lambda r=reply: slack.updated(CHANNEL, r.ts))
        await bot.bot.drain(5)
        rows.append([(t - start) * 1000 for t in (acked, thanked, corrected, edited)])
    print("\nreaction → (ms)   ack   thanks   correction   original edited")
    for i, (a, t, c, e) in enumerate(rows, 1):
        print(f"  flag {i}        {a:6.1f} {t:7.1f} {c:11.1f} {e:14.1f}")
    median = statistics.median(r[2] for r in rows)
    print(f"  median reaction → posted correction: {median:.1f} ms (fakes, pace 0)")
    assert max(r[2] for r in rows) < 5000
