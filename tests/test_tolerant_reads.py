"""A read that raised on a missing attribute or key, made one that falls back to a default, is
the risk a reviewer raises: what such an object gets now, where it raised before, and that a
mistake no longer shows."""

from __future__ import annotations

from summarizer.facts import extract_facts
from summarizer.tolerant_reads import tolerant_reads
from tests.diffs import changed, pr_of, risk_of

# vLLM #34110: Qwen3.5's config has no `norm_topk_prob`.
DEFAULTED = changed("vllm/model_executor/models/qwen3_next.py", (
    "@@ -120,7 +120,7 @@ class Qwen3NextSparseMoeBlock(nn.Module):\n"
    "             hidden_size=config.hidden_size,\n"
    "             intermediate_size=config.moe_intermediate_size,\n"
    "-            renormalize=config.norm_topk_prob,\n"
    "+            renormalize=getattr(config, \"norm_topk_prob\", True),\n"
    "             quant_config=quant_config,\n"
))  # fmt: skip


def test_an_attribute_read_with_a_default_no_longer_raises_for_an_object_without_it():
    assert risk_of(pr_of(DEFAULTED)) == (
        "In `Qwen3NextSparseMoeBlock`, `config.norm_topk_prob` is now read as "
        "`getattr(config, \"norm_topk_prob\", True)`: a `config` without an attribute "
        "`norm_topk_prob` gets `True` there, where it raised `AttributeError` before, so one "
        "that lacks it by mistake no longer shows as an error."
    )


def test_a_key_read_with_get_no_longer_raises_key_error():
    keyed = changed("vllm/model_executor/model_loader/weight_utils.py", (
        "@@ -420,3 +420,3 @@ def get_quant_config(\n"
        "-    if config[\"producer\"][\"name\"] == \"modelopt\":\n"
        "+    if config.get(\"producer\", {}).get(\"name\") == \"modelopt\":\n"
        "         return quant_cls.from_config(config)\n"
    ))  # fmt: skip
    [read] = tolerant_reads(extract_facts(pr_of(keyed)))
    assert (read.read, read.error, read.default) == ('config["producer"]', "KeyError", "{}")


def test_a_getattr_that_was_there_or_a_new_read_is_no_change_of_tolerance():
    kept = changed("vllm/a.py", (
        "@@ -1,3 +1,3 @@ def f(config):\n"
        "-    n = getattr(config, \"n\", 1)\n"
        "+    n = getattr(config, \"n\", 2)\n"
        "     return n\n"
    ))  # fmt: skip
    new = changed("vllm/b.py", (
        "@@ -1,2 +1,3 @@ def g(config):\n"
        "+    m = getattr(config, \"m\", None)\n"
        "     return config\n"
    ))  # fmt: skip
    assert tolerant_reads(extract_facts(pr_of(kept, new))) == []
