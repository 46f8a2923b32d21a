"""A PR that changes only tests or CI is said with what it puts at risk: the coverage a skip
takes away, what a moved tolerance lets through or fails, the packages CI stops installing.
"Only these files change here" was true of each and told a maintainer nothing."""

from __future__ import annotations

from summarizer.support_risks import support_risk
from tests.diffs import changed, pr_of, risk_of

SKIPPED = pr_of(changed("tests/entrypoints/openai/responses/test_harmony.py", (
    "@@ -906,6 +906,10 @@ async def test_function_calling_no_code_interpreter_events(\n"
    " \n"
    " @pytest.mark.asyncio\n"
    " @pytest.mark.parametrize(\"model_name\", [MODEL_NAME])\n"
    "+@pytest.mark.skip(\n"
    "+    reason=\"This test is flaky in CI, needs investigation and \"\n"
    "+    \"potential fixes in the code interpreter MCP implementation.\"\n"
    "+)\n"
    " async def test_mcp_code_interpreter_streaming(client: OpenAI, model_name: str, server):\n"
    "     tools = [{\"type\": \"mcp\", \"server_label\": \"code_interpreter\"}]\n"
)))  # fmt: skip

TIGHTER = pr_of(changed("tests/lora/test_fused_moe_lora_kernel.py", (
    "@@ -336,7 +340,7 @@ def test_fused_moe_lora_kernel(\n"
    "     )\n"
    "-    torch.testing.assert_close(output, output2, atol=1e-1, rtol=1e-1)\n"
    "+    torch.testing.assert_close(output, output2, atol=1e-2, rtol=1e-2)\n"
)))  # fmt: skip

NO_INSTALL = pr_of(changed(".buildkite/test_areas/misc.yaml", (
    "@@ -88,11 +88,6 @@ steps:\n"
    "   - tests/v1/tracing\n"
    "   commands:\n"
    "-  - \"pip install \\\n"
    "-      'opentelemetry-sdk>=1.26.0' \\\n"
    "-      'opentelemetry-api>=1.26.0'\"\n"
    "   - pytest -v -s v1/tracing\n"
)))  # fmt: skip


def test_a_test_marked_skipped_is_coverage_ci_no_longer_has():
    assert support_risk(SKIPPED) == (
        "The PR marks `test_mcp_code_interpreter_streaming` "
        "(`tests/entrypoints/openai/responses/test_harmony.py`) skipped: \"This test is flaky in "
        "CI, needs investigation and potential fixes in the code interpreter MCP "
        "implementation.\" CI no longer checks what it covers: a regression there passes until "
        "the mark goes."
    )
    assert risk_of(SKIPPED) == support_risk(SKIPPED)  # it is the PR's risk, not the file list


def test_a_tighter_tolerance_fails_where_results_differ_by_more():
    assert support_risk(TIGHTER) == (
        "In `test_fused_moe_lora_kernel`, the check's tolerances become `atol=1e-2, rtol=1e-2`, "
        "tighter than `atol=1e-1, rtol=1e-1`: where the two results differ by more than that, "
        "the test now fails."
    )


def test_packages_ci_stops_installing_must_come_with_the_image():
    assert support_risk(NO_INSTALL) == (
        "CI no longer installs `opentelemetry-sdk>=1.26.0` and `opentelemetry-api>=1.26.0` (in "
        "`.buildkite/test_areas/misc.yaml`): the steps that ran after the install now pass only "
        "where the image already has them."
    )


def test_a_tests_only_pr_with_none_of_these_keeps_the_plain_sentence():
    renamed = pr_of(changed("tests/test_a.py", "@@ -1,2 +1,2 @@\n-def test_a():\n+def test_b():\n     pass\n"))
    assert support_risk(renamed) == ""
    assert risk_of(renamed).startswith("Only `tests/test_a.py` changes here")
