"""A chain of `if`/`elif` on one value that the PR adds to code that was there is said as its
routes: which value goes to which call, and what any other value gets; where it takes the
place of an assertion, the routes that never ran there are the risk. A chain whose
branches compare different values, or one in a new function, is not a dispatch to say."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.dispatch import dispatches
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from tests.diffs import changed, pr_of, risk_of

# vLLM #35010: XPU's vision attention took only FLASH_ATTN.
ROUTED = changed("vllm/model_executor/layers/attention/mm_encoder_attention.py", (
    "@@ -249,7 +249,14 @@ class MMEncoderAttention(CustomOp):\n"
    "         max_seqlen: torch.Tensor | None = None,  # Only used for Flash Attention\n"
    "     ) -> torch.Tensor:\n"
    "-        assert self.is_flash_attn_backend, (\n"
    "-            \"XPU only supports FLASH_ATTN for vision attention.\"\n"
    "-        )\n"
    "-        return self._forward_fa(query, key, value, cu_seqlens, max_seqlen)\n"
    "+        if self.attn_backend == AttentionBackendEnum.FLASH_ATTN:\n"
    "+            return self._forward_fa(query, key, value, cu_seqlens, max_seqlen)\n"
    "+        elif self.attn_backend == AttentionBackendEnum.TRITON_ATTN:\n"
    "+            return self._forward_triton(query, key, value, cu_seqlens, max_seqlen)\n"
    "+        elif self.attn_backend == AttentionBackendEnum.TORCH_SDPA:\n"
    "+            return self._forward_sdpa(query, key, value, cu_seqlens)\n"
    "+        else:\n"
    "+            raise ValueError(\n"
    "+                f\"Unsupported multi-modal encoder attention backend for XPU: \"\n"
    "+                f\"{self.attn_backend}.\"\n"
    "+            )\n"
))  # fmt: skip


def test_what_changed_says_which_value_goes_where_and_what_it_asserted_before():
    pr = pr_of(ROUTED)
    said = finish(SummarySections("", "", "", ""), pr, extract_facts(pr)).what_changed
    assert said.startswith(
        "In `MMEncoderAttention`, the PR routes on `self.attn_backend`: `FLASH_ATTN` to "
        "`_forward_fa`, `TRITON_ATTN` to `_forward_triton` and `TORCH_SDPA` to "
        "`_forward_sdpa`; any other value raises `ValueError`, where it asserted "
        "`self.is_flash_attn_backend`."
    )


def test_the_risk_is_the_routes_that_never_ran_where_the_assertion_stood():
    assert risk_of(pr_of(ROUTED)) == (
        "In `MMEncoderAttention`, where it asserted `self.is_flash_attn_backend`, `TRITON_ATTN` "
        "now runs `_forward_triton` and `TORCH_SDPA` now runs `_forward_sdpa`, and any other "
        "value raises `ValueError`: those paths never ran here before."
    )


def test_branches_on_different_values_or_in_new_code_are_no_dispatch():
    mixed = changed("vllm/a.py", (
        "@@ -1,2 +1,6 @@ def f(x, y):\n"
        "     z = 1\n"
        "+    if x == 1:\n"
        "+        return g(x)\n"
        "+    elif y == 2:\n"
        "+        return h(y)\n"
    ))  # fmt: skip
    new_function = changed("vllm/b.py", (
        "@@ -0,0 +1,5 @@\n"
        "+def route(kind):\n"
        "+    if kind == \"a\":\n"
        "+        return to_a()\n"
        "+    elif kind == \"b\":\n"
        "+        return to_b()\n"
    ))  # fmt: skip
    pr = pr_of(mixed, new_function)
    assert dispatches(pr, extract_facts(pr)) == []
