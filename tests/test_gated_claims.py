"""Claims of an effect the diff does not have. Adding a requirement to a predicate turns
nothing on: a sentence that says the PR enables something where the added requirement holds
is backwards; one that says it is enabled only there, or turned off elsewhere, is right. A
file whose change is only a comment does not affect what the code does."""

from __future__ import annotations

from bot.core.models import ChangeType, SummarySections
from summarizer.checks import FindingKind, check_answer
from tests.diffs import changed, pr_of

# vLLM #35250: FP4 is turned off on MI300X, where it crashed.
GATED = changed("vllm/_aiter_ops.py", (
    "@@ -1180,7 +1180,7 @@ class rocm_aiter_ops:\n"
    "     @classmethod\n"
    "     def is_fp4bmm_enabled(cls) -> bool:\n"
    "-        return cls._AITER_ENABLED and cls._FP4BMM_ENABLED\n"
    "+        return cls._AITER_ENABLED and cls._FP4BMM_ENABLED and on_gfx950()\n"
))  # fmt: skip


def test_enabling_where_the_added_requirement_holds_is_backwards():
    said = "Fixes AMD GPU crash by enabling FP4 operations on gfx950."
    findings = check_answer(pr_of(GATED), SummarySections(said, "", "", ""), ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.sentence) for f in findings] == [(FindingKind.INVERTED, said)]
    assert "only adds `on_gfx950()` as a requirement" in findings[0].explanation


def test_enabled_only_there_or_turned_off_elsewhere_is_right():
    said = (
        "FP4 is now enabled only on gfx950. "
        "It disables FP4 on MI300X, whose gfx942 enabling crashed."
    )
    findings = check_answer(pr_of(GATED), SummarySections(said, "", "", ""), ChangeType.SUBSTANTIAL)
    assert [f for f in findings if f.kind == FindingKind.INVERTED] == []


def test_a_file_changed_only_in_its_comments_is_not_said_to_affect_behaviour():
    # vLLM #32365 adds one comment to the CPU worker.
    commented = changed("vllm/v1/worker/cpu_worker.py", (
        "@@ -54,3 +54,4 @@ class CPUWorker(Worker):\n"
        "         omp_cpuids = envs.VLLM_CPU_OMP_THREADS_BIND\n"
        "+        # Under numa binding some cores reserved for kv transfer in nixl_connector.py\n"
        "         if omp_cpuids == \"auto\" and platform.system() == \"Linux\":\n"
    ))  # fmt: skip
    said = "The modification of `vllm/v1/worker/cpu_worker.py` will affect the CPU worker."
    findings = check_answer(pr_of(commented), SummarySections("", said, "", ""), ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.sentence) for f in findings] == [(FindingKind.CONTRADICTS_FACTS, said)]
