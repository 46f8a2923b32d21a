"""`run_slack` as `prdigest run` starts it: the real HTTP listener and real Socket Mode."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import replace

import aiohttp
import pytest

from adapters.slack import run_slack
from adapters.slack.app import SlackBot
from adapters.slack.transport import api_base_url
from bot.app.compose import build_service
from bot.core.errors import ConfigurationError
from bot.core.settings import Settings
from bot.store.store import Store
from tests.conftest import REPO, make_pr
from tests.fakes.slack import FakeSlack

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"


@pytest.fixture
def settings(env: Settings, slack: FakeSlack) -> Settings:
    return replace(
        env,
        slack_bot_token=slack.bot_token,
        slack_app_token=slack.app_token,
        slack_signing_secret=slack.signing_secret,
        # No trailing slash, as people type it: the adapter adds the one slack_sdk needs.
        slack_api_url=slack.url + "/api",
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.asynccontextmanager
async def running(settings: Settings, **kwargs) -> AsyncIterator[SlackBot]:
    """run_slack in a task, as the CLI runs it; yields the bot once it is connected."""
    store = Store(settings.db_path)
    service = build_service(settings, store)
    ready: asyncio.Future[SlackBot] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        run_slack(settings, service, store, pace=0, started=ready.set_result, **kwargs)
    )
    try:
        done, _ = await asyncio.wait({task, ready}, timeout=10, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()  # raises what stopped it
        yield ready.result()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await service.aclose()
        store.close()


def test_the_api_url_gets_the_trailing_slash_slack_sdk_needs():
    assert api_base_url(None) == "https://slack.com/api/"
    assert api_base_url("http://gw.test/slack/api") == "http://gw.test/slack/api/"
    assert api_base_url("http://gw.test/api/") == "http://gw.test/api/"


async def test_http_mode_verifies_signatures_and_serves_commands(settings, slack, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2)])
    port = free_port()
    url = f"http://127.0.0.1:{port}/slack/events"
    async with running(settings, http=True, port=port, host="127.0.0.1") as bot:
        async with aiohttp.ClientSession() as http:
            body = slack.form_body(slack.command_payload("/digest", DAY))
            form = {"content-type": "application/x-www-form-urlencoded"}
            async with http.post(url, data=body, headers={**form, **slack.sign(body)}) as resp:
                assert resp.status == 200
                ack = await resp.text()  # a text-only ack is a plain body: an ephemeral note
            bad = {**form, **slack.sign(body), "x-slack-signature": "v0=" + "0" * 64}
            async with http.post(url, data=body, headers=bad) as resp:
                assert resp.status == 401
            stale = {**form, **slack.sign(body, timestamp=1_600_000_000)}
            async with http.post(url, data=body, headers=stale) as resp:
                assert resp.status == 401
            challenge = json.dumps(
                {"type": "url_verification", "challenge": "c0ffee", "token": "t"}
            )
            headers = {"content-type": "application/json", **slack.sign(challenge)}
            async with http.post(url, data=challenge, headers=headers) as resp:
                assert resp.status == 200 and "c0ffee" in await resp.text()
        await bot.drain(20)
    assert ack.startswith(f"Preparing the digest of {REPO} for {DAY}")
    assert len(slack.posted(CHANNEL)) == 3  # the forged and stale copies did nothing


async def test_socket_mode_connects_through_the_api_url_and_acks_envelopes(
    settings, slack, github, llm
):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in (1, 2)])
    endpoint = slack.socket_mode()
    async with running(settings, http=False) as bot:
        await asyncio.to_thread(endpoint.wait_connected)
        (opened,) = slack.api_calls("apps.connections.open")
        assert opened.header("authorization") == f"Bearer {slack.app_token}"

        envelope = endpoint.send("slash_commands", slack.command_payload("/digest", DAY))
        ack = await asyncio.to_thread(endpoint.wait_ack, envelope)
        assert ack["payload"]["text"].startswith(f"Preparing the digest of {REPO}")
        await bot.drain(20)
        parent, first, second = slack.posted(CHANNEL)
        assert first.thread_ts == second.thread_ts == parent.ts

        reaction = slack.reaction_event("reaction_added", CHANNEL, first.ts, user="U0DAVE")
        envelope = endpoint.send("events_api", reaction, accepts_response=False)
        await asyncio.to_thread(endpoint.wait_ack, envelope)
        await bot.drain(20)
        summary_id = first.metadata["event_payload"]["summary_id"]
        assert [f.user for f in bot.store.active_flags(summary_id)] == ["U0DAVE"]
        assert slack.posted(CHANNEL)[-1].thread_ts == parent.ts  # the thanks
    assert endpoint.connections == 1


@pytest.mark.parametrize(
    ("http", "change", "message"),
    [
        (False, {"slack_bot_token": None}, "SLACK_BOT_TOKEN is not set"),
        (False, {"slack_app_token": None}, "Socket Mode needs SLACK_APP_TOKEN"),
        (True, {"slack_signing_secret": None}, "HTTP mode needs SLACK_SIGNING_SECRET"),
        (False, {"slack_bot_token": "xoxb-wrong"}, "Slack refused SLACK_BOT_TOKEN (invalid_auth)"),
        (False, {"slack_app_token": "xapp-wrong"}, "Slack refused SLACK_APP_TOKEN (invalid_auth)"),
    ],
)
async def test_missing_or_refused_credentials_are_one_line_errors(
    settings, slack, http, change, message
):
    slack.socket_mode()
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        async with running(replace(settings, **change), http=http, port=free_port()):
            pass
