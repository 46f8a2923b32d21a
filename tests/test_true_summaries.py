"""What prdigest says about a PR is true and specific, with a hosted model too.

Against the fake OpenAI: the request carries the change facts before any diff text and the
diff's most valuable hunks; an answer that inverts what the diff did, misquotes its code,
claims a speed-up nothing supports or pads its risks is pointed out in one regeneration, and
what is still wrong is cut sentence by sentence; the facts are stored with the summary.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.app.cli import cli
from bot.store.store import Store
from summarizer.facts import facts_from_json
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile

DAY = "2026-02-23"

# #35617's shape: `dtype=config.dtype` removed from the model's layers, nothing added.
DTYPE_PATCH = "\n".join(
    f"@@ -{10 * i},4 +{10 * i},3 @@ class Layer{i}(nn.Module):\n"
    f"         self.proj{i} = ColumnParallelLinear(\n"
    f"             hidden_size,\n"
    f"-            dtype=config.dtype,\n"
    f"         )"
    for i in range(1, 6)
)
IMPORTS = "@@ -1,3 +1,4 @@\n import torch\n+import math\n from torch import nn\n"


def dtype_pr():
    files = [FakeFile("vllm/model_executor/models/qwen3.py", patch=IMPORTS + DTYPE_PATCH)]
    return make_pr(35617, f"{DAY} 10:00:00", title="[Model] Drop dtype from Qwen3 layers",
                   file_list=files)  # fmt: skip


def answer(**sections) -> str:
    base = {
        "type": "SUBSTANTIAL",
        "headline": "Qwen3 layers now take their dtype from the default instead of the config",
        "what_changed": "The five Qwen3 layers no longer pass `dtype=config.dtype` to "
        "`ColumnParallelLinear`, so the default dtype applies.",
        "technical_impact": "Each `ColumnParallelLinear` in `Layer1` to `Layer5` now uses the "
        "default dtype of the process.",
        "potential_risks": "A checkpoint that relied on `config.dtype` differing from the "
        "default dtype now loads `Layer1` weights in another precision.",
        "key_insights": "Set the default dtype where `ColumnParallelLinear` is built.",
    }
    return json.dumps(base | sections)


INVERTED = answer(
    what_changed="The layers now use `dtype=config.dtype` in `ColumnParallelLinear`. "
    "It touches five layers.",
    technical_impact="The change improves performance of model loading. Each layer now "
    "builds `ColumnParallelLinear` with the default dtype.",
    potential_risks="There is no known risk. Developers should test thoroughly.",
)


def report(github, llm, *steps):
    github.add_pr(REPO, dtype_pr())
    llm.script(steps)
    result = CliRunner().invoke(cli, ["report", "--date", DAY, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["pull_requests"][0]


def test_the_model_reads_the_change_facts_before_any_diff_and_the_hunks_worth_most(
    env, github, llm
):
    report(github, llm, ("content", answer()))
    prompt = llm.summary_requests[0]["messages"][1]["content"]
    facts = prompt.index("Change facts")
    assert facts < prompt.index("Diff:") and facts < prompt.index("Title:")
    assert "`dtype=config.dtype,` in 5 places" in prompt[facts : prompt.index("Title:")]
    assert "-            dtype=config.dtype," in prompt[prompt.index("Diff:") :]


def test_an_answer_that_inverts_the_diff_is_pointed_out_and_regenerated(env, github, llm):
    entry = report(github, llm, ("content", INVERTED), ("content", answer()))
    retry = llm.summary_requests[1]["messages"][-1]["content"]
    assert "removes it" in retry and "`dtype=config.dtype`" in retry
    assert "boilerplate" in retry.lower() or "risk" in retry.lower()
    assert "dtype=config.dtype` to `ColumnParallelLinear`" in entry["summary"]["what_changed"]
    assert "no longer pass" in entry["summary"]["what_changed"]


def test_what_a_regeneration_does_not_fix_is_cut_sentence_by_sentence(env, github, llm):
    entry = report(github, llm, ("content", INVERTED), ("content", INVERTED))
    sections = entry["summary"]
    assert "improves performance" not in sections["technical_impact"]
    assert "builds `ColumnParallelLinear` with the default dtype" in sections["technical_impact"]
    assert "now use `dtype=config.dtype`" not in sections["what_changed"]
    # What is left names nothing: the classes the diff changes lead it.
    assert sections["what_changed"] == (
        "The diff changes `Layer1`, `Layer2`, `Layer3` and 2 more. It touches five layers."
    )
    # A section the check would empty is kept whole: never an empty section.
    assert sections["potential_risks"]


def test_the_facts_are_stored_with_the_summary(env, github, llm):
    report(github, llm, ("content", answer()))
    store = Store(env.db_path)
    try:
        (row,) = list(store.db["summaries"].rows)
    finally:
        store.close()
    facts = facts_from_json(json.loads(row["facts"]))
    assert facts.files_total == 1
    assert len(facts.deletions) >= 1


def test_a_test_only_pr_is_trivial_whatever_the_model_says(env, github, llm):
    # (A test-only PR whose title says it fixes a failing test keeps the model's type:
    # tests/test_answer_findings.py.)
    tests_only = make_pr(
        34204, f"{DAY} 11:00:00", title="[CI/Build] Relax `test_mcp_tool_call`",
        file_list=[FakeFile("tests/lora/test_fused_moe.py",
                            patch="@@ -1,2 +1,2 @@\n def test_a():\n-    x = 1\n+    x = 2\n")],
    )  # fmt: skip
    github.add_pr(REPO, tests_only)
    result = CliRunner().invoke(cli, ["report", "--date", DAY, "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["pull_requests"]
    assert entry["type"] == "TRIVIAL"
