"""Links to Slack messages are on the workspace's own host, whatever path builds them.

The fake workspace lives at https://acme-eng.slack.com/ (auth.test's `url`), and its
chat.getPermalink answers links on that host: every link prdigest prints or posts must be
the one Slack itself would give, never one on slack.com.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from tests.conftest import REPO, make_pr
from tests.fakes.slack import BotUnderTest, FakeSlack

DAY = "2026-02-23"
CHANNEL = "C0123456"
TEAM = "https://acme-eng.slack.com"


@pytest.fixture
def workspace() -> Iterator[FakeSlack]:
    with FakeSlack(team_url=TEAM + "/") as slack:
        yield slack


def permalink(slack: FakeSlack, ts: str) -> str:
    """What chat.getPermalink answers for the message: Slack's own link to it."""
    return f"{TEAM}/archives/{CHANNEL}/p{ts.replace('.', '')}"


def test_prdigest_post_prints_the_workspace_link_first_and_every_time(
    env, github, workspace, monkeypatch
):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    monkeypatch.setenv("SLACK_BOT_TOKEN", workspace.bot_token)
    monkeypatch.setenv("SLACK_API_URL", workspace.api_url)
    monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
    post = ["post", "--date", DAY, "--to", f"slack:{CHANNEL}"]
    first = CliRunner().invoke(cli, post)
    second = CliRunner().invoke(cli, post)  # a new process: nothing is known about Slack yet
    parent = workspace.posted(CHANNEL)[0]
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    assert first.stderr == f"Posted: {permalink(workspace, parent.ts)}\n"
    # Before: "Already posted: https://slack.com/archives/C0123456/p…", on another host.
    assert second.stderr == f"Already posted: {permalink(workspace, parent.ts)}\n"


async def test_an_already_posted_answer_after_a_restart_links_the_workspace(env, github, workspace):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    bot = BotUnderTest(env, workspace)
    try:
        await bot.command("/digest", DAY, channel=CHANNEL)
    finally:
        await bot.aclose()
    restarted = BotUnderTest(env, workspace)  # the same database, a new process
    try:
        again = await restarted.command("/digest", DAY, channel=CHANNEL)
    finally:
        await restarted.aclose()
    parent = workspace.posted(CHANNEL)[0]
    assert again.text == (
        f"The digest of {REPO} for {DAY} (America/Los_Angeles) is already in this channel: "
        f"<{permalink(workspace, parent.ts)}|open the thread>."
    )
