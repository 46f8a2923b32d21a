"""`prdigest run` and `prdigest post`, as a user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from click.testing import CliRunner

from bot.app.cli import cli
from tests.conftest import REPO, make_pr
from tests.fakes.slack import FakeSlack

DAY = "2026-02-23"


def test_run_with_nothing_configured_says_what_to_set(env):
    result = CliRunner().invoke(cli, ["run"])
    assert result.exit_code == 2
    assert "Nothing to run: set SLACK_BOT_TOKEN" in result.stderr
    assert "Traceback" not in result.output


def test_post_sends_one_digest_and_exits_and_a_second_post_links_to_it(env, github, monkeypatch):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
        first = CliRunner().invoke(cli, ["post", "--date", DAY, "--to", "slack:C0123456"])
        assert first.exit_code == 0, first.output
        assert first.stderr.startswith("Posted: ")
        assert len(slack.posted("C0123456")) == 4  # the parent and three replies
        second = CliRunner().invoke(cli, ["post", "--date", DAY, "--to", "slack:C0123456"])
        assert second.exit_code == 0 and second.stderr.startswith("Already posted: ")
        assert len(slack.posted("C0123456")) == 4


def test_post_refuses_a_bad_target(env):
    result = CliRunner().invoke(cli, ["post", "--to", "irc:#general"])
    assert result.exit_code == 2 and "is not a target" in result.stderr


def test_run_stops_cleanly_on_sigterm(env, github, monkeypatch, tmp_path):
    with FakeSlack() as slack:
        environ = {
            **os.environ,
            "SLACK_BOT_TOKEN": "xoxb-test-token",
            "SLACK_APP_TOKEN": "xapp-test-token",
            "SLACK_API_URL": slack.api_url,
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.app.cli", "run"],
            env=environ,
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        slack.socket_mode().wait_connected(timeout=20)
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "xoxb-test-token" not in stderr and "xapp-test-token" not in stderr
