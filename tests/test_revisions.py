"""A flagged summary is re-checked with a deeper pass and kept as a new version."""

from __future__ import annotations

import json
from datetime import date, timedelta
from types import SimpleNamespace

import pytest

from bot.app.compose import build_service
from bot.chat.flags.loop import FlagLoop
from bot.chat.flags.record import FlagRecords
from bot.chat.flags.revisions import RevisionService
from bot.chat.posting import DigestPoster
from bot.core.clock import utcnow
from bot.core.day_window import day_window
from bot.core.models import PostRecord
from bot.core.settings import Settings
from bot.ports.chat import Posted, Reaction
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile


def revised_answer(changed: bool = True) -> str:
    return json.dumps(
        {"headline": "LoRA kernels use a fixed block size for several slices.",
         "what_changed": "It sets `block_n` to 64 for several slices.", "technical_impact": "Same speed.",
         "potential_risks": "None.", "key_insights": "Simpler.", "type": "TRIVIAL",
         "changed": changed, "change_note": "Corrected the description of `block_n`."}
    )  # fmt: skip


@pytest.fixture
async def posted(env, github, llm):
    """A one-PR digest, summarized and 'posted' (recorded), ready to be flagged."""
    github.add_pr(
        REPO, make_pr(1, "2026-02-23 10:00:00", file_list=[FakeFile("a.py", patch="+block_n = 64")])
    )
    settings = Settings.from_env(dotenv=False)
    store = Store(settings.db_path)
    service = build_service(settings, store)
    digest = await service.digest(REPO, day_window(date(2026, 2, 23), settings.timezone))
    summary = digest.entries[0].summary
    record = store.begin_post(
        PostRecord("slack", "C1", REPO, "2026-02-23", 1, "", "T", summary.id), "pr"
    )
    store.complete_post(record.id, "M1", "T")
    yield settings, store, service, summary
    await service.aclose()


def reaction(user="U1", added=True) -> Reaction:
    """A ❌ on the posted summary's message, as an adapter hands it over."""
    return Reaction("slack", "C1", "M1", user, "❌", added)


def add_flag(records: FlagRecords, user="U1"):
    return records.added(reaction(user), records.post_of(reaction(user)))


def flag(store, user="U1"):
    return add_flag(FlagRecords(store), user).flag


async def test_a_flag_makes_a_deeper_pass_and_a_new_version(posted, llm):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer())])
    outcome = await RevisionService(store, service, settings).on_flag(flag(store))
    assert outcome.status == "revised"
    assert (
        outcome.new.revision == 2
        and outcome.new.change_note == "Corrected the description of `block_n`."
    )
    assert store.get_summary_by_id(summary.id).superseded
    request = llm.chat_requests[-1]
    assert request["response_format"]["json_schema"]["name"] == "pr_summary_revision"
    assert "flagged the summary below as inaccurate" in request["messages"][1]["content"]
    assert "Current summary:" in request["messages"][1]["content"]
    assert (
        "as described in its title"
        in request["messages"][1]["content"].split("Current summary:")[1]
    )
    # The report now shows the revised text, marked as such.
    entry = service.cached_entry(REPO, 1)
    assert entry.summary.id == outcome.new.id


async def test_nothing_to_correct_is_said_instead_of_reposting(posted, llm):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer(changed=False))])
    outcome = await RevisionService(store, service, settings).on_flag(flag(store))
    assert outcome.status == "unchanged" and not store.get_summary_by_id(summary.id).superseded


async def test_one_recheck_per_summary_per_hour_however_many_flag_it(posted, llm):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer(changed=False))])
    revisions = RevisionService(store, service, settings)
    before = llm.completions_count
    outcomes = [await revisions.on_flag(flag(store, f"U{i}")) for i in range(10)]
    assert [o.status for o in outcomes].count("unchanged") == 1
    assert {o.status for o in outcomes[1:]} == {"limited"}
    assert llm.completions_count == before + 1


async def test_100_flags_from_10_users_cause_no_rechecks_beyond_the_limits(
    posted, llm, monkeypatch
):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer(changed=False))])
    revisions = RevisionService(store, service, settings)
    before = llm.completions_count
    records = FlagRecords(store)
    for i in range(100):
        user = f"U{i % 10}"
        if i % 2:
            records.removed(reaction(user, added=False))
        outcome = add_flag(records, user)
        if outcome and outcome.new:
            await revisions.on_flag(outcome.flag)
    assert llm.completions_count - before == 1


async def test_old_summaries_are_recorded_but_not_rechecked(posted, llm):
    settings, store, service, summary = posted
    later = lambda: utcnow() + timedelta(days=settings.flag_window_days + 1)  # noqa: E731
    outcome = await RevisionService(store, service, settings, clock=later).on_flag(flag(store))
    assert outcome.status == "limited" and "older than" in outcome.note
    assert store.active_flags(summary.id)


async def test_a_flag_removed_before_the_recheck_finishes_is_not_acted_on(posted, llm):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer())])
    f = flag(store)

    original = service.summarizer

    async def summarizer_that_sees_the_unflag():
        s = await original()
        inner = s.revise

        async def revise(pr, current):
            FlagRecords(store).removed(reaction("U1", added=False))
            return await inner(pr, current)

        s.revise = revise
        return s

    service.summarizer = summarizer_that_sees_the_unflag
    outcome = await RevisionService(store, service, settings).on_flag(f)
    assert outcome.status == "withdrawn"
    assert not store.get_summary_by_id(summary.id).superseded


async def test_a_failed_recheck_does_not_use_up_the_hour(posted, llm):
    settings, store, service, summary = posted
    # A re-check gets one repair, like a first summary: two invalid answers make it fail.
    llm.script([("content", "not json"), ("content", "not json"), ("content", revised_answer())])
    revisions = RevisionService(store, service, settings)
    first = await revisions.on_flag(flag(store, "U1"))
    second = await revisions.on_flag(flag(store, "U2"))
    assert (first.status, second.status) == ("failed", "revised")
    assert store.revision_flagger(second.new.id) == "U2"


async def test_prdigest_flags_lists_and_exports_the_regression_set(posted, llm, tmp_path):
    from click.testing import CliRunner

    from bot.app.cli import cli

    settings, store, service, summary = posted
    llm.script([("content", revised_answer())])
    outcome = await RevisionService(store, service, settings).on_flag(flag(store, "U7"))
    listing = CliRunner().invoke(cli, ["flags", "--since", "2026-01-01"])
    assert listing.exit_code == 0
    assert f"{REPO}#1  summary {summary.id} (revision 1" in listing.stdout
    assert "-> revision 2" in listing.stdout and "flagged by U7" in listing.stdout
    assert "[revision held]" in listing.stdout

    out = tmp_path / "flags.jsonl"
    export = CliRunner().invoke(cli, ["flags", "--repo", REPO, "--export", str(out)])
    assert export.exit_code == 0
    (case,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert case["number"] == 1 and case["flaggers"] == ["U7"]
    assert case["diff"]["url"].endswith("/pull/1/files")
    assert case["bad_summary"]["What changed and why"] == summary.sections.what_changed
    assert case["revised_summary"]["What changed and why"] == outcome.new.sections.what_changed


async def test_a_correction_cut_off_by_a_stop_is_posted_at_the_next_start(posted, llm):
    settings, store, service, summary = posted
    llm.script([("content", revised_answer())])
    revisions = RevisionService(store, service, settings)
    await revisions.on_flag(flag(store))  # revised and saved; the process "stops" before posting

    class Answers:
        """Slack's answers as far as a correction goes: the poster records what they send."""

        def __init__(self):
            self.corrections = []

        async def send_revision(self, outcome, post, entry, tz):
            self.corrections.append(outcome)
            return Posted("M2", "T")

        async def mark_revised(self, outcome, post, old, tz, posted):
            pass

    answers = Answers()
    poster = DigestPoster(store, SimpleNamespace(platform="slack"))  # records, sends nothing
    loop = FlagLoop(FlagRecords(store), revisions, poster, answers, spawn=lambda w, what: None)
    assert await loop.resume() == 1
    (outcome,) = answers.corrections
    assert outcome.flag.user == "U1" and outcome.old.id == summary.id
    assert outcome.note == "Corrected the description of `block_n`."
    assert await loop.resume() == 0  # posted now: nothing left to resume
