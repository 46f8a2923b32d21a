"""A parameter a function newly requires: the facts see it even below a `def` the hunk header
names, and the risk says what a call that does not pass it meets and what each call passes.

A long signature is written one parameter a line, so the hunk that adds one starts inside it;
the risk a reviewer raises is the calls: which pass it, with what, and which one passes a
constant where the others compute it.
"""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest
from summarizer.facts import extract_facts, render_facts
from summarizer.finishing import change_sentence, risk_sentence
from summarizer.hunks import parse_hunks
from summarizer.opened_signatures import opened_signature
from tests.conftest import REPO


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(REPO, 1, "Fix the longest query", "u", "a", "merged", files=files)


# The shape of vLLM #34167: the parameter is added in the middle of a signature whose `def`
# line is above the hunk, and three calls, written one argument a line, pass it.
SIGNATURE = ChangedFile("pkg/worker/metadata.py", additions=1, deletions=1, patch=(
    "@@ -149,9 +149,9 @@ def build_metadata(\n"
    "     num_tokens: int,\n"
    "     starts_cpu: torch.Tensor,\n"
    "+    longest_query: int,\n"
    "     lengths: torch.Tensor,\n"
    " ) -> dict[str, Any]:\n"
    "-    longest_query = int(starts_cpu.max())\n"
    "     lengths = lengths[:num_reqs]\n"
))  # fmt: skip
CALLS = ChangedFile("pkg/worker/runner.py", additions=2, patch=(
    "@@ -270,6 +270,7 @@ class Runner(Base):\n"
    "             num_tokens=batch.num_tokens,\n"
    "             starts_cpu=batch.starts_cpu,\n"
    "+            longest_query=batch.scheduled.max().item(),\n"
    "             lengths=batch.lengths,\n"
    "@@ -300,6 +301,7 @@ class Runner(Base):\n"
    "             num_tokens=num_tokens,\n"
    "+            longest_query=longest_query,\n"
    "             lengths=self.lengths,\n"
))  # fmt: skip
DRAFTER = ChangedFile("pkg/worker/drafter.py", additions=1, patch=(
    "@@ -301,6 +301,7 @@ class Drafter:\n"
    "             num_tokens=num_reqs,\n"
    "+            longest_query=1,\n"
    "             lengths=self.lengths[:num_reqs],\n"
))  # fmt: skip


def test_a_parameter_added_below_the_def_the_header_names_is_a_signature_change():
    facts = extract_facts(pr_of(SIGNATURE))
    [signature] = facts.signatures
    assert (signature.name, signature.added_params, signature.removed_params) == (
        "build_metadata", ("longest_query: int",), ()
    )
    assert signature.new == (
        "(…, num_tokens: int, starts_cpu: torch.Tensor, longest_query: int, lengths: "
        "torch.Tensor) -> dict[str, Any]"
    )
    assert "parameters added `longest_query: int`" in render_facts(facts)
    assert change_sentence(facts).startswith(
        "The diff adds the parameter `longest_query` to `build_metadata`"
    )


def test_a_hunk_in_the_body_of_the_function_its_header_names_is_not_read_as_parameters():
    body = parse_hunks(
        "@@ -160,6 +160,7 @@ def build_metadata(\n"
        "     lengths = lengths[:num_reqs]\n"
        "+    total = lengths.sum()\n"
        "     if total:\n"
        "         return {}\n"
    )[0]
    assert opened_signature(body) is None
    comment_only = parse_hunks(
        "@@ -149,4 +149,4 @@ def build_metadata(\n"
        "-    num_tokens: int,  # all of them\n"
        "+    num_tokens: int,  # every token of the batch\n"
        " ) -> dict[str, Any]:\n"
    )[0]
    assert opened_signature(comment_only) is None


def test_a_hunk_that_ends_among_typed_parameters_still_shows_the_signature_change():
    # vLLM #34687: `seq_lens_cpu` goes; the hunk stops three parameters below it.
    removed = parse_hunks(
        "@@ -1617,7 +1624,6 @@ def fast_plan_decode(\n"
        "     indices: torch.Tensor,\n"
        "     last_page_len_cpu: torch.Tensor,\n"
        "-    seq_lens_cpu: torch.Tensor,\n"
        "     num_qo_heads: int,\n"
        "     head_dim: int,\n"
    )[0]
    opened = opened_signature(removed)
    assert opened is not None and not opened.closed
    assert opened.shown(new=True) == "(…, indices: torch.Tensor, last_page_len_cpu: " \
        "torch.Tensor, num_qo_heads: int, head_dim: int, …)"
    # A call's arguments over several lines carry no types: they are no parameters.
    arguments = parse_hunks(
        "@@ -1660,6 +1660,5 @@ def fast_plan_decode(\n"
        "             indptr_cpu,\n"
        "-            indices,\n"
        "             last_page_len_cpu,\n"
    )[0]
    assert opened_signature(arguments) is None


def test_a_newly_required_parameter_is_the_risk_with_each_value_the_calls_pass():
    pr = pr_of(SIGNATURE, CALLS, DRAFTER)
    assert risk_sentence(extract_facts(pr), pr) == (
        "`build_metadata` now requires `longest_query`, with no default: a call outside this "
        "diff that does not pass it fails with a TypeError. The PR passes it in 3 places: "
        "in `Runner`, `batch.scheduled.max().item()` and `longest_query`; in `Drafter`, `1`. "
        "Only `Drafter` passes a constant, `1`."
    )


def test_where_no_call_passes_a_constant_none_is_singled_out():
    pr = pr_of(SIGNATURE, CALLS)
    assert risk_sentence(extract_facts(pr), pr).endswith(
        "The PR passes it in 2 places: in `Runner`, `batch.scheduled.max().item()` and "
        "`longest_query`."
    )


def test_parameters_added_with_defaults_ask_nothing_of_callers():
    defaulted = ChangedFile("pkg/moe.py", additions=2, patch=(
        "@@ -178,5 +178,7 @@ def moe_forward(\n"
        "     expert_map: torch.Tensor | None = None,\n"
        "+    padded_n=None,\n"
        "+    padded_k=None,\n"
        " ) -> torch.Tensor:\n"
        "     return run(expert_map)\n"
    ))  # fmt: skip
    pr = pr_of(defaulted)
    assert extract_facts(pr).signatures[0].added_params == ("padded_n=None", "padded_k=None")
    assert "must match" not in risk_sentence(extract_facts(pr), pr)
    assert "requires" not in risk_sentence(extract_facts(pr), pr)


def test_a_triton_kernels_new_constexpr_is_bound_by_its_launcher_not_a_plain_call():
    kernel = ChangedFile("pkg/ops/norm.py", additions=1, patch=(
        "@@ -20,5 +20,6 @@ def norm_fwd_kernel(\n"
        "     N,\n"
        "     BLOCK_N: tl.constexpr,\n"
        "+    ACTIVATION: tl.constexpr,\n"
        " ):\n"
        "     row = tl.program_id(0)\n"
    ))  # fmt: skip
    pr = pr_of(kernel)
    assert "TypeError" not in risk_sentence(extract_facts(pr), pr)


def test_a_removed_parameter_is_named_without_its_annotation():
    removed = ChangedFile("pkg/graphs.py", deletions=1, patch=(
        "@@ -30,5 +30,4 @@ def make_graphs(\n"
        "     sizes: list[int],\n"
        "-    uses_rope: bool,\n"
        " ) -> None:\n"
        "     pass\n"
    ))  # fmt: skip
    pr = pr_of(removed)
    assert risk_sentence(extract_facts(pr), pr) == (
        "A caller that still passes `uses_rope` to `make_graphs` breaks: the parameter is gone."
    )


def test_an_edit_cut_inside_an_expression_is_not_called_a_value():
    for old, new in (
        ("repl = IMG_START + features + IMG_END", "repl = self.IMG_START + features + self.IMG_END"),
        ("states = states * self.scale", "states *= self.scale"),
    ):
        cut = ChangedFile("pkg/vl.py", additions=1, deletions=1, patch=(
            "@@ -10,3 +10,3 @@ class Processor:\n"
            "     def text(self, features):\n"
            f"-        {old}\n"
            f"+        {new}\n"
        ))  # fmt: skip
        pr = pr_of(cut)
        assert risk_sentence(extract_facts(pr), pr) == (
            "In `pkg/vl.py`, `Processor.text` changes, and no test in this PR covers it: a "
            "mistake there shows only when that code runs."
        )


# The shape of vLLM #33945: two pattern classes now pass an argument, on a line of its own,
# to calls that were there.
PASSED_ON = ChangedFile("pkg/fusion/patterns.py", additions=4, patch="".join(
    f"@@ -{40 * i},5 +{40 * i},6 @@ class {cls}(Pattern):\n"
    "             output=output,\n"
    "             scale=scale,\n"
    "+            dummy_dep=dummy_dep,\n"
    "             out_scale=None,\n"
    "         )\n"
    for i, cls in enumerate(("Fp8Pattern", "Fp8Pattern", "Fp4Pattern", "Fp4Pattern"), 1)
))  # fmt: skip


def test_an_argument_added_to_calls_that_were_there_is_the_risk_with_its_callers():
    pr = pr_of(PASSED_ON)
    assert risk_sentence(extract_facts(pr), pr) == (
        "`Fp8Pattern` and `Fp4Pattern` now pass `dummy_dep=dummy_dep` to 4 calls that did not "
        "pass `dummy_dep` before: the callee used its own default for it there, and now gets "
        "this value."
    )


def test_the_callee_is_named_where_the_diff_shows_the_call_open():
    # The shape of vLLM #34187: the reader looks the callee up to learn the default it used.
    shown = ChangedFile("pkg/runner.py", additions=1, patch=(
        "@@ -10,5 +10,6 @@ class GPUModelRunner:\n"
        "         attn_metadata, _ = self._build_attention_metadata(\n"
        "             num_tokens=num_tokens,\n"
        "+            num_tokens_padded=num_tokens_padded if pad_attn else None,\n"
        "             num_reqs=num_reqs,\n"
        "         )\n"
    ))  # fmt: skip
    pr = pr_of(shown)
    sentence = risk_sentence(extract_facts(pr), pr)
    assert sentence.startswith(
        "`GPUModelRunner` now passes `num_tokens_padded=num_tokens_padded if pad_attn else "
        "None` to a call of `_build_attention_metadata` that did not pass `num_tokens_padded` "
        "before"
    )
    # A conditional value reaches only the calls where its test holds.
    assert sentence.endswith(
        "Only where `pad_attn` holds does it pass `num_tokens_padded`; elsewhere it passes "
        "`None`."
    )


def test_an_argument_of_a_new_call_a_registry_entry_or_a_signature_default_is_no_such_risk():
    new_call = ChangedFile("pkg/merge.py", additions=3, deletions=1, patch=(
        "@@ -10,5 +10,6 @@ class Thinker(Base):\n"
        "-        embeds = merge_embeddings(\n"
        "+        return super().embed(\n"
        "             ids,\n"
        "+            handle_oov=handle_oov,\n"
        "         )\n"
    ))  # fmt: skip
    registry = ChangedFile("pkg/configs.py", additions=1, patch=(
        "@@ -10,4 +10,5 @@ _CONFIGS = LazyDict(\n"
        "     chatglm=\"ChatGLMConfig\",\n"
        "+    glm_ocr=\"GlmOcrConfig\",\n"
        "     deepseek_vl_v2=\"DeepseekVLV2Config\",\n"
        " )\n"
    ))  # fmt: skip
    default = ChangedFile("pkg/norm.py", additions=1, patch=(
        "@@ -10,6 +10,7 @@ import torch\n"
        " def rmsnorm_fn(\n"
        "     x,\n"
        "+    z=None,\n"
        "     eps=1e-6,\n"
        " ):\n"
        "     return x\n"
    ))  # fmt: skip
    for f in (new_call, registry, default):
        pr = pr_of(f)
        assert "now pass" not in risk_sentence(extract_facts(pr), pr), f.filename


def test_a_parameter_that_kwargs_took_before_is_no_new_requirement_only_a_new_signature():
    # vLLM #29387's shape: `block_pool` reached the parent through `**kwargs` before.
    explicit = ChangedFile("pkg/managers.py", additions=4, deletions=2, patch=(
        "@@ -750,6 +750,8 @@ class Manager(Base):\n"
        " class MambaManager(Manager):\n"
        "-    def __init__(self, spec: MambaSpec, **kwargs) -> None:\n"
        "-        super().__init__(spec, **kwargs)\n"
        "+    def __init__(self, spec: MambaSpec, block_pool: BlockPool, **kwargs) -> None:\n"
        "+        super().__init__(spec, block_pool, **kwargs)\n"
        "         self.mode = spec.mode\n"
    ))  # fmt: skip
    pr = pr_of(explicit)
    [signature] = extract_facts(pr).signatures
    assert signature.added_params == ("block_pool: BlockPool",)
    assert risk_sentence(extract_facts(pr), pr) == (
        "Every caller of `MambaManager.__init__` must match its new signature "
        "`(self, spec: MambaSpec, block_pool: BlockPool, **kwargs) -> None`."
    )


def test_a_hook_python_calls_asks_nothing_of_callers():
    # vLLM #34120 adds an `InitVar` and the `__post_init__` parameter that receives it: the
    # dataclass passes it, and "every caller of `ModelConfig.__post_init__`" is nobody.
    post_init = ChangedFile("pkg/config/model.py", additions=2, deletions=0, patch=(
        "@@ -297,6 +297,7 @@ class ModelConfig:\n"
        "     multimodal_config: MultiModalConfig | None = None\n"
        "+    language_model_only: InitVar[bool] = False\n"
        "@@ -411,6 +412,7 @@ class ModelConfig:\n"
        "     def __post_init__(\n"
        "         self,\n"
        "+        language_model_only: bool,\n"
        "         limit_mm_per_prompt: dict[str, int] | None,\n"
    ))  # fmt: skip
    pr = pr_of(post_init)
    assert [s.name for s in extract_facts(pr).signatures] == ["ModelConfig.__post_init__"]
    assert "Every caller" not in risk_sentence(extract_facts(pr), pr)
