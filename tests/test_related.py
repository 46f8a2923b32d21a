"""Related PRs: a revert is tied to the PR it reverts, and a follow-up to the PR it follows up.

Titles and bodies below are written the way vLLM's really are: GitHub's revert button, `git
revert` of a squash commit, "Revert #N", the PR template's untouched "FIX #xxxx" line.
Referenced PRs are found in the day, then the store, and only then with one GitHub call per
number; a number that is an issue is remembered and never asked about again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date
from pathlib import Path

import pytest

from bot.core.day_window import day_window
from bot.core.errors import NotFoundError, SourceError
from bot.core.models import DigestEntry, PullRequest, RelatedPR, RelationKind
from bot.core.reverts import RevertRef, followup_refs, is_revert, revert_target
from bot.digest.related import find_related
from bot.store.store import Store
from tests.conftest import REPO, pacific

DAY = day_window(date(2026, 2, 9), "America/Los_Angeles")
SHA = "f69b903b4c70716224b3936cb8503e562e25388e"
BENCH_FIX = "[Bugfix] Add `--trust-remote-code` to dataset bench args"

# vLLM's PR template, as authors leave it.
TEMPLATE = """<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS ABOVE HAVE BEEN CONSIDERED.

## Purpose

## Test Plan

## Test Result

FIX #xxxx (*link existing issues this PR will resolve*)

<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] The test plan, such as providing test command.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)
"""  # noqa: E501


def pr(number: int, title: str, body: str = "", *, merged: str | None = "2026-02-09 12:00:00",
       sha: str | None = None, state: str = "open") -> PullRequest:  # fmt: skip
    """A PR of REPO; `merged` is a Pacific wall-clock time (None: `state`, not merged)."""
    return PullRequest(
        repo=REPO,
        number=number,
        title=title,
        url=f"https://github.com/{REPO}/pull/{number}",
        author="someone",
        state="merged" if merged else state,
        body=body,
        merged_at=pacific(merged).astimezone(UTC) if merged else None,
        merge_commit_sha=sha or f"{number:07d}" + "0" * 33,
    )


def day(*prs: PullRequest) -> list[DigestEntry]:
    return [DigestEntry(p) for p in prs]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    db = Store(tmp_path / "related.db")
    yield db
    db.close()


class GitHub:
    """`fetch_pr` as `DigestService.pull_request` behaves: it stores what it fetches, and
    raises NotFoundError for an issue's number. Counts its calls."""

    def __init__(self, store: Store, *prs: PullRequest):
        self.store = store
        self.prs = {p.number: p for p in prs}
        self.issues: set[int] = set()
        self.failing = False  # GitHub answering 502
        self.calls: list[int] = []

    async def fetch_pr(self, repo: str, number: int) -> PullRequest:
        assert repo == REPO
        self.calls.append(number)
        if self.failing:
            raise SourceError(f"GitHub answered 502 while reading PR #{number}")
        if number in self.prs:
            self.store.save_pr(self.prs[number])
            return self.prs[number]
        if number in self.issues:
            raise NotFoundError(f"{REPO}#{number} is an issue, not a pull request")
        raise NotFoundError(f"{REPO}#{number} not found")


async def related(entries, store: Store, github: GitHub, window=DAY):
    return await find_related(entries, window, store=store, fetch_pr=github.fetch_pr)


def link(kind, p: PullRequest, merged_day: str = "2026-02-09", same_day: bool = True):
    return RelatedPR(kind=kind, number=p.number, title=p.title, url=p.url,
                     merged_day=merged_day, same_day=same_day)  # fmt: skip


# -- reading a revert ------------------------------------------------------------------------


def test_revert_number_in_the_title():
    assert revert_target(pr(34216, "Revert #34208")) == RevertRef(number=34208)


def test_revert_made_with_githubs_button():
    revert = pr(34216, f'Revert "{BENCH_FIX}"', "Reverts vllm-project/vllm#34208\n\nBreaks serve.")
    assert revert_target(revert) == RevertRef(number=34208, title=BENCH_FIX)


def test_revert_made_with_git_revert_of_the_squash_commit():
    revert = pr(34216, f'Revert "{BENCH_FIX} (#34208)"',
                f"This reverts commit {SHA}.\n\nSigned-off-by: DarkLight1337 <x@y.z>")  # fmt: skip
    assert revert_target(revert) == RevertRef(number=34208, sha=SHA, title=BENCH_FIX)


def test_revert_naming_only_the_commit():
    revert = pr(34216, "[Bench] Put --trust-remote-code back", "This reverts commit F69B903B4C.")
    assert is_revert(revert)
    assert revert_target(revert) == RevertRef(sha="f69b903b4c")


def test_revert_of_a_revert_names_the_first_revert_by_title():
    revert = pr(34300, f'Revert "Revert "{BENCH_FIX}""')
    assert revert_target(revert) == RevertRef(title=f'Revert "{BENCH_FIX}"')


@pytest.mark.parametrize(
    "title, body",
    [
        ("[Revert] Undo the scheduler change", ""),  # a revert that names nothing
        ('Revert "x"', "Reverts other-org/vllm#34208"),  # quoted title only: no number
        ("[Bugfix] Reverting to the old default breaks nothing", ""),  # not a revert
        ("[Bugfix] Sort hf_weights_files to match #33491", ""),
    ],
)
def test_what_a_revert_target_is_not(title, body):
    target = revert_target(pr(34216, title, body))
    assert target is None or target.number is None


def test_a_revert_of_another_repositorys_pr_names_no_number():
    revert = pr(34216, "Undo", "Reverts other-org/vllm#34208")
    assert is_revert(revert)
    assert revert_target(revert) is None


# -- reading a follow-up ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "title, body, numbers",
    [
        ("[Bugfix] Follow-up to #34208: keep the flag in serve", "", [34208]),
        ("[Core] Tidy the scheduler", "This is a followup of #34100.", [34100]),
        ("[Core] Tidy", "Follow up on https://github.com/vllm-project/vllm/pull/34100/files", [34100]),
        ("[Core] Tidy", "follows up on [#34100](https://github.com/vllm-project/vllm/pull/34100)", [34100]),
        ("[Bugfix] Fix the MoE crash", "Fixes #34111, #34112 and #34113", [34111, 34112, 34113]),
        ("[CI] Re-enable the test after #34190", "", [34190]),
        ("[Core] Tidy (follow-up to #2)", "FIXES: vllm-project/vllm#3\n\nfixes #2", [2, 3]),
    ],
)  # fmt: skip
def test_a_follow_up_is_read_from_its_title_and_description(title, body, numbers):
    assert followup_refs(pr(34216, title, body)) == numbers


@pytest.mark.parametrize(
    "title, body",
    [
        ("[Core] Tidy", TEMPLATE),  # the template's "FIX #xxxx" and "Fix some issue"
        ("[Core] Tidy", "Follow-up to other-org/vllm#34208 and https://github.com/a/b/pull/9"),
        ("[Core] Tidy (#34216)", "Fixes #34216"),  # itself
        ("[Bugfix] Sort hf_weights_files to match #33491", "See #34000."),  # no such words
        ("[Core] Tidy", "```\nfixes #34000\n```\nand `after #34001`<!-- fixes #34002 -->"),
        ("[Core] Tidy", "Fixes https://github.com/vllm-project/vllm/issues/34003"),  # an issue
        ("[Doc] Prefixes #34004 with suffixes", ""),
    ],
)
def test_what_is_not_a_follow_up(title, body):
    assert followup_refs(pr(34216, title, body)) == []


# -- reverts, resolved -----------------------------------------------------------------------


async def test_merged_then_reverted_the_same_day_ties_both_ways(store):
    original = pr(34208, BENCH_FIX, merged="2026-02-09 22:37:50", sha=SHA)
    revert = pr(34216, "Revert #34208", merged="2026-02-09 23:59:04")
    github = GitHub(store)

    found = await related(day(revert, original), store, github)

    assert found == {
        34208: (link(RelationKind.REVERTED_BY, revert),),
        34216: (link(RelationKind.REVERTS, original),),
    }
    assert github.calls == []


async def test_a_same_day_revert_is_found_by_its_commit_or_its_title_too(store):
    original = pr(34208, BENCH_FIX, merged="2026-02-09 22:37:50", sha=SHA)
    by_commit = pr(34216, "[Bench] Put it back", f"This reverts commit {SHA[:10]}.")
    by_title = pr(34217, f'Revert "{BENCH_FIX}"')
    github = GitHub(store)

    found = await related(day(original, by_commit, by_title), store, github)

    assert found[34216] == (link(RelationKind.REVERTS, original),)
    assert found[34217] == (link(RelationKind.REVERTS, original),)
    assert found[34208] == (link(RelationKind.REVERTED_BY, by_commit),
                            link(RelationKind.REVERTED_BY, by_title))  # fmt: skip
    assert github.calls == []


@pytest.mark.parametrize(
    "title, body",
    [
        ("Revert #34208", ""),
        ("[Bench] Put it back", f"This reverts commit {SHA[:7]}."),
        (f'Revert "{BENCH_FIX}"', ""),
    ],
)
async def test_revert_of_an_earlier_stored_pr_makes_no_call(store, title, body):
    original = pr(34208, BENCH_FIX, merged="2026-01-20 10:00:00", sha=SHA)
    store.save_pr(original)
    revert = pr(34216, title, body)
    github = GitHub(store)

    found = await related(day(revert), store, github)

    # Any age: a revert names exactly what it undoes (unlike a loose "after #N").
    assert found == {34216: (link(RelationKind.REVERTS, original, "2026-01-20", False),)}
    assert github.calls == []


async def test_revert_of_an_earlier_pr_not_in_the_store_makes_one_call(store):
    original = pr(34208, BENCH_FIX, merged="2026-02-05 10:00:00", sha=SHA)
    github = GitHub(store, original)
    revert = pr(34216, f'Revert "{BENCH_FIX}"', "Reverts vllm-project/vllm#34208")

    found = await related(day(revert), store, github)
    assert found == {34216: (link(RelationKind.REVERTS, original, "2026-02-05", False),)}
    assert github.calls == [34208]

    await related(day(revert), store, github)  # stored now: no second call
    assert github.calls == [34208]


async def test_revert_with_an_unknown_commit_and_title_links_nothing_and_calls_nothing(store):
    revert = pr(34216, "[Bench] Put it back", f"This reverts commit {SHA}.")
    github = GitHub(store)
    assert await related(day(revert), store, github) == {}
    assert github.calls == []


# -- follow-ups, resolved --------------------------------------------------------------------


async def test_follow_up_to_a_stored_pr_of_an_earlier_day(store):
    earlier = pr(34100, "[Core] Add the new scheduler", merged="2026-02-06 09:00:00")
    store.save_pr(earlier)
    follow_up = pr(34200, "[Core] Follow-up to #34100: drop the old path")
    github = GitHub(store)

    found = await related(day(follow_up), store, github)

    assert found == {34200: (link(RelationKind.FOLLOWS_UP, earlier, "2026-02-06", False),)}
    assert github.calls == []


async def test_after_a_pr_of_the_same_day_ties_both_ways(store):
    first = pr(34190, "[Bugfix] Sort hf_weights_files", merged="2026-02-09 08:00:00")
    second = pr(34195, "[CI] Re-enable the loader test after #34190", merged="2026-02-09 09:00:00")
    github = GitHub(store)

    found = await related(day(second, first), store, github)

    assert found == {
        34190: (link(RelationKind.FOLLOWED_UP_BY, second),),
        34195: (link(RelationKind.FOLLOWS_UP, first),),
    }
    assert github.calls == []


async def test_fixes_an_issue_costs_one_call_ever(store):
    fix = pr(34200, "[Bugfix] Fix the MoE crash", "Fixes #34111\n\nSigned-off-by: a <a@b.c>")
    github = GitHub(store)
    github.issues.add(34111)

    assert await related(day(fix), store, github) == {}
    assert github.calls == [34111]
    assert store.is_not_pr(REPO, 34111)

    assert await related(day(fix), store, github) == {}  # the next digest, or a re-run
    assert github.calls == [34111]


async def test_fixes_a_pr_not_in_the_store_costs_one_call(store):
    broken = pr(34111, "[MoE] New routing", merged="2026-02-08 17:00:00")
    fix = pr(34200, "[Bugfix] Fix the MoE crash", "Fixes #34111")
    github = GitHub(store, broken)

    found = await related(day(fix), store, github)

    assert found == {34200: (link(RelationKind.FOLLOWS_UP, broken, "2026-02-08", False),)}
    assert github.calls == [34111]


async def test_a_number_named_by_several_prs_is_asked_about_once(store):
    github = GitHub(store)
    github.issues.add(34111)
    a = pr(34200, "[Bugfix] Fix the crash", "Fixes #34111")
    b = pr(34201, "[Bugfix] Fix the crash again", "Follow-up to #34111")
    assert await related(day(a, b), store, github) == {}
    assert github.calls == [34111]


async def test_follow_ups_reach_back_14_days(store):
    # The day ends 2026-02-10 00:00 Pacific: 14 days back is 2026-01-27 00:00.
    inside = pr(34001, "[Core] A", merged="2026-01-27 00:00:00")
    outside = pr(34000, "[Core] B", merged="2026-01-26 23:59:59")
    store.save_pr(inside)
    store.save_pr(outside)
    follow_up = pr(34200, "[Core] C", "Follow-up to #34000 and #34001")
    github = GitHub(store)

    found = await related(day(follow_up), store, github)

    assert found == {34200: (link(RelationKind.FOLLOWS_UP, inside, "2026-01-27", False),)}
    assert github.calls == []


async def test_an_unmerged_pr_is_not_linked(store):
    store.save_pr(pr(34100, "[Core] Draft", merged=None))
    closed = pr(34101, "[Core] Abandoned", merged=None, state="closed")
    github = GitHub(store, closed)
    follow_up = pr(34200, "[Core] C", "Follow-up to #34100, after #34101")

    assert await related(day(follow_up), store, github) == {}
    assert github.calls == [34101]  # the stored one is taken as stored


async def test_github_failing_leaves_the_link_out_and_fails_nothing(store):
    earlier = pr(34100, "[Core] Add the new scheduler", merged="2026-02-06 09:00:00")
    github = GitHub(store, earlier)
    github.failing = True
    follow_up = pr(34200, "[Core] Follow-up to #34100")
    revert = pr(34201, "Revert #34099")

    assert await related(day(follow_up, revert), store, github) == {}
    assert github.calls == [34100, 34099]  # day PRs in number order
    assert not store.is_not_pr(REPO, 34100)  # not remembered: asked again next time

    github.failing = False
    found = await related(day(follow_up), store, github)
    assert found == {34200: (link(RelationKind.FOLLOWS_UP, earlier, "2026-02-06", False),)}
    assert github.calls == [34100, 34099, 34100]


async def test_other_repositories_and_template_text_cost_nothing(store):
    github = GitHub(store)
    prs = [
        pr(
            34200, "[Core] Follow-up to other-org/vllm#34100", "after https://github.com/a/b/pull/7"
        ),
        pr(34201, "Undo", "Reverts other-org/vllm#34208"),
        pr(34202, "[Core] Tidy", TEMPLATE),
    ]
    assert await related(day(*prs), store, github) == {}
    assert github.calls == []


async def test_links_are_listed_in_a_fixed_order(store):
    original = pr(34208, BENCH_FIX, merged="2026-02-09 08:00:00")
    other = pr(34190, "[Core] Other", merged="2026-02-09 07:00:00")
    store.save_pr(pr(34100, "[Core] Earlier", merged="2026-02-08 07:00:00"))
    revert = pr(34216, "Revert #34208", "Fixes #34190 and #34100; follow-up to #34208")
    github = GitHub(store)

    found = await related(day(other, revert, original), store, github)

    assert [(r.kind, r.number) for r in found[34216]] == [
        (RelationKind.REVERTS, 34208),  # not also a follow-up of it
        (RelationKind.FOLLOWS_UP, 34100),
        (RelationKind.FOLLOWS_UP, 34190),
    ]
    assert list(found) == [34190, 34208, 34216]


async def test_merged_day_is_in_the_digests_zone(store):
    original = pr(34208, BENCH_FIX, merged="2026-02-09 23:59:04")  # 2026-02-10 07:59 UTC
    store.save_pr(original)
    revert = pr(34216, "Revert #34208", merged="2026-02-11 10:00:00")
    pacific_day = day_window(date(2026, 2, 11), "America/Los_Angeles")
    berlin_day = day_window(date(2026, 2, 11), "Europe/Berlin")

    in_pacific = await related(day(revert), store, GitHub(store), window=pacific_day)
    in_berlin = await related(day(revert), store, GitHub(store), window=berlin_day)

    assert in_pacific[34216][0].merged_day == "2026-02-09"
    assert in_berlin[34216][0].merged_day == "2026-02-10"


# -- the store's look-ups --------------------------------------------------------------------


def test_store_finds_a_pr_by_its_merge_commit_prefix(store):
    store.save_pr(pr(34208, BENCH_FIX, sha=SHA))
    store.save_pr(pr(34100, "open", merged=None, sha="f69b903b" + "1" * 32))  # a test merge
    assert store.pr_by_merge_sha(REPO, SHA[:7]).number == 34208
    assert store.pr_by_merge_sha(REPO, SHA.upper()).number == 34208
    assert store.pr_by_merge_sha(REPO, SHA[:6]) is None  # too short to mean one commit
    assert store.pr_by_merge_sha("other/repo", SHA) is None
    store.save_pr(pr(34209, "twin", sha="f69b903b" + "2" * 32))
    assert store.pr_by_merge_sha(REPO, SHA[:8]) is None  # ambiguous
    assert store.pr_by_merge_sha(REPO, SHA[:9]).number == 34208


def test_store_finds_the_latest_merged_pr_by_title(store):
    store.save_pr(pr(34000, BENCH_FIX, merged="2026-01-01 10:00:00"))
    store.save_pr(pr(34208, BENCH_FIX, merged="2026-02-09 10:00:00"))
    store.save_pr(pr(34300, BENCH_FIX, merged=None))
    assert store.merged_pr_by_title(REPO, BENCH_FIX).number == 34208
    assert store.merged_pr_by_title(REPO, BENCH_FIX.lower()) is None


def test_store_remembers_numbers_that_are_not_prs(store):
    assert not store.is_not_pr(REPO, 34111)
    store.mark_not_pr(REPO, 34111)
    store.mark_not_pr(REPO, 34111)
    assert store.is_not_pr(REPO, 34111)
    assert not store.is_not_pr("other/repo", 34111)


def test_a_hostile_description_is_read_in_linear_time():
    # Unpaired backticks and endless keywords: a naive regex takes seconds on this.
    body = "`a" + "a " * 100_000 + "``" * 30_000 + "fixes after follow-up to " * 4_000
    started = time.perf_counter()
    assert followup_refs(pr(34216, "Revert " + '"' * 200, body)) == []
    revert_target(pr(34216, "Revert " + '"' * 200, body))
    assert time.perf_counter() - started < 1.0
