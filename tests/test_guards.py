"""Lines that ran every time, put under a new `if` by the PR: said as such in what changed,
and the cases where the condition fails are the risk (vLLM #35125). A statement taken out of
its branch is the other way round: the cases that took the other way now run it too."""

from __future__ import annotations

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.behaviour import behaviour_risk
from summarizer.checks import FindingKind, check_answer
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.guards import NewGuard, new_guards
from summarizer.unguarded import unguarded, unguarded_sentence
from tests.diffs import OUT_OF_ELSE, changed, risk_of
from tests.diffs import pr_of as pr_with


def pr_of(patch: str, path: str = "vllm/v1/kv_offload/worker/cpu_gpu.py") -> PullRequest:
    files = (ChangedFile(path, "modified", 9, 7, patch),)
    return PullRequest("o/r", 1, "Fix block size detection", "u", "a", "merged", files=files)


# vLLM #35125's shape: the permutation of `test_shape` now applies to cross-layer caches only.
WRAPPED = """\
@@ -259,10 +259,14 @@ class CpuGpuOffloadingHandlers:
                 split_k_and_v = True

-            try:
-                order = backend.get_kv_cache_stride_order()
-            except (AttributeError, NotImplementedError):
-                order = tuple(range(len(gpu_shape)))
-
-            # permute test_shape according to stride_order
-            test_shape = tuple(test_shape[i] for i in order)
+            if has_layers_dim:
+                # the registered shape is the physical layout here
+                try:
+                    order = backend.get_kv_cache_stride_order()
+                except (AttributeError, NotImplementedError):
+                    order = tuple(range(len(gpu_shape)))
+
+                test_shape = tuple(test_shape[i] for i in order)

             block_size_idx = test_shape.index(16)
"""


def test_lines_put_under_a_new_if_are_found_with_their_condition():
    assert new_guards(pr_of(WRAPPED)) == [
        NewGuard(
            "vllm/v1/kv_offload/worker/cpu_gpu.py", "CpuGpuOffloadingHandlers",
            "has_layers_dim", 5, "try:",
        )
    ]  # fmt: skip


def test_what_changed_says_so_and_the_risk_is_the_cases_that_now_skip_them():
    pr = pr_of(WRAPPED)
    told = SummarySections("It adds a try-except block.", "", "", "")
    finished = finish(told, pr, extract_facts(pr))
    assert finished.what_changed.startswith(
        "In `CpuGpuOffloadingHandlers`, the diff puts the 5 lines starting `try:` under a new "
        "`if has_layers_dim:`."
    )
    risk = behaviour_risk(extract_facts(pr), pr)
    assert risk is not None and risk.sentence == (
        "In `CpuGpuOffloadingHandlers`, the 5 lines starting `try:` ran every time before and "
        "now run only if `has_layers_dim`: a case where it does not hold now skips them."
    )


def test_the_try_block_put_under_the_if_is_not_said_to_be_added():
    # Judge pass 38: "The changes include adding a try-except block" was the mechanism wrong.
    pr = pr_of(WRAPPED)
    told = SummarySections("The changes include adding a try-except block.", "", "", "")
    found = check_answer(pr, told, ChangeType.SUBSTANTIAL, extract_facts(pr))
    assert [f.explanation for f in found if f.kind == FindingKind.CONTRADICTS_FACTS] == [
        "says a `try` block is added, but the diff only puts the one that was there under a "
        "new `if`"
    ]


def test_an_if_with_an_else_still_runs_something_in_every_case():
    last = "+                test_shape = tuple(test_shape[i] for i in order)\n"
    with_else = WRAPPED.replace(last, last + "+            else:\n+                test_shape = shape\n")
    assert new_guards(pr_of(with_else)) == []


def test_a_new_if_around_new_lines_only_is_no_guard_of_old_ones():
    patch = """\
@@ -10,3 +10,5 @@ def load(path):
     data = read(path)
+    if data is None:
+        raise FileNotFoundError(path)
     return data
"""
    assert new_guards(pr_of(patch, "vllm/io.py")) == []


def diff_pr(path: str, patch: str) -> PullRequest:
    return pr_with(changed(path, patch))


def test_a_statement_taken_out_of_an_else_now_runs_for_the_branch_above_it_too():
    # vLLM #34813: embeddings a caller passes in are scaled now too, and in place, since the
    # line was rewritten as `*=` on its way out (a reader found that unsaid).
    taken_out = pr_with(OUT_OF_ELSE)
    assert risk_of(taken_out) == (
        "In `GraniteMoeHybridModel`, `hidden_states *= self.embedding_multiplier` now runs "
        "after the whole `if`/`else`, not only in its `else:`: the case that runs "
        "`hidden_states = inputs_embeds` now gets it too. On a tensor or a list `*=` works in "
        "place: in that case it changes `inputs_embeds` itself, where "
        "`hidden_states = hidden_states * self.embedding_multiplier` made a new object."
    )
    # What changed says the move, quoting the line as it stood: the model read the line as a
    # change to the multiplier, and a reader found the rewritten line quoted as the old one.
    out = finish(SummarySections("It scales embeddings.", "", "", ""), taken_out,
                 extract_facts(taken_out))  # fmt: skip
    assert out.what_changed.startswith(
        "In `GraniteMoeHybridModel`, `hidden_states = hidden_states * self.embedding_multiplier`"
        ", written as `hidden_states *= self.embedding_multiplier`, moves out of its `else:` "
        "and now runs after the whole `if`/`else`."
    )


def test_a_statement_taken_out_of_a_try_else_is_not_called_out_of_an_if():
    # A `try`'s `else:` is no `if`/`else`, and the line now stands above it, not after.
    before_try = diff_pr("vllm/a.py", (
        "@@ -1,7 +1,7 @@ def f(path):\n"
        "+    size = 0\n"
        "     try:\n"
        "         data = open(path).read()\n"
        "     except OSError:\n"
        "         return None\n"
        "     else:\n"
        "-        size = 0\n"
        "         return data\n"
    ))  # fmt: skip
    [u] = unguarded(before_try)
    assert (u.condition, u.other, u.after) == ("", "", False)
    assert "after the whole `if`/`else`" not in unguarded_sentence(u)
    out = finish(SummarySections("It reads a file.", "", "", ""), before_try,
                 extract_facts(before_try))  # fmt: skip
    assert "moves out of" not in out.what_changed


def test_a_statement_taken_out_of_an_if_now_runs_where_it_does_not_hold():
    taken_out = diff_pr("vllm/a.py", (
        "@@ -1,4 +1,4 @@ def f(x, scale):\n"
        "     if scale:\n"
        "-        x = x.float()\n"
        "+    x = x.float()\n"
        "     return x\n"
    ))  # fmt: skip
    [u] = unguarded(taken_out)
    assert unguarded_sentence(u) == (
        "In `f`, `x = x.float()` now runs whether or not `scale` holds: it ran only under that "
        "`if` before, so a case where it does not hold now gets it too."
    )
