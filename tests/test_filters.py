"""Subscription filters: AND between kinds, OR within one, excludes win; `paths` and
`codeowners` decided file by file; the same filter from chat, prdigest.toml and the store."""

from __future__ import annotations

import tomllib

import pytest

from bot.core.codeowners import parse_codeowners
from bot.core.errors import ConfigurationError, UserInputError
from bot.core.filters import (
    FILTER_KEYS,
    BotMode,
    FilterConfigError,
    SubscriptionFilter,
    Terms,
    check_path_pattern,
    is_filter_word,
    parse_filter_args,
    split_filter_words,
)
from bot.core.models import ChangedFile, ChangeType, PullRequest

SUBSTANTIAL, TRIVIAL = ChangeType.SUBSTANTIAL, ChangeType.TRIVIAL

# Real vLLM PRs of 2026-02-23/24 (files as GitHub listed them).
MAMBA1 = ("vllm/v1/attention/backends/mamba1_attn.py",)  # #35054
FLASHINFER = (
    "tests/kernels/attention/test_flashinfer.py",
    "vllm/v1/attention/backends/flashinfer.py",
)
XPU_ENCODER = (
    "vllm/model_executor/layers/attention/mm_encoder_attention.py",
    "vllm/platforms/xpu.py",
)
ROCM_PLATFORM = ("vllm/config/vllm.py", "vllm/platforms/interface.py", "vllm/platforms/rocm.py")
ATTN_DOCS = (
    "docs/design/attention_backends.md",
    "tools/pre_commit/generate_attention_backend_docs.py",
)
ROCM_DOCKER = ("docker/Dockerfile.rocm_base",)  # #34032
LORA = ("vllm/lora/ops/triton_ops/utils.py",)  # #32621
QWEN_AND_CORE = ("vllm/model_executor/models/qwen3_next.py", "vllm/v1/core/sched/scheduler.py")
QWEN_ONLY = ("vllm/model_executor/models/qwen3_next.py", "vllm/model_executor/models/registry.py")

CODEOWNERS = parse_codeowners(
    """\
/vllm/v1/attention @LucasWilkinson @MatthewBonanni
/vllm/v1/attention/backends/flashinfer.py @mgoin @pavanimajety
/vllm/lora @jeejeelee
/vllm/**/*rocm* @tjtanaa @vllm-project/rocm-team
/docker/Dockerfile.rocm* @tjtanaa @vllm-project/rocm-team
/docs/design @vllm-project/docs
/tools/pre_commit @hmellor
"""
)


def pr(
    files: tuple[str, ...] = LORA,
    *,
    author: str = "xyang16",
    labels: tuple[str, ...] = (),
    number: int = 32621,
) -> PullRequest:
    return PullRequest(
        repo="vllm-project/vllm",
        number=number,
        title="A change",
        url=f"https://github.com/vllm-project/vllm/pull/{number}",
        author=author,
        state="merged",
        labels=labels,
        files=tuple(ChangedFile(filename=f) for f in files),
    )


def keeps(args: str, the_pr: PullRequest, change_type: ChangeType | None = SUBSTANTIAL,
          bots: frozenset[str] = frozenset()) -> bool:  # fmt: skip
    return parse_filter_args(args).matches(the_pr, change_type, CODEOWNERS, bots)


# -- each kind -------------------------------------------------------------------------------


def test_the_empty_filter_keeps_everything():
    empty = SubscriptionFilter()
    assert empty.is_empty
    assert empty.matches(pr(()), None, None, frozenset())
    assert parse_filter_args([]) == empty
    assert parse_filter_args("") == empty


def test_paths_keep_the_prs_with_a_matching_file():
    attention = "paths:vllm/v1/attention/**,csrc/attention/**"
    assert keeps(attention, pr(MAMBA1))
    assert keeps(attention, pr(FLASHINFER))  # one of two files is enough
    assert not keeps(attention, pr(XPU_ENCODER))  # layers/attention is another directory
    assert not keeps(attention, pr(LORA))
    assert keeps("paths:*.md", pr(ATTN_DOCS))  # a name without / matches at any depth
    assert keeps("paths:docs/", pr(ATTN_DOCS))
    assert keeps("paths:docs", pr(ATTN_DOCS))  # a name with no wildcard: the directory too


def test_a_paths_exclude_removes_files_not_prs():
    no_models = "paths:vllm/**,!vllm/model_executor/models/**"
    assert keeps(no_models, pr(QWEN_AND_CORE))  # the scheduler file is still selected
    assert not keeps(no_models, pr(QWEN_ONLY))  # every file is excluded
    assert keeps(no_models, pr(LORA))
    assert not keeps(no_models, pr(ROCM_DOCKER))  # not under vllm/ at all


def test_excludes_alone_drop_only_prs_whose_files_are_all_excluded():
    no_docs = "paths:!docs/**"
    assert keeps(no_docs, pr(ATTN_DOCS))  # touches tools/ too
    assert not keeps(no_docs, pr(("docs/design/attention_backends.md",)))
    assert keeps(no_docs, pr(LORA))


def test_a_pr_with_no_files_never_matches_a_paths_filter():
    assert not keeps("paths:vllm/**", pr(()))
    assert not keeps("paths:!docs/**", pr(()))


def test_codeowners_keep_prs_with_a_file_the_owner_owns():
    rocm = "codeowners:@vllm-project/rocm-team"
    assert keeps(rocm, pr(ROCM_PLATFORM))
    assert keeps(rocm, pr(ROCM_DOCKER))
    assert not keeps(rocm, pr(MAMBA1))
    assert keeps("codeowners:@VLLM-PROJECT/ROCM-TEAM", pr(ROCM_DOCKER))  # case-insensitive
    # The last matching line wins: flashinfer.py is @mgoin's, not the attention owners'.
    assert keeps("codeowners:@LucasWilkinson", pr(FLASHINFER)) is False
    assert keeps("codeowners:@mgoin,@LucasWilkinson", pr(FLASHINFER))
    assert keeps("codeowners:@LucasWilkinson", pr(MAMBA1))


def test_a_codeowners_exclude_removes_the_files_that_owner_owns():
    assert keeps("codeowners:@tjtanaa,!@vllm-project/docs", pr(ROCM_DOCKER))
    assert not keeps("codeowners:!@vllm-project/docs,!@hmellor", pr(ATTN_DOCS))
    # Unowned files are not owned by the excluded team, so they keep the PR.
    assert keeps("codeowners:!@vllm-project/docs", pr(ATTN_DOCS + ("README.md",)))


def test_without_a_codeowners_file_no_file_is_owned():
    wanted = parse_filter_args("codeowners:@vllm-project/rocm-team")
    assert wanted.needs_codeowners
    assert not wanted.matches(pr(ROCM_DOCKER), SUBSTANTIAL, None, frozenset())
    assert parse_filter_args("codeowners:!@x").matches(pr(LORA), SUBSTANTIAL, None, frozenset())
    assert not parse_filter_args("paths:vllm/**").needs_codeowners


def test_labels_include_any_and_an_exclude_drops_the_pr():
    assert keeps("labels:bug,performance", pr(labels=("Performance",)))
    assert not keeps("labels:bug,performance", pr(labels=("documentation",)))
    assert not keeps("labels:bug,performance", pr(labels=()))
    assert not keeps("labels:!ci/build", pr(labels=("ready", "ci/build")))
    assert keeps("labels:!ci/build", pr(labels=("ready",)))
    assert not keeps("labels:bug,!ci/build", pr(labels=("bug", "CI/Build")))  # exclude wins


def test_authors_include_and_exclude():
    assert keeps("authors:xyang16,mgoin", pr(author="XYang16"))
    assert not keeps("authors:mgoin", pr(author="xyang16"))
    assert not keeps("authors:!xyang16", pr(author="xyang16"))
    assert keeps("authors:!xyang16", pr(author="mgoin"))
    assert keeps("authors:@mgoin", pr(author="mgoin"))  # an @ is allowed and ignored
    # A login matches its [bot] account too.
    assert not keeps("authors:!dependabot", pr(author="dependabot[bot]"))
    assert keeps("authors:dependabot[bot]", pr(author="dependabot[bot]"))


def test_bots_exclude_drops_bot_accounts_and_the_configured_ones():
    assert not keeps("bots:exclude", pr(author="dependabot[bot]"))
    assert not keeps("bots:exclude", pr(author="vllm-bot"), bots=frozenset({"vllm-bot"}))
    assert keeps("bots:exclude", pr(author="vllm-bot"))  # not configured as a bot
    assert keeps("bots:exclude", pr(author="xyang16"))
    for mode in ("include", "group"):
        assert keeps(f"bots:{mode}", pr(author="dependabot[bot]"))
    assert parse_filter_args("bots:group").groups_bots
    assert not parse_filter_args("bots:include").groups_bots


def test_types_need_a_summary_of_that_type():
    assert keeps("types:substantial", pr(), SUBSTANTIAL)
    assert not keeps("types:substantial", pr(), TRIVIAL)
    assert not keeps("types:substantial", pr(), None)  # no summary, no type
    assert keeps("types:!trivial", pr(), SUBSTANTIAL)
    assert parse_filter_args("types:!trivial") == parse_filter_args("types:substantial")


def test_matches_pr_is_every_kind_but_types():
    kind = parse_filter_args("paths:vllm/lora/** types:substantial")
    assert kind.matches_pr(pr(LORA), CODEOWNERS)
    assert not kind.matches(pr(LORA), TRIVIAL, CODEOWNERS)
    assert kind.matches_type(SUBSTANTIAL) and not kind.matches_type(None)


# -- precedence ------------------------------------------------------------------------------


def test_and_between_kinds_or_within_a_kind():
    both = "paths:vllm/v1/attention/**,vllm/lora/** labels:bug,performance"
    assert keeps(both, pr(LORA, labels=("bug",)))
    assert keeps(both, pr(MAMBA1, labels=("performance",)))
    assert not keeps(both, pr(LORA))  # the path passes, the labels do not
    assert not keeps(both, pr(ROCM_DOCKER, labels=("bug",)))  # the labels pass, the path not
    everything = "paths:vllm/** codeowners:@jeejeelee authors:xyang16 labels:!ci types:substantial"
    assert keeps(everything, pr(LORA))
    assert not keeps(everything, pr(LORA), TRIVIAL)
    assert not keeps(everything, pr(LORA, labels=("ci",)))
    assert not keeps(everything, pr(LORA, author="mgoin"))


def test_kinds_are_each_decided_on_their_own():
    # docs/ passes paths and tools/pre_commit passes codeowners: different files, both pass.
    assert keeps("paths:docs/** codeowners:@hmellor", pr(ATTN_DOCS))


def test_an_exclude_beats_the_include_it_overlaps():
    assert not keeps("paths:vllm/v1/attention/**,!vllm/v1/attention/backends/**", pr(MAMBA1))
    with pytest.raises(UserInputError, match="both included and excluded"):
        parse_filter_args("authors:xyang16,!XYANG16")


# -- chat ------------------------------------------------------------------------------------


def test_every_kind_from_chat():
    kind = parse_filter_args(
        "paths:vllm/v1/attention/**,!vllm/v1/attention/ops/** codeowners:@vllm-project/rocm-team "
        "labels:!ci,bug authors:alice,!bob bots:group types:substantial"
    )
    assert kind == SubscriptionFilter(
        paths=Terms(("vllm/v1/attention/**",), ("vllm/v1/attention/ops/**",)),
        codeowners=Terms(("@vllm-project/rocm-team",)),
        labels=Terms(("bug",), ("ci",)),
        authors=Terms(("alice",), ("bob",)),
        bots=BotMode.GROUP,
        types=(SUBSTANTIAL,),
    )


def test_chat_keys_are_forgiving_and_repeat():
    assert parse_filter_args(["Path:vllm/**", "paths:csrc/**,", "label:bug"]) == SubscriptionFilter(
        paths=Terms(("vllm/**", "csrc/**")), labels=Terms(("bug",))
    )
    assert parse_filter_args("paths:vllm/**,vllm/**") == parse_filter_args("paths:vllm/**")
    assert parse_filter_args("types:SUBSTANTIAL bots:Exclude").bots == BotMode.EXCLUDE


def test_quotes_group_a_label_with_spaces():
    words = ["labels:\u201cgood", "first", "issue\u201d,!ci", "paths:docs/**"]
    assert parse_filter_args(words).labels == Terms(("good first issue",), ("ci",))
    assert parse_filter_args('labels:!"needs rebase"').labels == Terms((), ("needs rebase",))


@pytest.mark.parametrize(
    "args, names",
    [
        ("pahts:vllm/**", ["'pahts'", "did you mean paths?"]),
        ("codowners:@a", ["did you mean codeowners?"]),
        ("colour:red", ["unknown filter 'colour'", "paths, codeowners, labels, authors"]),
        ("paths:", ["paths: needs a value", "paths:vllm/v1/attention/**"]),
        ("labels:!", ["labels: ! needs a value"]),
        ("paths:!!docs/**", ["one ! is enough"]),
        ("paths:csrc/*.{cu,cuh}", ["'csrc/*.{cu'", "not supported"]),
        ("paths:csrc/[ab]*.cu", ["'csrc/[ab]*.cu'", "not supported"]),
        ("paths:vllm\\v1\\attention", ["write / between directories"]),
        ("paths:../vllm/**", ["repository root"]),
        ("paths:vllm/***", ["use **"]),
        ("paths:/", ["empty path pattern"]),
        ("codeowners:vllm-project/rocm-team", ["did you mean @vllm-project/rocm-team?"]),
        ("codeowners:<@U012ABC>", ["chat mention"]),
        ("authors:not/a/login", ["'not/a/login' is not a GitHub login"]),
        ("types:substantail", ["'substantail' is not a type", "did you mean substantial?"]),
        ("types:big", ["'big' is not a type", "substantial"]),
        ("types:substantial,!substantial", ["both included and excluded"]),
        ("types:!trivial,!substantial", ["no type"]),
        ("bots:hide", ["bots: 'hide' is not include, exclude or group"]),
        ("bots:!group", ["'!group'"]),
        ("bots:group bots:exclude", ["choose one"]),
        ("labels:bug,!bug", ["'bug' is both included and excluded"]),
        ("paths:vllm/** csrc/**", ["'csrc/**' is not a filter", "no spaces"]),
        ('labels:"good first', ["quote is not closed"]),
    ],
)
def test_a_malformed_filter_is_one_line_naming_the_bad_part(args: str, names: list[str]):
    with pytest.raises(UserInputError) as caught:
        parse_filter_args(args)
    message = str(caught.value)
    assert "\n" not in message
    for name in names:
        assert name in message


def test_a_long_bad_value_is_cut_in_the_message():
    with pytest.raises(UserInputError) as caught:
        parse_filter_args("types:" + "x" * 500)
    assert len(str(caught.value)) < 150


def test_filter_words_are_found_among_a_commands_words():
    words = "subscribe vllm-project/vllm paths:vllm/v1/attention/**,csrc/attention/** at 09:00"
    rest, filters = split_filter_words(words.split())
    assert rest == ["subscribe", "vllm-project/vllm", "at", "09:00"]
    assert filters == ["paths:vllm/v1/attention/**,csrc/attention/**"]
    rest, filters = split_filter_words(['labels:"good', 'first"', "yesterday"])
    assert (rest, filters) == (["yesterday"], ['labels:"good first"'])
    assert not is_filter_word("09:00")
    assert not is_filter_word("https://github.com/vllm-project/vllm/pull/35156")
    assert not is_filter_word("vllm-project/vllm")
    assert is_filter_word("pahts:x")  # a typo is still an error, not a repository


# -- prdigest.toml ---------------------------------------------------------------------------


def test_from_config_lists_and_comma_strings():
    data = tomllib.loads(
        """
        [[subscription]]
        repo = "vllm-project/vllm"
        paths = ["vllm/v1/attention/**", "csrc/attention/**", "!vllm/v1/attention/ops/**"]
        codeowners = "@vllm-project/rocm-team, @tjtanaa"
        labels = ["good first issue", "!ci"]
        bots = "exclude"
        types = ["SUBSTANTIAL"]
        """
    )["subscription"][0]
    table = {k: v for k, v in data.items() if k in FILTER_KEYS}
    assert SubscriptionFilter.from_config(table) == SubscriptionFilter(
        paths=Terms(("vllm/v1/attention/**", "csrc/attention/**"), ("vllm/v1/attention/ops/**",)),
        codeowners=Terms(("@vllm-project/rocm-team", "@tjtanaa")),
        labels=Terms(("good first issue",), ("ci",)),
        bots=BotMode.EXCLUDE,
        types=(SUBSTANTIAL,),
    )
    # A comma in a list item is part of the item; only a single string is split.
    assert SubscriptionFilter.from_config({"labels": ["a,b"]}).labels == Terms(("a,b",))


@pytest.mark.parametrize(
    "table, key, text",
    [
        ({"paths": 3}, "paths", "list of strings or one comma-separated string"),
        ({"labels": ["bug", 2]}, "labels", "list of strings"),
        ({"paths": []}, "paths", "paths: needs a value"),
        ({"paths": ""}, "paths", "needs a value"),
        ({"paths": ["vllm/**", " "]}, "paths", "empty string"),
        ({"pathz": ["vllm/**"]}, "pathz", "did you mean paths?"),
        ({"types": "huge"}, "types", "'huge' is not a type"),
        ({"bots": "hide"}, "bots", "'hide' is not include"),
        ({"codeowners": ["rocm-team"]}, "codeowners", "did you mean @rocm-team?"),
        ({"paths": "csrc/**/*.{cu,cuh}"}, "paths", "not supported"),
        ({"labels": ["!!ci"]}, "labels", "one ! is enough"),
    ],
)
def test_from_config_errors_name_the_key(table: dict, key: str, text: str):
    with pytest.raises(FilterConfigError) as caught:
        SubscriptionFilter.from_config(table)
    assert isinstance(caught.value, ConfigurationError)
    assert caught.value.key == key
    assert text in str(caught.value)
    assert str(caught.value).startswith(key) or "unknown filter" in str(caught.value)


# -- text and storage ------------------------------------------------------------------------


def test_describe():
    kind = parse_filter_args("paths:vllm/v1/attention/**,csrc/attention/** types:substantial")
    assert kind.describe() == "paths vllm/v1/attention/**, csrc/attention/** · types SUBSTANTIAL"
    assert parse_filter_args("labels:bug,!ci bots:exclude").describe() == (
        "labels bug, !ci · bots excluded"
    )
    assert SubscriptionFilter().describe() == ""


def test_clause_says_what_the_posted_prs_have_in_common():
    def code(text: str) -> str:
        return f"`{text}`"

    assert parse_filter_args("paths:vllm/v1/attention/**").clause(code) == (
        "touch `vllm/v1/attention/**`"
    )
    assert (
        parse_filter_args("paths:vllm/**,!vllm/model_executor/models/** types:substantial").clause(
            code
        )
        == "touch `vllm/**` outside `vllm/model_executor/models/**` and are SUBSTANTIAL"
    )
    assert parse_filter_args(
        "codeowners:@vllm-project/rocm-team bots:exclude labels:!ci"
    ).clause() == (
        "touch files owned by @vllm-project/rocm-team, are not labeled ci and are not by bots"
    )
    assert SubscriptionFilter().clause() == ""


ROUND_TRIPS = [
    "",
    "paths:vllm/v1/attention/**,csrc/attention/**",
    "paths:vllm/**,!vllm/model_executor/models/**,!docs/**",
    "codeowners:@vllm-project/rocm-team,!@alice,docs@vllm.ai",
    'labels:"good first issue",!ci/build,"a,b",!"needs rebase"',
    "authors:alice,!bob,!dependabot[bot]",
    "bots:include",
    "bots:group types:substantial",
    "types:trivial,substantial",
    "paths:docs/ labels:documentation authors:hmellor bots:exclude types:trivial",
]


@pytest.mark.parametrize("args", ROUND_TRIPS)
def test_to_args_reads_back_to_the_same_filter(args: str):
    kind = parse_filter_args(args)
    assert parse_filter_args(kind.to_args()) == kind
    assert parse_filter_args(kind.to_args().split(" ")) == kind  # as a command's words


@pytest.mark.parametrize("args", ROUND_TRIPS)
def test_json_and_config_round_trip(args: str):
    kind = parse_filter_args(args)
    assert SubscriptionFilter.from_json(kind.to_json()) == kind
    assert SubscriptionFilter.from_config(kind.to_config()) == kind


def test_json_of_nothing_and_of_garbage():
    assert SubscriptionFilter().to_json() == "{}"
    assert SubscriptionFilter.from_json(None) == SubscriptionFilter()
    assert SubscriptionFilter.from_json("") == SubscriptionFilter()
    with pytest.raises(ConfigurationError, match="not JSON"):
        SubscriptionFilter.from_json("{paths")
    assert parse_filter_args("types:substantial").to_json() == '{"types":["SUBSTANTIAL"]}'


def test_check_path_pattern_is_the_globs_syntax():
    assert check_path_pattern(" vllm/v1/attention/** ") == "vllm/v1/attention/**"
    assert check_path_pattern(".github/workflows/*.yml") == ".github/workflows/*.yml"
    with pytest.raises(UserInputError):
        check_path_pattern("")


# -- the worked examples of docs/filters.md ----------------------------------------------------

DOCS_CODEOWNERS = parse_codeowners(
    "/vllm/v1/attention @LucasWilkinson @MatthewBonanni\n"
    "/vllm/**/*rocm* @tjtanaa @vllm-project/rocm-team\n"
    "/vllm/v1/attention/backends/rocm_attn.py @LucasWilkinson\n"
)


@pytest.mark.parametrize(
    "args, files, labels, change_type, posted",
    [
        ("paths:vllm/**,!vllm/model_executor/models/**", QWEN_AND_CORE, (), SUBSTANTIAL, True),
        ("paths:vllm/**,!vllm/model_executor/models/**", QWEN_ONLY, (), SUBSTANTIAL, False),
        ("paths:vllm/**,!vllm/model_executor/models/**", ROCM_DOCKER, (), SUBSTANTIAL, False),
        ("paths:vllm/v1/attention/**,csrc/attention/** types:substantial", FLASHINFER, (),
         SUBSTANTIAL, True),
        ("paths:vllm/v1/attention/**,csrc/attention/** types:substantial", MAMBA1, (), TRIVIAL,
         False),
        ("paths:vllm/v1/attention/**,csrc/attention/** types:substantial", XPU_ENCODER, (),
         SUBSTANTIAL, False),
        ("paths:vllm/v1/attention/**,csrc/attention/** types:substantial",
         ("vllm/v1/attention/backends/flash_attn.py",), (), None, False),
        ("codeowners:@vllm-project/rocm-team labels:!ci/build",
         ("vllm/config/vllm.py", "vllm/platforms/rocm.py"), ("rocm",), SUBSTANTIAL, True),
        ("codeowners:@vllm-project/rocm-team labels:!ci/build",
         ("vllm/v1/attention/backends/rocm_attn.py",), ("rocm",), SUBSTANTIAL, False),
        ("codeowners:@vllm-project/rocm-team labels:!ci/build", ("vllm/platforms/rocm.py",),
         ("rocm", "ci/build"), SUBSTANTIAL, False),
    ],
)  # fmt: skip
def test_the_worked_examples_of_the_docs(args, files, labels, change_type, posted):
    kind = parse_filter_args(args)
    assert kind.matches(pr(files, labels=labels), change_type, DOCS_CODEOWNERS) is posted
