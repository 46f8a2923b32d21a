"""Three more changes that answer a reviewer's "who now gets something different" by
themselves: a computed value returned that is now a constant, a function of the module now
called when the module is imported, and a part added to (or dropped from) a condition a
formatter wrapped one part a line. Each is read from the diff and said exactly."""

from __future__ import annotations

from summarizer.condition_chains import chains_changed
from summarizer.conditions import ConditionChange
from summarizer.constant_returns import ConstantReturn, constant_returns
from summarizer.import_time import ImportTimeCall, import_time_calls
from tests.diffs import changed, pr_of, risk_of

# vLLM #34087: FlashInfer was kept off under sequence parallelism; now it never is.
MADE_CONSTANT = changed("vllm/model_executor/layers/fused_moe/flashinfer_cutlass_moe.py", (
    "@@ -139,7 +139,7 @@ class FlashInferExperts(mk.FusedMoEPermuteExpertsUnpermute):\n"
    "         # rid of the FlashInfer specific P/F function.\n"
    "         # TODO: the per-tensor fp8 kernels don't work with MNNVL FI A2As.\n"
    "-        return not moe_parallel_config.is_sequence_parallel\n"
    "+        return True\n"
    " \n"
    "     @staticmethod\n"
))  # fmt: skip


def test_a_condition_returned_made_constant_names_the_cases_that_now_get_it():
    pr = pr_of(MADE_CONSTANT)
    assert constant_returns(pr) == [ConstantReturn(
        MADE_CONSTANT.filename, "FlashInferExperts",
        "not moe_parallel_config.is_sequence_parallel", "True", True,
    )]  # fmt: skip
    assert risk_of(pr) == (
        "In `FlashInferExperts`, the value returned is now always `True`; it was "
        "`not moe_parallel_config.is_sequence_parallel`: a case where "
        "`moe_parallel_config.is_sequence_parallel` holds now gets `True`, where it got "
        "`False` before."
    )


def test_a_constant_for_a_constant_or_a_rewritten_return_is_no_such_change():
    flipped = changed("vllm/a.py", (
        "@@ -1,3 +1,3 @@ def enabled():\n-    return False\n+    return True\n"
    ))  # fmt: skip
    # vLLM #35352: the return became a loop, whose own `return False` is no constant made.
    rewritten = changed("vllm/reasoning/minimax.py", (
        "@@ -90,4 +90,7 @@ class Parser:\n"
        "     def is_reasoning_end(self, input_ids):\n"
        "-        return any(i == self.end for i in reversed(input_ids))\n"
        "+        for i in reversed(input_ids):\n"
        "+            if i in (self.end, self.start):\n"
        "+                return i == self.end\n"
        "+        return False\n"
    ))  # fmt: skip
    assert constant_returns(pr_of(flipped, rewritten)) == []


def test_a_value_returned_that_was_no_truth_value_is_said_to_be_read_no_more():
    pr = pr_of(changed("vllm/b.py", (
        "@@ -1,3 +1,3 @@ class Backend:\n"
        "     def supports_chunking(self):\n"
        "-        return self.config.chunking\n"
        "+        return False\n"
    )))  # fmt: skip
    assert risk_of(pr).endswith(
        "it was `self.config.chunking`: whatever `self.config.chunking` held is no longer "
        "read there."
    )


# vLLM #34108: the GPU architecture is read once, when the module is imported.
AT_IMPORT = changed("vllm/platforms/rocm.py", (
    "@@ -90,10 +90,14 @@ def _get_gcn_arch_via_amdsmi() -> str:\n"
    "-def _get_gcn_arch_via_amdsmi() -> str:\n"
    "+def _get_gcn_arch() -> str:\n"
    "     return amdsmi_get_gpu_asic_info(handle)[\"target_graphics_version\"]\n"
    " \n"
    "+# Resolve once at module load.\n"
    "+_GCN_ARCH = _get_gcn_arch()\n"
    "+_ON_GFX9 = any(arch in _GCN_ARCH for arch in [\"gfx90a\", \"gfx942\"])\n"
    "+logger = init_logger(__name__)\n"
))  # fmt: skip


def test_a_function_of_the_module_called_at_module_level_runs_at_import():
    pr = pr_of(AT_IMPORT)
    # `any(...)` and `init_logger(...)` are no functions of this module.
    assert import_time_calls(pr) == [
        ImportTimeCall(AT_IMPORT.filename, "_GCN_ARCH = _get_gcn_arch()", "_get_gcn_arch")
    ]
    assert risk_of(pr).endswith(
        "`_GCN_ARCH = _get_gcn_arch()` is at module level, so `_get_gcn_arch` now runs when "
        "`vllm/platforms/rocm.py` is imported, in every process that imports it, before any "
        "caller asks: whatever it does happens then, and an error it raises fails the import."
    )


def test_a_call_moved_within_the_module_or_made_inside_a_function_is_not_new_at_import():
    moved = changed("vllm/c.py", (
        "@@ -1,6 +1,6 @@\n"
        "-ARCH = _arch()\n"
        " def _arch():\n"
        "     return 1\n"
        "+ARCH = _arch()\n"
    ))  # fmt: skip
    inside = changed("vllm/d.py", (
        "@@ -1,3 +1,4 @@ def _arch():\n"
        " def f():\n"
        "+    arch = _arch()\n"
        "     return 1\n"
    ))  # fmt: skip
    assert import_time_calls(pr_of(moved, inside)) == []


# vLLM #35424: the hunk starts inside the chain `enable_allreduce_rms_fusion` returns.
WRAPPED = changed("vllm/config/vllm.py", (
    "@@ -126,6 +126,9 @@ def enable_allreduce_rms_fusion(cfg: \"VllmConfig\") -> bool:\n"
    "         # tp-dp combination broken:\n"
    "         and cfg.parallel_config.data_parallel_size == 1\n"
    "+        # tp-pp combination broken:\n"
    "+        and cfg.parallel_config.pipeline_parallel_size == 1\n"
    "     )\n"
))  # fmt: skip


def test_a_part_added_to_a_wrapped_and_chain_makes_its_cases_false():
    pr = pr_of(WRAPPED)
    assert chains_changed(pr) == [ConditionChange(
        WRAPPED.filename, "enable_allreduce_rms_fusion", "and", (),
        ("cfg.parallel_config.pipeline_parallel_size == 1",), "", False, chained=True,
    )]  # fmt: skip
    assert risk_of(pr) == (
        "In `enable_allreduce_rms_fusion`, the PR adds "
        "`cfg.parallel_config.pipeline_parallel_size == 1` to an `and` chain: a case where it "
        "does not hold now makes the chain false, where it could make it true before."
    )


def test_a_wrapped_if_whose_or_part_is_dropped_says_what_its_branch_did():
    pr = pr_of(changed("vllm/e.py", (
        "@@ -10,8 +10,7 @@ class Runner:\n"
        "     def use_chunking(self):\n"
        "         if (\n"
        "             self.config.use_deepep\n"
        "-            or self.config.use_pplx\n"
        "             or self.config.use_flashinfer\n"
        "         ):\n"
        "             return False\n"
    )))  # fmt: skip
    (change,) = chains_changed(pr)
    assert (change.dropped, change.action, change.chained) == (
        ("self.config.use_pplx",), "returns early", False
    )
    assert risk_of(pr) == (
        "In `Runner.use_chunking`, a case where only `self.config.use_pplx` holds no longer "
        "returns early: the PR drops that part of the condition, and such a case now goes "
        "past that branch."
    )


def test_a_chain_with_a_part_rewritten_or_mixed_operators_is_not_read_as_parts():
    rewritten = changed("vllm/f.py", (
        "@@ -1,5 +1,5 @@ def f(a, b):\n"
        "     return (\n"
        "         a is not None\n"
        "-        and b > 1\n"
        "+        and b > 2\n"
        "     )\n"
    ))  # fmt: skip
    mixed = changed("vllm/g.py", (
        "@@ -1,5 +1,6 @@ def g(a, b, c):\n"
        "     return (\n"
        "         a\n"
        "         and b\n"
        "+        or c\n"
        "     )\n"
    ))  # fmt: skip
    assert chains_changed(pr_of(rewritten, mixed)) == []
