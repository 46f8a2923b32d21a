"""A package the new code imports only when a function runs is a dependency that shows at
that call, on the installs that take it: the risk names the function, the package and the
condition it runs under, and says whether a test of the PR calls it. The standard library, the
PR's own package, relative imports, a package the file already imports at its top, and an
import moved from elsewhere are no such dependency; where the file imports the package at its
top only when it is installed, only a version that lacks the module meets the error."""

from __future__ import annotations

from summarizer.deferred_imports import deferred_imports
from tests.diffs import changed, pr_of, risk_of

# vLLM #32846: FlashInfer's prefill kernel, imported by the function that calls it.
FLASHINFER = changed("vllm/model_executor/models/qwen3_next.py", (
    "@@ -60,6 +60,12 @@ logger = init_logger(__name__)\n"
    " \n"
    " \n"
    "+def fi_chunk_gated_delta_rule(q, k, v, g, beta):\n"
    "+    from flashinfer.gdn_prefill import chunk_gated_delta_rule\n"
    "+\n"
    "+    return chunk_gated_delta_rule(q, k, v, g, beta)\n"
    "+\n"
    "+\n"
    " class Qwen3NextSparseMoeBlock(nn.Module):\n"
))  # fmt: skip


# vLLM #34153: the legacy routing path imports the old API when it is taken.
LEGACY_HUNK = (
    "@@ -40,4 +40,8 @@ def legacy_routing(logits, n_expts_act):\n"
    "     sm_first = True\n"
    "+    if use_legacy_triton_kernels:\n"
    "+        from triton_kernels.routing import routing\n"
    "+\n"
    "+        return routing(logits, n_expts_act, sm_first=sm_first)\n"
    "     return make_routing_data(logits, n_expts_act)\n"
)


def test_a_package_imported_when_a_function_runs_is_the_risk_at_that_call():
    assert risk_of(pr_of(FLASHINFER)) == (
        "`fi_chunk_gated_delta_rule` imports `chunk_gated_delta_rule` from "
        "`flashinfer.gdn_prefill` when it runs, not when its module loads: an install without "
        "`flashinfer`, or with a version that lacks it, gets an `ImportError` at that call "
        "rather than at start-up, and no test in this PR calls it."
    )


def test_the_condition_it_runs_under_is_said_and_a_test_that_calls_it_is_seen():
    legacy = changed("vllm/model_executor/layers/fused_moe/moe.py", LEGACY_HUNK)
    test = changed("tests/kernels/test_moe.py", (
        "@@ -1,2 +1,3 @@ def test_routing():\n"
        "     logits = torch.randn(4, 8)\n"
        "+    legacy_routing(logits, 2)\n"
    ))  # fmt: skip
    assert risk_of(pr_of(legacy, test)).startswith(
        "`legacy_routing` imports `routing` from `triton_kernels.routing` when it runs (when "
        "`use_legacy_triton_kernels`), not when its module loads"
    )
    assert risk_of(pr_of(legacy, test)).endswith("rather than at start-up.")


def test_a_package_the_module_imports_at_its_top_where_installed_fails_only_for_a_version():
    # vLLM #34153: `triton_kernels` is imported under `if has_triton_kernels():` at the top,
    # and the flag that takes the path is set only there: an install without it never calls.
    guarded = changed("vllm/model_executor/layers/fused_moe/moe.py", (
        "@@ -20,4 +20,6 @@\n"
        " if has_triton_kernels():\n"
        "     try:\n"
        "         import triton_kernels.swiglu\n"
        "+    except ImportError:\n"
        "+        use_legacy_triton_kernels = True\n"
    ) + LEGACY_HUNK.replace("+40,8", "+42,8"))  # fmt: skip
    (found,) = deferred_imports(pr_of(guarded))
    assert found.guarded_at_top
    assert "a version of `triton_kernels` that lacks `triton_kernels.routing` gets an " \
        "`ImportError` at that call" in risk_of(pr_of(guarded))
    assert "an install without" not in risk_of(pr_of(guarded))


def test_the_standard_library_own_package_relative_loaded_and_moved_imports_are_none():
    kinds = changed("vllm/entrypoints/serve.py", (
        "@@ -1,8 +1,13 @@\n"
        " from transformers import PretrainedConfig\n"
        " \n"
        " def build_app(args):\n"
        "+    import json\n"
        "+    from vllm.config import ModelConfig\n"
        "+    from .instrumentator import register_routers\n"
        "+    from transformers import AutoConfig\n"
        "+    from aiohttp import web\n"
        "     return make_app(args)\n"
        "@@ -30,4 +35,3 @@ def make_app(args):\n"
        "-    from aiohttp import web\n"
        "     return web.Application()\n"
    ))  # fmt: skip
    assert deferred_imports(pr_of(kinds)) == []
