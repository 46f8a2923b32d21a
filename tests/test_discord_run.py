"""`prdigest run` and `prdigest discord-invite` as a user runs them, against the Discord fake.

Skipped until the CLI has the commands (they are wired in `bot/app/cli.py`, outside the adapter).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.app.cli import cli
from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.discord import FakeDiscord

DAY = "2026-02-23"


def prdigest() -> list[str]:
    script = Path(sys.executable).with_name("prdigest")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.app.cli"]


def needs(command: str) -> None:
    if command not in cli.commands:
        pytest.skip(f"`prdigest {command}` is not wired into the CLI yet")


@pytest.fixture
def user_env(env: Settings, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
    return dict(os.environ)


async def test_prdigest_run_serves_discord_commands_and_reactions(fake, user_env, github):
    needs("run")
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2, 3)])
    proc = subprocess.Popen(
        [*prdigest(), "run"],
        env=user_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        await fake.wait_ready(timeout=20)
        interaction = fake.slash("digest", {"day": DAY})
        await fake.wait_for(lambda: interaction.finished, timeout=20, what="/digest")
        assert interaction.original["content"].startswith("Posted the digest")
        (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
        replies = fake.channel_messages(parent["id"])
        assert len(replies) == 3
        fake.react(parent["id"], replies[0]["id"], "❌")
        # The thanks, whether or not the re-check's reply has followed it yet.
        await fake.wait_for(
            lambda: any(
                m["content"].startswith("Thanks <@") for m in fake.channel_messages(parent["id"])
            ),
            what="the flag's thanks",
        )
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    assert "Traceback" not in stderr, stderr
    assert fake.token not in stderr


def test_prdigest_discord_invite_prints_the_url(fake, user_env):
    needs("discord-invite")
    started = time.monotonic()
    result = subprocess.run(
        [*prdigest(), "discord-invite"], env=user_env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert f"client_id={fake.app_id}" in result.stdout
    assert "permissions=309237729344" in result.stdout
    assert time.monotonic() - started < 30
