"""A path the model garbles is put right where it can mean only one changed file, so the
sentence that says the mechanism is kept with the real path, not dropped for the wrong one;
a path that could mean several files, or none, is left for the claim check to find."""

from __future__ import annotations

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import FindingKind, check_answer
from summarizer.claims import check_names
from summarizer.facts import extract_facts
from summarizer.file_paths import path_meant, repaired_paths
from summarizer.finishing import names_marked

PATCH = "@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n"


def pr_with(*paths: str) -> PullRequest:
    files = tuple(ChangedFile(p, "modified", 1, 1, PATCH) for p in paths)
    return PullRequest("o/r", 1, "A fix", "u", "a", "merged", files=files)


SCAN = pr_with("csrc/mamba/mamba_ssm/selective_scan.h")
QUARK = pr_with(
    "vllm/model_executor/layers/quantization/quark/quark.py",
    "vllm/model_executor/layers/quantization/quark/schemes/quark_ocp_mx.py",
)


def test_a_path_that_can_mean_only_one_changed_file_is_put_right():
    # Another suffix (vLLM #35275), another directory (#34157), a letter off (#34990).
    assert path_meant("csrc/mamba/mamba_ssm/selective_scan.cpp", SCAN) == (
        "csrc/mamba/mamba_ssm/selective_scan.h"
    )
    assert path_meant("vllm/model_executor/layers/quantization/quark.py", QUARK) == (
        "vllm/model_executor/layers/quantization/quark/quark.py"
    )
    harmony = pr_with("tests/entrypoints/openai/responses/test_harmony.py")
    assert path_meant("tests/entrypoints/openai/responses/test_harmon.py", harmony) == (
        "tests/entrypoints/openai/responses/test_harmony.py"
    )
    text = "It changes `index_t` in `csrc/mamba/mamba_ssm/selective_scan.cpp`, and quark/quark.py."
    assert repaired_paths(text, SCAN) == (
        "It changes `index_t` in `csrc/mamba/mamba_ssm/selective_scan.h`, and quark/quark.py."
    )


def test_a_path_that_could_mean_several_files_or_none_is_left_for_the_check():
    two = pr_with("a/x/utils.py", "b/y/utils.py")
    assert path_meant("c/utils.py", two) == ""
    assert path_meant("docs/unrelated/page.md", SCAN) == ""
    # A path is one name: its parts, each somewhere in the PR, do not ground it.
    assert check_names(["vllm/model_executor/layers/quantization/quark.py"], QUARK) == [
        "vllm/model_executor/layers/quantization/quark.py"
    ]


def test_the_sentence_with_the_path_put_right_passes_the_claim_check():
    said = SummarySections(
        "The PR changes the value of `a` in `csrc/mamba/mamba_ssm/selective_scan.cpp`.",
        "", "", "",
    )  # fmt: skip
    marked = names_marked(said, extract_facts(SCAN), SCAN)
    assert "`csrc/mamba/mamba_ssm/selective_scan.h`" in marked.what_changed
    found = check_answer(SCAN, marked, ChangeType.SUBSTANTIAL, extract_facts(SCAN))
    assert FindingKind.UNGROUNDED_CODE not in [f.kind for f in found]


def test_a_path_the_pr_has_or_another_file_is_not_rewritten():
    renamed = PullRequest("o/r", 1, "Move foo", "u", "a", "merged", files=(
        ChangedFile("vllm/y/foo.py", "renamed", 0, 0, PATCH, previous_filename="vllm/x/foo.py"),
    ))  # fmt: skip
    moved = "It moves vllm/x/foo.py to vllm/y/foo.py."
    assert repaired_paths(moved, renamed) == moved
    qwen = pr_with("vllm/model_executor/models/qwen3.py")
    # A digit or a letter replaced is another file, not a slip: `qwen2.py` is left alone.
    assert path_meant("vllm/model_executor/models/qwen2.py", qwen) == ""
    assert path_meant("tests/test_b.py", pr_with("tests/test_a.py")) == ""
    # The same name in an unrelated directory is not the file meant.
    init = pr_with("vllm/v1/attention/backends/__init__.py")
    assert path_meant("vllm/attention/__init__.py", init) == ""


def test_a_path_in_another_case_or_with_other_separators_is_the_same_file():
    parser = pr_with("vllm/reasoning/qwen3_reasoning_parser.py", "csrc/dsv3_fused_a_gemm.cu")
    assert path_meant("vllm/reasoning/qwen3_reasoningParser.py", parser) == (
        "vllm/reasoning/qwen3_reasoning_parser.py"
    )
    assert path_meant("csrc/dsv3_fused_a-gemm.cu", parser) == "csrc/dsv3_fused_a_gemm.cu"
