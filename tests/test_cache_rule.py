"""One cache rule: a PR's current summary is the newest of its present state that no revision
superseded, the configured model and prompt version's when they wrote one. Only theirs spares
a call; another model's is still shown (`prdigest summary` names it). Digests, `/digest`'s
cost estimate, `/prsummary` and `prdigest summary` all read it through `current_summary`."""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections
from bot.ports.summarizer import SummaryWriter
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.slack import BotUnderTest

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
OLD = "gpt-4o-mini"  # the model before the change; the env's is gpt-4.1-mini


def summaries_by(store: Store, model: str) -> int:
    return store.db["summaries"].count_where("model = ?", [model])


async def test_after_a_model_change_the_digest_cost_is_the_summaries_then_made(
    env, slack, github, llm
):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2, 3)])
    before = BotUnderTest(replace(env, model=OLD), slack)
    try:
        await before.command("/digest", DAY, channel="C0BEFORE")
    finally:
        await before.aclose()
    bot = BotUnderTest(env, slack)  # the model is changed: env's
    commands = bot.bot.core.commands
    try:
        request = commands.digest_request(DAY, CHANNEL)
        estimate = await commands.digest_cost(request)  # was 0: any model's summary counted
        await bot.command("/digest", DAY, channel=CHANNEL)
        made = summaries_by(bot.store, env.model)
        kept = summaries_by(bot.store, OLD)  # still there: `prdigest summary` shows them
        after = await commands.digest_cost(request)
    finally:
        await bot.aclose()
    assert kept == 3
    assert estimate == made == 3
    assert after == 0


async def test_prsummary_still_shows_another_models_summary_at_once(env, slack, github, llm):
    github.add_prs(REPO, [make_pr(1, f"{DAY} 10:00:00")])
    bot = BotUnderTest(replace(env, model=OLD), slack)
    try:
        await bot.command("/prsummary", "1")
    finally:
        await bot.aclose()
    calls = llm.completions_count
    bot = BotUnderTest(env, slack)
    try:
        again = await bot.command("/prsummary", "1")
    finally:
        await bot.aclose()
    assert not again.text.startswith("Summarizing")  # answered from the store
    assert llm.completions_count == calls


PR = PullRequest(REPO, 7, "t", f"https://github.com/{REPO}/pull/7", "a", "merged", head_sha="s2")
NOW = SummaryWriter("new-model", "v2")


def stored(store: Store, model: str, prompt: str = "v2", sha: str = "s2") -> PRSummary:
    return store.save_summary(
        PRSummary(
            repo=REPO,
            number=7,
            revision_sha=sha,
            prompt_version=prompt,
            model=model,
            change_type=ChangeType.TRIVIAL,
            sections=SummarySections("w", "t", "p", "k"),
            files_covered=1,
            files_total=1,
        )  # fmt: skip
    )


def test_the_configured_writers_summary_is_current_and_up_to_date_even_when_older():
    store = Store(":memory:")
    mine = stored(store, "new-model")
    stored(store, "old-model")  # written later, by another model
    current = store.current_summary(PR, NOW)
    assert current is not None and current.summary.id == mine.id and current.up_to_date


def test_another_models_summary_is_current_but_not_up_to_date():
    store = Store(":memory:")
    stored(store, "new-model", prompt="v1")  # an older prompt version is another writer
    theirs = stored(store, "old-model")
    current = store.current_summary(PR, NOW)
    assert current is not None and current.summary.id == theirs.id and not current.up_to_date
    assert store.get_summary(REPO, 7, "s2", "v2", "new-model") is None


def test_no_summary_of_the_prs_present_state_is_no_current_summary():
    store = Store(":memory:")
    stored(store, "new-model", sha="s1")  # written while the PR was open, at another head
    assert store.current_summary(PR, NOW) is None
    assert store.current_summary(PR, None) is None


def test_a_superseded_summary_is_never_current():
    store = Store(":memory:")
    old = stored(store, "new-model")
    new = store.save_summary(replace(old, id=None, revision=2))
    store.supersede(old.id, new.id)
    current = store.current_summary(PR, NOW)
    assert current is not None and current.summary.id == new.id and current.up_to_date


def test_with_no_model_configured_the_newest_summary_is_current_and_up_to_date():
    store = Store(":memory:")
    stored(store, "new-model")
    newest = stored(store, "old-model")
    current = store.current_summary(PR, None)
    assert current is not None and current.summary.id == newest.id and current.up_to_date
