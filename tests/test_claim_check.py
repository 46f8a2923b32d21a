"""Before anything is posted, every name a summary uses must appear in the PR."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.models import ChangedFile, PullRequest, SummarySections
from summarizer.claims import check_claims, extract_claims
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile

PR = PullRequest(
    repo="o/r", number=1, title="Speed up `block_n` selection", url="u", author="a",
    state="merged", body="Uses next_power_of_2 less.",
    files=(ChangedFile("vllm/lora/ops/utils.py", patch="@@\n-    n = max(64, x)\n+    block_n = 64\n"),),
)  # fmt: skip


def sections(text: str) -> SummarySections:
    return SummarySections(text, "Nothing else.", "None.", "None.")


def test_names_and_paths_are_extracted_once_each():
    s = sections("Changes `block_n` in vllm/lora/ops/utils.py and `block_n` again, plus `foo()`.")
    assert extract_claims(s) == ["block_n", "foo()", "vllm/lora/ops/utils.py"]


def test_names_found_in_the_diff_title_files_or_description_are_grounded():
    s = sections("`block_n`, `next_power_of_2`, `vllm.lora.ops`, `max(64, x)` and `utils.py`.")
    assert check_claims(s, PR).ok


def test_invented_names_are_not():
    check = check_claims(sections("Adds `FlashBlockScheduler` to `vllm/engine/core.py`."), PR)
    assert check.ungrounded == ("FlashBlockScheduler", "vllm/engine/core.py")
    assert check.grounded_fraction == 0.0


def planted(name: str) -> str:
    text = f"It changes `{name}` and `retry_count` handling."
    return json.dumps({"headline": "Retries now follow the configured count.",
                       "what_changed": text, "technical_impact": "Faster.", "potential_risks": "Few.",
                       "key_insights": "Read it.", "type": "SUBSTANTIAL"})  # fmt: skip


def test_a_summary_with_invented_names_is_regenerated_once_with_the_names_pointed_out(
    env, github, llm
):
    github.add_pr(
        REPO,
        make_pr(1, "2026-02-23 10:00:00", file_list=[FakeFile("a.py", patch="+retry_count = 3")]),
    )
    llm.script([("content", planted("GhostClass"))])
    result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert result.exit_code == 0
    assert llm.completions_count == 2
    assert "`GhostClass`" in llm.chat_requests[1]["messages"][-1]["content"]
    assert "GhostClass" not in result.stdout and "Unverified" not in result.stdout


def test_if_the_second_answer_still_invents_names_it_is_posted_with_a_visible_note(
    env, github, llm
):
    github.add_pr(
        REPO,
        make_pr(1, "2026-02-23 10:00:00", file_list=[FakeFile("a.py", patch="+retry_count = 3")]),
    )
    llm.script([("content", planted("GhostClass")), ("content", planted("GhostClass"))])
    result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert result.exit_code == 0 and llm.completions_count == 2
    assert (
        "*Unverified: `GhostClass` (not found in the PR's diff, files or text).*" in result.stdout
    )
