"""The why of a change, in the author's words: a comment the PR adds beside it, quoted.

Readers scored summaries down for never saying why a fix was made, and the small model's
guesses at a why were wrong more often than right. The author often says it in a comment next
to the fix. A whole comment the PR adds to the code that runs, and that gives a reason, is
quoted with the definition it sits in; banners, headers, links, code commented out, comments
the PR only moves and comments in tests are not.
"""

from __future__ import annotations

import pytest

from bot.core.models import ChangedFile, PullRequest, SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.rationale import QUOTE_CHARS, added_comments, reason_sentence


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title="Fix a leak", url="u", author="a", state="merged", files=files
    )


def patched(name: str, patch: str) -> ChangedFile:
    return ChangedFile(
        name, additions=patch.count("\n+"), deletions=patch.count("\n-"), patch=patch
    )


# vLLM #34183's shape: the fix, and the author's reason for it beside it.
CYCLE = patched("vllm/v1/request.py", (
    "@@ -40,7 +40,10 @@ class Request:\n"
    "         self.block_hashes: list[BlockHash] = []\n"
    "-        self.get_hash_new_full_blocks = partial(block_hasher, self)\n"
    "+        # Store the block hasher without binding self to avoid creating a\n"
    "+        # reference cycle (Request -> partial -> Request) that prevents\n"
    "+        # immediate garbage collection via reference counting.\n"
    "+        self._block_hasher = block_hasher\n"
    "         self.num_computed_tokens = 0\n"))  # fmt: skip

REASON = (
    "The PR's new comment in `Request` explains: \"Store the block hasher without binding "
    "self to avoid creating a reference cycle (Request -> partial -> Request) that prevents "
    'immediate garbage collection via reference counting."'
)


def test_a_comment_added_beside_a_fix_that_says_why_is_quoted_with_its_place():
    assert reason_sentence(pr_of(CYCLE)) == REASON


def test_the_reason_follows_what_changed_in_the_finished_summary():
    pr = pr_of(CYCLE)
    sections = SummarySections("The PR stores `_block_hasher` unbound.", "", "", "")
    what = finish(sections, pr, extract_facts(pr)).what_changed
    assert what.endswith(REASON)
    assert what.count("explains") == 1


def test_a_reason_the_text_already_quotes_is_not_said_twice():
    said = "It says: Store the block hasher without binding self to avoid creating a cycle."
    assert reason_sentence(pr_of(CYCLE), said) == ""


def test_a_module_level_comment_is_placed_in_its_file_not_in_the_hunks_function():
    # vLLM #34108: the hunk header names the function above; the comment is outside it.
    rocm = patched("vllm/platforms/rocm.py", (
        "@@ -90,3 +90,6 @@ def _get_gcn_arch_via_amdsmi() -> str:\n"
        "     return arch\n"
        " \n"
        "+# Resolve once at module load. Uses amdsmi (no CUDA init) so Ray workers\n"
        "+# can still set CUDA_VISIBLE_DEVICES after import.\n"
        "+_GCN_ARCH = _get_gcn_arch()\n"))  # fmt: skip
    assert reason_sentence(pr_of(rocm)).startswith(
        "The PR's new comment in `vllm/platforms/rocm.py` explains: \"Resolve once"
    )


def test_a_comment_that_gives_no_reason_is_not_quoted():
    plain = patched("vllm/kv.py", (
        "@@ -1,2 +1,4 @@ def lookup(keys):\n"
        "     out = []\n"
        "+    # Hash mode: stride block hashes into hash-mode keys\n"
        "+    keys = stride(keys)\n"))  # fmt: skip
    assert [c.reasons for c in added_comments(pr_of(plain))] == [0]
    assert reason_sentence(pr_of(plain)) == ""


def test_qualifying_words_count_only_in_pairs():
    # "only" alone qualifies a what ("only check non-mxfp4"); with "without" it hints at a why.
    one = patched("vllm/a.py", (
        "@@ -1,2 +1,3 @@ def check(w):\n     x = 1\n"
        "+    # Shape check, only check the weights of non-mxfp4 layers\n"))  # fmt: skip
    assert reason_sentence(pr_of(one)) == ""


def test_banners_headers_links_code_and_todos_are_not_reasons():
    noise = patched("vllm/b.py", (
        "@@ -1,3 +1,16 @@\n"
        " import os\n"
        "+\n"
        "+# SPDX-License-Identifier: Apache-2.0 so that the license must be stated\n"
        "+x = 1\n"
        "+# ----------------------------------------------------------------\n"
        "+y = 2\n"
        "+# See https://example.com/why because it must be so for the reason\n"
        "+z = 3\n"
        "+# self.cache = build(cfg) if cfg else None  # must run (because)\n"
        "+w = 4\n"
        "+# TODO: remove once upstream fixes it, because it must go soon\n"
        "+v = 5\n"
        "+# @someone said we need this so that it works\n"
        "+u = 6\n"))  # fmt: skip
    assert reason_sentence(pr_of(noise)) == ""


# Comments that are not the change's reason, each with a reason in its words.
NOT_THE_CHANGES_REASON = {
    # Lines added to a comment that was there are a fragment of it.
    "grown": patched("vllm/c.py", (
        "@@ -1,4 +1,5 @@ def f():\n"
        "     # The cutlass kernels are compiled only for SM90\n"
        "+    # on Hopper, so this must be guarded because it would fail elsewhere\n"
        "     run()\n")),
    # A comment the PR only moves is not new.
    "moved": patched("vllm/d.py", (
        "@@ -1,8 +1,8 @@ def f():\n"
        "-    # Sort so that every rank reads the files in the same order.\n"
        "-    files = sorted(files)\n"
        "     load()\n"
        "+    # Sort so that every rank reads the files in the same order.\n"
        "+    files = sorted(files)\n")),
    # A test's comment explains the test, not the change.
    "in a test": patched("tests/test_e.py", (
        "@@ -1,2 +1,4 @@ def test_x():\n"
        "     a = 1\n"
        "+    # Required so that the two requests land in the same batch\n"
        "+    b = 2\n")),
}  # fmt: skip


@pytest.mark.parametrize("kind", NOT_THE_CHANGES_REASON)
def test_a_fragment_a_moved_comment_or_a_tests_comment_is_not_quoted(kind: str):
    assert reason_sentence(pr_of(NOT_THE_CHANGES_REASON[kind])) == ""


def test_a_preprocessor_line_in_cuda_is_not_a_comment():
    cuda = patched("csrc/gemm.cu", (
        "@@ -1,3 +1,6 @@ void run() {\n"
        "   int m = 0;\n"
        "+#ifdef __aarch64__\n"
        "+  // A dummy M size for prepacking weights, so that runtime reorders are avoided\n"
        "+  m = 16;\n"
        "+#endif\n"))  # fmt: skip
    assert reason_sentence(pr_of(cuda)) == (
        "The PR's new comment in `run` explains: \"A dummy M size for prepacking weights, so "
        'that runtime reorders are avoided"'
    )


def test_the_comment_that_gives_the_most_reasons_is_the_one_quoted():
    two = patched("vllm/f.py", (
        "@@ -1,3 +1,8 @@ def g():\n"
        "     a = 1\n"
        "+    # Fallback for processor outputs of the unexpected kind\n"
        "+    b = 2\n"
        "+    c = 3\n"
        "+    # Must run before the hash, because otherwise the cache is stale\n"
        "+    d = 4\n"))  # fmt: skip
    assert '"Must run before the hash' in reason_sentence(pr_of(two))


def test_a_long_comment_is_quoted_by_whole_sentences_and_backticks_stay_paired():
    line = "+    # This must hold because the kernel needs it, e.g. For the fp8 path.\n"
    long = patched("vllm/g.py", (
        "@@ -1,2 +1,11 @@ def h():\n     a = 1\n"
        f"{line * 8}+    # `unpaired\n+    b = 2\n"))  # fmt: skip
    sentence = reason_sentence(pr_of(long))
    quote = sentence.split(' explains: "', 1)[1][:-1]
    assert len(quote) <= QUOTE_CHARS
    assert quote.endswith("for the fp8 path.".replace("for", "For"))
    assert "`" not in quote
