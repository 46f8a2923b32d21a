"""An expression of one variable rewritten in place is evaluated, old and new, for each value
of the variable, and what is said of it is what was computed: the same values (then the PR
changes how a value is written, not the value, and is TRIVIAL), or the values that differ.
vLLM #32621 rewrote `max(64, next_power_of_2(128 // num_slices))` as
`64 if num_slices > 1 else 128`, and the built-in model said it "affects the behavior of the
LoRA expand kernel by changing the `block_n` parameter": it does not, for any slice count."""

from __future__ import annotations

from bot.core.models import ChangeType, SummarySections
from summarizer.checks import FindingKind, check_answer, decide_type
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.same_values import only_same_values, value_rewrites
from tests.diffs import changed, pr_of, risk_of


def one_line(old: str, new: str, path: str = "vllm/lora/ops/triton_ops/utils.py"):
    return pr_of(changed(path, (
        "@@ -10,4 +10,4 @@ def get_lora_op_configs(\n"
        "     return {\n"
        f"-        {old}\n"
        f"+        {new}\n"
        "         \"block_k\": 16,\n"
    )))  # fmt: skip


BLOCK_N = one_line(
    '"block_n": max(64, next_power_of_2(128 // num_slices)),',
    '"block_n": 64 if num_slices > 1 else 128,',
)


def test_a_rewrite_that_gives_the_same_values_is_said_so_with_the_values_checked():
    facts = extract_facts(BLOCK_N)
    (rewrite,) = value_rewrites(BLOCK_N, facts)
    assert rewrite.variable == "num_slices"
    # next_power_of_2(0) depends on whose helper it is: the values stop where 128 // n is 0.
    assert (rewrite.through, rewrite.beyond) == (128, 0)
    assert rewrite.differ == ((0, "raised `ZeroDivisionError`", "128"),)
    assert only_same_values(BLOCK_N, facts)
    assert risk_of(BLOCK_N).startswith(
        "`get_lora_op_configs` now computes `64 if num_slices > 1 else 128` where it computed "
        "`max(64, next_power_of_2(128 // num_slices))`; the two give the same value for every "
        "`num_slices` from 1 to 128. Only `num_slices` = 0 differs: the old raised "
        "`ZeroDivisionError`, the new gives `128`."
    )
    out = finish(SummarySections("It updates block_n.", "", "", ""), BLOCK_N, facts)
    assert out.technical_impact == (
        "The new expression gives what the old one gave for every `num_slices` from 1 to 128: "
        "the PR rewrites how `get_lora_op_configs` computes a value, and no value checked "
        "changes."
    )


def test_such_a_pr_is_trivial_and_a_claimed_change_of_behaviour_is_found():
    facts = extract_facts(BLOCK_N)
    reason = "`get_lora_op_configs` now computes `block_n` with `num_slices > 1`."
    assert decide_type(BLOCK_N, ChangeType.SUBSTANTIAL, reason, facts) == ChangeType.TRIVIAL
    claim = "The change affects the behavior of `get_lora_op_configs` by changing `block_n`."
    said = SummarySections("It rewrites `block_n`.", claim, "", "")
    found = check_answer(BLOCK_N, said, ChangeType.SUBSTANTIAL, facts)
    assert [(f.kind, f.sentence) for f in found] == [(FindingKind.CONTRADICTS_FACTS, claim)]
    assert "same values" in found[0].explanation


def test_a_rewrite_that_gives_other_values_names_the_first_that_differ():
    halved = one_line('"block_m": num_tokens // 2,', '"block_m": (num_tokens + 1) // 2,')
    (rewrite,) = value_rewrites(halved, extract_facts(halved))
    assert rewrite.differ[:2] == ((1, "0", "1"), (3, "1", "2"))
    assert not only_same_values(halved, extract_facts(halved))
    assert (
        "The two differ at `num_tokens` = 1 (`0`, now `1`), 3 (`1`, now `2`) and 5 (`2`, now "
        "`3`), among others."
    ) in risk_of(halved)


def test_only_what_can_be_evaluated_is_evaluated():
    unknown_call = one_line('"block_n": max(64, n),', '"block_n": tuned(n),')
    two_names = one_line('"block_n": a * b,', '"block_n": a * b + a,')
    strings = one_line('"name": prefix + "a",', '"name": prefix + "b",')
    for pr in (unknown_call, two_names, strings):
        assert value_rewrites(pr, extract_facts(pr)) == []
    # `n + 1` in `2 * n + 1` would be read out of its precedence: the whole value is read.
    inner = one_line("x = 2 * n + 1", "x = 2 * n + 2")
    (rewrite,) = value_rewrites(inner, extract_facts(inner))
    assert (rewrite.old, rewrite.new) == ("2 * n + 1", "2 * n + 2")


def test_a_rewrite_in_tests_or_docs_is_not_evaluated():
    in_tests = one_line("x = n // 2", "x = n >> 1", path="tests/test_x.py")
    assert value_rewrites(in_tests, extract_facts(in_tests)) == []


def test_a_bound_removed_above_the_first_values_is_found_at_its_constant():
    # `min(n, 8192)` and `n` agree up to 8,192: the constant's neighbours are checked too.
    unbounded = one_line('"max_tokens": min(num_tokens, 8192),', '"max_tokens": num_tokens,')
    (rewrite,) = value_rewrites(unbounded, extract_facts(unbounded))
    assert rewrite.differ[0] == (8193, "8192", "8193")
    assert not only_same_values(unbounded, extract_facts(unbounded))
    assert decide_type(unbounded, ChangeType.SUBSTANTIAL, "", extract_facts(unbounded)) == (
        ChangeType.SUBSTANTIAL
    )


def test_a_value_too_wide_to_compute_is_not_computed():
    # A diff line must not stall the digest: shifts past 64 bits are not evaluated.
    huge = one_line("x = (n << 99999999999) * (n << 99999999999) % 7", "x = n % 7")
    assert value_rewrites(huge, extract_facts(huge)) == []
    method = one_line("x = y.max(n, 0)", "x = n")  # a method of `y`, not the built-in
    assert value_rewrites(method, extract_facts(method)) == []
