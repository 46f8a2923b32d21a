"""Two string lines that Python joins with no space between their words are a defect of the
PR's own text, said first among its risks; pieces that end in a space, items of a list
(with commas between them) and a long token split on purpose are not."""

from __future__ import annotations

from summarizer.glued_strings import glued_strings
from tests.diffs import changed, pr_of, risk_of

# vLLM #35081's log message now says "forRISC-V".
GLUED = changed("vllm/engine/arg_utils.py", (
    "@@ -2085,8 +2085,8 @@ class EngineArgs:\n"
    "             logger.info(\n"
    "-                \"Chunked prefill is not supported for POWER, \"\n"
    "-                \"and RISC-V CPUs; \"\n"
    "+                \"Chunked prefill is not supported for\"\n"
    "+                \"RISC-V CPUs; \"\n"
    "                 \"disabling it for V1 backend.\"\n"
    "             )\n"
))  # fmt: skip


def test_a_message_whose_pieces_join_two_words_is_said_first():
    assert risk_of(pr_of(GLUED)).startswith(
        "In `EngineArgs`, the text now reads `forRISC-V`: Python joins `\"Chunked prefill is "
        "not supported for\"` and `\"RISC-V CPUs; \"` with no space between them."
    )


def test_spaced_pieces_list_items_and_split_tokens_are_not_glued():
    fine = changed("vllm/a.py", (
        "@@ -1,2 +1,8 @@ def f():\n"
        "+    logger.info(\n"
        "+        \"Prefix caching is not supported for \"\n"
        "+        \"RISC-V CPUs.\"\n"
        "+    )\n"
        "+    prompts = [\n"
        "+        \"The capital of France is\",\n"
        "+        \"The largest ocean on Earth is\",\n"
        "+    ]\n"
        "+    digest = (\"0123456789abcdef\"\n"
        "+              \"0123456789abcdef\")\n"
    ))  # fmt: skip
    assert glued_strings(pr_of(fine)) == []
