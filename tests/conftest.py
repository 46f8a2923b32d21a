"""Shared fixtures: a private database and environment per test, and the local fakes."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.configuration import set_hypothesis_home_dir

from bot.core.settings import Settings
from tests.fakes.discord import FakeDiscord
from tests.fakes.github import FakeFile, FakeGitHub, FakePR
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.slack import BotUnderTest, FakeSlack

# Every variable prdigest reads: cleared so a developer's own settings never leak into a test.
_OUR_VARIABLES = (
    "GITHUB_TOKEN GITHUB_API_URL OPENAI_API_KEY OPENAI_BASE_URL SLACK_BOT_TOKEN SLACK_APP_TOKEN "
    "SLACK_SIGNING_SECRET SLACK_API_URL DISCORD_BOT_TOKEN DISCORD_API_URL DISCORD_GATEWAY_URL "
    "GITHUB_APP_ID GITHUB_APP_PRIVATE_KEY GITHUB_APP_PRIVATE_KEY_PATH GITHUB_APP_INSTALLATION_ID"
).split()

# Nothing the suite runs writes into the user's home: caches (the built-in model's 1.1 GB
# file included), configuration and data directories all point into one temporary directory,
# for this process and every `prdigest` it starts.
_HOME = Path(tempfile.mkdtemp(prefix="prdigest-test-home-"))
for _name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = str(_HOME / _name.lower())
os.environ["HOME"] = str(_HOME)
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)

# Property tests keep no example database, and Hypothesis' own cache goes to a temporary
# directory: the suite writes nothing into the checkout or the user's home.
set_hypothesis_home_dir(_HOME / "hypothesis")
hypothesis_settings.register_profile("prdigest", database=None)
hypothesis_settings.load_profile("prdigest")

PACIFIC = ZoneInfo("America/Los_Angeles")
REPO = "vllm-project/vllm"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The real-model tests run only when asked for by their marker: `pytest -m real_model`."""
    if "real_model" in (config.getoption("markexpr") or ""):
        return
    opt_in = pytest.mark.skip(reason="the real built-in model: opt in with pytest -m real_model")
    for item in items:
        if "real_model" in item.keywords:
            item.add_marker(opt_in)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("PRDIGEST_") or name in _OUR_VARIABLES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRDIGEST_DB", str(tmp_path / "prdigest.db"))
    monkeypatch.chdir(tmp_path)  # so no developer's .env is read
    return tmp_path


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as srv:
        srv.add_repo(REPO)
        yield srv


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as srv:
        yield srv


@pytest.fixture
def env(github: FakeGitHub, llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The environment a user would set, pointing at the local fakes."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_testtoken123")
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-123")
    monkeypatch.setenv("OPENAI_BASE_URL", llm.url + "/v1")
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "1")
    monkeypatch.setenv("PRDIGEST_GITHUB_RETRIES", "2")
    monkeypatch.setenv("PRDIGEST_GITHUB_BACKOFF", "0")
    monkeypatch.setenv("PRDIGEST_REPO", REPO)
    return Settings.from_env(dotenv=False)


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    """The Slack look-alike: Web API, response_url and Socket Mode."""
    with FakeSlack() as srv:
        yield srv


@pytest.fixture
async def bot(env: Settings, slack: FakeSlack) -> AsyncIterator[BotUnderTest]:
    """A real SlackBot (real Bolt app, store and core) wired to the fakes."""
    under_test = BotUnderTest(env, slack)
    yield under_test
    await under_test.aclose()


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    """The Discord look-alike: REST API and gateway on one local port."""
    with FakeDiscord() as srv:
        yield srv


@pytest.fixture(autouse=True)
def restore_endpoints() -> Iterator[None]:
    """discord.py's endpoints are class attributes: put back whatever a test pointed elsewhere."""
    import discord

    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    yield
    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = base, gateway


@pytest.fixture
def settings(env: Settings, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The user's environment with a Discord bot pointed at the look-alike."""
    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", fake.guild_id)
    return Settings.from_env(dotenv=False)


def pacific(text: str) -> datetime:
    """`2026-02-23 23:17:54` as a Pacific wall-clock time."""
    return datetime.fromisoformat(text).replace(tzinfo=PACIFIC)


def make_pr(number: int, merged: str, *, files: int = 2, title: str | None = None, **kw) -> FakePR:
    return FakePR(
        number=number,
        title=title or f"[Core] Change number {number}",
        author=kw.pop("author", f"author{number % 7}"),
        merged_by=kw.pop("merged_by", "maintainer"),
        merged_at=pacific(merged),
        files=kw.pop(
            "file_list",
            [
                FakeFile(
                    f"vllm/module_{number}_{i}.py", patch=f"@@ -1,2 +1,3 @@\n x = 1\n+y_{i} = 2\n"
                )
                for i in range(files)
            ],
        ),
        **kw,
    )
