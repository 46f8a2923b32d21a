"""An item added to or dropped from a collection written one item a line is said as what a
lookup of it now finds: in the values a condition matches, the cases that now take the branch
or no longer do; in a named or returned list or mapping, what code that looks for it now finds.
Parameters of a signature, a call's arguments and imports are no such items. What changed
says the item and the list; a flag said to go the other way than the PR turns it is wrong."""

from __future__ import annotations

from bot.core.models import ChangeType, SummarySections
from summarizer.checks import FindingKind, check_answer
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.listed_items import listed_items
from tests.diffs import changed, pr_of, risk_of


def answer(what: str) -> SummarySections:
    return SummarySections(what, "", "", "")

# vLLM #35081: POWER CPUs keep chunked prefill and prefix caching.
POWER = changed("vllm/engine/arg_utils.py", (
    "@@ -2076,13 +2076,12 @@ class EngineArgs:\n"
    "             )\n"
    " \n"
    "         if current_platform.is_cpu() and current_platform.get_cpu_architecture() in (\n"
    "-            CpuArchEnum.POWERPC,\n"
    "             CpuArchEnum.RISCV,\n"
    "         ):\n"
    "             logger.info(\n"
    "                 \"Chunked prefill is not supported for RISC-V CPUs.\"\n"
    "             )\n"
    "             self.enable_chunked_prefill = False\n"
    "             self.enable_prefix_caching = False\n"
))  # fmt: skip


def test_a_value_dropped_from_what_a_condition_matches_no_longer_takes_the_branch():
    assert risk_of(pr_of(POWER)) == (
        "In `EngineArgs`, where `current_platform.get_cpu_architecture()` is "
        "`CpuArchEnum.POWERPC`, the branch that sets `self.enable_chunked_prefill = False` and "
        "`self.enable_prefix_caching = False` no longer runs: the PR drops `CpuArchEnum.POWERPC` "
        "from the values that `if` compares `current_platform.get_cpu_architecture()` with."
    )


def test_keys_added_to_a_mapping_are_found_by_a_lookup_now():
    # vLLM #35413: the hunk starts inside `packed_modules_mapping`; a key beside it names it.
    mapping = changed("vllm/model_executor/models/qwen3_next.py", (
        "@@ -1326,6 +1328,8 @@ class Qwen3NextForCausalLM(\n"
        "             \"v_proj\",\n"
        "         ],\n"
        "         \"gate_up_proj\": [\"gate_proj\", \"up_proj\"],\n"
        "+        \"in_proj_qkvz\": [\"in_proj_qkvz\"],\n"
        "+        \"in_proj_ba\": [\"in_proj_ba\"],\n"
        "     }\n"
    ))  # fmt: skip
    assert risk_of(pr_of(mapping)) == (
        "In `Qwen3NextForCausalLM`, the mapping that also has `\"gate_up_proj\"` now also maps "
        "`\"in_proj_qkvz\"` to `[\"in_proj_qkvz\"]` and `\"in_proj_ba\"` to `[\"in_proj_ba\"]`: "
        "a lookup of `\"in_proj_qkvz\"` and `\"in_proj_ba\"` in it now finds a value, where "
        "before it found none."
    )


def test_an_item_added_to_a_returned_list_is_met_by_callers():
    # vLLM #35010
    returned = changed("vllm/platforms/xpu.py", (
        "@@ -89,6 +89,7 @@ class XPUPlatform(Platform):\n"
        "     def get_supported_vit_attn_backends(cls) -> list[\"AttentionBackendEnum\"]:\n"
        "         return [\n"
        "             AttentionBackendEnum.FLASH_ATTN,\n"
        "+            AttentionBackendEnum.TRITON_ATTN,\n"
        "             AttentionBackendEnum.TORCH_SDPA,\n"
        "         ]\n"
    ))  # fmt: skip
    assert risk_of(pr_of(returned)) == (
        "`XPUPlatform.get_supported_vit_attn_backends` now also returns "
        "`AttentionBackendEnum.TRITON_ATTN`: a caller that looks for it in the result now "
        "finds it."
    )


def test_items_dropped_in_two_places_of_one_literal_are_said_together():
    # vLLM #35119: one set, split by an unchanged name.
    ignored = changed("vllm/envs.py", (
        "@@ -1752,8 +1752,6 @@ def compile_factors() -> dict[str, object]:\n"
        "         \"VLLM_CPU_KVCACHE_SPACE\",\n"
        "-        \"VLLM_CPU_OMP_THREADS_BIND\",\n"
        "         \"VLLM_CPU_MOE_PREPACK\",\n"
        "-        \"VLLM_CPU_SGL_KERNEL\",\n"
        "         \"VLLM_TEST_FORCE_LOAD_FORMAT\",\n"
    ))  # fmt: skip
    assert risk_of(pr_of(ignored)) == (
        "In `compile_factors`, `\"VLLM_CPU_OMP_THREADS_BIND\"` and `\"VLLM_CPU_SGL_KERNEL\"` "
        "are no longer listed beside `\"VLLM_CPU_KVCACHE_SPACE\"`: code that looks for them in "
        "that collection no longer finds them."
    )


def test_a_named_mapping_losing_keys_now_raises_on_a_subscript_of_them():
    named = changed("vllm/__init__.py", (
        "@@ -20,5 +20,3 @@ MODULE_ATTRS = {\n"
        " MODULE_ATTRS = {\n"
        "     \"LLM\": \".entrypoints.llm:LLM\",\n"
        "-    \"bc_linter_skip\": \"._bc_linter:bc_linter_skip\",\n"
        "-    \"bc_linter_include\": \"._bc_linter:bc_linter_include\",\n"
        " }\n"
    ))  # fmt: skip
    [found] = listed_items(pr_of(named))
    assert (found.holder, found.added, found.mapping) == ("MODULE_ATTRS", False, True)


def test_parameters_arguments_and_imports_are_not_items_of_a_collection():
    signature = changed("vllm/v1/attention/backends/flashinfer.py", (
        "@@ -1,4 +1,3 @@ def fast_plan_decode(\n"
        "     indptr_cpu: torch.Tensor,\n"
        "-    seq_lens_cpu: torch.Tensor,\n"
        "     last_page_len_cpu: torch.Tensor,\n"
    ))  # fmt: skip
    call = changed("vllm/a.py", (
        "@@ -1,5 +1,4 @@ def f():\n"
        "     build(\n"
        "         self.vllm_config,\n"
        "-        self.uses_mrope,\n"
        "     )\n"
    ))  # fmt: skip
    unseen_call = changed("vllm/b.py", (
        "@@ -9,3 +9,2 @@ def g():\n"
        "         self.vllm_config,\n"
        "-        self.uses_mrope,\n"
        "     )\n"
    ))  # fmt: skip
    imports = changed("vllm/c.py", (
        "@@ -1,4 +1,4 @@\n"
        " from vllm.multimodal.processing import (\n"
        "     BaseProcessingInfo,\n"
        "+    ProcessorInputs,\n"
        " )\n"
    ))  # fmt: skip
    assert listed_items(pr_of(signature, call, unseen_call, imports)) == []


def test_what_changed_says_the_value_dropped_from_what_a_condition_matches():
    said = finish(answer(what=""), pr_of(POWER), extract_facts(pr_of(POWER))).what_changed
    assert said == (
        "In `EngineArgs`, the PR drops `CpuArchEnum.POWERPC` from the values the `if` compares "
        "`current_platform.get_cpu_architecture()` with."
    )


def test_a_flag_said_turned_off_where_the_pr_drops_a_value_from_its_off_list_is_backwards():
    # The small model's words for #35081, which turns chunked prefill back on for POWER.
    backwards = (
        "The PR changes `EngineArgs` to disable chunked prefill and prefix caching for POWER "
        "(ppc64le) CPUs."
    )
    right = "It removes POWER from the CPUs that disable chunked prefill."
    said = answer(what=f"{backwards} {right}")
    findings = check_answer(pr_of(POWER), said, ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.sentence) for f in findings] == [(FindingKind.INVERTED, backwards)]
    assert "turns `enable_chunked_prefill` on for them" in findings[0].explanation
