"""Reverts are recognised as GitHub and git write them, and are always SUBSTANTIAL: they undo
a change to what the code does, whatever size the model judges them by."""

from __future__ import annotations

import json

import pytest

from bot.core.models import PullRequest
from bot.core.reverts import is_revert
from tests.conftest import REPO, make_pr
from tests.fakes.openai_api import default_responder


def pr(title: str, body: str = "") -> PullRequest:
    return PullRequest(repo=REPO, number=1, title=title, url="u", author="a", state="merged",
                       body=body)  # fmt: skip


@pytest.mark.parametrize(
    "title, body",
    [
        ('Revert "[Bugfix] Add `--trust-remote-code` to dataset bench args"', ""),
        ("Revert #34208", ""),
        ("[Revert] Undo the scheduler change", ""),
        ("Undo the scheduler change", "Reverts vllm-project/vllm#34208\n\nIt broke CI."),
        ("Back out the cache", "This reverts commit 0123abcd4567ef0123abcd4567ef0123abcd45."),
        ("Back out the cache", "Reverts #34208"),
        ("Back out the cache", "Reverts https://github.com/vllm-project/vllm/pull/34208"),
    ],
)
def test_a_revert_is_recognised_from_its_title_or_body(title, body):
    assert is_revert(pr(title, body))


@pytest.mark.parametrize(
    "title, body",
    [
        ("[Bugfix] Reverting to the old default breaks nothing", ""),
        ("Fix revert handling in the scheduler", "Mentions reverts vllm-project/vllm#3 inline."),
    ],
)
def test_other_prs_are_not_reverts(title, body):
    assert not is_revert(pr(title, body))


def test_a_revert_is_substantial_whatever_the_model_says(env, github, llm):
    from click.testing import CliRunner

    from bot.app.cli import cli

    def says_trivial(request: dict) -> str:
        return json.dumps(json.loads(default_responder(request)) | {"type": "TRIVIAL"})

    llm.responder = says_trivial
    github.add_prs(REPO, [make_pr(1, "2026-02-23 10:00:00", title="Revert #34208"),
                          make_pr(2, "2026-02-23 11:00:00", title="[Doc] Fix a typo")])  # fmt: skip
    result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23", "--json"])
    assert result.exit_code == 0, result.output
    types = {e["number"]: e["type"] for e in json.loads(result.stdout)["pull_requests"]}
    assert types == {1: "SUBSTANTIAL", 2: "TRIVIAL"}
