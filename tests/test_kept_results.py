"""Code rewritten to compute what it did is TRIVIAL, whatever type the model gives, and the
risk says what a reviewer still asks of it. Two such rewrites are read besides expressions of
equal value (tests/test_same_values.py): a result now cached (vLLM #35099's `@property` made
`@cached_property`), and strings written as the members of an enum of their names (#34254's
`"attn_head"` made `QuantizationStrategy.ATTN_HEAD`). The real report calls both TRIVIAL."""

from __future__ import annotations

from bot.core.models import ChangeType
from summarizer.caching import only_caches_added
from summarizer.checks import decide_type
from summarizer.enum_names import enum_names
from summarizer.facts import extract_facts
from tests.diffs import CACHED_PROPERTY, changed, pr_of, risk_of

REASON = "`ModelConfig` now behaves differently."

CACHED = pr_of(CACHED_PROPERTY)


def type_of(pr) -> ChangeType:
    return decide_type(pr, ChangeType.SUBSTANTIAL, REASON, extract_facts(pr))


def test_a_property_now_cached_is_trivial_and_its_staleness_is_the_risk():
    assert only_caches_added(CACHED)
    assert type_of(CACHED) == ChangeType.TRIVIAL
    assert risk_of(CACHED) == (
        "`ModelConfig.is_encoder_decoder` is now computed once per `ModelConfig` object and "
        "kept (`@cached_property`): if `self.hf_config` changes after the first read, it "
        "still returns the old value."
    )


def test_a_cache_beside_another_change_of_logic_is_not_a_kept_result():
    pr = pr_of(changed("vllm/config/model.py", (
        "@@ -1365,6 +1365,6 @@ class ModelConfig:\n"
        "-    @property\n"
        "+    @cached_property\n"
        "     def is_encoder_decoder(self) -> bool:\n"
        "-        return is_encoder_decoder(self.hf_config)\n"
        "+        return is_encoder_decoder(self.hf_text_config)\n"
    )))  # fmt: skip
    assert not only_caches_added(pr)
    assert type_of(pr) == ChangeType.SUBSTANTIAL


def test_a_cache_taken_away_changes_when_the_body_runs_and_is_not_trivial():
    pr = pr_of(changed("vllm/config/model.py", (
        "@@ -1365,4 +1365,4 @@ class ModelConfig:\n"
        "-    @cached_property\n"
        "+    @property\n"
        "     def is_encoder_decoder(self) -> bool:\n"
        "         return is_encoder_decoder(self.hf_config)\n"
    )))  # fmt: skip
    assert not only_caches_added(pr)


# vLLM #34254, its three hunks as the diff has them.
STRATEGIES = pr_of(changed(
    "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py", (
    "@@ -951,11 +951,11 @@ class CompressedTensorsKVCacheMethod(BaseKVCacheMethod):\n"
    "             )\n"
    " \n"
    "-        # TODO: delegate validation to compressed-tensors library so that we have a\n"
    "-        # single source of truth.\n"
    '-        strategy = kv_cache_scheme.get("strategy")\n'
    '-        supported_strategies = ("tensor", "attn_head")\n'
    '+        strategy = QuantizationStrategy(kv_cache_scheme.get("strategy"))\n'
    "+        supported_strategies = (\n"
    "+            QuantizationStrategy.TENSOR,\n"
    "+            QuantizationStrategy.ATTN_HEAD,\n"
    "+        )\n"
    "         if strategy not in supported_strategies:\n"
    "             raise NotImplementedError(\n"
    "@@ -981,9 +981,11 @@ class CompressedTensorsKVCacheMethod(BaseKVCacheMethod):\n"
    "             and self.quant_config.kv_cache_scheme is not None\n"
    "         ):\n"
    '-            strategy = self.quant_config.kv_cache_scheme["strategy"]\n'
    "+            strategy = QuantizationStrategy(\n"
    '+                self.quant_config.kv_cache_scheme["strategy"]\n'
    "+            )\n"
    " \n"
    '-        if strategy == "attn_head":\n'
    "+        if strategy == QuantizationStrategy.ATTN_HEAD:\n"
    "             assert layer.impl.supports_per_head_quant_scales\n"
)))  # fmt: skip


def test_strings_written_as_the_enum_members_of_their_names_are_trivial():
    names = enum_names(STRATEGIES)
    assert names is not None
    assert (names.enum, names.members, names.converts) == (
        "QuantizationStrategy",
        ("TENSOR", "ATTN_HEAD"),
        True,
    )
    assert type_of(STRATEGIES) == ChangeType.TRIVIAL


def test_the_risk_names_the_conversions_error_and_the_values_it_assumes():
    assert risk_of(STRATEGIES) == (
        "In `CompressedTensorsKVCacheMethod`, a value is now converted with "
        "`QuantizationStrategy(...)` before it is compared: one that is no member's value "
        "raises `ValueError` there. The comparisons with `QuantizationStrategy` members give "
        'the old results only if `QuantizationStrategy.TENSOR` is `"tensor"` and '
        '`QuantizationStrategy.ATTN_HEAD` is `"attn_head"`; the diff does not show the '
        "enum's values."
    )


def test_a_member_that_is_not_the_string_it_replaces_is_a_change():
    pr = pr_of(changed("vllm/attention/selector.py", (
        "@@ -10,2 +10,2 @@ def pick(backend):\n"
        '-    if backend == "flash":\n'
        "+    if backend == Backend.FLASHINFER:\n"
        "         return 1\n"
    )))  # fmt: skip
    assert enum_names(pr) is None
    assert type_of(pr) == ChangeType.SUBSTANTIAL


def test_a_member_compared_with_another_operator_is_a_change():
    pr = pr_of(changed("vllm/attention/selector.py", (
        "@@ -10,2 +10,2 @@ def pick(backend):\n"
        '-    if backend == "flash":\n'
        "+    if backend != Backend.FLASH:\n"
        "         return 1\n"
    )))  # fmt: skip
    assert enum_names(pr) is None
