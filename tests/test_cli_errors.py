"""Every bad input is one clear line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakePR


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_one_line_error(result, fragment: str):
    assert result.exit_code == 2, result.output
    assert (
        "Traceback" not in result.output
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["report", "--date", "2030-01-01"], "in the future"),
        (["report", "--date", "last tuesday"], "Bad date"),
        (["report", "--date", "2026-02-23", "--tz", "Mars/Base"], "Unknown time zone"),
        (["report", "--repo", "not a repo"], "is not a repository"),
        (["report", "--repo", "ghost/nothing-here", "--date", "2026-02-23"], "not found"),
        (["summary", "999999"], "not found"),
        (["summary", "42"], "is an issue, not a pull request"),
        (["summary", "abc"], "is not a PR number"),
        (["summary", "https://example.com/a/b/pull/1"], "Only links to github.com"),
    ],
)
def test_bad_input(env, github, args, fragment):
    github.add_issue(REPO, 42, "A plain issue")
    assert_one_line_error(run(*args), fragment)


def test_no_repository_anywhere(env, monkeypatch):
    monkeypatch.delenv("PRDIGEST_REPO")
    assert_one_line_error(run("report"), "No repository given")


def test_no_llm_configured_names_both_ways_out(env, github, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setattr("summarizer.model_assembly.local_runtime_available", lambda: False)
    result = run("report", "--date", "2026-02-23")
    assert_one_line_error(result, "No LLM configured")
    assert "OPENAI_API_KEY" in result.stderr and "prdigest[local]" in result.stderr
    assert len(github.requests) == 0  # refused before any GitHub call


def test_bad_settings_are_one_line_too(env, monkeypatch):
    monkeypatch.setenv("PRDIGEST_CONCURRENCY", "many")
    assert_one_line_error(run("report"), "PRDIGEST_CONCURRENCY must be a whole number")


def test_unwritable_output_is_a_clear_error_and_the_summaries_are_kept(env, github, llm, tmp_path):
    github.add_pr(REPO, make_pr(1, "2026-02-23 10:00:00"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_one_line_error(
        run("report", "--date", "2026-02-23", "-o", str(blocker / "out.md")), "Cannot write"
    )
    assert run("report", "--date", "2026-02-23").exit_code == 0
    assert llm.completions_count == 1  # the first run's summary was stored


def test_summary_of_an_open_pr_shows_its_state(env, github):
    github.add_pr(REPO, FakePR(77, "WIP: new scheduler", state="open"))
    result = run("summary", "#77")
    assert result.exit_code == 0
    assert "- **State:** `OPEN`" in result.stdout
    assert "Merged By" not in result.stdout


def test_summary_of_a_merged_pr_is_cached(env, github, llm):
    github.add_pr(REPO, make_pr(35156, "2026-02-23 19:42:24"))
    first = run("summary", "35156")
    second = run("summary", f"https://github.com/{REPO}/pull/35156")
    assert first.stdout == second.stdout and "- **PR Number:** #35156" in first.stdout
    assert llm.completions_count == 1
    assert github.count(path_regex=r"/pulls/35156") == 2  # the PR and its files, once


def test_every_command_has_help_text():
    from click.testing import CliRunner

    for name, command in cli.commands.items():
        assert command.help and command.help.strip(), f"{name} has no help"
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0
