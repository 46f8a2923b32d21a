"""Conditional compilation is said by which builds compile which lines: a new `#ifdef` block
with what each branch gives, a branch dropped from a block that stays and the builds that now
fall through, a directive rewritten in place. Two lines added side by side under `#ifdef` and
`#else` read, without this, as two values both added (vLLM #33901)."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.build_branches import branch_edits, build_change, new_blocks, targets
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from tests.diffs import ARCH_FALLBACK, changed, pr_of, risk_of

# vLLM #33901: aarch64 builds prepack weights for a probe M of 128; the others keep the
# runtime dimension, which the call now reads by the new name.
PREPACK = pr_of(changed("csrc/cpu/dnnl_helper.cpp", (
    "@@ -237,12 +237,20 @@ W8A8MatMulPrimitiveHandler::W8A8MatMulPrimitiveHandler(const Args& args)\n"
    "   dnnl::memory::desc original_b_md({b_k_size_, b_n_size_}, b_type_,\n"
    "                                    {b_k_stride_, b_n_stride_});\n"
    "+#ifdef __aarch64__\n"
    "+  // dummy M size for prepacking weights\n"
    "+  constexpr dnnl_dim_t kProbeM = 128;\n"
    "+#else\n"
    "+  constexpr dnnl_dim_t kProbeM = DNNL_RUNTIME_DIM_VAL;\n"
    "+#endif\n"
    "+\n"
    "   prepack_weight(args.b_ptr, original_b_md,\n"
    "                  create_primitive_desc(\n"
    "-                     MSizeCacheKey{.a_m_size = DNNL_RUNTIME_DIM_VAL,\n"
    "+                     MSizeCacheKey{.a_m_size = kProbeM,\n"
    "                                    .use_bias = false},\n"
    "                      true)\n"
)))  # fmt: skip

FALLBACK = pr_of(ARCH_FALLBACK)


def test_the_builds_a_directive_selects_are_said_in_words():
    assert targets("#ifdef __aarch64__") == "`__aarch64__` is defined"
    assert targets("#ifndef USE_ROCM") == "`USE_ROCM` is not defined"
    assert targets("#elif defined(__s390x__)") == "`__s390x__` is defined"
    assert targets("#if !defined(USE_ROCM)") == "`USE_ROCM` is not defined"
    assert targets("#if __CUDA_ARCH__ >= 900") == "`__CUDA_ARCH__ >= 900` holds"
    assert targets("#else") == ""


def test_a_new_block_says_what_each_branch_compiles_where():
    (block,) = new_blocks(PREPACK)
    assert [b.directive for b in block.branches] == ["#ifdef __aarch64__", "#else"]
    assert block.branches[0].lines == ("constexpr dnnl_dim_t kProbeM = 128;",)
    out = finish(SummarySections("It prepacks weights.", "", "", ""), PREPACK, extract_facts(PREPACK))
    assert out.what_changed.startswith(
        "In `W8A8MatMulPrimitiveHandler::W8A8MatMulPrimitiveHandler`, a new "
        "`#ifdef __aarch64__` block compiles `constexpr dnnl_dim_t kProbeM = 128;` where "
        "`__aarch64__` is defined, and `constexpr dnnl_dim_t kProbeM = DNNL_RUNTIME_DIM_VAL;` "
        "elsewhere."
    )
    # The two branch lines are said with their conditions, not again as two lines added.
    assert "are added" not in out.what_changed


def test_where_the_else_keeps_the_value_the_pr_renames_only_the_first_branch_changes():
    assert risk_of(PREPACK) == (
        "Only builds where `__aarch64__` is defined change: they compile "
        "`constexpr dnnl_dim_t kProbeM = 128;`, and the others keep `DNNL_RUNTIME_DIM_VAL`, "
        "which the PR now reads as `kProbeM`. A build or test run for another target never "
        "compiles the new branch."
    )


def test_a_branch_dropped_and_a_directive_rewritten_are_read_from_a_block_that_stays():
    (edit,) = branch_edits(FALLBACK)
    assert edit.subject == "KernelVecType<c10::BFloat16>"
    assert edit.dropped == ("#elif defined(__s390x__)",)
    assert edit.rewritten == (("#elif defined(__aarch64__)", "#else"),)
    change = build_change(FALLBACK, extract_facts(FALLBACK))
    assert change is not None and change.sentence == (
        "In `csrc/cpu/mla_decode.cpp`, the PR drops the `#elif defined(__s390x__)` branch of "
        "`KernelVecType<c10::BFloat16>`, and `#elif defined(__aarch64__)` becomes `#else`."
    )


def test_the_builds_a_dropped_branch_served_fall_through_and_an_else_takes_the_rest():
    assert risk_of(FALLBACK) == (
        "Builds where `__s390x__` is defined lose their own `KernelVecType<c10::BFloat16>` "
        "and fall through to the branch below it; `#else`, which was "
        "`#elif defined(__aarch64__)`, now also compiles for builds that match no branch "
        "above it, where before only builds where `__aarch64__` is defined did."
    )


def test_a_block_in_a_new_file_or_beside_new_definitions_is_not_said():
    header = pr_of(changed("csrc/moe/moe_ops.h", (
        "@@ -1,3 +1,7 @@\n"
        " void topk_softmax(torch::Tensor& out);\n"
        "+#ifndef USE_ROCM\n"
        "+void dsv3_router_gemm(torch::Tensor& output,\n"
        "+                      const torch::Tensor& mat_a);\n"
        "+#endif\n"
    )), changed("csrc/moe/router_gemm.cu", (
        "@@ -0,0 +1,3 @@\n"
        "+void dsv3_router_gemm(torch::Tensor& output, const torch::Tensor& mat_a) {\n"
        "+  launch(output, mat_a);\n"
        "+}\n"
    )))  # fmt: skip
    (block,) = new_blocks(header)
    # A statement wrapped over two lines is one line of the branch.
    assert block.branches[0].lines == (
        "void dsv3_router_gemm(torch::Tensor& output, const torch::Tensor& mat_a);",
    )
    assert build_change(header, extract_facts(header)) is None


def test_code_switched_off_or_a_block_around_lines_that_were_there_is_not_said():
    off = pr_of(changed("csrc/attention.cu", (
        "@@ -10,3 +10,6 @@ void run() {\n"
        "   prepare();\n"
        "+#if 0  // until the kernel is fixed\n"
        "+  launch_fast();\n"
        "+#endif\n"
        "   finish();\n"
    )))  # fmt: skip
    assert targets("#if 0  // until the kernel is fixed") == ""
    assert build_change(off, extract_facts(off)) is None
    wrapped = pr_of(changed("csrc/attention.cu", (
        "@@ -10,3 +10,5 @@ void run() {\n"
        "+#ifndef USE_ROCM\n"
        "   launch_fast();\n"
        "+#endif\n"
        "   finish();\n"
    )))  # fmt: skip
    assert new_blocks(wrapped) == []


def test_a_block_nested_in_a_new_block_is_part_of_its_branch():
    nested = pr_of(changed("csrc/cpu/utils.cpp", (
        "@@ -5,2 +5,9 @@ void init() {\n"
        "   setup();\n"
        "+#ifdef __aarch64__\n"
        "+#if defined(__ARM_FEATURE_SVE)\n"
        "+  use_sve();\n"
        "+#endif\n"
        "+#else\n"
        "+  use_avx();\n"
        "+#endif\n"
    )))  # fmt: skip
    (block,) = new_blocks(nested)
    assert [b.directive for b in block.branches] == ["#ifdef __aarch64__", "#else"]
    assert block.branches[1].lines == ("use_avx();",)
