"""The change facts: what code reads off a PR's diff, exactly, before the model reads any of it."""

from __future__ import annotations

import re

from bot.core.models import ChangedFile, PullRequest, SummarySections
from summarizer.facts import (
    ChangeFacts,
    Definition,
    Deletion,
    Move,
    MovedLines,
    Setting,
    SignatureChange,
    extract_facts,
    facts_from_json,
    facts_to_json,
    render_facts,
)
from summarizer.finishing import change_sentence, finish
from summarizer.prose import only_prose


def pr_of(*files: ChangedFile, changed_files: int | None = None) -> PullRequest:
    return PullRequest(
        repo="acme/engine",
        number=7,
        title="A change",
        url="https://github.com/acme/engine/pull/7",
        author="dev",
        state="merged",
        files=files,
        changed_files=changed_files,
    )


def changed(filename: str, patch: str, status: str = "modified", **kw: object) -> ChangedFile:
    # The patches below are written with their blank context lines empty; GitHub's carry a space.
    patch = re.sub(r"(?m)^$", " ", patch.rstrip("\n")) + "\n"
    plus = sum(1 for line in patch.splitlines() if line.startswith("+"))
    minus = sum(1 for line in patch.splitlines() if line.startswith("-"))
    return ChangedFile(filename, status, plus, minus, patch, **kw)  # type: ignore[arg-type]


def defs(facts: ChangeFacts, change: str) -> set[str]:
    return {d.name for d in facts.of(change)}


# -- Python ----------------------------------------------------------------------------------

PY_PATCH = """\
@@ -10,12 +10,8 @@ import torch


-def _get_block_n(num_slices: int) -> int:
-    return max(64, 128 // num_slices)
-
-
 def get_lora_op_configs(op_type: str):
     default = {
         "block_m": 64,
@@ -40,6 +36,11 @@ def get_lora_op_configs(op_type: str):
     return default


+def clear_config_cache() -> None:
+    _CACHE.clear()
+
+
 class FusedMoE(nn.Module):
     def __init__(self, hidden: int):
         super().__init__()
@@ -60,7 +61,7 @@ class FusedMoE(nn.Module):
         self.hidden = hidden

-    def forward(self, x):
+    def forward(self, x, scale=None):
         y = self.gate(x)
         return y
"""


def test_a_python_function_added_one_removed_and_a_method_signature_changed() -> None:
    facts = extract_facts(pr_of(changed("engine/lora/utils.py", PY_PATCH)))

    assert (
        Definition("engine/lora/utils.py", "_get_block_n", "function", "removed")
        in facts.definitions
    )
    assert (
        Definition("engine/lora/utils.py", "clear_config_cache", "function", "added")
        in facts.definitions
    )
    assert facts.signatures == (
        SignatureChange(
            "engine/lora/utils.py", "FusedMoE.forward", "method", "(self, x)", "(self, x, scale=None)",
            removed_params=(), added_params=("scale=None",),
        ),
    )  # fmt: skip
    # Context lines are not changes: `get_lora_op_configs` and `FusedMoE.__init__` are only shown.
    assert "get_lora_op_configs" not in defs(facts, "changed")
    assert "FusedMoE.__init__" not in defs(facts, "changed")

    block = render_facts(facts)
    assert "Removed: function `_get_block_n` (engine/lora/utils.py)" in block
    assert "Added: function `clear_config_cache` (engine/lora/utils.py)" in block
    assert (
        "Signature changed: `FusedMoE.forward(self, x)` -> `FusedMoE.forward(self, x, scale=None)`"
        in block
    )
    assert block.splitlines()[-1] == "Files: 1 source"


def test_parameters_added_in_a_hunk_that_ends_inside_the_signature_change_it() -> None:
    # vLLM #35383: `propose` gains two parameters ahead of `last_hidden_states`, and the
    # hunk ends before the `)`; callers passing by position are what a reviewer checks.
    patch = """\
@@ -182,6 +182,8 @@ class EagleSpeculator:
     def propose(
         self,
         input_batch: InputBatch,
+        attn_metadata: dict[str, Any],
+        slot_mappings: dict[str, torch.Tensor],
         # [num_tokens, hidden_size]
         last_hidden_states: torch.Tensor,
"""
    facts = extract_facts(pr_of(changed("vllm/spec_decode/eagle.py", patch)))
    assert [(s.name, s.added_params) for s in facts.signatures] == [
        ("EagleSpeculator.propose",
         ("attn_metadata: dict[str, Any]", "slot_mappings: dict[str, torch.Tensor]")),
    ]  # fmt: skip


def test_a_def_renamed_in_place_is_renamed_in_its_own_file() -> None:
    # vLLM #33724 renames the op's Python wrapper and its C++ kernel; the wrapper's rename
    # was paired with the kernel's file, as "moves `get_pplx_data` to `csrc/ops.cu`".
    python = changed("vllm/_custom_ops.py", """\
@@ -988,5 +988,5 @@ def shuffle_rows(x):
     return output


-def get_pplx_data(
+def get_batched_data(
     expert_offsets: torch.Tensor,
""")
    kernel = changed("csrc/ops.cu", """\
@@ -10,3 +10,3 @@
-void get_pplx_data(torch::Tensor& expert_offsets) {
+void get_batched_data(torch::Tensor& expert_offsets) {
   run(expert_offsets);
 }
""")
    facts = extract_facts(pr_of(kernel, python))
    assert [(m.old_file, m.new_file) for m in facts.moves if m.old_file.endswith(".py")] == [
        ("vllm/_custom_ops.py", "vllm/_custom_ops.py")
    ]


def test_a_change_inside_a_method_names_the_class_from_the_hunk_header() -> None:
    # git's hunk header holds the nearest line at column 0 above the hunk: the class, not the
    # method. The facts say only what that shows.
    patch = """\
@@ -120,7 +120,7 @@ class Scheduler:
         budget = self.max_tokens
         for request in self.waiting:
-            if request.tokens > budget:
+            if request.tokens >= budget:
                 break
             budget -= request.tokens
         return budget
"""
    facts = extract_facts(pr_of(changed("engine/core/scheduler.py", patch)))

    assert facts.definitions == (
        Definition("engine/core/scheduler.py", "Scheduler", "class", "changed"),
    )
    assert "Changed code in: class `Scheduler` (engine/core/scheduler.py)" in render_facts(facts)


def dtype_call_site(start: int, owner: str) -> str:
    return f"""\
@@ -{start},7 +{start},6 @@ class {owner}(nn.Module):
             hidden_size,
             intermediate_size,
             bias=False,
-            dtype=config.dtype,
             prefix=f"{{prefix}}.gate_up_proj",
         )

"""


def test_a_keyword_argument_removed_from_five_call_sites_is_a_removal_not_an_addition() -> None:
    owners = ["LlamaMLP", "QwenMLP", "MixtralMLP", "GemmaMLP", "PhiMLP"]
    patch = "".join(dtype_call_site(100 * (i + 1), owner) for i, owner in enumerate(owners))
    facts = extract_facts(pr_of(changed("engine/models/mlp.py", patch)))

    assert len(facts.deletions) == 5
    assert {d.text for d in facts.deletions} == {"dtype=config.dtype,"}
    assert {d.enclosing for d in facts.deletions} == set(owners)
    assert facts.of("added") == []
    assert facts.settings == ()
    block = render_facts(facts)
    assert "config.dtype" not in block.replace("`dtype=config.dtype,`", "")
    assert (
        "Removed with nothing added in their place: `dtype=config.dtype,` in 5 places: "
        "`LlamaMLP` (engine/models/mlp.py), `QwenMLP` (engine/models/mlp.py)"
    ) in block
    assert "Added" not in block


def test_a_deletion_only_hunk_names_the_function_it_was_in() -> None:
    patch = """\
@@ -30,12 +30,7 @@ def schedule(queue, budget):
     picked = []
     while queue and budget > 0:
         request = queue.pop()
-        if request.aborted:
-            log.debug("skipping aborted request %s", request.id)
-            metrics.aborted += 1
-            queue.release(request)
-            continue
         picked.append(request)
         budget -= request.tokens
     return picked
"""
    facts = extract_facts(pr_of(changed("engine/core/scheduler.py", patch)))

    assert facts.deletions == (
        Deletion("engine/core/scheduler.py", 5, "schedule", "if request.aborted:"),
    )
    assert (
        "Removed with nothing added in their place: 5 lines starting `if request.aborted:` "
        "in `schedule` (engine/core/scheduler.py)"
    ) in render_facts(facts)


def test_entries_removed_from_a_list_are_named_each_not_as_lines_of_code() -> None:
    # vLLM #35119 drops three variable names from the list of those the compile cache
    # ignores; "3 lines starting ..." let the model write "removes the lines that bind CPU
    # threads and reserve CPU cores".
    patch = """\
@@ -1752,8 +1752,5 @@ def compile_factors() -> dict[str, object]:
         "VLLM_CPU_KVCACHE_SPACE",
-        "VLLM_CPU_OMP_THREADS_BIND",
-        "VLLM_CPU_NUM_OF_RESERVED_CPU",
         "VLLM_CPU_MOE_PREPACK",
-        "VLLM_CPU_SGL_KERNEL",
         "VLLM_TEST_FORCE_LOAD_FORMAT",
"""
    facts = extract_facts(pr_of(changed("vllm/envs.py", patch)))
    assert (
        'Removed with nothing added in their place: 3 entries (`"VLLM_CPU_OMP_THREADS_BIND"`, '
        '`"VLLM_CPU_NUM_OF_RESERVED_CPU"`, `"VLLM_CPU_SGL_KERNEL"`) in `compile_factors` '
        "(vllm/envs.py)"
    ) in render_facts(facts)
    assert facts_from_json(facts_to_json(facts)) == facts


def test_a_function_moved_to_another_module_is_moved_not_added() -> None:
    removed = """\
@@ -1,9 +1,4 @@
 import torch

-
-def choose_kernel(config):
-    return KERNELS[config.name]
-
 KERNELS = {}
"""
    added = """\
@@ -0,0 +1,5 @@
+import torch
+
+
+def choose_kernel(config):
+    return KERNELS[config.name]
"""
    facts = extract_facts(
        pr_of(
            changed("engine/quant/kernels/__init__.py", removed),
            changed("engine/kernels/linear.py", added, status="added"),
        )
    )

    assert facts.moves == (
        Move("function", "choose_kernel", "engine/quant/kernels/__init__.py", "choose_kernel", "engine/kernels/linear.py"),
    )  # fmt: skip
    assert facts.of("added") == [] and facts.of("removed") == []
    assert (
        "Moved: function `choose_kernel` from engine/quant/kernels/__init__.py to engine/kernels/linear.py"
        in render_facts(facts)
    )


def test_a_private_method_moved_out_as_a_public_function_is_moved_under_its_new_name() -> None:
    # vLLM #34628: `_split_audio` leaves the serving class for `vllm/multimodal/audio.py`.
    removed = """\
@@ -300,8 +300,3 @@ class OpenAISpeechToText(OpenAIServing):
         return chunks

-    def _split_audio(self, audio, sr):
-        chunk_size = sr * self.max_audio_clip_s
-        return [audio[i : i + chunk_size] for i in range(0, len(audio), chunk_size)]
-
     def _warmup(self):
"""
    added = """\
@@ -10,0 +11,4 @@ import numpy as np
+def split_audio(audio, sr, max_clip_s):
+    chunk_size = sr * max_clip_s
+    return [audio[i : i + chunk_size] for i in range(0, len(audio), chunk_size)]
+
"""
    facts = extract_facts(
        pr_of(changed("vllm/serving/speech_to_text.py", removed), changed("vllm/multimodal/audio.py", added))
    )
    assert facts.moves == (
        Move("method", "OpenAISpeechToText._split_audio", "vllm/serving/speech_to_text.py", "split_audio", "vllm/multimodal/audio.py"),
    )  # fmt: skip
    assert "as `split_audio`" in render_facts(facts)
    assert change_sentence(facts) == (
        "The diff moves `OpenAISpeechToText._split_audio` to `vllm/multimodal/audio.py` as "
        "`split_audio`."
    )


# vLLM #34108's shape: a function's `def` line edited in place, its body kept.
RENAMED = """\
@@ -101,10 +101,8 @@ def _query_arch() -> str:


-@cache
-def _get_arch_via_smi() -> str:
+def _get_arch() -> str:
     \"\"\"
-    Get the architecture name without initializing CUDA.
+    Get the architecture name; called once at module load.
     \"\"\"
     try:
         return _query_arch()
"""


def test_a_def_line_edited_in_place_is_a_rename_not_a_removal_and_an_addition() -> None:
    facts = extract_facts(pr_of(changed("engine/platforms/rocm.py", RENAMED)))
    assert facts.moves == (
        Move("function", "_get_arch_via_smi", "engine/platforms/rocm.py", "_get_arch", "engine/platforms/rocm.py"),
    )  # fmt: skip
    assert facts.moves[0].renamed
    assert facts.of("added") == [] and facts.of("removed") == []
    assert (
        "Renamed: function `_get_arch_via_smi` to `_get_arch` (engine/platforms/rocm.py)"
        in render_facts(facts)
    )


def test_a_new_def_inserted_above_another_is_no_rename() -> None:
    inserted = """\
@@ -10,6 +10,10 @@ class Platform:
-    def check_and_update_config(self, config) -> None:
+    def apply_defaults(self, config) -> None:
+        config.level = 3
+
+    def check_and_update_config(self, config) -> None:
         config.validate()
"""
    facts = extract_facts(pr_of(changed("engine/platforms/rocm.py", inserted)))
    assert facts.moves == ()
    assert defs(facts, "added") == {"Platform.apply_defaults"}


# vLLM #33724: a CUDA kernel renamed, its head rewrapped, and its launches rewritten.
KERNEL_RENAMED = """\
@@ -40,12 +40,11 @@ namespace engine {
-__global__ void compute_pplx_data(int32_t* expert_offsets,
-                                  int32_t* problem_sizes,
-                                  const int n) {
+__global__ void compute_batched_moe_data(
+    int32_t* expert_offsets, int32_t* problem_sizes, const int n) {
   int expert_idx = threadIdx.x;
   expert_offsets[expert_idx] = expert_idx * n;
 }
@@ -90,7 +89,7 @@ void launch(torch::Tensor& offsets) {
   if (swap_ab) {
-    compute_pplx_data<true><<<1, num_experts, 0, stream>>>(
+    compute_batched_moe_data<true><<<1, num_experts, 0, stream>>>(
         offsets.data_ptr<int32_t>(), sizes, n);
"""


def test_a_kernel_renamed_where_its_callers_are_rewritten_is_a_rename() -> None:
    facts = extract_facts(pr_of(changed("csrc/moe/moe_data.cu", KERNEL_RENAMED)))
    assert [(m.old_name, m.new_name) for m in facts.moves] == [
        ("compute_pplx_data", "compute_batched_moe_data")
    ]
    assert facts.of("added") == [] and facts.of("removed") == []


def test_a_function_replaced_by_another_body_where_callers_are_rewritten_is_no_rename() -> None:
    replaced = """\
@@ -10,9 +10,9 @@ namespace engine {
-int route_naive(int token) {
-  return token % 8;
+int route_balanced(int token) {
+  return hash_token(token) % num_experts();
 }
@@ -40,3 +40,3 @@ void dispatch(int token) {
-  int expert = route_naive(token);
+  int expert = route_balanced(token);
   send(expert, token);
"""
    facts = extract_facts(pr_of(changed("csrc/moe/router.cpp", replaced)))
    assert facts.moves == ()
    assert defs(facts, "added") == {"route_balanced"} and defs(facts, "removed") == {"route_naive"}


# vLLM #34175: a new method written where an old one stood, called where the old one was.
METHOD_REPLACED = """\
@@ -80,13 +80,13 @@ class WorkerAdapter:
+    def _create_hash_key(
+        self, chunk_hash: bytes, request_id: str | None = None
+    ) -> Key:
+        return Key(chunk_hash=chunk_hash, request_id=request_id)
+
     def get_finished(self) -> list[str]:
         return self.finished

-    def _block_hashes_to_keys(
-        self, block_hashes: list[bytes]
-    ) -> list[Key]:
-        return [self._create_key(h) for h in block_hashes]
-
     def close(self) -> None:
"""


def test_a_new_definition_in_the_place_of_an_old_one_is_no_rename() -> None:
    facts = extract_facts(pr_of(changed("engine/adapter.py", METHOD_REPLACED)))
    assert facts.moves == ()
    assert defs(facts, "added") == {"WorkerAdapter._create_hash_key"}
    assert defs(facts, "removed") == {"WorkerAdapter._block_hashes_to_keys"}


# vLLM #34208: a CLI flag moved, unchanged, from the serve parser to the dataset parser.
FLAG_LEFT = """\
@@ -1300,11 +1300,6 @@ def add_cli_args(parser: argparse.ArgumentParser):
         "results in a more uniform arrival of requests.",
     )
-    parser.add_argument(
-        "--trust-remote-code",
-        action="store_true",
-        help="Trust remote code from huggingface",
-    )
     parser.add_argument(
         "--disable-tqdm",
"""
FLAG_ARRIVED = """\
@@ -1314,6 +1314,11 @@ class _ValidateDatasetArgs(argparse.Action):


 def add_dataset_parser(parser: FlexibleArgumentParser):
+    parser.add_argument(
+        "--trust-remote-code",
+        action="store_true",
+        help="Trust remote code from huggingface",
+    )
     parser.add_argument("--seed", type=int, default=0)
"""


def test_a_cli_flag_moved_between_parsers_is_moved_not_removed_and_added() -> None:
    facts = extract_facts(
        pr_of(
            changed("vllm/benchmarks/serve.py", FLAG_LEFT),
            changed("vllm/benchmarks/datasets.py", FLAG_ARRIVED),
        )
    )

    assert facts.moved_lines == (
        MovedLines(5, "vllm/benchmarks/serve.py", "vllm/benchmarks/datasets.py",
                   "parser.add_argument(", "add_cli_args", "add_dataset_parser"),
    )  # fmt: skip
    assert facts.settings == (
        Setting("CLI flag", "--trust-remote-code", "moved", "vllm/benchmarks/datasets.py",
                old="vllm/benchmarks/serve.py"),
    )  # fmt: skip
    assert facts.deletions == ()  # not "removed with nothing added in their place"
    block = render_facts(facts)
    assert (
        "Moved unchanged: 5 lines starting `parser.add_argument(` from `add_cli_args` "
        "(vllm/benchmarks/serve.py) to `add_dataset_parser` (vllm/benchmarks/datasets.py)"
    ) in block
    assert (
        "CLI flag moved, unchanged: `--trust-remote-code` from vllm/benchmarks/serve.py to "
        "vllm/benchmarks/datasets.py"
    ) in block
    assert facts_from_json(facts_to_json(facts)) == facts


def test_a_few_common_lines_removed_here_and_added_there_are_no_move() -> None:
    removed = "@@ -1,5 +1,3 @@ def a():\n     x = 1\n-    return x\n-\n-    )\n"
    added = "@@ -1,3 +1,5 @@ def b():\n     y = 2\n+    return x\n+\n+    )\n"
    facts = extract_facts(pr_of(changed("m/a.py", removed), changed("m/b.py", added)))
    assert facts.moved_lines == ()


# vLLM #33233: a check moved ahead of the call it guards, within one function.
CHECK_FIRST = """\
@@ -304,17 +304,17 @@ def validate_xgrammar_grammar(sampling_params: SamplingParams) -> None:
         else:
             schema = so_params.json

+        if has_xgrammar_unsupported_json_features(schema):
+            raise ValueError(
+                "The provided JSON schema contains features not supported by xgrammar."
+            )
+
         try:
             xgr.Grammar.from_json_schema(schema)
         except Exception as err:
             raise ValueError(
                 f"Failed to transform json schema into a grammar: {err}"
             ) from err
-
-        if has_xgrammar_unsupported_json_features(schema):
-            raise ValueError(
-                "The provided JSON schema contains features not supported by xgrammar."
-            )
         return
"""


def test_lines_moved_within_one_function_are_reordered_not_added() -> None:
    path = "vllm/v1/structured_output/backend_xgrammar.py"
    facts = extract_facts(pr_of(changed(path, CHECK_FIRST)))
    first = "if has_xgrammar_unsupported_json_features(schema):"
    assert facts.moved_lines == (
        MovedLines(4, path, path, first, "validate_xgrammar_grammar", "validate_xgrammar_grammar",
                   earlier=True, passed="xgr.Grammar.from_json_schema(schema)",
                   raises="The provided JSON schema contains features not supported by xgrammar.",
                   passed_raises="Failed to transform json schema into a grammar: {err}"),
    )  # fmt: skip
    assert facts.moved_lines[0].reordered
    assert (
        f"Reordered: 4 unchanged lines starting `{first}` now run before "
        f"`xgr.Grammar.from_json_schema(schema)` in `validate_xgrammar_grammar` ({path})"
    ) in render_facts(facts)
    assert facts_from_json(facts_to_json(facts)) == facts



def test_a_tuple_rebuilt_with_more_fields_earlier_in_the_function_is_not_reordered() -> None:
    # vLLM #35383: a state tuple of 4 fields becomes one of 7, set before the early return;
    # the facts said "Reordered: 6 unchanged lines", though no line order survives.
    patch = """\
@@ -985,12 +966,16 @@ class GPUModelRunner:
         output = self.kv_connector.post_forward(scheduler_output)
+        self.state = (
+            input_batch,
+            model_inputs,
+            attn_metadata,
+            hidden_states,
+            aux_hidden_states,
+            output,
+        )

         if not self.is_last_pp_rank:
             return hidden_states
         assert isinstance(hidden_states, torch.Tensor)
-        self.state = (
-            hidden_states,
-            aux_hidden_states,
-            input_batch,
-            output,
-        )
         return None
"""
    facts = extract_facts(pr_of(changed("vllm/v1/worker/gpu/model_runner.py", patch)))
    assert facts.moved_lines == ()

def test_lines_wrapped_in_a_new_block_are_not_moved() -> None:
    wrapped = """\
@@ -10,6 +10,7 @@ def load(path):
     data = read(path)
-    check(data)
-    data = clean(data)
-    store(data)
+    if data:
+        check(data)
+        data = clean(data)
+        store(data)
     return data
"""
    assert extract_facts(pr_of(changed("m/io.py", wrapped))).moved_lines == ()


def test_an_environment_variable_and_a_cli_flag_added() -> None:
    envs = """\
@@ -80,6 +80,9 @@ environment_variables: dict[str, Callable[[], Any]] = {
     "ENGINE_LOGGING_LEVEL": lambda: os.getenv("ENGINE_LOGGING_LEVEL", "INFO"),
+    # Cap on the prefix cache, in blocks.
+    "ENGINE_PREFIX_CACHE_BLOCKS": lambda: int(os.getenv("ENGINE_PREFIX_CACHE_BLOCKS", "0")),
     "ENGINE_TRACE": lambda: os.getenv("ENGINE_TRACE", "0"),
 }
"""
    cli = """\
@@ -200,6 +200,12 @@ def make_arg_parser(parser):
         help="Port to listen on.",
     )
+    parser.add_argument(
+        "--prefix-cache-blocks",
+        type=int,
+        default=0,
+        help="Cap on the prefix cache, in blocks.",
+    )
     return parser
"""
    facts = extract_facts(pr_of(changed("engine/envs.py", envs), changed("engine/cli.py", cli)))

    assert (
        Setting(
            "environment variable read", "ENGINE_PREFIX_CACHE_BLOCKS", "added", "engine/envs.py"
        )
        in facts.settings
    )
    assert Setting("CLI flag", "--prefix-cache-blocks", "added", "engine/cli.py") in facts.settings
    # Context lines name other variables: they are not new.
    assert all(s.name != "ENGINE_TRACE" for s in facts.settings)
    block = render_facts(facts)
    assert "Environment variable newly read: `ENGINE_PREFIX_CACHE_BLOCKS` (engine/envs.py)" in block
    assert "CLI flag added: `--prefix-cache-blocks` (engine/cli.py)" in block


def test_a_vllm_style_environment_variable_whose_default_changed() -> None:
    envs = """\
@@ -159,7 +159,7 @@ if TYPE_CHECKING:
     VLLM_USE_FUSED_TOPK: bool = True
-    VLLM_USE_FLASHINFER_GEMM: bool = False
+    VLLM_USE_FLASHINFER_GEMM: bool = True
     VLLM_USE_FLASHINFER_MOE: bool = False
"""
    facts = extract_facts(pr_of(changed("vllm/envs.py", envs)))

    assert facts.settings == (
        Setting(
            "environment variable", "VLLM_USE_FLASHINFER_GEMM", "changed", "vllm/envs.py",
            "VLLM_USE_FLASHINFER_GEMM: bool = False", "VLLM_USE_FLASHINFER_GEMM: bool = True",
        ),
    )  # fmt: skip


def test_a_config_field_added_and_one_whose_default_changed() -> None:
    patch = """\
@@ -40,7 +40,10 @@ class SchedulerConfig:
     \"\"\"How requests are batched.\"\"\"

-    max_num_seqs: int = 128
+    max_num_seqs: int = 256
+
+    async_scheduling: bool = False
+    \"\"\"Schedule the next step while this one runs.\"\"\"

     policy: str = "fcfs"
"""
    facts = extract_facts(pr_of(changed("engine/config/scheduler.py", patch)))

    assert Setting(
        "config field", "SchedulerConfig.async_scheduling", "added", "engine/config/scheduler.py",
        new="async_scheduling: bool = False",
    ) in facts.settings  # fmt: skip
    assert Setting(
        "config field", "SchedulerConfig.max_num_seqs", "changed", "engine/config/scheduler.py",
        "max_num_seqs: int = 128", "max_num_seqs: int = 256",
    ) in facts.settings  # fmt: skip
    assert all(s.name != "SchedulerConfig.policy" for s in facts.settings)


def test_a_class_added_whole_is_one_fact_line_with_its_methods() -> None:
    patch = """\
@@ -0,0 +1,9 @@
+class TimingContext:
+    def __init__(self):
+        self.stages = {}
+
+    def record(self, stage, secs):
+        self.stages[stage] = secs
+
+    def total_secs(self):
+        return sum(self.stages.values())
"""
    facts = extract_facts(pr_of(changed("engine/timing.py", patch, status="added")))

    assert defs(facts, "added") == {
        "TimingContext", "TimingContext.__init__", "TimingContext.record", "TimingContext.total_secs"
    }  # fmt: skip
    assert render_facts(facts).splitlines()[0] == (
        "Added: class `TimingContext` (with `__init__`, `record`, `total_secs`) (engine/timing.py)"
    )


# -- C++ and CUDA ----------------------------------------------------------------------------

CUDA_PATCH = """\
@@ -20,9 +20,22 @@ namespace engine {

-template <typename T>
-void launch_topk(const T* logits, int* out, int n, cudaStream_t stream) {
+template <typename T, int kTopK>
+void launch_topk(const T* logits, int* out, int n, int k, cudaStream_t stream) {
   dim3 grid(n);
   topk_kernel<T><<<grid, 128, 0, stream>>>(logits, out, n);
 }

+template <typename T>
+__global__ void router_gemm_kernel(T* out, const T* mat_a, const T* mat_b,
+                                   int num_tokens) {
+  int row = blockIdx.x;
+  if (row >= num_tokens) return;
+  out[row] = mat_a[row] * mat_b[row];
+}
+
 }  // namespace engine
"""


def test_a_cuda_kernel_added_and_a_template_function_signature_changed() -> None:
    facts = extract_facts(pr_of(changed("csrc/moe/router_gemm.cu", CUDA_PATCH)))

    assert (
        Definition("csrc/moe/router_gemm.cu", "router_gemm_kernel", "kernel", "added")
        in facts.definitions
    )
    (sig,) = facts.signatures
    assert sig.name == "launch_topk"
    assert sig.old == "<typename T>(const T* logits, int* out, int n, cudaStream_t stream)"
    assert (
        sig.new
        == "<typename T, int kTopK>(const T* logits, int* out, int n, int k, cudaStream_t stream)"
    )
    assert sig.added_params == ("int k",)
    block = render_facts(facts)
    assert "Added: kernel `router_gemm_kernel` (csrc/moe/router_gemm.cu)" in block
    assert "Signature changed: `launch_topk`" in block and "`int k`" in block


def test_a_cpp_method_body_change_inside_a_struct() -> None:
    patch = """\
@@ -5,8 +5,8 @@
 struct BlockTable {
   int num_blocks;
   void append(int block) {
-    blocks_[num_blocks++] = block;
+    blocks_.push_back(block);
   }
 };
"""
    facts = extract_facts(pr_of(changed("csrc/block_table.h", patch)))

    assert facts.definitions == (
        Definition("csrc/block_table.h", "BlockTable::append", "method", "changed"),
    )


# -- YAML ------------------------------------------------------------------------------------

CI_PATCH = """\
@@ -100,12 +100,19 @@ steps:
   commands:
   - pytest -v -s tracing

+- label: LoRA Test %N # 20min
+  timeout_in_minutes: 30
+  source_file_dependencies:
+  - engine/lora
+  commands:
+  - pytest -v -s lora
+
 - label: Basic Correctness Test
   timeout_in_minutes: 30
-  soft_fail: true
   commands:
-  - pip install opentelemetry-sdk
   - pytest -v -s basic_correctness
"""


def test_a_ci_step_added_and_a_key_and_a_command_removed() -> None:
    facts = extract_facts(pr_of(changed(".buildkite/test-pipeline.yaml", CI_PATCH)))
    path = ".buildkite/test-pipeline.yaml"

    assert Setting("CI step", "LoRA Test %N", "added", path) in facts.settings
    assert (
        Setting("YAML key", "Basic Correctness Test > soft_fail", "removed", path) in facts.settings
    )
    assert (
        Setting(
            "YAML list item",
            "Basic Correctness Test > commands",
            "removed",
            path,
            new="pip install opentelemetry-sdk",
        )
        in facts.settings
    )
    # What is inside the new step is not repeated, and unchanged keys are not facts.
    assert not any("timeout_in_minutes" in s.name for s in facts.settings)
    block = render_facts(facts)
    assert "CI step added: `LoRA Test %N` (.buildkite/test-pipeline.yaml)" in block
    assert block.splitlines()[-1] == "Files: 1 CI"


# -- files -----------------------------------------------------------------------------------


def test_renamed_moved_added_and_removed_files_and_their_kinds() -> None:
    facts = extract_facts(
        pr_of(
            ChangedFile(
                "engine/attn/backend_v2.py", "renamed", previous_filename="engine/attn/backend.py"
            ),
            ChangedFile(
                "engine/kernels/attn.py", "renamed", previous_filename="engine/ops/attn.py"
            ),
            changed(
                "tests/test_attn.py", "@@ -0,0 +1 @@\n+def test_attn(): pass\n", status="added"
            ),
            ChangedFile("docs/attn.md", "removed", 0, 40, None),
            changed("requirements/cuda.txt", "@@ -1 +1 @@\n-torch==2.5\n+torch==2.6\n"),
        )
    )

    block = render_facts(facts)
    assert "File renamed: engine/attn/backend.py -> engine/attn/backend_v2.py" in block
    assert "File moved: engine/ops/attn.py -> engine/kernels/attn.py" in block
    assert "Files added: tests/test_attn.py" in block
    assert "Files removed: docs/attn.md" in block
    assert block.splitlines()[-1] == "Files: 2 source, 1 build, 1 tests, 1 docs"


def test_a_pr_of_3000_files_is_read_within_bounds_and_says_what_github_left_out() -> None:
    patch = """\
@@ -1,6 +1,7 @@ class Layer{i}:
     def forward(self, x):
-        return x
+        y = x * 2
+        return y
"""
    files = [changed(f"engine/layers/layer_{i}.py", patch.format(i=i)) for i in range(2990)]
    files += [ChangedFile(f"assets/img_{i}.png", "added") for i in range(5)]
    files += [changed(f"vendor/lib_{i}/x.py", patch.format(i=i)) for i in range(5)]
    facts = extract_facts(pr_of(*files, changed_files=4210))

    assert len(facts.definitions) <= 2990
    block = render_facts(facts, max_chars=1500)
    assert len(block) <= 1500
    assert block.splitlines()[-2].startswith("… and ")
    assert block.splitlines()[-1].startswith(
        "Files: 2990 source, 5 vendored, 5 binary (GitHub listed 3000 of 4210)"
    )


# -- the block and its storage ---------------------------------------------------------------


def test_the_block_puts_definitions_first_and_cuts_with_a_count() -> None:
    facts = ChangeFacts(
        definitions=tuple(
            Definition(f"engine/m{i}.py", f"f{i}", "function", "added") for i in range(50)
        ),
        deletions=(Deletion("engine/a.py", 3, "g", "x = 1"),),
        settings=(Setting("CLI flag", "--fast", "added", "engine/cli.py"),),
    )
    block = render_facts(facts, max_chars=400).splitlines()

    assert block[0] == "Added: function `f0` (engine/m0.py)"
    assert block[-2] == f"… and {50 + 2 - (len(block) - 2)} more"
    assert block[-1] == "Files: none"
    assert sum(len(line) + 1 for line in block) - 1 <= 400


def test_the_facts_survive_a_round_trip_through_json() -> None:
    facts = extract_facts(
        pr_of(
            changed("engine/lora/utils.py", PY_PATCH),
            changed("csrc/moe/router_gemm.cu", CUDA_PATCH),
            changed(".buildkite/test-pipeline.yaml", CI_PATCH),
            ChangedFile("engine/b.py", "renamed", previous_filename="engine/a.py"),
        )
    )

    assert facts_from_json(facts_to_json(facts)) == facts
    assert facts_from_json({}) == ChangeFacts()


def test_a_last_line_given_back_its_newline_is_not_a_change() -> None:
    patch = """\
@@ -55,4 +55,6 @@ bool moe_supported();
 void shuffle_rows(const torch::Tensor& input,
                   torch::Tensor& output);
-int last_helper(int x);
\\ No newline at end of file
+int last_helper(int x);
+void router_gemm(torch::Tensor& output);
"""
    facts = extract_facts(pr_of(changed("csrc/moe/moe_ops.h", patch)))

    assert facts.definitions == (
        Definition("csrc/moe/moe_ops.h", "router_gemm", "declaration", "added"),
    )


def test_a_docstring_written_above_unchanged_lines_is_no_reorder() -> None:
    # vLLM #34175: the diff aligns the new docstring's blank lines with the old ones, so the
    # body reads as removed above and added below; only blank lines lie between.
    patch = (
        "@@ -39,6 +39,14 @@ def send(\n def get_size(\n     client,\n ) -> int:\n"
        "-    future = send(client)\n-    size = future.result()\n-    return size\n"
        '+    """\n+    Helper to get the size.\n\n+    Args:\n+        client: the client\n\n'
        '+    Returns:\n+        the size\n+    """\n'
        "+    future = send(client)\n+    size = future.result()\n+    return size\n"
    )
    facts = extract_facts(pr_of(changed("m/adapter.py", patch)))
    assert not any(m.reordered for m in facts.moved_lines)


# -- comments and docstrings ------------------------------------------------------------------

DOCSTRING_REFLOWED = """\
@@ -30,10 +30,11 @@ class MultiModalConfig:
     language_model_only: bool = False
-    \"\"\"If True, disables all multimodal inputs by setting all modality limits to 0.
-    Equivalent to setting `--limit-mm-per-prompt` to 0 for every modality.\"\"\"
+    \"\"\"If True, disables all multimodal inputs by setting all modality limits
+    to 0. Equivalent to setting `--limit-mm-per-prompt.<modality> 0` for every
+    modality.\"\"\"
     limit_per_prompt: dict[str, int] = field(default_factory=dict)
-    # The maximum number of input items per modality per prompt.
+    # The maximum number of input items and options per modality per prompt.
"""


def test_a_class_whose_docstrings_and_comments_alone_change_is_reworded_not_changed() -> None:
    # vLLM #34148: the facts said "Changed code in: class `MultiModalConfig`", and the model
    # wrote that the PR "changes the code by modifying the `MultiModalConfig` class".
    facts = extract_facts(pr_of(changed("vllm/config/multimodal.py", DOCSTRING_REFLOWED)))
    assert facts.definitions == (
        Definition("vllm/config/multimodal.py", "MultiModalConfig", "class", "reworded"),
    )
    assert render_facts(facts).splitlines()[0] == (
        "Comments or docstrings only in: class `MultiModalConfig` (vllm/config/multimodal.py)"
    )


def test_a_method_with_one_line_of_code_changed_beside_its_comments_is_changed() -> None:
    patch = """\
@@ -5,7 +5,7 @@ class Scheduler:
     def schedule(self):
-        # Take the waiting queue first.
-        budget = 8
+        # Take the running queue first.
+        budget = 16
         return budget
"""
    facts = extract_facts(pr_of(changed("vllm/sched.py", patch)))
    assert defs(facts, "changed") == {"Scheduler.schedule"}
    assert defs(facts, "reworded") == set()


def test_a_name_added_to_an_import_the_hunk_header_opens_is_no_line_of_code() -> None:
    # vLLM #35400: the hunk starts inside `from .utils import (`, which only its header shows;
    # "`prepare_kernel_block_sizes,` is added" led what changed.
    patch = """\
@@ -189,6 +188,7 @@ from .utils import (
     AttentionGroup,
     bind_kv_cache,
+    prepare_kernel_block_sizes,
     sanity_check_mm_encoder_outputs,
 )
"""
    pr = pr_of(changed("vllm/v1/worker/gpu_model_runner.py", patch))
    (edit,) = extract_facts(pr).edits
    assert edit.imported
    said = SummarySections("It moves a helper.", "", "", "")
    assert finish(said, pr, extract_facts(pr)).what_changed == "It moves a helper."


def test_a_line_that_only_gains_a_trailing_comment_is_reworded_not_changed() -> None:
    # vLLM #34739: a `# type: ignore` added to an argument; a reader found "The diff changes
    # `ResponsesRequest`" said of it.
    patch = """\
@@ -337,5 +337,7 @@ class ResponsesRequest(OpenAIBaseModel):
                 structured_outputs = StructuredOutputsParams(
-                    json=response_format.schema_
+                    json=response_format.schema_  # type: ignore[call-arg]
+                    # --follow-imports skip hides the class definition
                 )
"""
    file = changed("vllm/entrypoints/openai/responses/protocol.py", patch)
    facts = extract_facts(pr_of(file))
    assert [(d.name, d.change) for d in facts.definitions] == [("ResponsesRequest", "reworded")]
    assert only_prose(file)
    edited = patch.replace("schema_  # type", "schema_ or {}  # type")
    assert not only_prose(changed("vllm/entrypoints/openai/responses/protocol.py", edited))


def test_a_cpp_comment_reworded_inside_a_function_is_reworded() -> None:
    patch = """\
@@ -5,6 +5,6 @@ void launch(int n) {
   int blocks = n / 128;
-  // one block per 128 rows
+  // One block per 128 rows: the kernel's tile.
   kernel<<<blocks, 128>>>(n);
 }
"""
    facts = extract_facts(pr_of(changed("csrc/launch.cu", patch)))
    assert [(d.name, d.change) for d in facts.definitions] == [("launch", "reworded")]


def test_a_function_given_a_docstring_in_one_hunk_and_new_logic_in_the_next_is_changed() -> None:
    # vLLM #33839: the facts said "Comments or docstrings only in" the function whose return
    # rule the PR rewrites, below a hunk header that names it.
    patch = '''\
@@ -60,4 +60,5 @@ CONFIG = {}
 def should_use(size: int) -> bool:
+    """Whether the symmetric-memory path pays off for `size`."""
     from vllm.allocator import enabled

@@ -80,5 +81,5 @@ def should_use(size: int) -> bool:
     if not enabled():
         return False
-    return size >= THRESHOLD
+    return size <= LOWER or size >= UPPER

'''
    facts = extract_facts(pr_of(changed("vllm/comm.py", patch)))
    assert [(d.name, d.change) for d in facts.definitions] == [("should_use", "changed")]


def test_a_comment_at_column_0_above_new_tests_is_not_in_the_test_the_hunk_header_names() -> None:
    # vLLM #35283: a block comment above the added tests read as a comment changed inside
    # `test_invocations`, the test that happens to end just above it.
    patch = """\
@@ -815,3 +821,12 @@ async def test_invocations(server):

     assert chat_output.keys() == invocation_output.keys()
     assert chat_output["choices"] == invocation_output["choices"]
+
+
+# Test the n parameter for chat completions (issue #34305).
+
+
+@pytest.mark.asyncio
+async def test_n_parameter(client):
+    assert len((await client.create(n=3)).choices) == 3
"""
    facts = extract_facts(pr_of(changed("tests/test_chat.py", patch)))
    assert [(d.name, d.change) for d in facts.definitions] == [("test_n_parameter", "added")]


def test_a_function_moved_unchanged_within_its_file_is_not_changed() -> None:
    # vLLM #33936 listed functions it only moved down the file as "changes".
    patch = """\
@@ -1,7 +1,3 @@ import ast
-def get_path(name: str) -> str:
-    path = name.replace(".", "/")
-    return path + ".py"
-
 def parse(path):
     return ast.parse(open(path).read())
@@ -20,3 +16,7 @@ def render(rows):
     return rows
+
+def get_path(name: str) -> str:
+    path = name.replace(".", "/")
+    return path + ".py"
"""
    facts = extract_facts(pr_of(changed("tools/gen_docs.py", patch)))
    assert facts.definitions == ()
    assert [m.text for m in facts.moved_lines] == ["def get_path(name: str) -> str:"]


# vLLM #35422: the KV-cache write leaves `forward` for a new method of the same class.
EXTRACTED = """\
@@ -1330,12 +1332,5 @@ class FlashInferImpl(AttentionImpl):
         num_actual_tokens = attn_metadata.num_actual_tokens

-        if self.kv_sharing_target_layer_name is None:
-            torch.ops._C_cache_ops.reshape_and_cache_flash(
-                key,
-                value,
-                kv_cache[:, 0],
-                kv_cache[:, 1],
-            )
-
         query = query[:num_actual_tokens]
@@ -1599,3 +1584,14 @@ class FlashInferImpl(AttentionImpl):
         return output_padded

+    def do_kv_cache_update(self, layer, key, value, kv_cache, slot_mapping):
+        if self.kv_sharing_target_layer_name is None:
+            torch.ops._C_cache_ops.reshape_and_cache_flash(
+                key,
+                value,
+                kv_cache[:, 0],
+                kv_cache[:, 1],
+            )
+
"""


def test_lines_taken_out_into_a_new_method_are_said_to_move_into_it() -> None:
    path = "vllm/v1/attention/backends/flashinfer.py"
    pr = pr_of(changed(path, EXTRACTED))
    facts = extract_facts(pr)
    assert [(m.old_enclosing, m.new_enclosing) for m in facts.moved_lines] == [
        ("FlashInferImpl", "FlashInferImpl.do_kv_cache_update")
    ]
    what = finish(SummarySections("It adds a method.", "", "", ""), pr, facts).what_changed
    assert what.startswith(
        f"The diff moves 7 unchanged lines from `FlashInferImpl` (`{path}`) to "
        f"`FlashInferImpl.do_kv_cache_update` (`{path}`); adds `FlashInferImpl.do_kv_cache_update`."
    )


def test_a_macro_given_a_body_is_a_macro_block_not_a_function_callers_use() -> None:
    # vLLM #35123 registers an op's CUDA implementation in its own source file; the facts
    # said "Added: function `TORCH_LIBRARY_IMPL_EXPAND`", and "for callers and users" with it.
    patch = """\
@@ -120,3 +120,7 @@ void dsv3_router_gemm(torch::Tensor& out, const torch::Tensor& mat_a) {
   run(out, mat_a);
 }
+
+TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, m) {
+  m.impl("dsv3_router_gemm", &dsv3_router_gemm);
+}
"""
    pr = pr_of(changed("csrc/moe/dsv3_router_gemm_entry.cu", patch))
    facts = extract_facts(pr)
    assert [(d.name, d.kind, d.change) for d in facts.definitions] == [
        ("TORCH_LIBRARY_IMPL_EXPAND", "macro block", "added")
    ]
    what = finish(SummarySections("It registers the op.", "", "", ""), pr, facts)
    assert what.what_changed.startswith("The diff adds a `TORCH_LIBRARY_IMPL_EXPAND` block.")
    assert "callers" not in what.technical_impact


def test_a_variable_read_and_written_is_said_once_as_both():
    # vLLM #32365 reads `VLLM_CPU_NUM_OF_RESERVED_CPU` and sets it where it is unset.
    reserved = PullRequest("o/r", 1, "NUMA binding", "u", "a", "merged", files=(ChangedFile(
        "vllm/platforms/cpu.py", "modified", 3, 0, (
            "@@ -10,2 +10,5 @@ class CpuPlatform:\n"
            "     def check(cls):\n"
            "+        if not os.environ.get(\"VLLM_CPU_NUM_OF_RESERVED_CPU\"):\n"
            "+            os.environ[\"VLLM_CPU_NUM_OF_RESERVED_CPU\"] = \"1\"\n"
            "+        return None\n")),))  # fmt: skip
    out = finish(SummarySections("", "", "", ""), reserved, extract_facts(reserved))
    assert "a read and a write of the environment variable `VLLM_CPU_NUM_OF_RESERVED_CPU`" in (
        out.what_changed
    )
    assert out.what_changed.count("environment variable") == 1


def test_two_reads_of_a_variable_are_not_a_read_and_a_write():
    from summarizer.facts import Setting
    from summarizer.wording import settings_named

    read = Setting("environment variable read", "X", "added", "a.py")
    written = Setting("environment variable set", "X", "added", "a.py")
    flag = Setting("CLI flag", "X", "added", "a.py")
    assert settings_named([read, written]) == ["a read and a write of the environment variable `X`"]
    assert settings_named([read, read]) == ["a read of the environment variable `X`"] * 2
    assert len(settings_named([read, flag])) == 2
