"""A risk names the changed code the PR's own tests leave out.

"The PR's only test changes are in `tests/…`" is true and raises no concern; a reader scored
such a risk 0. #33945 changes two attention-fusion patterns, and its new assertion is in a test
of the FP8 one only: that is what a reviewer checks first. Whether a test file names a
definition is exact; whether a test reaches it another way is not, so the sentence says "may".
"""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest
from summarizer.coverage import coverage_sentence
from summarizer.facts import extract_facts
from summarizer.finishing import risk_sentence


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title="Fix fusion", url="u", author="a", state="merged", files=files
    )


SOURCE = ChangedFile("vllm/fusion.py", additions=2, deletions=0, patch=(
    "@@ -10,6 +10,7 @@ class AttentionFp8StaticQuantPattern(AttentionQuantPattern):\n"
    "     def pattern(self, q, k, v):\n"
    "+        kv_cache_dummy_dep = self.empty(0)\n"
    "         return q\n"
    "@@ -40,6 +41,7 @@ class AttentionNvfp4QuantPattern(AttentionQuantPattern):\n"
    "     def pattern(self, q, k, v):\n"
    "+        kv_cache_dummy_dep = self.empty(0)\n"
    "         return q\n"))  # fmt: skip

FP8_TEST = ChangedFile("tests/compile/test_fusion_attn.py", additions=1, deletions=0, patch=(
    "@@ -5,3 +5,4 @@ def test_attention_quant_pattern():\n"
    "     model = TestAttentionFp8StaticQuantPatternModel()\n"
    "+    assert model.kwargs.get('kv_cache_dummy_dep') is not None\n"))  # fmt: skip

NAMES = ["AttentionFp8StaticQuantPattern.pattern", "AttentionNvfp4QuantPattern.pattern"]


def test_the_risk_says_which_changed_code_the_tests_name_and_which_they_leave_out():
    pr = pr_of(SOURCE, FP8_TEST)
    sentence = risk_sentence(extract_facts(pr), pr)
    assert "The PR's tests (`tests/compile/test_fusion_attn.py`) name" in sentence
    assert "but not `AttentionNvfp4QuantPattern`: its change may have no test here." in sentence


def test_a_test_named_for_a_class_names_it():
    pr = pr_of(SOURCE, FP8_TEST)
    assert coverage_sentence(pr, ["AttentionFp8StaticQuantPattern"]) == (
        "The PR's only test changes are in `tests/compile/test_fusion_attn.py`."
    )


def test_tests_that_name_none_of_the_changed_code_are_said_to_name_none():
    other = ChangedFile("tests/test_other.py", additions=1, deletions=0, patch=(
        "@@ -1,2 +1,3 @@ def test_x():\n     a = 1\n+    assert a\n"))  # fmt: skip
    assert coverage_sentence(pr_of(SOURCE, other), ["AttentionNvfp4QuantPattern"]) == (
        "The PR's test changes (`tests/test_other.py`) do not name "
        "`AttentionNvfp4QuantPattern`: they may not test its change."
    )
    assert "name none of `AttentionFp8StaticQuantPattern` or `AttentionNvfp4QuantPattern`" in (
        coverage_sentence(pr_of(SOURCE, other), ["AttentionFp8StaticQuantPattern", NAMES[1]])
    )


def test_without_test_changes_the_risk_says_there_are_none():
    assert coverage_sentence(pr_of(SOURCE), NAMES) == "No test changes with it in this PR."


def test_a_method_is_looked_up_by_its_own_name():
    calls = ChangedFile("tests/test_y.py", additions=1, deletions=0, patch=(
        "@@ -1,2 +1,3 @@ def test_y():\n     p = make()\n+    p.pattern(q, k, v)\n"))  # fmt: skip
    assert coverage_sentence(pr_of(SOURCE, calls), NAMES[:1]).startswith("The PR's only test")
