"""A function whose returns the PR rewrites, other than line by line in place, is said with
the returns it takes out and those it puts in, each with the case it stands under, in order:
vLLM #33839 changed which tensor sizes take NCCL's symmetric memory by where
`should_nccl_symm_mem_allreduce` returns, and the built-in model told the sizes backwards."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.changed_exits import changed_exits, exits_sentence
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from tests.diffs import changed, pr_of, risk_of

THRESHOLDS = pr_of(changed("vllm/distributed/all_reduce_utils.py", (
    "@@ -80,11 +108,14 @@ def should_nccl_symm_mem_allreduce(world_size, input_tensor):\n"
    "     if world_size < CONFIG[\"min_world_size\"]:\n"
    "         return False\n"
    "-    threshold = CONFIG[\"thresholds\"].get(world_size)\n"
    "-    if threshold is not None and input_tensor.nbytes >= threshold:\n"
    "-        return True\n"
    "+    tensor_size = input_tensor.nbytes\n"
    "+    custom_ar_range = CONFIG[\"custom_ar_preferred_ranges\"].get(\n"
    "+        world_size\n"
    "+    )\n"
    "+    if custom_ar_range is not None:\n"
    "+        lower_bound, upper_bound = custom_ar_range\n"
    "+        return tensor_size <= lower_bound or tensor_size >= upper_bound\n"
    "     return world_size > CONFIG[\"always_use_above_world_size\"]\n"
)))  # fmt: skip

# vLLM #34142: each weight once, then its bias; a matching weight was yielded twice.
YIELDS = pr_of(changed("vllm/model_executor/models/whisper.py", (
    "@@ -958,8 +958,8 @@ def _create_fake_bias_for_k_proj(\n"
    "     \"\"\"\n"
    "     for name, weight in weights:\n"
    "+        yield name, weight\n"
    "         if name.endswith(fake_bias_key_name):\n"
    "             bias = torch.zeros(weight.size(0))\n"
    "             bias_name = name.replace(\"weight\", \"bias\")\n"
    "-            yield from [(name, weight), (bias_name, bias)]\n"
    "-        yield name, weight\n"
    "+            yield bias_name, bias\n"
)))  # fmt: skip


def test_a_return_moved_to_another_case_is_said_with_both_cases():
    (found,) = changed_exits(THRESHOLDS, extract_facts(THRESHOLDS))
    assert exits_sentence(found) == (
        "In `should_nccl_symm_mem_allreduce`, the PR takes out `return True` (under "
        "`if threshold is not None and input_tensor.nbytes >= threshold:`); in its place it "
        "puts `return tensor_size <= lower_bound or tensor_size >= upper_bound` (under "
        "`if custom_ar_range is not None:`)."
    )


def test_yields_are_said_in_their_new_order():
    (found,) = changed_exits(YIELDS, extract_facts(YIELDS))
    assert exits_sentence(found) == (
        "In `_create_fake_bias_for_k_proj`, the PR takes out "
        "`yield from [(name, weight), (bias_name, bias)]` (under "
        "`if name.endswith(fake_bias_key_name):`) and `yield name, weight`; in their place it "
        "puts `yield name, weight` and `yield bias_name, bias` (under "
        "`if name.endswith(fake_bias_key_name):`), in that order."
    )


def test_the_what_changed_leads_with_them_unless_the_model_quotes_them():
    model = SummarySections("It avoids emitting duplicate k-proj weights.", "", "", "")
    what = finish(model, YIELDS, extract_facts(YIELDS)).what_changed
    assert what.startswith("In `_create_fake_bias_for_k_proj`, the PR takes out")
    quoting = SummarySections("It now runs `yield bias_name, bias` last.", "", "", "")
    what = finish(quoting, YIELDS, extract_facts(YIELDS)).what_changed
    assert "takes out" not in what


def test_a_return_rewritten_under_the_case_it_stood_under_is_an_edit_not_said_here():
    in_place = pr_of(changed("vllm/a.py", (
        "@@ -1,3 +1,3 @@ def f(x):\n"
        "     if x:\n"
        "-        return out\n"
        "+        return out.to(x.dtype)\n"
    )))  # fmt: skip
    assert changed_exits(in_place, extract_facts(in_place)) == []


def test_a_return_whose_case_the_hunk_does_not_show_whole_is_not_said():
    # vLLM #35047: the new return is the `else:` of an `if (` over three lines.
    unseen = pr_of(changed("vllm/weight_utils.py", (
        "@@ -287,7 +287,13 @@ def get_quant_config(model_config):\n"
        "     if hf_quant_config is not None:\n"
        "-        return quant_cls.from_config(hf_quant_config)\n"
        "+        if (\n"
        "+            model_config.quantization == \"modelopt_mixed\"\n"
        "+        ):\n"
        "+            pass\n"
        "+        else:\n"
        "+            return quant_cls.from_config(hf_quant_config)\n"
    )))  # fmt: skip
    assert changed_exits(unseen, extract_facts(unseen)) == []


def test_the_else_of_a_short_if_is_said_as_that_case():
    other = pr_of(changed("vllm/a.py", (
        "@@ -1,4 +1,6 @@\n"
        " def pick(cfg):\n"
        "-    return Fast(cfg)\n"
        "+    if cfg.legacy:\n"
        "+        return Slow(cfg)\n"
        "+    else:\n"
        "+        return Fast(cfg, checked=True)\n"
    )))  # fmt: skip
    (found,) = changed_exits(other, extract_facts(other))
    assert exits_sentence(found) == (
        "In `pick`, the PR takes out `return Fast(cfg)`; in its place it puts "
        "`return Slow(cfg)` (under `if cfg.legacy:`) and `return Fast(cfg, checked=True)` "
        "(under the `else:` of `if cfg.legacy:`), in that order."
    )


def test_the_risk_says_what_a_caller_now_gets_case_by_case():
    assert risk_of(THRESHOLDS) == (
        "In `should_nccl_symm_mem_allreduce`, where `custom_ar_range is not None` holds, it now "
        "returns `tensor_size <= lower_bound or tensor_size >= upper_bound`, a case it did not "
        "have; where `threshold is not None and input_tensor.nbytes >= threshold` held, it "
        "returned `True`, a case the PR takes out."
    )


def test_a_case_kept_that_returns_another_value_is_said_with_the_case_inside_it_that_does_not():
    # vLLM #35230: output with no `</think>` is now all reasoning, unless thinking is off.
    parser = pr_of(changed("vllm/reasoning/qwen3_reasoning_parser.py", (
        "@@ -66,8 +66,11 @@ class Qwen3ReasoningParser(BaseThinkingReasoningParser):\n"
        "     def extract_reasoning(self, model_output, request):\n"
        "         if self.end_token not in model_output:\n"
        "-            # Treat everything as content.\n"
        "-            return None, model_output\n"
        "+            if not self.thinking_enabled:\n"
        "+                # Thinking explicitly disabled: everything is content.\n"
        "+                return None, model_output\n"
        "+            # Thinking enabled but no </think>: output was truncated.\n"
        "+            return model_output, None\n"
        " \n"
        "         reasoning, _, content = model_output.partition(self.end_token)\n"
    )))  # fmt: skip
    assert risk_of(parser) == (
        "In `Qwen3ReasoningParser.extract_reasoning`, where `self.end_token not in model_output` "
        "holds, it now returns `model_output, None` where it returned `None, model_output`; "
        "where `not self.thinking_enabled` also holds, it still returns `None, model_output`."
    )


def test_a_value_a_generator_yielded_twice_in_a_case_is_the_risk_said():
    assert risk_of(YIELDS) == (
        "In `_create_fake_bias_for_k_proj`, where `name.endswith(fake_bias_key_name)` held, it "
        "yielded `name, weight` twice; it now yields it once."
    )
