"""The code-written sentences say nothing a reader checking the diff would find false or
empty: found on dev-day PRs that had never been read before (judge pass 20)."""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import check_answer
from summarizer.facts import extract_facts
from summarizer.finishing import finish, risk_sentence
from tests.conftest import REPO
from tests.diffs import changed, risk_of


def pr_of(*files: ChangedFile, title: str = "A change") -> PullRequest:
    return PullRequest(REPO, 1, title, "u", "a", "merged", files=files)


def test_a_test_functions_parameters_are_no_callers_risk():
    # vLLM #35284: a parametrized test lost `max_pixels`; nothing outside the tests calls it.
    pr = pr_of(
        ChangedFile(
            "tests/models/test_qwen2_vl.py", additions=1, deletions=1,
            patch="@@ -5,3 +5,3 @@\n-def test_size(model_id, max_pixels):\n"
            "+def test_size(model_id):\n     assert model_id\n",
        ),
        ChangedFile(
            "vllm/x.py", additions=1, deletions=1,
            patch="@@ -1,2 +1,2 @@\n def run(a):\n-    return a\n+    return a + 1\n",
        ),
    )  # fmt: skip
    assert "max_pixels" not in risk_sentence(extract_facts(pr), pr)


def test_a_type_alias_retyped_says_what_its_values_now_hold():
    # vLLM #35275: a type has a range and a size, not a value.
    pr = pr_of(
        ChangedFile(
            "csrc/mamba/selective_scan.h", additions=1, deletions=1,
            patch="@@ -10,3 +10,3 @@ struct SSMParamsBase {\n"
            "-    using index_t = uint32_t;\n+    using index_t = size_t;\n     int batch;\n",
        ),
    )  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "`index_t` now stands for `size_t`, not `uint32_t`: every value declared as `index_t` "
        "now has the range and size of `size_t`, in each file that uses it."
    )


def test_a_value_given_a_name_is_not_a_value_changed():
    # vLLM #34846: `2` became `num_stages_rocm`, which the PR sets to 2.
    pr = pr_of(
        ChangedFile(
            "vllm/moe.py", additions=3, deletions=1,
            patch="@@ -1,4 +1,6 @@ def get_default_config(M):\n"
            "+    num_stages_rocm = 2\n"
            "     config = {\n"
            '-        "num_stages": 3 if not is_rocm() else 2,\n'
            '+        "num_stages": 3 if not is_rocm() else num_stages_rocm,\n'
            "     }\n",
        ),
    )  # fmt: skip
    assert "num_stages_rocm` where it used `2`" not in risk_sentence(extract_facts(pr), pr)


def test_a_raise_in_a_method_the_pr_adds_breaks_no_caller():
    # vLLM #33443: a new default method raises NotImplementedError; its signature spans lines.
    pr = pr_of(
        ChangedFile(
            "vllm/attention/backend.py", additions=9, deletions=0,
            patch="@@ -720,6 +720,15 @@ class AttentionImpl(AttentionImplBase[T], Generic[T]):\n"
            '         """\n         return False\n \n'
            "+    def do_rope_and_kv_cache_update(\n+        self,\n+        layer,\n"
            '+    ):\n+        """\n+        Called by the fused op.\n+        """\n'
            "+        raise NotImplementedError\n+\n",
        ),
    )  # fmt: skip
    facts = extract_facts(pr)
    assert "AttentionImpl.do_rope_and_kv_cache_update" in [d.name for d in facts.of("added")]
    assert "raises" not in (risk_sentence(facts, pr) or "")


def test_a_hunk_that_starts_at_a_docstrings_end_still_shows_its_fields():
    # vLLM #35060: the hunk opens on the closing line of the previous field's docstring.
    pr = pr_of(
        ChangedFile(
            "vllm/config/speculative.py", additions=0, deletions=3,
            patch="@@ -101,9 +101,6 @@ class SpeculativeConfig:\n"
            '     will use the default version."""\n \n'
            "-    disable_by_batch_size: int | None = Field(default=None, ge=2)\n"
            '-    """Disable speculative decoding for large batches."""\n'
            "     disable_padded_drafter_batch: bool = False\n",
        ),
    )  # fmt: skip
    facts = extract_facts(pr)
    assert [(s.kind, s.name, s.change) for s in facts.settings] == [
        ("config field", "SpeculativeConfig.disable_by_batch_size", "removed")
    ]
    assert risk_of(pr) == (
        "A configuration, script or CI job that still sets "
        "`SpeculativeConfig.disable_by_batch_size` no longer has the effect it had."
    )
    # A field its PR calls unused had no effect to lose: what still sets it is the risk.
    unused = replace(pr, title="Remove unused disable_by_batch_size from SpeculativeConfig")
    assert risk_of(unused) == (
        "By the PR's title `SpeculativeConfig.disable_by_batch_size` was unused: what can "
        "still break is a configuration, script or CI job that sets it, which now names a "
        "setting that is gone."
    )


def test_old_code_rewritten_in_place_and_copied_to_a_benchmark_is_not_moved():
    # vLLM #34846: the benchmark keeps the old defaults to compare the new ones against.
    old = [
        "    elif M <= E:", "        config = {", '            "BLOCK_SIZE_M": 16,',
        '            "BLOCK_SIZE_N": 32,', '            "BLOCK_SIZE_K": 64,', "        }",
    ]  # fmt: skip
    new = [
        "    else:", "        block_m = 16 if M <= 32 else 64",
        "        block_n = 64 if M <= 64 else 128", "        block_k = 128 if M <= 64 else 64",
        "        num_warps = 4 if M <= 128 else 8", "        num_stages = 3",
        "        config = {", '            "BLOCK_SIZE_M": block_m,', "        }",
    ]  # fmt: skip
    pr = pr_of(
        ChangedFile(
            "vllm/fused_moe.py", additions=len(new), deletions=len(old),
            patch="@@ -10,7 +10,9 @@ def get_default_config(M, E):\n     if M > 4096:\n"
            + "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new),
        ),
        ChangedFile(
            "benchmarks/benchmark_moe_defaults.py", status="added", additions=len(old) + 1,
            patch="@@ -0,0 +1,7 @@\n+def old_default_config(M, E):\n"
            + "".join(f"+{line}\n" for line in old),
        ),
    )  # fmt: skip
    assert extract_facts(pr).moved_lines == ()


def test_new_definitions_are_new_in_the_plain_risk_not_changed():
    pr = pr_of(
        ChangedFile(
            "vllm/metrics/perf.py", additions=4, deletions=0,
            patch="@@ -1,2 +1,6 @@\n import x\n+def make_per_engine(n):\n+    return [n]\n"
            "+def observe(stats):\n+    return stats\n",
        ),
    )  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "In `vllm/metrics/perf.py`, `make_per_engine` and `observe` are new, and no test "
        "in this PR covers them: a mistake there shows only when that code runs."
    )


def test_key_insights_written_by_code_never_repeat_the_risk():
    # Both the risk and the insight said "No test changes with it in this PR." (21 of 122).
    pr = pr_of(
        ChangedFile(
            "vllm/x.py", additions=1, deletions=1,
            patch="@@ -1,2 +1,2 @@\n def run(a):\n-    return a\n+    return a + 1\n",
        ),
    )  # fmt: skip
    facts = extract_facts(pr)
    answer = SummarySections("`run` now adds one.", "", "", "")  # the rest was padding
    done = finish(answer, pr, facts)
    assert done.key_insights not in done.potential_risks
    assert done.key_insights == (
        "Outside tests, docs and CI, the PR adds 1 line and removes 1, in `vllm/x.py`."
    )


def test_an_argument_whose_value_changes_was_passed_before():
    # vLLM #35284: `min_pixels=` was there; only the key it reads changed.
    pr = pr_of(
        ChangedFile(
            "vllm/models/ernie.py", additions=2, deletions=1,
            patch="@@ -10,5 +10,6 @@ class ErnieInfo:\n"
            '+        min_pixels_key = "min_pixels"\n'
            "         resized = smart_resize(\n"
            '-            min_pixels=size["min_pixels"],\n'
            "+            min_pixels=size[min_pixels_key],\n"
            "         )\n",
        ),
    )  # fmt: skip
    assert "did not pass" not in risk_sentence(extract_facts(pr), pr)


def test_a_raise_in_a_file_the_pr_adds_breaks_no_caller():
    # vLLM #34302: a new CUDA entry point throws on a bad argument; nothing called it before.
    pr = pr_of(
        ChangedFile(
            "csrc/moe/router_gemm_entry.cu", status="added", additions=3,
            patch="@@ -0,0 +1,3 @@\n+void router_gemm(int n) {\n"
            '+  throw std::invalid_argument("bad n");\n+}\n',
        ),
    )  # fmt: skip
    assert "raises" not in (risk_sentence(extract_facts(pr), pr) or "")


def test_a_raise_that_takes_an_asserts_place_adds_no_stop():
    # vLLM #35010: `assert self.is_flash_attn_backend` became a dispatch whose else raises.
    pr = pr_of(
        ChangedFile(
            "vllm/attention/mm_encoder.py", additions=6, deletions=1,
            patch="@@ -10,4 +10,9 @@ class MMEncoderAttention:\n     def forward_xpu(self, q):\n"
            "-        assert self.is_flash_attn_backend\n"
            "+        if self.is_flash_attn_backend:\n+            return self._forward_fa(q)\n"
            "+        elif self.is_sdpa:\n+            return self._forward_sdpa(q)\n"
            '+        else:\n+            raise ValueError("unsupported backend")\n'
            "         return q\n",
        ),
    )  # fmt: skip
    assert "raises" not in (risk_sentence(extract_facts(pr), pr) or "")


def test_data_files_added_alone_take_effect_only_where_code_looks_them_up():
    # vLLM #35457: tuned MoE configs, one JSON per shape and GPU, and no code.
    folder = "vllm/model_executor/layers/fused_moe/configs"
    pr = pr_of(*(
        ChangedFile(f"{folder}/{name}", "added", 146, 0, '@@ -0,0 +1,2 @@\n+{\n+}\n')
        for name in ("E=128,N=96,device_name=NVIDIA_H200.json", "E=128,N=96,device_name=NVIDIA_H200,dtype=fp8_w8a8.json")
    ))  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "The PR only adds the data files `E=128,N=96,device_name=NVIDIA_H200.json` and "
        "`E=128,N=96,device_name=NVIDIA_H200,dtype=fp8_w8a8.json` in "
        f"`{folder}/`, and no code changes with them: they take effect only where code that "
        "was there looks up a file of that name, so a name that does not match is silently "
        "never read."
    )


def test_the_name_an_assignment_sets_renamed_is_said_as_a_rename_not_a_value():
    # vLLM #30357: `self._emulate = (` becomes `self.emulate = (`; the value is the same.
    pr = pr_of(ChangedFile("vllm/quark_moe.py", additions=1, deletions=1, patch=(
        "@@ -727,6 +727,6 @@ class QuarkOCP_MX_MoEMethod(QuarkMoEMethod):\n"
        "     def __init__(self, weight_config, input_config, moe):\n"
        "-        self._emulate = (\n"
        "+        self.emulate = (\n"
        "             not current_platform.supports_mx()\n"
        "         )\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "`QuarkOCP_MX_MoEMethod.__init__` now sets `self.emulate` where it set "
        "`self._emulate`: code outside this diff that reads `self._emulate` no longer finds "
        "it set here."
    )


# vLLM #35330's new batched scorer.
BATCHED_MAXSIM = ChangedFile("vllm/score/utils.py", additions=2, deletions=0, patch=(
    "@@ -1,2 +1,4 @@\n import torch\n+def compute_maxsim_scores(pairs):\n"
    "+    return [p.max() for p in pairs]\n"
))  # fmt: skip


def test_a_new_function_passed_in_place_of_another_in_a_speed_up_must_give_the_same():
    # vLLM #35330: the scorer handed to the executor is a new, batched one.
    pr = pr_of(
        ChangedFile("vllm/score/serving.py", additions=1, deletions=1, patch=(
            "@@ -80,4 +80,4 @@ async def score(self, pairs):\n"
            "         scores = await loop.run_in_executor(\n"
            "             None,\n"
            "-            compute_maxsim_score,\n"
            "+            compute_maxsim_scores,\n"
            "             pairs,\n"
        )),
        BATCHED_MAXSIM,
        title="[Perf] Optimize maxsim scores computation",
    )  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr).startswith(
        "`compute_maxsim_scores` replaces `compute_maxsim_score` in `score`; "
        "`compute_maxsim_scores` is new in this PR, and returns `[p.max() for p in pairs]`: "
        "as a speed-up, it must return what `compute_maxsim_score` did in each place"
    )


def test_a_new_function_imported_in_place_of_another_in_a_speed_up_must_give_the_same():
    # vLLM #35330: the call sites are rewritten whole; the import says what replaces what.
    pr = pr_of(
        ChangedFile("vllm/score/serving.py", additions=1, deletions=1, patch=(
            "@@ -10,4 +10,4 @@ from vllm.score.utils import (\n"
            "     ScoreData,\n"
            "-    compute_maxsim_score,\n"
            "+    compute_maxsim_scores,\n"
            " )\n"
        )),
        BATCHED_MAXSIM,
        title="[Perf] Batch maxsim scores",
    )  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr).startswith(
        "`compute_maxsim_scores` replaces `compute_maxsim_score`; `compute_maxsim_scores` is "
        "new in this PR, and returns `[p.max() for p in pairs]`: as a speed-up, it must return "
        "what `compute_maxsim_score` did in each place"
    )


def test_a_lazy_import_pr_means_to_change_no_result_either():
    # vLLM #34651: "[Feature] Lazy import for the mistral tokenizer module".
    pr = pr_of(
        ChangedFile("vllm/serving_chat.py", additions=1, deletions=1, patch=(
            "@@ -10,3 +10,3 @@ class OpenAIServingChat:\n"
            "     def render(self, tokenizer):\n"
            "-        if isinstance(tokenizer, MistralTokenizer):\n"
            "+        if is_mistral_tokenizer(tokenizer):\n"
            "             return self.mistral(tokenizer)\n"
        )),
        ChangedFile("vllm/tokenizers/__init__.py", additions=2, deletions=0, patch=(
            "@@ -1,2 +1,4 @@\n import x\n+def is_mistral_tokenizer(tokenizer):\n"
            "+    return getattr(tokenizer, \"IS_MISTRAL_TOKENIZER\", False)\n"
        )),
        title="[Feature] Lazy import for the mistral tokenizer module",
    )  # fmt: skip
    said = risk_sentence(extract_facts(pr), pr)
    assert "as a lazy import, it must return what `isinstance(tokenizer, MistralTokenizer)` did" in said
    # Code's own sentence claims no speed-up, and names nothing new as replaced.
    sections = SummarySections("It loads the module lazily.", "", said, "")
    assert check_answer(pr, sections, ChangeType.SUBSTANTIAL, extract_facts(pr)) == []


def test_a_swap_made_on_different_lines_is_counted_in_every_place_the_diff_makes_it():
    # vLLM #34651: the same call replaces `isinstance` on four different lines of the chat
    # server, and in another file; the facts group only identical lines, which are two.
    pr = pr_of(
        ChangedFile("vllm/serving_chat.py", additions=4, deletions=4, patch=(
            "@@ -10,7 +10,7 @@ class OpenAIServingChat:\n"
            "-        if isinstance(tokenizer, MistralTokenizer):\n"
            "+        if is_mistral_tokenizer(tokenizer):\n"
            "             return self.mistral(tokenizer)\n"
            "-        if isinstance(tokenizer, MistralTokenizer):\n"
            "+        if is_mistral_tokenizer(tokenizer):\n"
            "             pass\n"
            "-            and not isinstance(tokenizer, MistralTokenizer)\n"
            "+            and not is_mistral_tokenizer(tokenizer)\n"
            "@@ -90,3 +90,3 @@ class OpenAIServingChat:\n"
            "-    cls = MistralToolCall if isinstance(tokenizer, MistralTokenizer) else ToolCall\n"
            "+    cls = MistralToolCall if is_mistral_tokenizer(tokenizer) else ToolCall\n"
        )),
        ChangedFile("vllm/serving_score.py", additions=1, deletions=1, patch=(
            "@@ -5,2 +5,2 @@ def score(tokenizer):\n"
            "-    if isinstance(tokenizer, MistralTokenizer):\n"
            "+    if is_mistral_tokenizer(tokenizer):\n"
        )),
        ChangedFile("vllm/tokenizers/__init__.py", additions=2, deletions=0, patch=(
            "@@ -1,2 +1,4 @@\n import x\n+def is_mistral_tokenizer(tokenizer):\n"
            "+    return getattr(tokenizer, \"IS_MISTRAL_TOKENIZER\", False)\n"
        )),
        title="[Feature] Lazy import for the mistral tokenizer module",
    )  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr).startswith(
        "`is_mistral_tokenizer(tokenizer)` replaces `isinstance(tokenizer, MistralTokenizer)` "
        "in `vllm/serving_chat.py` (4 places), and written the same in 1 more place, in 1 "
        "other file; "
    )


def test_a_method_re_signed_alike_in_many_classes_breaks_the_subclasses_outside_the_diff():
    # vLLM #35083: `apply(prompt, mm_items, ...)` became `apply(inputs, timing_ctx)` in eight
    # processors; a model's processor out of tree still overrides the old one.
    def processor(cls: str) -> ChangedFile:
        return changed(f"vllm/model_executor/models/{cls.lower()}.py", (
            f"@@ -10,3 +10,3 @@ class {cls}(BaseMultiModalProcessor):\n"
            "-    def apply(self, prompt: str, mm_items: MultiModalDataItems) -> MultiModalInputs:\n"
            "+    def apply(self, inputs: ProcessorInputs, timing_ctx: TimingContext) -> MultiModalInputs:\n"
            "         return self._apply(inputs)\n"
        ))  # fmt: skip

    pr = pr_of(*(processor(c) for c in ("Clip", "Siglip", "Pixtral")))
    assert risk_sentence(extract_facts(pr), pr) == (
        "A subclass outside this diff that overrides `apply`, or a caller of it, breaks: in the "
        "3 classes here it no longer takes `prompt` and `mm_items`, and takes `inputs` and "
        "`timing_ctx` instead."
    )
    assert "overrides" not in risk_sentence(extract_facts(pr_of(processor("Clip"))), pr)


def test_an_expression_put_behind_a_new_method_that_returns_it_is_a_hook_for_subclasses():
    # vLLM #33012: `_is_last_rank` returns what the line read, so TPU's executor can override it.
    pr = pr_of(changed("vllm/v1/executor/ray_utils.py", (
        "@@ -108,7 +108,7 @@ try:\n"
        "                 output = output.get_output()\n"
        "-            if not get_pp_group().is_last_rank:\n"
        "+            if not self._is_last_rank():\n"
        "                 assert not output or not output.req_ids\n"
        "@@ -128,6 +128,9 @@ try:\n"
        "         def _is_intermediate_tensors(self, output) -> bool:\n"
        "             return isinstance(output, IntermediateTensors)\n"
        " \n"
        "+        def _is_last_rank(self) -> bool:\n"
        "+            return get_pp_group().is_last_rank\n"
        "+\n"
        "     ray_import_err = None\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "`self._is_last_rank()` replaces `get_pp_group().is_last_rank` in "
        "`vllm/v1/executor/ray_utils.py`, and the new `_is_last_rank` returns "
        "`get_pp_group().is_last_rank`: the value is the same until a subclass overrides "
        "`_is_last_rank`; an override then decides `if not self._is_last_rank():` here."
    )


def test_a_link_a_message_gives_is_a_link_for_readers_not_a_value_code_depends_on():
    # vLLM #35314 fixed outdated links; "whatever depended on the value of" a URL said nothing.
    pr = pr_of(changed("vllm/model_executor/models/config.py", (
        "@@ -80,3 +80,3 @@ class NomicBertModelConfig(VerifyAndUpdateConfig):\n"
        "                 logger.warning(\n"
        "-                    \"see docs/examples/context_extension.html\",\n"
        "+                    \"see docs/examples/context_extension.py\",\n"
        "                 )\n"
    )))  # fmt: skip
    assert "whatever depended" in risk_sentence(extract_facts(pr), pr)  # a sentence, not a link
    link = pr_of(changed("vllm/model_executor/models/config.py", (
        "@@ -80,3 +80,3 @@ class NomicBertModelConfig(VerifyAndUpdateConfig):\n"
        "                     \"To enable context extension, see: \"\n"
        "-                    \"https://github.com/o/r/tree/main/examples/context_extension.html\",\n"
        "+                    \"https://github.com/o/r/tree/main/examples/context_extension.py\",\n"
        "                     max_model_len_before,\n"
        "                 )\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(link), link).endswith(
        "a link that does not resolve misleads whoever follows it, and changes nothing that runs."
    )


def test_a_line_of_a_dockerfile_or_requirements_file_reaches_every_build_from_it():
    # vLLM #34032: every ROCm base image now builds another Triton.
    docker = pr_of(ChangedFile("docker/Dockerfile.rocm_base", additions=1, deletions=1, patch=(
        "@@ -8,3 +8,3 @@ ARG PYTORCH_BRANCH=\"1c57644d\"\n"
        "-ARG TRITON_BRANCH=\"57c693b6\"\n"
        "+ARG TRITON_BRANCH=\"f332c492\"\n"
        " ARG TRITON_REPO=\"https://github.com/ROCm/triton.git\"\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(docker), docker) == (
        "Every image built from `docker/Dockerfile.rocm_base` now gets "
        "`TRITON_BRANCH=\"f332c492\"`, where it got `TRITON_BRANCH=\"57c693b6\"`."
    )
    pins = pr_of(ChangedFile("requirements/rocm-build.txt", additions=1, deletions=1, patch=(
        "@@ -5,3 +5,3 @@ torch==2.9.1\n"
        "-amdsmi==6.4.3\n"
        "+amdsmi==7.0.2\n"
        " timm>=1.0.17\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(pins), pins) == (
        "Every build or install made from `requirements/rocm-build.txt` now gets "
        "`amdsmi==7.0.2`, where it got `amdsmi==6.4.3`."
    )


def test_a_keyword_argument_that_was_a_constant_is_said_as_what_the_call_now_gets():
    # vLLM #34336: the buffer follows the platform's device where it was always CUDA.
    pr = pr_of(ChangedFile("vllm/capturer.py", additions=1, deletions=1, patch=(
        "@@ -60,5 +60,5 @@ class RoutedExpertsCapturer:\n"
        "         self._device_buffer = torch.zeros(\n"
        "             (max_num_batched_tokens, num_layers),\n"
        "-            device=\"cuda\",\n"
        "+            device=current_platform.device_type,\n"
        "         )\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(pr), pr) == (
        "`RoutedExpertsCapturer` now passes `device=current_platform.device_type` to "
        "`torch.zeros` where it passed `device=\"cuda\"`: that call now gets whatever "
        "`current_platform.device_type` is, where it always got `\"cuda\"`."
    )


def test_a_returned_value_that_now_goes_through_a_call_is_what_callers_get():
    # vLLM #35369: the native path returned the upcast compute dtype.
    cast = changed("vllm/model_executor/layers/layernorm.py", (
        "@@ -577,7 +577,7 @@ class RMSNormGated(CustomOp):\n"
        "         if z is not None and self.norm_before_gate:\n"
        "             out = out * F.silu(z)\n"
        " \n"
        "-        return out\n"
        "+        return out.to(x.dtype)\n"
    ))  # fmt: skip
    assert risk_of(pr_of(cast)) == (
        "In `RMSNormGated`, the value returned now goes through `.to(x.dtype)`: a caller gets "
        "`out.to(x.dtype)`, where it got `out` as computed."
    )


def test_new_code_untested_is_said_with_the_if_that_code_which_was_there_calls_it_under():
    # vLLM #32365: only CPU workers reach the new NUMA discovery.
    platform = changed("vllm/platforms/cpu.py", (
        "@@ -396,3 +396,8 @@ class CpuPlatform(Platform):\n"
        "         return allowed_numa_nodes_list, logical_cpu_list\n"
        " \n"
        "+    @classmethod\n"
        "+    def discover_numa_topology(cls) -> list[list[int]]:\n"
        "+        return [[0]]\n"
        "+\n"
        "     @classmethod\n"
    ))  # fmt: skip
    worker = changed("vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", (
        "@@ -926,3 +926,6 @@ class NixlConnectorWorker:\n"
        "             self.use_host_buffer = self.kv_buffer_device == \"cpu\"\n"
        " \n"
        "+        if self.device_type == \"cpu\":\n"
        "+            numa_core_list = current_platform.discover_numa_topology()\n"
        "+\n"
        "         nixl_memory_type = current_platform.get_nixl_memory_type()\n"
    ))  # fmt: skip
    assert risk_of(pr_of(platform, worker)) == (
        "In `vllm/platforms/cpu.py`, `CpuPlatform.discover_numa_topology` is new, and no test "
        "in this PR covers it: `NixlConnectorWorker` calls `discover_numa_topology` only where "
        "`self.device_type == \"cpu\"` holds, so a mistake there shows only in such a run."
    )


def test_a_value_compared_with_that_changes_is_said_as_such_and_no_more():
    # vLLM #34254: a string compared with an enum member now. A `str` enum's member equals
    # its string, which the diff does not show: what the comparison assumes is said.
    compared = changed("vllm/model_executor/layers/quantization/compressed_tensors/ct.py", (
        "@@ -1020,3 +1020,3 @@ class CompressedTensorsKVCacheMethod(BaseKVCacheMethod):\n"
        "         # - q_scale is partitioned over query heads.\n"
        "-        if strategy == \"attn_head\":\n"
        "+        if strategy == QuantizationStrategy.ATTN_HEAD:\n"
        "             layer.q_scale = scale\n"
    ))  # fmt: skip
    assert risk_of(pr_of(compared)) == (
        "In `CompressedTensorsKVCacheMethod`, the comparisons with `QuantizationStrategy` "
        "members give the old results only if `QuantizationStrategy.ATTN_HEAD` is "
        "`\"attn_head\"`; the diff does not show the enum's values."
    )



def test_a_positional_argument_rewritten_in_place_is_said_with_its_call_and_its_position():
    # vLLM #33088: the same argument in three patterns, one hunk showing its call.
    def hunk(owner: str, opener: str) -> str:
        return (
            f"@@ -53,6 +53,6 @@ class {owner}(BasePattern):\n"
            f"{opener}"
            "                 mul,\n"
            "                 mm_weight,\n"
            "-                \"avg\",\n"
            "+                \"sum\",\n"
            "                 scatter_dim=0,\n"
        )
    opened = "             gemm_rs = torch.ops.symm_mem.fused_matmul_reduce_scatter(\n"
    patterns = changed("vllm/compilation/passes/fusion/collective_fusion.py", (
        hunk("GEMMReduceScatterPattern", opened) + hunk("ScaledMMReduceScatterPattern", "")
    ))  # fmt: skip
    assert risk_of(pr_of(patterns)) == (
        "`GEMMReduceScatterPattern` now passes `\"sum\"` where it passed `\"avg\"` to "
        "`torch.ops.symm_mem.fused_matmul_reduce_scatter`, as its third argument: that call "
        "gets `\"sum\"` there, where it got `\"avg\"`. The PR makes the same change in 1 more call."
    )


def test_a_keyword_rewritten_in_a_call_whose_opener_is_not_shown_names_an_argument_beside():
    # vLLM #35156: the hunk starts inside the gate's call; its `prefix` says which call.
    gate = changed("vllm/model_executor/models/qwen3_next.py", (
        "@@ -252,7 +252,7 @@ class Qwen3NextSparseMoeBlock(nn.Module):\n"
        "             config.num_experts,\n"
        "             bias=False,\n"
        "-            quant_config=quant_config,\n"
        "+            quant_config=None,\n"
        '             prefix=f"{prefix}.gate",\n'
        "         )\n"
    ))  # fmt: skip
    assert risk_of(pr_of(gate)) == (
        "`Qwen3NextSparseMoeBlock` now passes `quant_config=None` where it passed "
        '`quant_config=quant_config`, in the call that also passes `prefix=f"{prefix}.gate"`: '
        "that call gets `None` for `quant_config` whatever `quant_config` is."
    )
    # What changed says the same call, not the block's `quant_config`.
    out = finish(SummarySections("It hardcodes the gate.", "", "", ""), pr_of(gate),
                 extract_facts(pr_of(gate)))  # fmt: skip
    assert out.what_changed.startswith(
        "In `Qwen3NextSparseMoeBlock`, `quant_config=quant_config` becomes `quant_config=None` "
        'in the call that also passes `prefix=f"{prefix}.gate"`.'
    )


def test_a_value_rewritten_over_several_lines_is_said_whole_in_what_changed_and_the_risk():
    # vLLM #34396: the kernel config's size now comes from the LoRA weights' shapes, and only
    # runs with a tuned-config folder reach it: a reader missed the `if` it stands under.
    rewrapped = changed("vllm/lora/layers/fused_moe.py", (
        "@@ -83,7 +83,11 @@ class FusedMoEWithLoRA(BaseLayerWithLoRA):\n"
        "         if envs.VLLM_TUNED_CONFIG_FOLDER:\n"
        "             hidden_size = layer.hidden_size\n"
        "-            intermediate_size = layer.intermediate_size_per_partition\n"
        "+            intermediate_size = (\n"
        "+                self.w2_lora_a_stacked[0].shape[-1]\n"
        "+                if op_prefix == \"w2\"\n"
        "+                else self.w13_lora_b_stacked[0].shape[-2]\n"
        "+            )\n"
        "             shrink_config = get_lora_op_configs(\n"
    ))  # fmt: skip
    pr = pr_of(rewrapped)
    new = (
        "`self.w2_lora_a_stacked[0].shape[-1] if op_prefix == \"w2\" else "
        "self.w13_lora_b_stacked[0].shape[-2]`"
    )
    finished = finish(SummarySections("", "", "", ""), pr, extract_facts(pr))
    under = "In `FusedMoEWithLoRA`, under `if envs.VLLM_TUNED_CONFIG_FOLDER:`,"
    assert finished.what_changed.startswith(
        f"{under} `intermediate_size` becomes {new} where it was "
        "`layer.intermediate_size_per_partition`."
    )
    assert finished.potential_risks == (
        f"{under} `intermediate_size` is now {new}, where it was "
        "`layer.intermediate_size_per_partition`: the code below that reads it gets the new "
        "value."
    )


def test_a_line_edited_under_an_if_is_said_with_the_if():
    edited = changed("vllm/lora/layers/fused_moe.py", (
        "@@ -83,4 +83,4 @@ class FusedMoEWithLoRA(BaseLayerWithLoRA):\n"
        "         if envs.VLLM_TUNED_CONFIG_FOLDER:\n"
        "             hidden_size = layer.hidden_size\n"
        "-            intermediate_size = layer.intermediate_size_per_partition\n"
        "+            intermediate_size = layer.intermediate_size\n"
    ))  # fmt: skip
    pr = pr_of(edited)
    finished = finish(SummarySections("", "", "", ""), pr, extract_facts(pr))
    assert finished.what_changed.startswith(
        "In `FusedMoEWithLoRA`, under `if envs.VLLM_TUNED_CONFIG_FOLDER:`, "
        "`layer.intermediate_size_per_partition` becomes `layer.intermediate_size`"
    )


def test_a_dictionary_entry_rewritten_over_several_lines_is_said_as_the_entry():
    # vLLM #34140: the prompt now carries every audio, where it carried the first.
    entry = changed("vllm/model_executor/models/voxtral.py", (
        "@@ -495,7 +510,10 @@ class VoxtralForConditionalGeneration(\n"
        "         prompt = {\n"
        "             \"multi_modal_data\": {\n"
        "-                \"audio\": (tokenized.audios[0].audio_array, stt_config.sample_rate)\n"
        "+                \"audio\": [\n"
        "+                    (audio.audio_array, stt_config.sample_rate)\n"
        "+                    for audio in tokenized.audios\n"
        "+                ],\n"
        "             },\n"
    ))  # fmt: skip
    pr = pr_of(entry)
    finished = finish(SummarySections("", "", "", ""), pr, extract_facts(pr))
    assert finished.what_changed.startswith(
        "In `VoxtralForConditionalGeneration`, the `\"audio\"` entry becomes "
        "`[(audio.audio_array, stt_config.sample_rate) for audio in tokenized.audios]` where it "
        "was `(tokenized.audios[0].audio_array, stt_config.sample_rate)`."
    )


def test_a_name_rebound_by_an_added_line_changes_every_read_below_it():
    # vLLM #35396: heterogeneous Nemotron-H layers read their own config.
    rebound = changed("vllm/model_executor/models/nemotron_h.py", (
        "@@ -298,6 +298,10 @@ class NemotronHMLPDecoderLayer(nn.Module):\n"
        "         hybrid_override_pattern = config.hybrid_override_pattern\n"
        "+        get_layer_config = getattr(config, \"get_nemotron_h_config_for_layer\", None)\n"
        "+        layer_config = get_layer_config(layer_idx) if get_layer_config else config\n"
        "+        config = layer_config\n"
        "+\n"
        "         if isinstance(config.intermediate_size, list):\n"
    ))  # fmt: skip
    assert risk_of(pr_of(rebound)) == (
        "In `NemotronHMLPDecoderLayer`, the PR rebinds `config` to `layer_config`: the code "
        "below it that reads `config`, from `config.intermediate_size` on, now reads "
        "`layer_config`."
    )


def test_untested_code_added_under_a_new_if_is_said_with_the_case_that_runs_it():
    # vLLM #34906: the biases are registered only for a MoE that has them.
    biased = changed("vllm/model_executor/layers/quantization/fp8.py", (
        "@@ -758,3 +758,8 @@ class Fp8MoEMethod(FusedMoEMethodBase):\n"
        "         layer.register_parameter(\"w2_weight\", w2_weight)\n"
        "         set_weight_attrs(w2_weight, extra_weight_attrs)\n"
        " \n"
        "+        if self.moe.has_bias:\n"
        "+            w13_bias = torch.nn.Parameter(torch.zeros(num_experts), requires_grad=False)\n"
        "+            layer.register_parameter(\"w13_bias\", w13_bias)\n"
        "+            set_weight_attrs(w13_bias, extra_weight_attrs)\n"
        "+\n"
        "         # WEIGHT_SCALES\n"
    ))  # fmt: skip
    assert risk_of(pr_of(biased)).endswith(
        "no test in this PR covers it: the new code in `Fp8MoEMethod` runs only where "
        "`self.moe.has_bias` holds, so a mistake there shows only in such a run."
    )
