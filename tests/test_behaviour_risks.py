"""Who now gets something different is the risk a reviewer raises: the cases a branch's
edited condition no longer catches (or newly catches), a value now computed once and kept (or
no longer), and a default every user who never set it now gets. Each is read from the diff
and said exactly; none is guessed."""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.caching import CacheChange, caches_changed
from summarizer.checks import FindingKind, check_answer, decide_type
from summarizer.conditions import ConditionChange, conditions_changed
from summarizer.facts import extract_facts
from summarizer.finishing import fact_risk, finish
from summarizer.insight import interface_sentence
from summarizer.new_returns import new_returns
from tests.diffs import CACHED_PROPERTY


def pr_of(*files: ChangedFile, title: str = "Fix a bound") -> PullRequest:
    return PullRequest(
        repo="o/r", number=35354, title=title, url="u", author="a", state="merged",
        files=files,
    )  # fmt: skip


def risk_of(pr: PullRequest) -> str:
    risk = fact_risk(extract_facts(pr), pr)
    assert risk is not None
    return risk.sentence


# vLLM #35354: the lower bound of a LoRA vocabulary check is dropped.
RELAXED = ChangedFile("vllm/lora/layers/logits_processor.py", additions=2, deletions=4, patch=(
    "@@ -88,10 +88,8 @@ class LogitsProcessorWithLoRA(BaseLayerWithLoRA):\n"
    "         model_config: PretrainedConfig | None = None,\n"
    "     ) -> None:\n"
    "-        if self.base_layer.vocab_size <= 32000 or self.base_layer.vocab_size > 258048:\n"
    "-            raise ValueError(\n"
    '-                "When using LoRA, vocab size must be > 32000 and <= 258048"\n'
    "-            )\n"
    "+        if self.base_layer.vocab_size > 258048:\n"
    '+            raise ValueError("When using LoRA, vocab size must be <= 258048")\n'
    "         self.lora_a_stacked = torch.zeros(\n"))  # fmt: skip


def test_a_part_dropped_from_a_raising_condition_lets_its_cases_through():
    pr = pr_of(RELAXED)
    assert conditions_changed(pr) == [ConditionChange(
        "vllm/lora/layers/logits_processor.py", "LogitsProcessorWithLoRA", "or",
        ("self.base_layer.vocab_size <= 32000",), (), "raises `ValueError`",
    )]  # fmt: skip
    assert risk_of(pr) == (
        "In `LogitsProcessorWithLoRA`, a case where only `self.base_layer.vocab_size <= 32000` "
        "holds no longer raises `ValueError`: the PR drops that part of the condition, and "
        "such a case now goes past that check."
    )


def test_a_part_added_to_a_condition_sends_new_cases_down_its_branch():
    widened = ChangedFile("vllm/quantization/fp8.py", additions=1, deletions=1, patch=(
        "@@ -300,7 +291,7 @@ class Fp8LinearMethod(LinearMethodBase):\n"
        "         # Disable marlin for rocm\n"
        "-        if current_platform.is_rocm():\n"
        "+        if current_platform.is_rocm() or current_platform.is_xpu():\n"
        "             self.use_marlin = False\n"))  # fmt: skip
    sentence = risk_of(pr_of(widened))
    assert sentence.startswith(
        "In `Fp8LinearMethod`, a case where only `current_platform.is_xpu()` holds now also "
        "takes the branch below it: the PR adds that part to the condition"
    )


def test_a_value_or_a_type_added_to_what_a_condition_matches_sends_its_cases_down():
    # vLLM #35430: MLA attention layers now get the KV-cache method too.
    typed = ChangedFile("vllm/model_executor/layers/quantization/modelopt.py", additions=1, deletions=1, patch=(
        "@@ -183,5 +183,5 @@ class ModelOptQuantConfigBase(QuantizationConfig):\n"
        "         # handle kv-cache first so we can focus only on weight quantization thereafter\n"
        "-        if isinstance(layer, Attention):\n"
        "+        if isinstance(layer, (Attention, MLAAttention)):\n"
        "             return self.KVCacheMethodCls(self)\n"))  # fmt: skip
    assert risk_of(pr_of(typed)) == (
        "In `ModelOptQuantConfigBase`, a case where only `isinstance(layer, MLAAttention)` "
        "holds now also returns early: the PR adds `MLAAttention` to the types `layer` is "
        "checked against, and such a case went past that branch before."
    )
    # vLLM #35047: a second quantization name takes the ModelOpt branch.
    valued = ChangedFile("vllm/model_executor/model_loader/weight_utils.py", additions=1, deletions=1, patch=(
        "@@ -375,4 +375,4 @@ def get_quant_config(\n"
        "         if model_config.quantization == \"bitsandbytes\":\n"
        "             config[\"adapter_name_or_path\"] = model_config.model\n"
        "-        elif model_config.quantization == \"modelopt\":\n"
        "+        elif model_config.quantization in (\"modelopt\", \"modelopt_mixed\"):\n"
        "             config = load(config)\n"))  # fmt: skip
    assert risk_of(pr_of(valued)) == (
        "In `get_quant_config`, a case where only `model_config.quantization == "
        "\"modelopt_mixed\"` holds now also takes the branch below it: the PR adds "
        "`\"modelopt_mixed\"` to the values `model_config.quantization` is compared with, and "
        "such a case went past that branch before."
    )
    # A value replaced by another is no value added: the line edit says it.
    swapped = ChangedFile("vllm/a.py", additions=1, deletions=1, patch=(
        "@@ -1,3 +1,3 @@ def f(x):\n"
        "-    if x.kind == \"a\":\n"
        "+    if x.kind == \"b\":\n"
        "         return 1\n"))  # fmt: skip
    assert conditions_changed(pr_of(swapped)) == []


def test_an_and_part_added_keeps_cases_out_of_an_early_return():
    narrowed = ChangedFile("vllm/engine.py", additions=1, deletions=1, patch=(
        "@@ -10,4 +10,4 @@ def step(self, batch):\n"
        "-    if batch.empty:\n"
        "+    if batch.empty and not self.draining:\n"
        "         return None\n"
        "     return self.run(batch)\n"))  # fmt: skip
    (change,) = conditions_changed(pr_of(narrowed))
    assert (change.operator, change.added, change.action) == (
        "and",
        ("not self.draining",),
        "returns early",
    )
    assert "a case where `not self.draining` does not hold no longer returns early" in risk_of(
        pr_of(narrowed)
    )


def test_a_condition_rewritten_or_split_inside_brackets_is_not_read_as_parts():
    rewritten = ChangedFile("vllm/engine.py", additions=1, deletions=1, patch=(
        "@@ -10,4 +10,4 @@ def step(self, batch):\n"
        "-    if batch.empty or self.paused:\n"
        "+    if not batch.ready:\n"
        "         return None\n"))  # fmt: skip
    bracketed = ChangedFile("vllm/engine.py", additions=1, deletions=1, patch=(
        "@@ -10,4 +10,4 @@ def step(self, batch):\n"
        '-    if check(a or b, "x or y"):\n'
        '+    if check(a or b, "x or y") or c:\n'
        "         return None\n"))  # fmt: skip
    mixed = ChangedFile("vllm/engine.py", additions=1, deletions=1, patch=(
        "@@ -10,4 +10,4 @@ def step(self, batch):\n"
        "-    if a or b and c:\n"
        "+    if a or b:\n"
        "         return None\n"))  # fmt: skip
    assert conditions_changed(pr_of(rewritten)) == []
    (change,) = conditions_changed(pr_of(bracketed))
    assert change.added == ("c",)
    assert conditions_changed(pr_of(mixed)) == []


def test_two_ifs_of_a_rewritten_block_are_not_one_condition_edited():
    rewritten = ChangedFile("vllm/engine.py", additions=7, deletions=7, patch=(
        "@@ -10,9 +10,9 @@ def step(self, batch):\n"
        + "".join(f"-    old_{i}()\n" for i in range(3))
        + "-    if a or b:\n-        return None\n"
        + "".join(f"-    older_{i}()\n" for i in range(2))
        + "+    if a:\n+        return None\n"
        + "".join(f"+    new_{i}()\n" for i in range(5))
        + "     return self.run(batch)\n"
    ))  # fmt: skip
    assert conditions_changed(pr_of(rewritten)) == []


def test_a_cpp_condition_is_read_the_same_way():
    kernel = ChangedFile("csrc/attention.cu", additions=1, deletions=1, patch=(
        "@@ -40,5 +40,5 @@ void launch(int n) {\n"
        "-  if (n <= 0 || n > kMax) {\n"
        "+  if (n > kMax) {\n"
        '     throw std::invalid_argument("n");\n'
        "   }\n"))  # fmt: skip
    (change,) = conditions_changed(pr_of(kernel))
    assert (change.dropped, change.action) == (("n <= 0",), "raises `invalid_argument`")


def test_tests_and_docs_conditions_are_not_behaviour():
    test = ChangedFile(
        "tests/test_x.py",
        additions=1,
        deletions=1,
        patch=("@@ -1,3 +1,3 @@ def test_x():\n-    if a or b:\n+    if a:\n         raise E\n"),
    )
    assert conditions_changed(pr_of(test)) == []




def test_a_property_made_cached_can_go_stale():
    pr = pr_of(CACHED_PROPERTY, title="Cache is_encoder_decoder")
    assert caches_changed(pr) == [CacheChange(
        "vllm/config/model.py", "ModelConfig.is_encoder_decoder", "cached_property", True,
        ("self.hf_config",),
    )]  # fmt: skip
    assert risk_of(pr) == (
        "`ModelConfig.is_encoder_decoder` is now computed once per `ModelConfig` object and "
        "kept (`@cached_property`): if `self.hf_config` changes after the first read, it still "
        "returns the old value."
    )


def test_a_cache_removed_from_a_kept_function_runs_its_body_each_call():
    uncached = ChangedFile("vllm/platforms/rocm.py", additions=1, deletions=1, patch=(
        "@@ -100,8 +100,6 @@ def _get_gcn_arch() -> str:\n"
        " \n"
        "-@cache\n"
        " def on_gfx9() -> bool:\n"
        "     return any(arch in _get_gcn_arch() for arch in ['gfx90a', 'gfx942'])\n"
        " \n"))  # fmt: skip
    pr = pr_of(uncached)
    assert [(c.name, c.cached) for c in caches_changed(pr)] == [("on_gfx9", False)]
    assert "`on_gfx9` no longer caches its result (`@cache` removed)" in risk_of(pr)


def test_a_cache_removed_where_the_body_now_returns_a_value_made_elsewhere_is_no_risk():
    # vLLM #34108: the arch is resolved once at import; `on_gfx9` returns the bool.
    resolved = ChangedFile("vllm/platforms/rocm.py", additions=1, deletions=3, patch=(
        "@@ -100,8 +100,6 @@ def _get_gcn_arch() -> str:\n"
        " \n"
        "-@cache\n"
        " def on_gfx9() -> bool:\n"
        "-    return any(arch in _get_gcn_arch() for arch in ['gfx90a', 'gfx942'])\n"
        "+    return _ON_GFX9\n"
        " \n"))  # fmt: skip
    assert caches_changed(pr_of(resolved)) == []


def test_a_cached_function_removed_whole_is_a_removal_not_a_cache_change():
    removed = ChangedFile("vllm/platforms/rocm.py", deletions=4, patch=(
        "@@ -100,7 +100,3 @@ import os\n"
        " \n"
        "-@cache\n"
        "-def on_gfx9() -> bool:\n"
        "-    return True\n"
        "-\n"
        " X = 1\n"))  # fmt: skip
    assert caches_changed(pr_of(removed)) == []


# vLLM #34924: an environment variable's default flipped, in one line of `envs.py`.
FLIPPED = ChangedFile("vllm/envs.py", additions=1, deletions=1, patch=(
    "@@ -1198,7 +1198,7 @@ environment_variables: dict[str, Callable[[], Any]] = {\n"
    '     "VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER": lambda: bool(\n'
    '-        int(os.getenv("VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER", "0"))\n'
    '+        int(os.getenv("VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER", "1"))\n'
    "     ),\n"))  # fmt: skip


def test_a_flipped_default_says_who_gets_it_and_how_to_keep_the_old_one():
    pr = pr_of(FLIPPED, title="Enable FlashInfer GEMM by default")
    assert risk_of(pr) == (
        '`VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER` now defaults to `"1"`, not `"0"`: a deployment '
        "that never set it gets the new behaviour when it upgrades, and setting "
        "`VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER=0` keeps the old one."
    )


def test_a_flipped_default_is_substantial_whatever_the_model_says():
    pr = pr_of(FLIPPED, title="Enable FlashInfer GEMM by default")
    facts = extract_facts(pr)
    assert decide_type(pr, ChangeType.TRIVIAL, "", facts) == ChangeType.SUBSTANTIAL


def test_saying_the_code_did_not_change_when_it_did_is_a_finding():
    pr = pr_of(FLIPPED, title="Enable FlashInfer GEMM by default")
    sections = SummarySections(
        headline="No changes to the code",
        what_changed="The PR does not change any code, only `VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER`.",
        technical_impact="", potential_risks="", key_insights="",
    )  # fmt: skip
    findings = check_answer(pr, sections, ChangeType.SUBSTANTIAL, extract_facts(pr))
    denied = [f for f in findings if f.kind == FindingKind.NO_EFFECT_CLAIMED]
    assert {f.section for f in denied} == {"headline", "what_changed"}
    assert "the PR changes the code of `vllm/envs.py`" in denied[0].explanation


def test_a_docs_only_pr_may_say_no_code_changed():
    docs = ChangedFile(
        "docs/usage.md",
        additions=1,
        deletions=1,
        patch=("@@ -1,2 +1,2 @@\n-Old words.\n+New words.\n"),
    )
    sections = SummarySections(
        headline="Docs wording", what_changed="No code changes: `docs/usage.md` is reworded.",
        technical_impact="", potential_risks="", key_insights="",
    )  # fmt: skip
    findings = check_answer(pr_of(docs), sections, ChangeType.TRIVIAL, extract_facts(pr_of(docs)))
    assert not [f for f in findings if f.kind == FindingKind.NO_EFFECT_CLAIMED]


# vLLM #32642: `logitsprocs` keeps its name; only its annotation changes.
RETYPED = ChangedFile("vllm/v1/sample/logits_processor/state.py", additions=1, deletions=1,
    patch=(
    "@@ -20,7 +20,7 @@ class LogitsProcessors:\n"
    "     def __init__(\n"
    '-        self, logitsprocs: Iterator["LogitsProcessor"] | None = None\n'
    '+        self, logitsprocs: Iterable["LogitsProcessor"] | None = None\n'
    "     ) -> None:\n"
    "         self.argmin_invariant = []\n"))  # fmt: skip


def test_a_parameter_retyped_is_not_a_parameter_gone():
    pr = pr_of(RETYPED)
    facts = extract_facts(pr)
    (signature,) = facts.signatures
    assert signature.dropped_params == () and signature.new_params == ()
    assert signature.retyped_only
    risk = fact_risk(facts, pr)
    assert risk is None or ("is gone" not in risk.sentence and "must match" not in risk.sentence)
    # Nor is it a signature callers and users see change (vLLM #34175's `KVCache` retyped).
    assert "changes the signature" not in interface_sentence(facts, pr)


# vLLM #32975: a speed-up replaces `len(...)` with a method it adds.
FASTER_COUNT = ChangedFile("vllm/v1/engine/detokenizer.py", additions=6, deletions=1, patch=(
    "@@ -100,7 +100,12 @@ class BaseIncrementalDetokenizer:\n"
    "     def update(self, new_token_ids):\n"
    "-        n = len(self.output_token_ids)\n"
    "+        n = self.num_output_tokens()\n"
    "         return n\n"
    "+\n"
    "+    def num_output_tokens(self) -> int:\n"
    "+        return len(self.token_ids) - self.prompt_len\n"
    "+\n"
))  # fmt: skip


def test_a_speed_up_that_swaps_in_a_new_call_must_return_the_same_value():
    pr = pr_of(FASTER_COUNT, title="[Perf] Optimize detokenizer python logic")
    assert risk_of(pr) == (
        "`self.num_output_tokens()` replaces `len(self.output_token_ids)` in "
        "`BaseIncrementalDetokenizer.update`; `num_output_tokens` is new in this PR, and "
        "returns `len(self.token_ids) - self.prompt_len` in `BaseIncrementalDetokenizer`: as "
        "a speed-up, it must return what `len(self.output_token_ids)` did in each place; where "
        "it does not, the code there now gets another value."
    )
    # What the new body returns is quoted only where it is all the body.
    longer = FASTER_COUNT.patch.replace(
        "+        return len(self.token_ids) - self.prompt_len\n",
        "+        n = len(self.token_ids)\n+        return n - self.prompt_len\n",
    )
    assert new_returns(pr_of(replace(FASTER_COUNT, patch=longer)), "num_output_tokens") == []


def test_a_fix_that_swaps_in_a_new_call_is_meant_to_change_the_value():
    pr = pr_of(FASTER_COUNT, title="[Bugfix] Count output tokens without the prompt")
    assert "must return what" not in risk_of(pr)


# vLLM #34190: the files are sorted before each rank takes its share.
SORTED_FILES = ChangedFile("vllm/model_loader/weight_utils.py", additions=1, patch=(
    "@@ -800,6 +800,7 @@ def fastsafetensors_weights_iterator(hf_weights_files, use_tqdm):\n"
    "     else:\n"
    "         pg = SingleGroup()\n"
    "+    hf_weights_files = sorted(hf_weights_files, key=_natural_sort_key)\n"
    "     weight_files_sub_lists = [\n"
    "         hf_weights_files[i : i + pg.size()]\n"
))  # fmt: skip


def test_a_sequence_now_sorted_into_itself_changes_the_order_code_below_sees():
    assert risk_of(pr_of(SORTED_FILES)) == (
        "In `fastsafetensors_weights_iterator`, `hf_weights_files` is now sorted by "
        "`_natural_sort_key` before `hf_weights_files[i : i + pg.size()]` reads it: code below "
        "that relied on the order it was given in (which item comes first) now sees another."
    )


def test_a_new_sorted_copy_or_a_sort_in_a_new_function_is_no_such_change():
    copy = ChangedFile("vllm/a.py", additions=1, patch=(
        "@@ -10,3 +10,4 @@ def f(types):\n+    ordered = sorted(types)\n     return types\n"))
    new_function = ChangedFile("vllm/b.py", additions=3, patch=(
        "@@ -10,3 +10,6 @@ import os\n+def g(xs):\n+    xs.sort()\n+    return xs\n"))
    for f in (copy, new_function):
        risk = fact_risk(extract_facts(pr_of(f)), pr_of(f))
        assert risk is None or "now sorted" not in risk.sentence


# vLLM #34055: a directory of kernels moved, 21 modules renamed into a new package.
def moved_module(old: str, new: str) -> ChangedFile:
    return ChangedFile(new, status="renamed", previous_filename=old, patch=None)


def test_modules_moved_with_nothing_left_behind_break_imports_of_the_old_path():
    old, new = "vllm/layers/quantization/kernels", "vllm/kernels/linear"
    pr = pr_of(*(moved_module(f"{old}/{n}.py", f"{new}/{n}.py") for n in ("marlin", "cutlass")))
    assert risk_of(pr) == (
        f"The PR moves 2 modules from `{old}/` to `{new}/`: code outside this diff that "
        "imports them from the old path fails with an ImportError."
    )


def test_a_module_whose_old_path_is_written_again_or_a_moved_test_is_no_such_risk():
    shim = pr_of(
        moved_module("vllm/a/old.py", "vllm/b/new.py"),
        ChangedFile("vllm/a/old.py", status="added", additions=1, patch="@@ -0,0 +1 @@\n+from vllm.b.new import *\n"),
    )  # fmt: skip
    moved_test = pr_of(moved_module("tests/a/test_x.py", "tests/b/test_x.py"))
    for pr in (shim, moved_test):
        risk = fact_risk(extract_facts(pr), pr)
        assert risk is None or "ImportError" not in risk.sentence


# vLLM #35250: FP4 ops gated to gfx950, in the condition a method returns.
GATED = ChangedFile("vllm/_aiter_ops.py", additions=3, deletions=1, patch=(
    "@@ -1052,6 +1052,8 @@ class rocm_aiter_ops:\n"
    "     def is_fp4bmm_enabled(cls) -> bool:\n"
    "-        return cls._AITER_ENABLED and cls._FP4BMM_ENABLED\n"
    "+        from vllm.platforms.rocm import on_gfx950\n"
    "+\n"
    "+        return cls._AITER_ENABLED and cls._FP4BMM_ENABLED and on_gfx950()\n"
))  # fmt: skip


def test_a_part_added_to_a_returned_and_makes_its_cases_false():
    (change,) = conditions_changed(pr_of(GATED))
    assert (change.returned, change.operator, change.added) == (True, "and", ("on_gfx950()",))
    assert risk_of(pr_of(GATED)) == (
        "In `rocm_aiter_ops.is_fp4bmm_enabled`, the value returned now also requires "
        "`on_gfx950()`: a case where that does not hold now gets a false value where it could "
        "get a true one before."
    )


def test_what_changed_says_the_part_a_condition_gains_or_loses_and_the_risk_its_cases():
    said = SummarySections("It gates FP4.", "", "", "")
    gated = finish(said, pr_of(GATED), extract_facts(pr_of(GATED)))
    assert gated.what_changed.startswith(
        "In `rocm_aiter_ops.is_fp4bmm_enabled`, `on_gfx950()` is added to the `and` chain it "
        "returns."
    )
    relaxed = finish(said, pr_of(RELAXED), extract_facts(pr_of(RELAXED)))
    assert relaxed.what_changed.startswith(
        "In `LogitsProcessorWithLoRA`, `self.base_layer.vocab_size <= 32000` is dropped from "
        "the condition of the branch that raises `ValueError`."
    )
    # Each method imports what it gates on first, so no line is edited in place.
    both = ChangedFile("vllm/_aiter_ops.py", additions=6, deletions=2, patch=(
        GATED.patch + "@@ -1060,3 +1062,5 @@ class rocm_aiter_ops:\n"
        "     def is_asm_fp4_gemm_enabled(cls) -> bool:\n"
        "-        return cls._AITER_ENABLED and cls._FP4_GEMM_ASM\n"
        "+        from vllm.platforms.rocm import on_gfx950\n"
        "+\n"
        "+        return cls._AITER_ENABLED and cls._FP4_GEMM_ASM and on_gfx950()\n"
    ))  # fmt: skip
    twice = finish(said, pr_of(both), extract_facts(pr_of(both)))
    assert twice.what_changed.startswith(
        "In `rocm_aiter_ops.is_fp4bmm_enabled` and `rocm_aiter_ops.is_asm_fp4_gemm_enabled`, "
        "`on_gfx950()` is added to the `and` chain each returns."
    )
    # Where the model quotes the part already, it is not said again.
    quoted = SummarySections("It drops `self.base_layer.vocab_size <= 32000`.", "", "", "")
    kept = finish(quoted, pr_of(RELAXED), extract_facts(pr_of(RELAXED)))
    assert "is dropped from" not in kept.what_changed


def test_a_part_dropped_from_a_returned_or_is_no_longer_true_alone():
    narrowed = ChangedFile("vllm/moe/config.py", additions=1, deletions=1, patch=(
        "@@ -10,3 +10,3 @@ class FusedMoEParallelConfig:\n"
        "     def use_batched_activation_format(self) -> bool:\n"
        "-        return self.use_pplx_kernels or self.use_deepep_ll_kernels\n"
        "+        return self.use_deepep_ll_kernels\n"
    ))  # fmt: skip
    assert "is no longer true where only `self.use_pplx_kernels` holds" in risk_of(pr_of(narrowed))
