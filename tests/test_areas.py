"""Areas: every PR of a day in exactly one area, from the repository's own conventions.

A PR's area is the `[areas]` map's (first matching rule in file order), else its title's tags
(an area tag over a kind of change), else where most of its changed files are, else "Other".
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.core.errors import ConfigurationError
from bot.core.models import AreaGroup, ChangedFile, DigestEntry, PullRequest
from bot.digest.areas import (
    AreaMap,
    AreaRule,
    area_from_paths,
    area_from_tags,
    area_of,
    group_areas,
    normalize_tag,
    path_area,
    title_tags,
)

REPO = "vllm-project/vllm"
REAL = json.loads((Path(__file__).parent / "data" / "vllm_areas.json").read_text("utf-8"))


def pr(title: str = "Change things", *paths: str | tuple[str, int], number: int = 1) -> PullRequest:
    files = tuple(
        ChangedFile(p, additions=1) if isinstance(p, str) else ChangedFile(p[0], additions=p[1])
        for p in paths
    )
    return PullRequest(repo=REPO, number=number, title=title, url="u", author="a",
                       state="merged", files=files)  # fmt: skip


def entry(number: int, area: str) -> DigestEntry:
    return DigestEntry(pr=pr(f"PR {number}", number=number), area=area)


# -- title tags ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tag", ["Bugfix", "BugFix", "BUGFIX", "bugfix", "Bug", "Bug Fix", "bug-fix", "Fix", "Hotfix"]
)
def test_the_bugfix_family_is_one_tag(tag):
    assert normalize_tag(tag) == "Bugfix"


@pytest.mark.parametrize(
    "tags, name",
    [
        (["Doc", "Docs", "DOCS", "Documentation"], "Doc"),
        (["CI", "CI/Build", "Build", "CI Failure", "ci"], "CI"),
        (["Test", "Tests", "Testing"], "Tests"),
        (["Perf", "perf", "Performance"], "Performance"),
        (["Misc", "Chore", "CLEANING", "Update"], "Misc"),
        (["Feature", "Feat", "Enhancement"], "Feature"),
        (["Model", "MODEL", "Models"], "Model"),
        (["ROCm", "rocm", "AMD"], "ROCm"),
        (["Kernel", "kernel"], "Kernel"),
        (["MM", "Multimodal"], "Multimodal"),
        (["compile", "torch.compile"], "Compile"),
    ],
)
def test_common_names_have_one_spelling(tags, name):
    assert {normalize_tag(t) for t in tags} == {name}


def test_other_tags_keep_their_spelling_with_whitespace_tidied():
    assert normalize_tag("Model Runner V2") == "Model Runner V2"
    assert normalize_tag("  Model   Runner V2 ") == "Model Runner V2"
    assert normalize_tag("Qwen3.5") == "Qwen3.5"
    assert normalize_tag("kv_offload") == "kv_offload"


@pytest.mark.parametrize(
    "bracket",
    ["1/N", "2/N", "6/N", "2/3", "N/M", "Part 2", "WIP", "wip", "Draft", "DNM", "Do not merge",
     "skip ci", "RFC", "#1234", "42", "v0.7.1", "", "   ", "fix the thing that broke last night"],
)  # fmt: skip
def test_a_bracket_that_is_not_a_tag_normalizes_to_nothing(bracket):
    assert normalize_tag(bracket) == ""


@pytest.mark.parametrize(
    "title, tags",
    [
        ("[Bugfix][ROCm] Fix the build", ["Bugfix", "ROCm"]),
        ("[Bugfix] [Qwen3.5]Fix Qwen3.5 FP8 quantization", ["Bugfix", "Qwen3.5"]),
        ("[Core]Extract is_last_rank", ["Core"]),
        ("[BugFix][kv_offload]: Fix kernel block size", ["Bugfix", "kv_offload"]),
        ("[Llama4,CI] Bring back fixes", ["Llama4", "CI"]),
        ("[Refactor] [1/N] Reorganize", ["Refactor"]),
        ("[WIP][Kernel] Faster", ["Kernel"]),
        ("[Model Runner V2] Add model states [1/N]", ["Model Runner V2"]),  # only leading
        ("Add model states [Kernel]", []),
        ("[Bugfix] fix: twice", ["Bugfix"]),  # each tag once
        ("fix(reasoning): truncated output", ["Bugfix", "reasoning"]),
        ("feat(api,cli)!: new flag", ["Feature", "API", "cli"]),
        ("chore(deps): bump x", ["Misc", "Dependencies"]),
        ("docs: fix a typo", ["Doc"]),
        ("Nemotron: use per-layer config", []),  # a word and a colon is not a tag
        ('Revert "[Kernel] Faster prefill (#123)"', ["Kernel"]),  # the reverted title's tags
        ("Revert #34208", []),
    ],
)
def test_title_tags_are_the_leading_brackets_normalized(title, tags):
    assert title_tags(title) == tags


def test_an_area_tag_wins_over_a_kind_of_change():
    # [Bugfix], [Perf], [Misc] say what kind of change it is; [ROCm] says where. The day's
    # grouping answers "which parts of the code moved", so where wins, wherever it stands.
    assert area_from_tags(["Bugfix", "ROCm"]) == "ROCm"
    assert area_from_tags(["ROCm", "Bugfix"]) == "ROCm"
    assert area_from_tags(["Kernel", "Performance"]) == "Kernel"


def test_the_first_area_tag_wins():
    assert area_from_tags(["ROCm", "Quantization"]) == "ROCm"
    assert area_from_tags(["Frontend", "CI"]) == "Frontend"


def test_an_umbrella_tag_yields_to_the_tag_after_it():
    assert area_from_tags(["Hardware", "Powerpc"]) == "Powerpc"
    assert area_from_tags(title_tags("[Bugfix][Hardware][AMD] Gate FP4 ops")) == "ROCm"
    assert area_from_tags(["Hardware"]) == "Hardware"


def test_a_kind_of_change_is_the_area_when_it_is_the_only_tag():
    assert area_from_tags(["Bugfix"]) == "Bugfix"
    assert area_from_tags(["Refactor", "Performance"]) == "Refactor"
    assert area_from_tags([]) is None


# -- paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, area",
    [
        ("docs/usage/metrics.md", "Doc"),
        ("examples/offline_inference/basic.py", "Doc"),
        ("README.md", "Doc"),
        ("vllm/lora/README.md", "Doc"),
        (".github/workflows/lint.yml", "CI"),
        (".github/CODEOWNERS", "CI"),
        (".buildkite/test-pipeline.yaml", "CI"),
        ("docker/Dockerfile.rocm", "CI"),
        ("requirements/rocm-build.txt", "CI"),
        ("CMakeLists.txt", "CI"),
        ("setup.py", "CI"),
        ("benchmarks/kernels/benchmark_moe.py", "Benchmarks"),
        ("tests/lora/test_layers.py", "Tests"),
        ("vllm/lora/test_utils.py", "Tests"),
        ("vllm/lora/layers/logits_processor.py", "LoRA"),  # a common name's spelling
        ("vllm/v1/worker/gpu/model_runner.py", "worker"),  # the package and v1/ skipped
        ("vllm/model_executor/models/llama.py", "model_executor"),
        ("vllm/benchmarks/serve.py", "Benchmarks"),
        ("csrc/moe/torch_bindings.cpp", "csrc"),
        ("src/vllm/reasoning/parser.py", "reasoning"),
        ("vllm/envs.py", None),  # directly in the package
        ("LICENSE", None),
    ],
)
def test_each_changed_file_speaks_for_one_area(path, area):
    assert path_area(path, REPO) == area


def test_an_untagged_pr_takes_the_area_of_most_of_its_files():
    change = pr("Add mixed precision support",
                "vllm/config/model.py",
                "vllm/model_executor/layers/quantization/__init__.py",
                "vllm/model_executor/layers/quantization/modelopt.py",
                "vllm/model_executor/model_loader/weight_utils.py")  # fmt: skip
    assert area_of(change) == "model_executor"


def test_tests_count_only_when_nothing_else_changes():
    assert area_of(pr("Align sizes", "tests/lora/a.py", "tests/lora/b.py", "vllm/lora/c.py")) == (
        "LoRA"
    )
    assert area_of(pr("More tests", "tests/lora/a.py", "tests/entrypoints/b.py")) == "Tests"


def test_a_tie_goes_to_more_changed_lines_then_to_the_name():
    assert area_of(pr("x", ("vllm/platforms/cpu.py", 5), ("vllm/distributed/a.py", 40))) == (
        "distributed"
    )
    assert area_of(pr("x", ("vllm/platforms/cpu.py", 5), ("vllm/distributed/a.py", 5))) == (
        "distributed"
    )


def test_files_with_no_area_do_not_vote():
    assert area_of(pr("Remove bc-lint", ".github/workflows/bc-lint.yml", "vllm/__init__.py",
                      "vllm/_bc_linter.py")) == "CI"  # fmt: skip
    assert area_from_paths((ChangedFile("vllm/envs.py"), ChangedFile("LICENSE")), REPO) is None
    assert area_from_paths((), REPO) is None


def test_title_tags_win_over_paths():
    assert area_of(pr("[ROCm] Bump torch", "requirements/rocm-build.txt")) == "ROCm"
    assert area_of(pr("[Bugfix] Fix links", "docs/a.md", "docs/b.md")) == "Bugfix"


def test_a_pr_with_no_tag_and_no_telling_path_is_other():
    assert area_of(pr("Tidy up")) == "Other"
    assert area_of(pr("Tidy up", "LICENSE", "vllm/envs.py")) == "Other"
    assert area_of(pr("[1/N] Tidy up [WIP]")) == "Other"


@pytest.mark.parametrize("case", REAL, ids=lambda c: f"#{c['number']}")
def test_real_vllm_prs_land_where_a_reader_would_look(case):
    """Real titles and changed files from vLLM, with the area chosen by hand (and why)."""
    change = pr(case["title"], *[tuple(f) for f in case["files"]], number=case["number"])
    assert area_of(change) == case["area"], case["why"]


# -- the [areas] map -------------------------------------------------------------------------

EXAMPLE = {
    "Attention": {"paths": ["vllm/v1/attention/**", "csrc/attention/**"], "tags": ["Attention"]},
    "Model Runner": {"paths": ["vllm/v1/worker/**"]},
}


def test_the_map_reads_the_areas_table_in_file_order():
    assert AreaMap.from_config(EXAMPLE) == AreaMap(
        (
            AreaRule("Attention", ("vllm/v1/attention/**", "csrc/attention/**"), ("Attention",)),
            AreaRule("Model Runner", ("vllm/v1/worker/**",)),
        )
    )


def test_the_map_overrides_title_tags_and_paths():
    area_map = AreaMap.from_config(EXAMPLE)
    by_path = pr("[Bugfix][ROCm] Fix the backend", "vllm/v1/attention/backends/rocm.py")
    by_tag = pr("[Attention] Faster decode", "vllm/model_executor/layers/a.py")
    untagged = pr("Cache is_encoder_decoder", "vllm/v1/worker/gpu_model_runner.py")
    assert [area_of(p, area_map) for p in (by_path, by_tag, untagged)] == [
        "Attention",
        "Attention",
        "Model Runner",
    ]
    assert area_of(pr("[ROCm] Bump torch", "docker/Dockerfile.rocm"), area_map) == "ROCm"


def test_map_tags_match_as_normalized():
    area_map = AreaMap.from_config({"Fixes": {"tags": ["bug"]}, "AMD": {"tags": ["[ROCm]"]}})
    assert area_of(pr("[BUGFIX][Kernel] x"), area_map) == "Fixes"  # any tag of the title
    assert area_of(pr("[Hardware][AMD] x"), area_map) == "AMD"


def test_the_first_matching_rule_in_file_order_wins():
    rules = {
        "Spec Decode": {"paths": ["vllm/v1/spec_decode/**"]},
        "V1": {"paths": ["vllm/v1/**"], "tags": ["V1"]},
    }
    change = pr("[V1] Faster eagle", "vllm/v1/spec_decode/eagle.py")
    assert area_of(change, AreaMap.from_config(rules)) == "Spec Decode"
    assert area_of(change, AreaMap.from_config(dict(reversed(rules.items())))) == "V1"


def test_a_rule_claims_a_pr_by_paths_when_it_covers_at_least_half_of_its_files():
    area_map = AreaMap.from_config({"Attention": {"paths": ["vllm/v1/attention/"]}})
    half = pr("x", "vllm/v1/attention/a.py", "tests/kernels/test_a.py")
    third = pr("x", "vllm/v1/attention/a.py", "vllm/lora/a.py", "vllm/lora/b.py")
    assert area_of(half, area_map) == "Attention"
    assert area_of(third, area_map) == "LoRA"  # a big refactor is not claimed by one file


@pytest.mark.parametrize(
    "table, words",
    [
        ({"Attention": ["vllm/v1/attention/**"]}, ["[areas.Attention]", "table"]),
        ({"Attention": {"path": ["a/**"]}}, ["[areas.Attention]", "unknown key 'path'"]),
        ({"Attention": {"paths": "vllm/**"}}, ["[areas.Attention]", "paths", "list of strings"]),
        ({"Attention": {"paths": ["a/**", 3]}}, ["[areas.Attention]", "list of strings"]),
        ({"Attention": {"tags": "Attention"}}, ["[areas.Attention]", "tags", "list of strings"]),
        ({'Model "Runner"': {"paths": [""]}}, ['[areas."Model \\"Runner\\""]', "bad path glob"]),
        ({"Model Runner": {"paths": ["  "]}}, ['[areas."Model Runner"]', "bad path glob"]),
        ({"Attention": {"tags": ["1/N"]}}, ["[areas.Attention]", "'1/N' is not a title tag"]),
        ({"Attention": {}}, ["[areas.Attention]", "no paths and no tags"]),
        ({"Attention": {"paths": [], "tags": []}}, ["[areas.Attention]", "no paths and no tags"]),
        (["Attention"], ["[areas]", "table"]),
    ],
)
def test_a_bad_map_is_one_line_naming_the_area_and_the_fault(table, words):
    with pytest.raises(ConfigurationError) as caught:
        AreaMap.from_config(table)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_an_empty_map_changes_nothing():
    change = pr("[Kernel] x", "vllm/lora/a.py")
    assert area_of(change, AreaMap.from_config({})) == area_of(change) == "Kernel"


# -- a day's groups ----------------------------------------------------------------------------


def test_groups_go_biggest_first_then_by_name_with_other_last():
    entries = [entry(9, "Other"), entry(8, "ROCm"), entry(7, "Bugfix"), entry(6, "Other"),
               entry(5, "Bugfix"), entry(4, "CI"), entry(3, "Other"), entry(2, "doc")]  # fmt: skip
    assert group_areas(entries) == (
        AreaGroup("Bugfix", (7, 5)),
        AreaGroup("CI", (4,)),
        AreaGroup("doc", (2,)),
        AreaGroup("ROCm", (8,)),
        AreaGroup("Other", (9, 6, 3)),
    )


def test_every_pr_is_in_exactly_one_group():
    entries = [entry(3, "Kernel"), entry(2, ""), entry(3, "CI"), entry(1, "Kernel")]
    groups = group_areas(entries)
    assert groups == (AreaGroup("Kernel", (3, 1)), AreaGroup("Other", (2,)))


def test_spellings_of_one_name_are_one_group_in_the_most_used_spelling():
    entries = [entry(4, "ModelRunner V2"), entry(3, "Model Runner V2"),
               entry(2, "Model Runner V2"), entry(1, "lora"), entry(0, "LoRA")]  # fmt: skip
    assert group_areas(entries) == (
        AreaGroup("Model Runner V2", (4, 3, 2)),
        AreaGroup("LoRA", (1, 0)),  # on a tie, a human's tag over a directory name
    )


def test_the_same_day_always_groups_the_same_way():
    changes = [
        pr(case["title"], *[tuple(f) for f in case["files"]], number=case["number"])
        for case in REAL
    ]
    newest_first = [DigestEntry(pr=p, area=area_of(p)) for p in changes]
    groups = group_areas(newest_first)
    assert group_areas(newest_first) == groups
    assert {n for g in groups for n in g.numbers} == {p.number for p in changes}
    assert sum(len(g.numbers) for g in groups) == len(changes)

    shuffled = newest_first[:]
    random.Random(7).shuffle(shuffled)
    again = group_areas(shuffled)
    # The same groups in the same order; inside a group, the entries' own order.
    assert [(g.name, set(g.numbers)) for g in again] == [(g.name, set(g.numbers)) for g in groups]
    order = [e.pr.number for e in shuffled]
    assert all(list(g.numbers) == sorted(g.numbers, key=order.index) for g in again)


def test_the_order_of_a_prs_files_does_not_change_its_area():
    files = [("vllm/platforms/cpu.py", 5), ("vllm/distributed/a.py", 5), "tests/a/test_b.py"]
    area_map = AreaMap.from_config({"Platforms": {"paths": ["vllm/platforms/**", "tests/**"]}})
    for mapping in (None, area_map):
        assert area_of(pr("x", *files), mapping) == area_of(pr("x", *reversed(files)), mapping)


@dataclass(frozen=True)
class _Item:
    """Anything with `.pr.number` and `.area` groups, not only a DigestEntry."""

    pr: PullRequest
    area: str


def test_grouping_needs_only_a_number_and_an_area():
    assert group_areas([_Item(pr(number=5), "CI")]) == (AreaGroup("CI", (5,)),)
