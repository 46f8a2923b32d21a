"""`prdigest search`: the stored PRs that match, best first; each filter; file paths found by
their parts; hostile query text; the index kept in step by triggers and migrations."""

from __future__ import annotations

import json
import os
from datetime import date

import pytest
from click.testing import CliRunner
from sqlite_utils import Database

from bot.app.cli import cli
from bot.core.errors import UserInputError
from bot.core.models import ChangeType, SummarySections
from bot.core.search import SearchTerms, parse_search_words
from bot.digest.search import fts_query, phrases, search
from bot.store.migrations import migrations
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.search_corpus import busy_day, stored_pr

TZ = "America/Los_Angeles"


@pytest.fixture
def store(isolated_env) -> Store:
    store = Store(os.environ["PRDIGEST_DB"])
    busy_day(store)
    yield store
    store.close()


def numbers(store: Store, text: str = "", **filters) -> list[int]:
    return [pr.number for pr in search(store, SearchTerms(text=text, **filters), TZ)]


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


# -- ranking -------------------------------------------------------------------------------


def test_a_word_in_the_title_ranks_above_the_same_word_in_a_section(store):
    # 35156 and 35160 have LoRA in their titles; 35170 mentions it in passing.
    assert numbers(store, "lora")[-1] == 35170
    assert set(numbers(store, "lora")[:2]) == {35156, 35160}


def test_every_word_must_match(store):
    assert numbers(store, "lora kernels") == [35156]
    assert numbers(store, "lora attention") == []


def test_words_are_stemmed(store):
    assert numbers(store, "caches") == [35170]  # "caching"
    assert numbers(store, "hashing") == [35170]  # "hashes"


def test_a_quoted_phrase_is_matched_as_a_phrase(store):
    assert numbers(store, '"prefix caching"') == [35170]
    assert numbers(store, '"caching prefix"') == []


def test_a_pr_is_found_by_its_number_author_and_labels(store):
    assert numbers(store, "#35180") == [35180]
    assert numbers(store, "jeejeelee") == [35156]
    assert numbers(store, "ready") == [35156]


# -- file paths ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["fused_moe_lora", "fused_moe_lora_op.py", "triton_ops", "lora/ops", "moe"]
)
def test_a_file_path_is_found_by_its_parts(store, query):
    assert numbers(store, query)[0] == 35156


def test_the_users_words_are_cut_as_the_index_cuts_paths():
    assert phrases("fused_moe_lora vllm/lora/ops x.py") == [
        "fused moe lora",
        "vllm lora ops",
        "x py",
    ]
    assert fts_query(phrases("fused_moe_lora lora")) == '"fused moe lora" "lora"'


# -- filters -------------------------------------------------------------------------------


def test_since_and_until_are_days_in_the_zone(store):
    assert sorted(numbers(store, "lora", since=date(2026, 2, 21))) == [35156, 35170]
    assert numbers(store, "lora", until=date(2026, 2, 20)) == [35160]
    assert numbers(store, since=date(2026, 2, 22), until=date(2026, 2, 22)) == [35180]


def test_area_is_the_digests_area(store):
    assert numbers(store, "lora", area="LoRA") == [35156]  # the Doc PR is under "Doc"
    assert numbers(store, "lora", area="doc") == [35160]
    assert numbers(store, area="rocm") == [35180]
    assert numbers(store, "lora", area="ROCm") == []


def test_author_is_any_case(store):
    assert numbers(store, "lora", author="BOB") == [35160]


def test_type_is_the_summarys(store):
    assert numbers(store, "lora", change_type=ChangeType.TRIVIAL) == [35160]
    assert 35160 not in numbers(store, "lora", change_type=ChangeType.SUBSTANTIAL)


def test_repo_and_limit(store):
    stored_pr(store, 12, "[LoRA] Widget adapters", repo="acme/widgets")
    assert numbers(store, "lora", repo="acme/widgets") == [12]
    assert 12 in numbers(store, "lora")  # every stored repository without --repo
    assert len(numbers(store, "lora", limit=2)) == 2


def test_filters_alone_list_the_newest_first(store):
    assert numbers(store, since=date(2026, 2, 20)) == [35156, 35180, 35170, 35160]


def test_chat_words_are_the_same_filters():
    terms = parse_search_words(
        ["fused", "moe", "since:2026-02-01", "until:2026-02-20", 'area:"Model', 'Runner"',
         "author:@alice", "type:Trivial", "repo:acme/widgets"],
        TZ,
    )  # fmt: skip
    assert terms == SearchTerms(
        text="fused moe", repo="acme/widgets", since=date(2026, 2, 1), until=date(2026, 2, 20),
        area="Model Runner", author="alice", change_type=ChangeType.TRIVIAL,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (["type:huge"], "type: 'huge' is not a type: use trivial or substantial"),
        (["since:someday"], "Bad date 'someday'"),
        (["since:2026-02-10", "until:2026-02-01"], "since 2026-02-10 is after until 2026-02-01"),
        (["author:"], "author: needs a value"),
    ],
)
def test_a_bad_filter_is_one_line(words, error):
    with pytest.raises(UserInputError, match=error.replace("(", r"\(")):
        parse_search_words(words, TZ)


# -- hostile query text --------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        '"', '""', 'NEAR(lora kernels, 2)', "*", "title:lora", "lora OR", "AND", "NOT lora",
        "^lora", "-lora", "+", "🚀", "'; DROP TABLE pull_requests; --", "{title headline}: lora",
        "\\", "\x00lora", "ｌｏｒａ", "a" * 300, "lora " * 60,
    ],
)  # fmt: skip
def test_hostile_query_text_is_never_an_error(store, query):
    assert isinstance(numbers(store, query), list)  # never an FTS5 syntax error
    assert numbers(store, "lora")  # and the index is still there


@pytest.mark.parametrize("query", ['lora"', "lora*", "(lora", "lora)", "lora 🚀", '"lora'])
def test_syntax_around_a_word_leaves_the_word(store, query):
    assert 35156 in numbers(store, query)


def test_text_with_nothing_searchable_finds_nothing(store):
    assert numbers(store, '🚀 * "') == []
    assert fts_query(phrases('🚀 * " ()')) is None


# -- the index -------------------------------------------------------------------------------


def test_a_summary_is_searchable_the_moment_it_is_stored(store):
    stored_pr(store, 40001, "[Model] Add Grok 3", what="Adds the xylophone loader.")
    assert numbers(store, "xylophone") == [40001]


def test_a_pr_without_a_summary_is_found_by_its_title(store):
    stored_pr(store, 40002, "[Bugfix] Fix the quokka parser", summarized=False)
    (found,) = search(store, SearchTerms(text="quokka"), TZ)
    assert (found.number, found.headline) == (40002, "")


def test_after_a_revision_the_pr_is_shown_through_the_revised_summary(store):
    old = stored_pr(store, 40003, "[Core] Tune the allocator", headline="Adds a zebra cache.",
                    what="Adds a zebra cache to the allocator.")  # fmt: skip
    new = store.save_summary(
        old.__class__(
            **{
                **old.__dict__,
                "id": None,
                "revision": 2,
                "change_note": "No cache is added.",
                "sections": SummarySections(
                    "Tunes the allocator's giraffe pool.",
                    "i",
                    "r",
                    "k",
                    headline="Tunes the giraffe pool.",
                ),
            },
        )  # fmt: skip
    )
    store.supersede(old.id, new.id)
    (by_new,) = search(store, SearchTerms(text="giraffe"), TZ)
    (by_old,) = search(store, SearchTerms(text="zebra"), TZ)  # found through the revision
    assert by_new.number == by_old.number == 40003
    assert by_new.headline == by_old.headline == "Tunes the giraffe pool."
    # The corrected words rank below a PR that still says them in its current summary.
    stored_pr(store, 40004, "[Core] Zebra", headline="Adds a zebra cache.")
    assert numbers(store, "zebra") == [40004, 40003]


def test_a_refreshed_summary_replaces_its_words(store):
    summary = stored_pr(store, 40005, "[Core] Pool", what="Mentions a walrus.")
    store.save_summary(
        summary.__class__(**{**summary.__dict__, "id": None,
                             "sections": SummarySections("Mentions a narwhal.", "i", "r", "k")})
    )  # fmt: skip
    assert numbers(store, "walrus") == [] and numbers(store, "narwhal") == [40005]


def test_the_migration_indexes_what_an_older_release_stored(isolated_env):
    path = str(isolated_env / "old.db")
    db = Database(path)
    migrations.apply(db, stop_before="m013_search_index")  # the release before search
    db["pull_requests"].insert(
        {"repo": REPO, "number": 7, "title": "[Kernel] Old platypus kernel", "state": "merged",
         "url": f"https://github.com/{REPO}/pull/7", "author": "dave", "labels": '["perf"]',
         "merged_at": "2026-01-05T20:00:00+00:00"}
    )  # fmt: skip
    db["pr_files"].insert({"repo": REPO, "number": 7, "position": 0, "filename": "csrc/wombat.cu"})
    db["summaries"].insert(
        {"repo": REPO, "number": 7, "revision_sha": "x", "prompt_version": "3c", "model": "m",
         "revision": 1, "change_type": "SUBSTANTIAL", "what_changed": "Speeds up the kernel.",
         "technical_impact": "", "potential_risks": "", "key_insights": "",
         "headline": "An old headline."}
    )  # fmt: skip
    db.conn.close()
    store = Store(path)  # opening it upgrades it
    (found,) = search(store, SearchTerms(text="wombat"), TZ)
    assert (found.number, found.day, found.headline) == (7, "2026-01-05", "An old headline.")
    assert numbers(store, "perf platypus") == [7]


# -- the command -----------------------------------------------------------------------------


def test_the_command_prints_one_line_a_pr(store):
    result = run("search", "fused_moe_lora")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "#35156  2026-02-23  [LoRA] Fuse the MoE LoRA kernels — LoRA adapters on MoE models run "
        f"in one fused kernel.  <https://github.com/{REPO}/pull/35156>"
    ]


def test_json_is_a_list_of_objects(store):
    result = run("search", "lora", "--json", "--since", "2026-02-21", "--type", "substantial")
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)
    assert [item["number"] for item in items] in ([35156, 35170], [35170, 35156])
    assert set(items[0]) >= {"number", "repo", "day", "title", "headline", "url"}
    assert items[0]["repo"] == REPO and items[0]["url"].startswith("https://github.com/")


def test_every_filter_option(store):
    result = run("search", "lora", "--area", "Doc", "--author", "bob", "--until", "2026-02-20",
                 "--repo", REPO, "--limit", "3", "--json")  # fmt: skip
    assert [item["number"] for item in json.loads(result.stdout)] == [35160]


def test_no_match_is_an_empty_list_and_a_line_on_stderr(store):
    result = run("search", "nothing-like-this", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert "No stored PR matches" in result.stderr


def test_an_empty_store_says_so(isolated_env):
    result = run("search", "lora")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith("Nothing is stored yet")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["lora", "--type", "big"], "Error: type: 'big' is not a type: use trivial or substantial"),
        (["lora", "--since", "tomorrow"], "Error: Bad date 'tomorrow'"),
        (["lora", "--repo", "nope"], "Error: 'nope' is not a repository: use owner/name"),
    ],
)
def test_a_bad_option_is_one_line(isolated_env, args, error):
    result = run("search", *args)
    assert result.exit_code == 2 and result.stderr.startswith(error)
    assert "Traceback" not in result.output


def test_a_digest_the_pipeline_stores_is_searchable(env, github):
    github.add_pr(REPO, make_pr(35201, "2026-02-23 10:00:00", title="[Frontend] Add ocelot mode"))
    assert run("report", "--date", "2026-02-23", "-o", "report.md").exit_code == 0
    result = run("search", "ocelot", "--json")
    (item,) = json.loads(result.stdout)
    assert item["number"] == 35201 and item["headline"]
