"""An error the PR makes existing code raise is the risk a reviewer checks first: a caller
that reached that line now stops. A raise in a definition the PR adds breaks no caller, and
one the PR moves (its error removed elsewhere) is not new."""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest, SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import fact_risk, finish
from summarizer.raises import RaiseAdded, raises_added


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=34973, title="Enforce that `model` is the first positional arg",
        url="u", author="a", state="merged", files=files,
    )  # fmt: skip


# vLLM #34973's shape: an existing parser method gains a check that raises.
CHECKED = ChangedFile("vllm/utils/argparse_utils.py", additions=3, patch=(
    "@@ -219,6 +219,9 @@ class FlexibleArgumentParser(ArgumentParser):\n"
    "             except StopIteration:\n"
    "                 pass\n"
    "+            if served_name_without_model(args):\n"
    "+                raise ValueError(\n"
    "+                    '`model` should be the first positional argument')\n"
    "         return super().parse_args(args, namespace)\n"))  # fmt: skip


def test_an_error_raised_in_existing_code_is_the_facts_risk():
    pr = pr_of(CHECKED)
    assert raises_added(pr) == [
        RaiseAdded("vllm/utils/argparse_utils.py", "ValueError", "FlexibleArgumentParser")
    ]
    risk = fact_risk(extract_facts(pr), pr)
    assert risk is not None and risk.sentence == (
        "`FlexibleArgumentParser` (`vllm/utils/argparse_utils.py`) now raises `ValueError` "
        "where it did not before: a caller or configuration that reached that line now stops "
        "with an error."
    )


def test_a_raise_that_a_missing_attribute_raised_before_changes_only_the_error():
    # vLLM #34739: without `os.sched_setaffinity`, the call below failed with AttributeError.
    guarded = ChangedFile("vllm/distributed/nixl_connector.py", additions=4, patch=(
        "@@ -300,6 +300,10 @@ class NixlConnectorWorker:\n"
        "             if self.device_type == \"cpu\":\n"
        "+                if not hasattr(os, \"sched_setaffinity\"):\n"
        "+                    raise NotImplementedError(\n"
        "+                        \"os.sched_setaffinity is not available on this platform\"\n"
        "+                    )\n"
        "                 os.sched_setaffinity(0, rsv_cores_for_kv)\n"))  # fmt: skip
    pr = pr_of(guarded)
    risk = fact_risk(extract_facts(pr), pr)
    assert risk is not None and risk.sentence == (
        "`NixlConnectorWorker` (`vllm/distributed/nixl_connector.py`) now raises "
        "`NotImplementedError` where `os.sched_setaffinity` is missing: the read of "
        "`os.sched_setaffinity` below raised `AttributeError` in that case before, so only "
        "the error a caller meets, and its message, change."
    )


def test_a_raise_in_a_new_definition_breaks_no_caller():
    new_function = ChangedFile("vllm/score/utils.py", additions=4, patch=(
        "@@ -53,3 +53,7 @@ def compute_maxsim_score(q, d):\n"
        "     return scores.sum()\n \n \n"
        "+def compute_maxsim_scores(qs, ds):\n"
        "+    if len(qs) != len(ds):\n"
        "+        raise ValueError('q_embs and d_embs must have the same length')\n"
        "+    return [compute_maxsim_score(q, d) for q, d in zip(qs, ds)]\n"))  # fmt: skip
    pr = pr_of(new_function)
    risk = fact_risk(extract_facts(pr), pr)
    assert risk is None or "raises" not in risk.sentence


def test_a_raise_moved_or_reworded_is_not_new_and_tests_do_not_count():
    moved = ChangedFile("vllm/backend.py", additions=2, deletions=2, patch=(
        "@@ -10,6 +10,6 @@ def validate(schema):\n"
        "+    if unsupported(schema):\n+        raise ValueError('unsupported')\n"
        "     compile_grammar(schema)\n"
        "-    if unsupported(schema):\n-        raise ValueError('not supported')\n"))  # fmt: skip
    a_test = ChangedFile("tests/test_backend.py", additions=1, patch=(
        "@@ -1,2 +1,3 @@ def test_x():\n     pass\n+    raise RuntimeError('boom')\n"))  # fmt: skip
    assert raises_added(pr_of(moved, a_test)) == []


def test_cpp_throws_and_torch_checks_are_raises_too():
    kernel = ChangedFile("csrc/moe/router_gemm.cu", additions=2, patch=(
        "@@ -40,3 +40,6 @@ void router_gemm(torch::Tensor out, torch::Tensor a) {\n"
        "+  TORCH_CHECK(a.dtype() == torch::kBFloat16, \"a must be bf16\");\n"
        "+  if (n == 0)\n"
        "+    throw std::invalid_argument(\"n must be positive\");\n"
        "   launch(out, a);\n"))  # fmt: skip
    assert [r.error for r in raises_added(pr_of(kernel))] == ["TORCH_CHECK", "invalid_argument"]



def test_the_rule_a_new_check_enforces_is_quoted_from_its_message():
    # vLLM #34973: a wrapped condition, and a message in two string pieces.
    wrapped = ChangedFile("vllm/utils/argparse_utils.py", additions=9, patch=(
        "@@ -219,3 +219,12 @@ class FlexibleArgumentParser(ArgumentParser):\n"
        "                 pass\n"
        "+            if (\n"
        "+                len(args) > 1\n"
        "+                and args[1].startswith(\"-\")\n"
        "+            ):\n"
        "+                raise ValueError(\n"
        "+                    \"`model` should be provided as the first positional argument \"\n"
        "+                    \"when using `vllm serve`.\"\n"
        "+                )\n"
        "         return super().parse_args(args, namespace)\n"))  # fmt: skip
    pr = pr_of(wrapped)
    (raised,) = raises_added(pr)
    assert raised.message == (
        "`model` should be provided as the first positional argument when using `vllm serve`."
    )
    out = finish(SummarySections("It checks the args.", "", "", ""), pr, extract_facts(pr))
    assert out.what_changed.startswith(
        "In `FlexibleArgumentParser`, a new check raises `ValueError`: \"`model` should be "
        "provided as the first positional argument when using `vllm serve`.\""
    )


def test_a_message_built_at_run_time_or_with_a_link_is_not_quoted():
    for message in ('f"bad value {x} for the option given"', '"see https://x.io/docs for how"'):
        built = ChangedFile("vllm/config.py", additions=3, patch=(
            "@@ -10,2 +10,5 @@ class Config:\n"
            "         self.check()\n"
            "+        if self.bad:\n"
            f"+            raise ValueError({message})\n"
            "         return self\n"))  # fmt: skip
        pr = pr_of(built)
        out = finish(SummarySections("It checks.", "", "", ""), pr, extract_facts(pr))
        assert "a new check raises `ValueError`: \"" not in out.what_changed, message
