"""A tag range, the shape release notes need: `prdigest report --from v0.8.0 --to v0.9.0` and
`/digest v0.8.0..v0.9.0`, against the fake GitHub.

The PRs are those merged on the default branch between the two tags' commits: GitHub's
compare of the tags lists the commits between them (a page of 100 at a time), and the
merged PRs of the days those commits span are kept when their merge commit is one of them.
So a PR merged the base tag's day before the tag, or the head tag's day after it, or into
another branch, is left out. Its key is its tags ("v0.8.0..v0.9.0"): asking again finds the
same thread, and a crash's resume resolves the tags again.
"""

from __future__ import annotations

import re
from datetime import timedelta

from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.compose import build_service
from bot.core.filters import parse_filter_args
from bot.core.scope import DigestScope, Span, TagRange
from bot.store.store import Store
from tests.conftest import REPO, make_pr, pacific

TZ = "America/Los_Angeles"
BETWEEN = [204, 202, 201]  # newest merge first
CHANNEL = "C0DIGEST"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def add_release(github) -> None:
    """v0.8.0 tags #200's merge (2026-02-01), v0.9.0 tags #204's (2026-02-05); between them
    #201, #202 and #204. Left out: #199 (before), #200 (the base itself), #203 (merged into
    a release branch), #205 (merged after v0.9.0, the same day)."""
    prs = [
        make_pr(199, "2026-01-31 16:00:00"),
        make_pr(200, "2026-02-01 10:00:00"),
        make_pr(201, "2026-02-01 12:00:00"),
        make_pr(202, "2026-02-03 09:00:00"),
        make_pr(203, "2026-02-03 10:00:00", base_ref="release"),
        make_pr(204, "2026-02-05 08:00:00"),
        make_pr(205, "2026-02-05 09:00:00"),
    ]
    github.add_prs(REPO, prs)
    github.add_tag(REPO, "v0.8.0", prs[1].merge_commit_sha)
    github.add_tag(REPO, "v0.9.0", prs[5].merge_commit_sha)


def pr_lines(report: str) -> list[int]:
    return [int(n) for n in re.findall(r"^- #(\d+) \[", report, re.MULTILINE)]


def compares(github) -> list[str]:
    return [r.path + "?" + r.raw_query for r in github.requests if "/compare/" in r.path]


def test_the_report_of_a_tag_range_lists_the_prs_between_the_two_tags(env, github, llm):
    add_release(github)
    result = run("report", "--from", "v0.8.0", "--to", "v0.9.0")
    assert result.exit_code == 0, result.output
    report = result.stdout
    assert report.startswith(
        "# vllm Merged PR Rollup\n\n**Tags:** v0.8.0..v0.9.0: the PRs merged between the two "
        "tags, 2026-02-01 to 2026-02-05 (America/Los_Angeles)\n\n**Total Merged PRs:** 3\n\n"
    )
    assert sorted(pr_lines(report)) == sorted(BETWEEN)
    days = re.findall(r"\| (\w{3} \d\d-\d\d) \| (\d+) \|", report)
    assert days == [("Sun 02-01", "1"), ("Mon 02-02", "0"), ("Tue 02-03", "1"),
                    ("Wed 02-04", "0"), ("Thu 02-05", "1")]  # fmt: skip
    # The compare is asked once; the days its commits span are built (the day's other PRs
    # are summarized as the day's digest would) and announced before any LLM call.
    assert compares(github) == [f"/repos/{REPO}/compare/v0.8.0...v0.9.0?page=1&per_page=100"]
    assert "Building 5 days first: about 5 new summaries (5 LLM calls)…" in result.stderr


def test_a_compare_of_more_than_a_page_is_read_to_its_end(env, github):
    add_release(github)
    start = pacific("2026-02-02 00:00:00")
    for n in range(150):  # pushed between the tags, none a PR's merge
        github.add_commit(REPO, f"chore: bump {n}", start + timedelta(minutes=n))
    result = run("report", "--from", "v0.8.0", "--to", "v0.9.0")
    assert sorted(pr_lines(result.stdout)) == sorted(BETWEEN)
    assert [q.rsplit("?", 1)[1] for q in compares(github)] == [
        "page=1&per_page=100",
        "page=2&per_page=100",
    ]


def test_a_tag_range_over_the_limit_is_refused_before_any_llm_call(env, github, llm):
    github.add_prs(REPO, [make_pr(1, "2026-01-01 10:00:00"), make_pr(2, "2026-02-09 10:00:00")])
    github.add_tag(REPO, "v0.1.0", github.repo(REPO).pulls[1].merge_commit_sha)
    github.add_tag(REPO, "v0.2.0", github.repo(REPO).pulls[2].merge_commit_sha)
    result = run("report", "--from", "v0.1.0", "--to", "v0.2.0")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: A range is at most 31 days (PRDIGEST_RANGE_MAX_DAYS); v0.1.0..v0.2.0 is 40\n"
    )
    assert llm.requests == []
    assert not any("/search/" in r.path for r in github.requests)  # no day was listed


def test_an_unknown_tag_is_named(env, github, llm):
    add_release(github)
    result = run("report", "--from", "v0.8.0", "--to", "v9.9.9")
    assert result.exit_code == 2
    assert result.stderr == f"Error: {REPO} has no tag v9.9.9\n"
    assert llm.requests == []


def test_tags_in_the_wrong_order_say_so(env, github, llm):
    add_release(github)
    result = run("report", "--from", "v0.9.0", "--to", "v0.8.0")
    assert result.stderr == (
        f"Error: Nothing was merged into {REPO} between v0.9.0 and v0.8.0: "
        "name the older tag first\n"
    )
    assert llm.requests == []


def test_a_tag_ranges_key_names_its_tags_and_reads_back_to_be_resolved():
    flt = parse_filter_args("paths:docs/**")
    assert DigestScope.from_post_key(REPO, "v0.8.0..v0.9.0", TZ) == TagRange(
        REPO, "v0.8.0", "v0.9.0", TZ
    )
    assert DigestScope.from_post_key(REPO, "v0.8.0..v0.9.0 paths:docs/**", TZ) == TagRange(
        REPO, "v0.8.0", "v0.9.0", TZ, flt
    )
    resolved = TagRange(REPO, "v0.8.0", "v0.9.0", TZ, flt).resolved(
        REPO, pacific("2026-02-01 00:00:00").date(), pacific("2026-02-05 00:00:00").date()
    )
    assert resolved.span == Span.RANGE and len(resolved.days) == 5
    assert resolved.post_key == "v0.8.0..v0.9.0 paths:docs/**"
    assert resolved.shown_day == "v0.8.0..v0.9.0 (2026-02-01 to 2026-02-05)"


async def test_a_resumed_tag_range_is_resolved_again_from_its_key(env, github, llm):
    """What a crash's resume does with a posted tag range: its key back to a scope, built."""
    add_release(github)
    store = Store(env.db_path)
    service = build_service(env, store)
    try:
        scope = DigestScope.from_post_key(REPO, "v0.8.0..v0.9.0", TZ)
        digest = await service.build(scope)
    finally:
        await service.aclose()
        store.close()
    assert [e.pr.number for e in digest.entries] == BETWEEN
    assert digest.week is not None and len(digest.week.days) == 5


async def test_digest_of_a_tag_range_posts_once_in_slack(bot, slack, github, llm):
    add_release(github)
    delivery = await bot.command("/digest", "v0.8.0..v0.9.0")
    assert delivery.text.startswith(f"Preparing the digest of {REPO} for v0.8.0..v0.9.0")
    parent, *replies = slack.posted(CHANNEL)
    assert parent.metadata["event_payload"]["scope"] == "v0.8.0..v0.9.0"
    assert "vllm v0.8.0..v0.9.0 rollup · 2026-02-01 to 2026-02-05" in parent.text
    shown = re.findall(r"pull/(\d+)\|#\1 ", "\n".join(str(r.blocks) for r in replies))
    assert sorted(map(int, shown)) == sorted(BETWEEN)

    posts, calls = len(slack.posted()), llm.completions_count
    again = await bot.command("/digest", "v0.8.0..v0.9.0")
    assert "is already in this channel" in again.text
    assert len(slack.posted()) == posts and llm.completions_count == calls
    assert len(compares(github)) == 1  # the second ask needed no GitHub call at all
