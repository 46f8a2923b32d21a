"""A new function the summary names, whose whole body is a statement or two, is said by its
body: vLLM #35098's reader asked what `enable_xet_high_performance` does, and its two lines
say it exactly."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.small_bodies import bodies_sentence, small_bodies
from tests.diffs import changed, pr_of

XET = pr_of(changed("vllm/model_executor/model_loader/weight_utils.py", (
    "@@ -80,7 +80,18 @@ def enable_hf_transfer():\n"
    "             pass\n"
    " \n"
    " \n"
    "-enable_hf_transfer()\n"
    "+def enable_xet_high_performance():\n"
    "+    \"\"\"automatically activates xet high performance mode\"\"\"\n"
    "+    if \"HF_XET_HIGH_PERFORMANCE\" not in os.environ:\n"
    "+        huggingface_hub.constants.HF_XET_HIGH_PERFORMANCE = True\n"
    "+\n"
    "+\n"
    "+enable_xet_high_performance()\n"
    " \n"
    " \n"
    " class DisabledTqdm(tqdm):\n"
)))  # fmt: skip

RANGE = pr_of(changed("vllm/compilation/rope_kvcache_fusion.py", (
    "@@ -120,3 +120,7 @@ class RopeKVCacheFusionPass(VllmPatternMatcherPass):\n"
    "         self.dump_patterns(config, self.patterns)\n"
    "+\n"
    "+    def is_applicable_for_range(self, compile_range: Range) -> bool:\n"
    "+        # Fused kernel is only faster for small batches.\n"
    "+        return compile_range.end <= self.max_token_num\n"
    "+\n"
    "+    def uuid(self) -> str:\n"
)))  # fmt: skip


def test_a_new_function_under_an_if_is_said_with_what_it_sets_and_when():
    (body,) = small_bodies(XET, extract_facts(XET))
    assert body.sentence() == (
        "The new `enable_xet_high_performance` sets "
        "`huggingface_hub.constants.HF_XET_HIGH_PERFORMANCE` to `True` when "
        "`\"HF_XET_HIGH_PERFORMANCE\" not in os.environ`."
    )


def test_a_new_method_of_one_return_is_said_with_its_value():
    (body,) = small_bodies(RANGE, extract_facts(RANGE))
    assert body.sentence() == (
        "The new `RopeKVCacheFusionPass.is_applicable_for_range` returns "
        "`compile_range.end <= self.max_token_num`."
    )


def test_only_a_function_the_text_names_and_does_not_quote_is_said():
    facts = extract_facts(XET)
    assert bodies_sentence(XET, facts, "It speeds up downloads.") == ""
    assert bodies_sentence(XET, facts, "It adds `enable_xet_high_performance`.") != ""
    quoting = "It adds `enable_xet_high_performance`: `huggingface_hub.constants.HF_XET_HIGH_PERFORMANCE = True`."
    assert bodies_sentence(XET, facts, quoting) == ""


def test_a_body_the_hunk_cuts_off_is_not_said():
    # `uuid`'s body lies below the hunk: what it does is unseen.
    assert [b.name for b in small_bodies(RANGE, extract_facts(RANGE))] == [
        "RopeKVCacheFusionPass.is_applicable_for_range"
    ]


def test_the_what_changed_says_the_body_after_the_name():
    model = SummarySections("The PR adds `enable_xet_high_performance` for Transformers v5.", "", "", "")
    what = finish(model, XET, extract_facts(XET)).what_changed
    assert what.endswith(
        "The new `enable_xet_high_performance` sets "
        "`huggingface_hub.constants.HF_XET_HIGH_PERFORMANCE` to `True` when "
        "`\"HF_XET_HIGH_PERFORMANCE\" not in os.environ`."
    )
