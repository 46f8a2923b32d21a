"""Which model wrote a summary: `prdigest summary` names it on stderr, and when it is not the
configured model (after a switch from an API model to the built-in one, say) says so in one
line with the way to redo it; a report of a stored day says in one line how many of its
summaries another model wrote (they are summarized again); the JSON names the model and
prompt version of every summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from summarizer.prompt import COMPACT_PROMPT_VERSION, PROMPT_VERSION
from tests.conftest import REPO, make_pr

DAY = "2026-02-23"
OLD = "gpt-4o-mini"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture
def written_by_old_model(env, github, llm, monkeypatch):
    """A stored day of two PRs, summarized by OLD; then PRDIGEST_MODEL goes back to default."""
    github.add_prs(REPO, [make_pr(35156, f"{DAY} 10:00:00"), make_pr(35101, f"{DAY} 09:00:00")])
    monkeypatch.setenv("PRDIGEST_MODEL", OLD)
    assert run("report", "--date", DAY).exit_code == 0
    monkeypatch.delenv("PRDIGEST_MODEL")
    return llm.completions_count


def test_a_stored_summary_of_another_model_is_named_with_the_way_to_redo_it(
    written_by_old_model, llm
):
    result = run("summary", "35156")
    assert result.exit_code == 0
    assert "- **PR Number:** #35156" in result.stdout
    assert lines(result.stderr) == [
        f"note: #35156 was summarized by {OLD} (prompt {PROMPT_VERSION}); the configured model "
        f"is gpt-4.1-mini (prompt {PROMPT_VERSION}): run with --refresh to redo it"
    ]
    assert llm.completions_count == written_by_old_model  # shown as stored: no call

    redone = run("summary", "35156", "--refresh")
    assert redone.exit_code == 0 and lines(redone.stderr) == []
    assert llm.completions_count == written_by_old_model + 1
    again = run("summary", "35156")
    assert lines(again.stderr) == [
        f"#35156 was summarized earlier by gpt-4.1-mini (prompt {PROMPT_VERSION})."
    ]


def test_after_a_switch_to_the_built_in_model_the_note_names_it(
    written_by_old_model, monkeypatch, tmp_path: Path
):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    model = tmp_path / "tiny-model.gguf"
    model.write_bytes(b"GGUF" + bytes(28))
    monkeypatch.setenv("PRDIGEST_LOCAL_MODEL", str(model))
    result = run("summary", "35156")
    assert result.exit_code == 0
    assert lines(result.stderr) == [
        f"note: #35156 was summarized by {OLD} (prompt {PROMPT_VERSION}); the configured model "
        f"is tiny-model (prompt {COMPACT_PROMPT_VERSION}): run with --refresh to redo it"
    ]


def test_a_stored_day_of_another_model_says_so_in_one_line_before_it_is_redone(
    written_by_old_model, llm
):
    result = run("report", "--date", DAY)
    assert result.exit_code == 0
    assert lines(result.stderr) == [
        f"note: 2 of the 2 PRs of {DAY} were summarized by {OLD} (prompt {PROMPT_VERSION}); "
        f"the configured model is gpt-4.1-mini (prompt {PROMPT_VERSION}): summarizing them again"
    ]
    assert llm.completions_count == written_by_old_model + 2
    again = run("report", "--date", DAY)
    assert again.exit_code == 0 and lines(again.stderr) == []
    assert llm.completions_count == written_by_old_model + 2


def test_the_json_names_the_model_and_prompt_version_of_each_summary(written_by_old_model):
    summary = json.loads(run("summary", "35156", "--json").stdout)["summary"]
    assert (summary["model"], summary["prompt_version"]) == (OLD, PROMPT_VERSION)
    report = json.loads(run("report", "--date", DAY, "--json").stdout)
    assert [(p["number"], p["summary"]["model"], p["summary"]["prompt_version"])
            for p in report["pull_requests"]] == [
        (35156, "gpt-4.1-mini", PROMPT_VERSION),
        (35101, "gpt-4.1-mini", PROMPT_VERSION),
    ]  # fmt: skip
