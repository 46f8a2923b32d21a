"""A new `if` block in code that was there is the case a fix adds: the text says the condition
and what runs under it, from the added lines, where the model's text does not quote it. A
condition edited, code put back under a new `if`, a new function's own `if`s, and an added
if/else (a statement rewritten) are not new cases; an if/else whose `else` keeps the old
code is one, said with the old way kept."""

from __future__ import annotations

from bot.core.models import ChangedFile, ChangeType, SummarySections
from summarizer.behaviour import exit_risk
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.new_branches import NewBranch, branch_sentence, new_branches
from tests.diffs import changed, pr_of, risk_of

# vLLM #34906: biases registered only for a model whose MoE has them.
BIASES = changed("vllm/model_executor/layers/quantization/fp8.py", (
    "@@ -758,6 +758,15 @@ class Fp8MoEMethod(FusedMoEMethodBase):\n"
    "         layer.register_parameter(\"w2_weight\", w2_weight)\n"
    "         set_weight_attrs(w2_weight, extra_weight_attrs)\n"
    " \n"
    "+        # BIASES (for models like GPT-OSS that have biased MoE)\n"
    "+        if self.moe.has_bias:\n"
    "+            w13_bias = torch.nn.Parameter(\n"
    "+                torch.zeros(num_experts, dtype=layer.orig_dtype),\n"
    "+                requires_grad=False,\n"
    "+            )\n"
    "+            layer.register_parameter(\"w13_bias\", w13_bias)\n"
    "+            w2_bias = torch.zeros(num_experts)\n"
    "+\n"
    "         # WEIGHT_SCALES\n"
    "         if not self.block_quant:\n"
))  # fmt: skip

# vLLM #35063: a call after a failed one returns early.
EARLY = changed("vllm/v1/worker/gpu_model_runner.py", (
    "@@ -3400,6 +3400,9 @@ class GPUModelRunner:\n"
    "     def sample_tokens(self, grammar_output):\n"
    "         kv_connector_output = self.kv_connector_output\n"
    "         self.kv_connector_output = None\n"
    "+        if self.execute_model_state is None:\n"
    "+            # The prior execute_model call must have failed.\n"
    "+            return None\n"
    " \n"
    "         (\n"
    "             scheduler_output,\n"
))  # fmt: skip


# vLLM #33197: a small batch pads to fewer tokens.
SMALL_BATCH = (
    "@@ -1,4 +1,6 @@ class PunicaWrapperGPU:\n"
    "     def moe_align(self, topk_ids, num_experts, block_size):\n"
    "         max_num_tokens_padded = topk_ids.numel() + num_experts * (block_size - 1)\n"
    "+        if topk_ids.numel() < num_experts:\n"
    "+            max_num_tokens_padded = topk_ids.numel() * block_size\n"
    "         return max_num_tokens_padded\n"
)  # fmt: skip


def test_a_new_case_says_its_condition_and_what_it_sets_and_calls():
    [branch] = new_branches(pr_of(BIASES), extract_facts(pr_of(BIASES)))
    assert branch.condition == "self.moe.has_bias"
    assert branch_sentence(branch) == (
        "In `Fp8MoEMethod`, new code runs when `self.moe.has_bias`: it sets `w13_bias` and "
        "`w2_bias`, and calls `layer.register_parameter`."
    )  # a keyword argument inside the call (`requires_grad=False`) is not something it sets


def test_a_fallback_that_sets_one_name_to_a_literal_says_the_value():
    # vLLM #33724: the backend a removed one falls back to is the fact a user needs.
    fallback = changed("vllm/config/parallel.py", (
        "@@ -10,3 +10,9 @@ class ParallelConfig:\n"
        "     def __post_init__(self):\n"
        "         self.check()\n"
        "+        if self.all2all_backend == \"pplx\":\n"
        "+            logger.warning(\"pplx is removed: using allgather_reducescatter\")\n"
        "+            self.all2all_backend = \"allgather_reducescatter\"\n"
        "         self.done = True\n"
    ))  # fmt: skip
    [branch] = new_branches(pr_of(fallback), extract_facts(pr_of(fallback)))
    assert branch_sentence(branch) == (
        "In `ParallelConfig.__post_init__`, new code runs when "
        "`self.all2all_backend == \"pplx\"`: it sets `self.all2all_backend` to "
        "`\"allgather_reducescatter\"`, and logs a warning."
    )


def test_a_name_set_to_a_literal_and_then_changed_is_not_said_to_hold_it():
    counted = changed("vllm/a.py", (
        "@@ -1,3 +1,6 @@ def f(xs):\n"
        "     total = len(xs)\n"
        "+    if xs and xs[0] is None:\n"
        "+        skipped = 0\n"
        "+        skipped += len(xs)\n"
        "+        logger.warning(\"skipping\")\n"
        "     return total\n"
    ))  # fmt: skip
    [branch] = new_branches(pr_of(counted), extract_facts(pr_of(counted)))
    assert "to `0`" not in branch_sentence(branch)


def test_a_new_case_that_defines_a_function_says_so_not_what_the_functions_body_sets():
    # vLLM #33810: the mock's `head_size` is its own local; entering the case sets nothing.
    mocked = changed("benchmarks/attention_benchmarks/runner.py", (
        "@@ -120,3 +120,14 @@ def _create_metadata_builder(backend_name, builder_cls):\n"
        "     layer_names = [\"layer_0\"]\n"
        "+    if backend_name == \"flashinfer\":\n"
        "+        def mock_get_per_layer_parameters(vllm_config, layer_names, impl_cls):\n"
        "+            head_size = vllm_config.model_config.get_head_size()\n"
        "+            return {name: head_size**0.5 for name in layer_names}\n"
        "+\n"
        "+        with unittest.mock.patch(\n"
        "+            \"vllm.v1.attention.backends.flashinfer.get_per_layer_parameters\",\n"
        "+            mock_get_per_layer_parameters,\n"
        "+        ):\n"
        "+            return builder_cls(layer_names=layer_names)\n"
        "+\n"
        "     return builder_cls(layer_names=layer_names)\n"
    ))  # fmt: skip
    [branch] = new_branches(pr_of(mocked), extract_facts(pr_of(mocked)))
    assert branch_sentence(branch) == (
        "In `_create_metadata_builder`, new code runs when `backend_name == \"flashinfer\"`: "
        "it defines `mock_get_per_layer_parameters`, and calls `unittest.mock.patch`."
    )


def test_a_new_early_exit_says_what_it_returns_and_when():
    pr = pr_of(EARLY)
    [branch] = new_branches(pr, extract_facts(pr))
    assert branch_sentence(branch) == (
        "In `GPUModelRunner.sample_tokens`, a new check returns `None` when "
        "`self.execute_model_state is None`."
    )


def test_one_assignment_is_said_with_its_value_and_a_raise_with_its_error():
    one = changed("vllm/a.py", SMALL_BATCH + (
        "@@ -20,3 +22,5 @@ class PunicaWrapperGPU:\n"
        "     def pin(self):\n"
        "+        if not hasattr(os, \"sched_setaffinity\"):\n"
        "+            raise NotImplementedError(\"no affinity\")\n"
        "         os.sched_setaffinity(0, cores)\n"
    ))  # fmt: skip
    pr = pr_of(one)
    assert [branch_sentence(b) for b in new_branches(pr, extract_facts(pr))] == [
        "In `PunicaWrapperGPU.pin`, a new check raises `NotImplementedError` when "
        '`not hasattr(os, "sched_setaffinity")`.',  # an exit is said first
        "In `PunicaWrapperGPU.moe_align`, new code runs when `topk_ids.numel() < num_experts`: "
        "it sets `max_num_tokens_padded` to `topk_ids.numel() * block_size`.",
    ]


def test_an_edited_condition_code_put_back_an_if_else_or_a_new_function_is_no_new_case():
    edited = changed("vllm/lora/layers/logits_processor.py", (
        "@@ -88,6 +88,4 @@ class LogitsProcessorWithLoRA(BaseLayerWithLoRA):\n"
        "     def create_lora_weights(self):\n"
        "-        if self.base_layer.vocab_size <= 32000 or self.base_layer.vocab_size > 258048:\n"
        "-            raise ValueError(\"vocab size must be > 32000 and <= 258048\")\n"
        "+        if self.base_layer.vocab_size > 258048:\n"
        "+            raise ValueError(\"vocab size must be <= 258048\")\n"
        "         self.lora_a_stacked = None\n"
    ))  # fmt: skip
    put_back = changed("vllm/b.py", (
        "@@ -1,5 +1,6 @@ class Handlers:\n"
        "     def setup(self):\n"
        "-        order = backend.stride_order()\n"
        "-        shape = tuple(shape[i] for i in order)\n"
        "+        if has_layers_dim:\n"
        "+            order = backend.stride_order()\n"
        "+            shape = tuple(shape[i] for i in order)\n"
        "         index = shape.index(16)\n"
    ))  # fmt: skip
    if_else = changed("vllm/c.py", (
        "@@ -1,3 +1,6 @@ class Adapter:\n"
        "     def keys(self, op):\n"
        "+        if op.block_hashes is not None:\n"
        "+            hashes = list(op.block_hashes)\n"
        "+        else:\n"
        "             hashes = []\n"
        "         return hashes\n"
    ))  # fmt: skip
    new_function = changed("vllm/d.py", (
        "@@ -1,2 +1,6 @@\n"
        " import os\n"
        "+def algo_of(cfg):\n"
        "+    if cfg is None:\n"
        "+        return None\n"
        "+    return cfg.get(\"quant_algo\")\n"
        " \n"
    ))  # fmt: skip
    pr = pr_of(edited, put_back, if_else, new_function)
    assert new_branches(pr, extract_facts(pr)) == []


def test_a_new_case_ahead_of_the_old_code_kept_under_else_says_the_old_way_stays():
    # vLLM #34140: an audio's length comes from the processed arrays when there are any.
    fallback = changed("vllm/model_executor/models/voxtral.py", (
        "@@ -289,8 +290,13 @@ class VoxtralMultiModalProcessor(BaseMultiModalProcessor):\n"
        "         def get_replacement(item_idx: int):\n"
        "-            audios = mm_items.get_items(\"audio\", AudioProcessorItems)\n"
        "-            audio_len = audios.get_audio_length(item_idx)\n"
        "+            if item_idx < len(out_audio_items):\n"
        "+                audio_arr = out_audio_items[item_idx].get_data()[\"audio_arrays\"]\n"
        "+                audio_len = len(audio_arr)\n"
        "+            else:\n"
        "+                audios = mm_items.get_items(\"audio\", AudioProcessorItems)\n"
        "+                audio_len = audios.get_audio_length(item_idx)\n"
        " \n"
        "             nb_audio_tokens = processor.get_num_audio_tokens(audio_len)\n"
    ))  # fmt: skip
    # vLLM #35098: at import, a newer library's switch where it has one.
    module_level = changed("vllm/model_executor/model_loader/weight_utils.py", (
        "@@ -80,7 +80,11 @@ def enable_hf_transfer():\n"
        "             pass\n"
        " \n"
        " \n"
        "-enable_hf_transfer()\n"
        "+if hasattr(huggingface_hub.constants, \"HF_XET_HIGH_PERFORMANCE\"):\n"
        "+    enable_xet_high_performance()\n"
        "+else:\n"
        "+    enable_hf_transfer()\n"
        " \n"
        " \n"
        " class DisabledTqdm(tqdm):\n"
    ))  # fmt: skip
    pr = pr_of(fallback, module_level)
    assert [branch_sentence(b) for b in new_branches(pr, extract_facts(pr))] == [
        "In `VoxtralMultiModalProcessor.get_replacement`, new code runs when "
        "`item_idx < len(out_audio_items)`: it sets `audio_arr` and `audio_len`; otherwise "
        "the 2 lines starting `audios = mm_items.get_items(\"audio\", AudioProcessorItems)` run "
        "as before.",
        "In `vllm/model_executor/model_loader/weight_utils.py`, new code runs when "
        "`hasattr(huggingface_hub.constants, \"HF_XET_HIGH_PERFORMANCE\")`: it calls "
        "`enable_xet_high_performance`; otherwise `enable_hf_transfer()` runs as before.",
    ]
    # What the cases where the condition holds no longer run is the risk.
    assert risk_of(pr_of(module_level)) == (
        "In `vllm/model_executor/model_loader/weight_utils.py`, `enable_hf_transfer()` ran "
        "every time before and now runs only where "
        "`hasattr(huggingface_hub.constants, \"HF_XET_HIGH_PERFORMANCE\")` does not hold: a "
        "case where it holds skips it and calls `enable_xet_high_performance` instead."
    )


def test_tests_and_new_files_are_not_read():
    test = changed("tests/test_fp8.py", BIASES.patch or "")
    new_file = ChangedFile(BIASES.filename, "added", 9, 0, BIASES.patch)
    for pr in (pr_of(test), pr_of(new_file)):
        assert new_branches(pr, extract_facts(pr)) == []


def test_the_what_changed_leads_with_the_case_and_drops_its_lines_said_as_added():
    pr = pr_of(EARLY)
    said = "The PR makes `sample_tokens` return early after a failed call."
    sections = SummarySections(said, "Impact.", "Risk.", "Insight.", headline="h")
    what = finish(sections, pr, extract_facts(pr), ChangeType.SUBSTANTIAL).what_changed
    assert what.startswith(
        "In `GPUModelRunner.sample_tokens`, a new check returns `None` when "
        "`self.execute_model_state is None`."
    )
    assert "is added" not in what and "are added" not in what
    assert said in what


def test_a_case_the_model_already_quotes_is_not_said_again():
    pr = pr_of(EARLY)
    said = "Returns `None` when `self.execute_model_state is None` after a failed call."
    sections = SummarySections(said, "Impact.", "Risk.", "Insight.", headline="h")
    what = finish(sections, pr, extract_facts(pr), ChangeType.SUBSTANTIAL).what_changed
    assert "a new check" not in what


def test_a_branch_knows_the_lines_it_tells():
    branch = NewBranch("f.py", "f", "x", "returns early", True, ("if x:", "return"))
    assert branch.says("    return") and not branch.says("y = 1")


def test_a_new_early_exit_above_old_code_is_the_risk_a_reviewer_raises():
    assert risk_of(pr_of(EARLY)) == (
        "In `GPUModelRunner.sample_tokens`, when `self.execute_model_state is None`, the call "
        "now returns at once, where it went on to the code below before: a caller gets `None` "
        "for that case, and what that code did is skipped."
    )


def test_a_new_case_that_gives_a_name_another_value_is_read_by_the_code_below():
    override = changed("vllm/lora/punica_wrapper/punica_gpu.py", SMALL_BATCH)
    assert risk_of(pr_of(override)) == (
        "In `PunicaWrapperGPU.moe_align`, when `topk_ids.numel() < num_experts`, "
        "`max_num_tokens_padded` is now `topk_ids.numel() * block_size`, not the value "
        "`max_num_tokens_padded = topk_ids.numel() + num_experts * (block_size - 1)` gave it "
        "above: the code below reads the new value in that case."
    )
    reshaped = changed("vllm/model_executor/models/llama4.py", (
        "@@ -1,4 +1,6 @@ class Llama4ForCausalLM:\n"
        "     def load_weight(self, loaded_weight, original_ndim):\n"
        "         loaded_weight = loaded_weight.to(self.dtype)\n"
        "+        if original_ndim == 1:\n"
        "+            loaded_weight = loaded_weight.unsqueeze(-1)\n"
        "         param.copy_(loaded_weight)\n"
    ))  # fmt: skip
    assert risk_of(pr_of(reshaped)) == (
        "In `Llama4ForCausalLM.load_weight`, when `original_ndim == 1`, `loaded_weight` now "
        "becomes `loaded_weight.unsqueeze(-1)` before the code below reads it: that code gets "
        "the changed `loaded_weight` in that case, and the one it got before otherwise."
    )


def test_new_code_that_only_sets_things_is_no_exit_risk():
    pr = pr_of(BIASES)
    assert exit_risk(extract_facts(pr), pr) is None


def test_an_assert_turned_into_an_early_return_says_the_error_is_gone():
    asserted = changed("vllm/v1/worker/gpu_model_runner.py", (
        "@@ -3400,5 +3400,7 @@ class GPUModelRunner:\n"
        "     def sample_tokens(self, grammar_output):\n"
        "         self.kv_connector_output = None\n"
        "-        assert self.execute_model_state is not None\n"
        "+        if self.execute_model_state is None:\n"
        "+            return None\n"
        "         state = self.execute_model_state\n"
        "         return state\n"
    ))  # fmt: skip
    pr = pr_of(asserted)
    [branch] = new_branches(pr, extract_facts(pr))
    assert branch_sentence(branch) == (
        "In `GPUModelRunner.sample_tokens`, a new check returns `None` when "
        "`self.execute_model_state is None`, in place of "
        "`assert self.execute_model_state is not None`."
    )
    assert risk_of(pr) == (
        "In `GPUModelRunner.sample_tokens`, when `self.execute_model_state is None`, the call "
        "now returns `None` where `assert self.execute_model_state is not None` stopped it "
        "with an `AssertionError` before: a caller gets `None` for that case, with no error "
        "to show why."
    )
