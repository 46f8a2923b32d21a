"""A value a function computed for itself and now takes from its callers is said with what
it computed: that is what a fix of the value fixed. vLLM #34167's `build_attn_metadata`
computed `max_query_len` as `int(query_start_loc_cpu.max())`, the largest cumulative offset,
and now takes it as a parameter; the built-in model only listed the lines added."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.passed_in import passed_in, passed_in_sentence
from tests.diffs import changed, pr_of

SIGNATURE = (
    "@@ -149,13 +149,13 @@ def build_attn_metadata(\n"
    "     query_start_loc_cpu: torch.Tensor,\n"
    "+    max_query_len: int,\n"
    "     seq_lens: torch.Tensor,\n"
    " ) -> dict[str, Any]:\n"
)
BODY = "-    max_query_len = int(query_start_loc_cpu.max())\n     seq_lens = seq_lens[:num_reqs]\n"
CALLER = changed("vllm/v1/worker/gpu/spec_decode/eagle.py", (
    "@@ -301,6 +301,7 @@ class EagleSpeculator:\n"
    "             query_start_loc_cpu=query_start_loc_cpu,\n"
    "+            max_query_len=1,\n"
    "             seq_lens=self.input_buffers.seq_lens[:num_reqs],\n"
))  # fmt: skip
FIX = pr_of(changed("vllm/v1/worker/gpu/attn_utils.py", SIGNATURE + BODY), CALLER)


def test_the_value_the_function_no_longer_computes_is_said_first():
    (found,) = passed_in(FIX, extract_facts(FIX))
    assert passed_in_sentence(found) == (
        "`build_attn_metadata` now takes `max_query_len` from its callers, where it computed "
        "it as `int(query_start_loc_cpu.max())` itself."
    )
    model = SummarySections("It fixes the max query length.", "", "", "")
    what = finish(model, FIX, extract_facts(FIX)).what_changed
    assert what.startswith(passed_in_sentence(found))
    assert "`max_query_len: int,`" not in what  # the parameter's line is that sentence's
    assert "`max_query_len=1,`" in what  # what a caller passes is still said


def test_a_value_only_read_is_said_to_be_read():
    pr = pr_of(changed("benchmarks/attention_benchmarks/runner.py", (
        "@@ -198,6 +198,7 @@ def _create_backend_impl(\n"
        "     backend_cfg: dict,\n"
        "+    dtype: torch.dtype,\n"
        " ):\n"
        '-    dtype = backend_cfg["dtype"]\n'
        "     impl = backend_cfg[\"impl\"]\n"
    )))  # fmt: skip
    (found,) = passed_in(pr, extract_facts(pr))
    assert passed_in_sentence(found).endswith(
        'where it read it from `backend_cfg["dtype"]` itself.'
    )


def test_a_body_that_still_gives_the_name_a_value_is_not_said():
    rewritten = BODY + "+    max_query_len = max(max_query_len, 1)\n"
    pr = pr_of(changed("vllm/v1/worker/gpu/attn_utils.py", SIGNATURE + rewritten))
    assert passed_in(pr, extract_facts(pr)) == []


def test_a_value_removed_from_another_function_is_not_the_new_parameters():
    other = (
        "@@ -470,5 +470,4 @@ def main(args):\n"
        "-            max_query_len = int(query_start_loc_cpu.max())\n"
        "             rows.append(stage)\n"
    )
    pr = pr_of(changed("vllm/v1/worker/gpu/attn_utils.py", SIGNATURE + other))
    assert passed_in(pr, extract_facts(pr)) == []
