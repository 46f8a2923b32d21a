"""Connecting to Discord: endpoint overrides, intents, command sync, invite URL, bad tokens."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import discord
import pytest

from adapters.discord import create_bot, invite_url, start_bot
from adapters.discord.client import day_choices
from adapters.discord.transport import DEFAULT_API_URL, apply_endpoints
from bot.core.errors import ConfigurationError
from bot.core.settings import Settings
from bot.store.store import Store
from tests.fakes.discord import FakeDiscord, running_bot


def settings_for(fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_URL", fake.api_url)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("PRDIGEST_REPO", "vllm-project/vllm")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env(dotenv=False)


async def test_the_overrides_send_rest_and_gateway_to_the_configured_server(fake, monkeypatch):
    settings = settings_for(fake, monkeypatch)
    async with running_bot(fake, settings) as bot:
        assert discord.http.Route.BASE == fake.api_url
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == fake.gateway_url
        me = fake.requests(r"^/users/@me$", "GET")
        assert me and me[0].headers["authorization"] == f"Bot {fake.token}"
        assert fake.identifies[0]["token"] == fake.token
        assert bot.user is not None and str(bot.user.id) == fake.bot_user_id
        await fake.wait_for(lambda: fake.heartbeats >= 1, what="a heartbeat")


def test_without_overrides_discord_itself_is_used(monkeypatch):
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "t")
    apply_endpoints(Settings.from_env(dotenv=False))
    assert discord.http.Route.BASE == DEFAULT_API_URL
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "wss://gateway.discord.gg/"


def test_discord_py_minor_version_is_the_one_the_override_was_written_for():
    # Route.BASE and DEFAULT_GATEWAY are internals: a new minor must be checked by hand.
    assert discord.version_info[:2] == (2, 7)


async def test_identify_asks_only_for_guilds_and_guild_reactions(fake, monkeypatch):
    async with running_bot(fake, settings_for(fake, monkeypatch)):
        intents = fake.identifies[0]["intents"]
    guilds, guild_message_reactions = 1 << 0, 1 << 10
    assert intents == guilds | guild_message_reactions  # no privileged intent, no content


async def test_commands_are_synced_to_the_configured_guilds(fake, monkeypatch):
    settings = settings_for(fake, monkeypatch, PRDIGEST_DISCORD_GUILDS=fake.guild_id)
    async with running_bot(fake, settings):
        pass
    puts = fake.requests(r"/commands$", "PUT")
    assert [c.path for c in puts] == [
        f"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"
    ]
    commands = {c["name"]: c for c in puts[0].json}
    assert set(commands) == {"digest", "prsummary"}
    day, repo = commands["digest"]["options"]
    assert (day["name"], day["type"], day["required"], day["autocomplete"]) == (
        "day",
        3,
        False,
        True,
    )
    assert (repo["name"], repo["required"]) == ("repo", False)
    (pr,) = commands["prsummary"]["options"]
    assert (pr["name"], pr["type"], pr["required"]) == ("pr", 3, True)


async def test_commands_are_synced_globally_when_no_guild_is_configured(fake, monkeypatch):
    async with running_bot(fake, settings_for(fake, monkeypatch)):
        pass
    puts = fake.requests(r"/commands$", "PUT")
    assert [c.path for c in puts] == [f"/applications/{fake.app_id}/commands"]


async def test_day_autocomplete_offers_today_yesterday_and_recent_dates(fake, monkeypatch):
    async with running_bot(fake, settings_for(fake, monkeypatch)):
        everything = fake.autocomplete("digest", "day", "", guild_scoped=False)
        await fake.wait_for(lambda: everything.finished)
        filtered = fake.autocomplete("digest", "day", "yest", guild_scoped=False)
        await fake.wait_for(lambda: filtered.finished)
    values = [c["value"] for c in everything.choices]
    assert values[:2] == ["today", "yesterday"]
    assert len(values) == 9 and all(len(v) == 10 for v in values[2:])
    assert [c["value"] for c in filtered.choices] == ["yesterday"]


def test_day_choices_are_dates_in_the_configured_zone():
    from datetime import datetime
    from zoneinfo import ZoneInfo

    now = datetime(2026, 3, 1, 2, 0, tzinfo=ZoneInfo("UTC"))  # still Feb 28 in Los Angeles
    choices = day_choices("", "America/Los_Angeles", now=now)
    assert choices[0].name == "today (2026-02-28)"
    assert choices[2].value == "2026-02-26"


async def test_a_rejected_token_is_one_configuration_error(fake, monkeypatch):
    settings = settings_for(fake, monkeypatch, DISCORD_BOT_TOKEN="wrong-token")
    store = Store(settings.db_path)
    from bot.app.compose import build_service

    bot = create_bot(settings, build_service(settings, store), store)
    async with bot:
        with pytest.raises(ConfigurationError, match="rejected DISCORD_BOT_TOKEN"):
            await start_bot(bot, settings)
    store.close()


def test_a_missing_token_is_one_configuration_error(monkeypatch):
    settings = Settings.from_env(dotenv=False)
    store = Store(":memory:")
    from bot.app.compose import build_service

    with pytest.raises(ConfigurationError, match="DISCORD_BOT_TOKEN is not set"):
        create_bot(settings, build_service(settings, store), store)


def test_the_invite_url_asks_for_exactly_the_permissions_used():
    url = urlsplit(invite_url(1100000000000000001))
    query = parse_qs(url.query)
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    assert query["client_id"] == ["1100000000000000001"]
    assert query["scope"] == ["bot applications.commands"]
    granted = discord.Permissions(int(query["permissions"][0]))
    assert {name for name, value in granted if value} == {
        "send_messages",
        "create_public_threads",
        "send_messages_in_threads",
        "embed_links",
        "read_message_history",
        "add_reactions",
    }


async def test_the_application_id_for_the_invite_is_looked_up_with_the_token(fake, monkeypatch):
    from adapters.discord import application_id

    assert await application_id(settings_for(fake, monkeypatch)) == int(fake.app_id)
    assert fake.requests(r"^/oauth2/applications/@me$", "GET")
    wrong = settings_for(fake, monkeypatch, DISCORD_BOT_TOKEN="wrong-token")
    with pytest.raises(ConfigurationError, match="rejected DISCORD_BOT_TOKEN"):
        await application_id(wrong)


async def test_run_discord_shares_the_loop_and_stops_when_cancelled(fake, monkeypatch):
    import asyncio

    from adapters.discord import run_discord
    from bot.app.compose import build_service

    settings = settings_for(fake, monkeypatch)
    store = Store(settings.db_path)
    service = build_service(settings, store)
    started = asyncio.Event()
    task = asyncio.create_task(
        run_discord(settings, service, store, started=lambda bot: started.set())
    )
    await asyncio.wait_for(started.wait(), 10)
    interaction = fake.slash("prsummary", {"pr": "nonsense"}, guild_scoped=False)
    await fake.wait_for(lambda: interaction.finished)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await fake.wait_for(lambda: not fake._sockets, what="the gateway connection to close")
    store.close()
