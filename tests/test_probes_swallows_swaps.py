"""Three more changes a reviewer asks "who now gets something different" about, each read from
the diff and said exactly: a feature check that asks for other names, an error now swallowed,
and two checks swapped, so a bad input gets the other one's error. Where one PR has them in
both the library and its scripts, the library's comes first."""

from __future__ import annotations

from summarizer.facts import extract_facts
from summarizer.feature_probes import ProbeChange, probes_changed
from summarizer.swallowed_errors import SwallowedError, swallowed_errors
from summarizer.wording import running_signatures
from tests.diffs import changed, pr_of, risk_of

# vLLM #33985: the fusion pass now needs FlashInfer's unified API, wrapped over two lines.
PROBE = changed("vllm/compilation/passes/fusion/allreduce_rms_fusion.py", (
    "@@ -40,7 +40,9 @@ if find_spec(\"flashinfer\"):\n"
    "     try:\n"
    "         import flashinfer.comm as _flashinfer_comm\n"
    " \n"
    "-        if hasattr(_flashinfer_comm, \"trtllm_allreduce_fusion\"):\n"
    "+        if hasattr(_flashinfer_comm, \"allreduce_fusion\") and hasattr(\n"
    "+            _flashinfer_comm, \"create_allreduce_fusion_workspace\"\n"
    "+        ):\n"
    "             flashinfer_comm = _flashinfer_comm\n"
    "     except ImportError:\n"
    "         pass\n"
))  # fmt: skip


def test_a_feature_check_asking_for_new_names_fails_what_had_only_the_old():
    pr = pr_of(PROBE)
    assert probes_changed(pr) == [ProbeChange(
        PROBE.filename, None, "_flashinfer_comm", ("trtllm_allreduce_fusion",),
        ("allreduce_fusion", "create_allreduce_fusion_workspace"),
    )]  # fmt: skip
    assert risk_of(pr) == (
        "In `vllm/compilation/passes/fusion/allreduce_rms_fusion.py`, the check on "
        "`_flashinfer_comm` now asks for `allreduce_fusion` and "
        "`create_allreduce_fusion_workspace`, where it asked for `trtllm_allreduce_fusion`: a "
        "`_flashinfer_comm` that has `trtllm_allreduce_fusion` but not `allreduce_fusion` "
        "passed the check before and now fails it, so the code takes its path for one that "
        "lacks the feature."
    )


def test_a_check_of_its_own_state_or_one_that_only_drops_names_is_no_such_change():
    own = changed("vllm/a.py", (
        "@@ -1,3 +1,3 @@ class Layer:\n"
        "-        if hasattr(self, \"weight\"):\n"
        "+        if hasattr(self, \"weight_packed\"):\n"
    ))  # fmt: skip
    fewer = changed("vllm/b.py", (
        "@@ -1,3 +1,3 @@\n"
        "-if hasattr(torch.ops, \"_C\") and hasattr(torch.ops, \"_moe_C\"):\n"
        "+if hasattr(torch.ops, \"_C\"):\n"
    ))  # fmt: skip
    new_only = changed("vllm/c.py", "@@ -1,1 +1,2 @@\n+if hasattr(os, \"sched_setaffinity\"):\n")
    assert probes_changed(pr_of(own, fewer, new_only)) == []


def test_a_check_in_a_benchmark_script_comes_after_the_librarys_own():
    script = changed("benchmarks/kernels/benchmark_fused_collective.py", (
        "@@ -20,3 +20,3 @@\n"
        "-    if not hasattr(flashinfer_comm, \"trtllm_allreduce_fusion\"):\n"
        "+    if not hasattr(flashinfer_comm, \"allreduce_fusion\"):\n"
    ))  # fmt: skip
    assert [p.subject for p in probes_changed(pr_of(script, PROBE))] == [
        "_flashinfer_comm", "flashinfer_comm"
    ]


def test_a_parameter_dropped_in_the_library_is_named_before_one_of_a_script():
    script = changed("benchmarks/kernels/bench.py", (
        "@@ -1,2 +1,2 @@\n-def cleanup(workspace, ipc_handles):\n+def cleanup(workspace):\n"
    ))  # fmt: skip
    library = changed("vllm/fusion.py", (
        "@@ -1,2 +1,2 @@\n-def setup(world_size, rank):\n+def setup(world_size):\n"
    ))  # fmt: skip
    facts = extract_facts(pr_of(script, library))
    assert [s.name for s in running_signatures(facts)] == ["setup", "cleanup"]
    assert risk_of(pr_of(script, library)).startswith(
        "A caller that still passes `rank` to `setup` breaks"
    )


# vLLM #33985: the workspace's teardown now hides its own failure.
SUPPRESSED = changed("vllm/compilation/passes/fusion/allreduce_rms_fusion.py", (
    "@@ -700,7 +700,6 @@ class AllReduceFusionPass(VllmPatternMatcherPass):\n"
    "     def __del__(self) -> None:\n"
    "-        if getattr(self, \"disabled\", True):\n"
    "-            return\n"
    "-        if flashinfer_comm is not None:\n"
    "-            flashinfer_comm.trtllm_destroy_ipc_workspace_for_all_reduce(self.ipc_handles)\n"
    "+        if getattr(self, \"workspace\", None) is not None:\n"
    "+            with contextlib.suppress(Exception):\n"
    "+                self.workspace.destroy()\n"
))  # fmt: skip


def test_an_error_now_suppressed_is_said_to_go_unseen():
    pr = pr_of(SUPPRESSED)
    assert swallowed_errors(pr) == [SwallowedError(
        SUPPRESSED.filename, "AllReduceFusionPass.__del__",
        "with contextlib.suppress(Exception):", "self.workspace.destroy()",
    )]  # fmt: skip
    assert risk_of(pr).endswith(
        "In `AllReduceFusionPass.__del__`, an error raised by `self.workspace.destroy()` is now "
        "swallowed (`with contextlib.suppress(Exception):`): a failure there raises nothing "
        "and logs nothing, so it goes unseen."
    )


def test_a_broad_except_that_only_passes_swallows_what_its_try_raises():
    pr = pr_of(changed("vllm/d.py", (
        "@@ -1,4 +1,7 @@ def load(path):\n"
        "+    try:\n"
        "+        warm_cache(path)\n"
        "+    except Exception:\n"
        "+        pass\n"
        "     return path\n"
    )))  # fmt: skip
    (found,) = swallowed_errors(pr)
    assert (found.enclosing, found.how, found.guarded) == ("load", "except Exception:", "warm_cache(path)")


def test_a_narrow_except_one_that_logs_or_one_re_indented_swallows_nothing_new():
    narrow = changed("vllm/e.py", (
        "@@ -1,2 +1,5 @@ def f():\n"
        "+    try:\n+        import triton\n+    except ImportError:\n+        pass\n"
        "     return 1\n"
    ))  # fmt: skip
    logged = changed("vllm/f.py", (
        "@@ -1,2 +1,5 @@ def g():\n"
        "+    try:\n+        run()\n+    except Exception as e:\n+        logger.warning(e)\n"
        "     return 1\n"
    ))  # fmt: skip
    reindented = changed("vllm/g.py", (
        "@@ -1,4 +1,5 @@ def h():\n"
        "-    with contextlib.suppress(Exception):\n-        run()\n"
        "+    if ready:\n+        with contextlib.suppress(Exception):\n+            run()\n"
    ))  # fmt: skip
    assert swallowed_errors(pr_of(narrow, logged, reindented)) == []


# vLLM #33233: the check for unsupported features now runs before the grammar is built.
SWAPPED = changed("vllm/v1/structured_output/backend_xgrammar.py", (
    "@@ -304,17 +304,17 @@ def validate_xgrammar_grammar(sampling_params: SamplingParams) -> None:\n"
    "             schema = so_params.json\n"
    " \n"
    "+        if has_xgrammar_unsupported_json_features(schema):\n"
    "+            raise ValueError(\n"
    "+                \"The provided JSON schema contains features not supported by xgrammar.\"\n"
    "+            )\n"
    "+\n"
    "         try:\n"
    "             xgr.Grammar.from_json_schema(schema)\n"
    "         except Exception as err:\n"
    "             raise ValueError(\n"
    "                 f\"Failed to transform json schema into a grammar: {err}\"\n"
    "             ) from err\n"
    "-\n"
    "-        if has_xgrammar_unsupported_json_features(schema):\n"
    "-            raise ValueError(\n"
    "-                \"The provided JSON schema contains features not supported by xgrammar.\"\n"
    "-            )\n"
    "         return\n"
))  # fmt: skip


def test_two_checks_swapped_say_which_error_a_bad_input_now_gets():
    assert risk_of(pr_of(SWAPPED)).endswith(
        "the code they used to follow: an input that both reject now gets \"The provided JSON "
        "schema contains features not supported by xgrammar.\" where it got \"Failed to "
        "transform json schema into a grammar: {err}\"."
    )
