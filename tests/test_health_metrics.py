"""`prdigest run` serves /healthz and /metrics: on PRDIGEST_METRICS_PORT (127.0.0.1 unless
PRDIGEST_METRICS_HOST says otherwise, nothing when unset) and beside /slack/events on the
--http port.

/healthz answers 200 only while the event loop is responsive, the database takes a write and
every configured platform is connected; else 503, naming what failed. /metrics is Prometheus
text with the contract's names, and its counts are the fakes' own: one LLM call per HTTP
request the fake OpenAI saw (retries included), one GitHub request per request the fake
GitHub saw, one digest per thread posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.app import health, runner
from bot.app.bots import App, build_app
from bot.app.doctor.runner import START_CHECKS
from bot.chat.acks import timed
from bot.core import metrics
from bot.core.settings import Settings
from tests.conftest import REPO, make_pr
from tests.fakes.slack import FakeSlack

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
NAMES = (
    "prdigest_llm_calls_total",
    "prdigest_llm_tokens_total",
    "prdigest_github_requests_total",
    "prdigest_digests_posted_total",
    "prdigest_summaries_unavailable",
    "prdigest_command_ack_seconds_bucket",
    "prdigest_command_ack_seconds_count",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def slack_env(env, slack: FakeSlack, monkeypatch) -> FakeSlack:
    monkeypatch.setenv("SLACK_BOT_TOKEN", slack.bot_token)
    monkeypatch.setenv("SLACK_APP_TOKEN", slack.app_token)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", slack.signing_secret)
    monkeypatch.setenv("SLACK_API_URL", slack.api_url)
    monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
    return slack


@dataclass
class Running:
    app: App
    url: str | None  # where /healthz and /metrics listen on PRDIGEST_METRICS_PORT


@contextlib.asynccontextmanager
async def running(monkeypatch, *, http: bool = False, port: int = 3000) -> AsyncIterator[Running]:
    """`prdigest run` in this process, as the CLI runs it, once its platform is connected."""
    apps: list[App] = []
    monkeypatch.setattr(runner, "build_app", lambda s: apps.append(build_app(s)) or apps[-1])
    connected: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    listening: list[str] = []
    task = asyncio.create_task(
        runner.run_bot(
            Settings.from_env(dotenv=False), http=http, port=port,
            on_started=lambda p: connected.done() or connected.set_result(p),
            on_listening=listening.append,
        )
    )  # fmt: skip
    try:
        done, _ = await asyncio.wait({task, connected}, timeout=20, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()
        assert connected.done(), "the platform never connected"
        # The start-up checks (prdigest doctor's) make requests of their own: done before any
        # test counts requests.
        await asyncio.gather(*(t for t in asyncio.all_tasks() if t.get_name() == START_CHECKS))
        yield Running(apps[0], listening[0] if listening else None)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def get(url: str) -> tuple[int, str, dict]:
    async with aiohttp.ClientSession() as http, http.get(url) as resp:
        text = await resp.text()
        body = await resp.json() if resp.content_type == "application/json" else {}
        return resp.status, text, body


def scrape(text: str) -> dict[tuple[str, frozenset], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def summed(samples: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float:
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def listening_on(port: int) -> set[str]:
    """The local addresses with a socket listening on `port` (Linux's /proc/net/tcp)."""
    found = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


# -- where it listens ---------------------------------------------------------------------------


async def test_nothing_listens_when_the_port_is_unset(slack_env, monkeypatch):
    slack_env.socket_mode()
    async with running(monkeypatch) as run:
        assert run.url is None
        assert not listening_on(9464)
        with pytest.raises(aiohttp.ClientConnectionError):
            await get("http://127.0.0.1:9464/healthz")


async def test_the_port_is_bound_to_localhost_unless_the_host_says_otherwise(
    slack_env, monkeypatch
):
    slack_env.socket_mode()
    port = free_port()
    monkeypatch.setenv("PRDIGEST_METRICS_PORT", str(port))
    async with running(monkeypatch) as run:
        assert run.url == f"http://127.0.0.1:{port}"
        if Path("/proc/net/tcp").exists():
            assert listening_on(port) == {"0100007F"}  # 127.0.0.1 only
        status, _, _ = await get(f"{run.url}/healthz")
        assert status == 200
    assert not listening_on(port)  # and closed at the stop


# -- /healthz ------------------------------------------------------------------------------------


@pytest.fixture
def metrics_port(slack_env, monkeypatch) -> int:
    port = free_port()
    monkeypatch.setenv("PRDIGEST_METRICS_PORT", str(port))
    return port


async def test_healthz_is_200_with_each_check_when_all_hold(slack_env, metrics_port, monkeypatch):
    slack_env.socket_mode()
    async with running(monkeypatch) as run:
        status, _, body = await get(f"{run.url}/healthz")
    assert status == 200
    assert body == {
        "status": "ok",
        "failed": [],
        "checks": {"event_loop": "responsive", "database": "writable", "slack": "connected"},
    }


async def test_a_read_only_database_is_503_naming_the_database(
    slack_env, metrics_port, monkeypatch
):
    slack_env.socket_mode()
    async with running(monkeypatch) as run:
        run.app.store.db.execute("PRAGMA query_only = ON")  # what a read-only file answers
        status, _, body = await get(f"{run.url}/healthz")
        assert status == 503 and body["failed"] == ["database"]
        assert body["checks"]["database"] == "not writable: the database is read-only"
        run.app.store.db.execute("PRAGMA query_only = OFF")
        assert (await get(f"{run.url}/healthz"))[0] == 200


async def test_a_platform_that_lost_its_connection_is_503_naming_it(
    slack_env, metrics_port, monkeypatch
):
    endpoint = slack_env.socket_mode()
    async with running(monkeypatch) as run:
        await asyncio.to_thread(endpoint.wait_connected)
        assert (await get(f"{run.url}/healthz"))[0] == 200
        await asyncio.to_thread(endpoint.stop)  # Slack's end of the WebSocket goes away
        for _ in range(100):
            status, _, body = await get(f"{run.url}/healthz")
            if status == 503:
                break
            await asyncio.sleep(0.1)
    assert status == 503 and body["failed"] == ["slack"]
    assert body["checks"]["slack"] == "not connected"


async def test_a_blocked_event_loop_is_503_until_it_has_run_freely_again(
    slack_env, metrics_port, monkeypatch
):
    monkeypatch.setattr(health, "LAG_MEMORY", 1.0)
    slack_env.socket_mode()
    async with running(monkeypatch) as run:
        await asyncio.sleep(0.5)
        asyncio.get_running_loop().call_soon(time.sleep, 1.6)  # a blocking call on the loop
        status, _, body = await get(f"{run.url}/healthz")
        assert status == 503 and body["failed"] == ["event_loop"]
        assert body["checks"]["event_loop"].startswith("blocked: a tick came")
        await asyncio.sleep(1.5)
        assert (await get(f"{run.url}/healthz"))[0] == 200


def test_a_platform_not_connected_yet_fails_its_check():
    class Store:
        class aio:  # noqa: N801 - the store's awaited side
            @staticmethod
            async def touch_health(name, at):
                return None

    async def platforms():
        return {"slack": True, "discord": False}

    checks = asyncio.run(health.Health(Store(), platforms).checks())  # type: ignore[arg-type]
    assert [(c.name, c.ok) for c in checks] == [
        ("event_loop", True), ("database", True), ("slack", True), ("discord", False),
    ]  # fmt: skip


# -- /metrics ------------------------------------------------------------------------------------


async def test_metrics_after_a_real_digest_count_what_the_fakes_saw(
    slack_env, metrics_port, monkeypatch, github, llm
):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    endpoint = slack_env.socket_mode()
    async with running(monkeypatch) as run:
        before = scrape((await get(f"{run.url}/metrics"))[1])
        github.clear_requests()
        llm_before = llm.completions_count
        await asyncio.to_thread(endpoint.wait_connected)
        envelope = endpoint.send("slash_commands", slack_env.command_payload("/digest", DAY))
        await asyncio.to_thread(endpoint.wait_ack, envelope)
        await run.app.bots["slack"].drain(30)
        status, text, _ = await get(f"{run.url}/metrics")
        tokens = run.app.store.db.execute(
            "SELECT sum(prompt_tokens), sum(completion_tokens) FROM llm_calls"
        ).fetchone()
    assert status == 200
    after = scrape(text)
    assert {name for name, _ in after} >= set(NAMES)
    assert not any(name.endswith("_created") for name, _ in after)

    def delta(name: str, **labels: str) -> float:
        return summed(after, name, **labels) - summed(before, name, **labels)

    assert len(slack_env.posted(CHANNEL)) == 4  # the parent and three replies
    assert delta("prdigest_llm_calls_total") == llm.completions_count - llm_before > 0
    assert delta("prdigest_llm_calls_total", purpose="summary", outcome="ok") == 3
    assert delta("prdigest_llm_calls_total", purpose="overview", outcome="ok") == len(
        llm.highlights_requests
    )
    assert delta("prdigest_llm_tokens_total", kind="prompt") == tokens[0]
    assert delta("prdigest_llm_tokens_total", kind="completion") == tokens[1]
    assert delta("prdigest_github_requests_total") == len(github.requests) > 0
    assert delta("prdigest_github_requests_total", status="200") > 0
    assert delta("prdigest_digests_posted_total", platform="slack") == 1
    assert delta("prdigest_command_ack_seconds_count", platform="slack", command="digest") == 1
    assert after[("prdigest_summaries_unavailable", frozenset())] == 0


async def test_each_llm_retry_is_one_call_and_a_summary_left_unavailable_is_a_gauge(
    slack_env, metrics_port, monkeypatch, github, llm
):
    github.add_prs(REPO, [make_pr(1, f"{DAY} 11:00:00")])
    # The first request is refused (and retried), the retry and its own retry fail: the PR's
    # reply goes out as "Summary unavailable".
    llm.script([("status", 500), ("status", 500), ("status", 500), ("status", 500)])
    endpoint = slack_env.socket_mode()
    async with running(monkeypatch) as run:
        before = scrape((await get(f"{run.url}/metrics"))[1])
        await asyncio.to_thread(endpoint.wait_connected)
        envelope = endpoint.send("slash_commands", slack_env.command_payload("/digest", DAY))
        await asyncio.to_thread(endpoint.wait_ack, envelope)
        await run.app.bots["slack"].drain(30)
        after = scrape((await get(f"{run.url}/metrics"))[1])
    errors = summed(after, "prdigest_llm_calls_total", outcome="error") - summed(
        before, "prdigest_llm_calls_total", outcome="error"
    )
    assert errors == 4 - llm.script_remaining >= 2  # the client's retry counted too
    assert after[("prdigest_summaries_unavailable", frozenset())] == 1


async def test_http_mode_serves_both_routes_beside_slack_events(slack_env, monkeypatch):
    port = free_port()
    async with running(monkeypatch, http=True, port=port) as run:
        assert run.url is None  # PRDIGEST_METRICS_PORT unset: only the --http port
        status, _, body = await get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200 and body["checks"]["slack"] == "connected"
        status, text, _ = await get(f"http://127.0.0.1:{port}/metrics")
    assert status == 200 and "prdigest_digests_posted_total" in text


async def test_a_commands_ack_is_timed_once_at_its_first_answer():
    class Reply:
        async def accept(self, note=None):
            return None

        async def say(self, text):
            return None

        async def already(self, *args):
            return False

    clock = iter([10.0, 10.4, 99.0]).__next__
    reply = timed(Reply(), "discord", "prsummary", clock=clock)
    before = metrics.sample(
        "prdigest_command_ack_seconds_count", platform="discord", command="prsummary"
    )
    total = metrics.sample(
        "prdigest_command_ack_seconds_sum", platform="discord", command="prsummary"
    )
    assert await reply.already("r", "d", "z", "l") is False  # not an answer: no ack yet
    await reply.accept("Summarizing…")
    await reply.say("done")
    count = metrics.sample(
        "prdigest_command_ack_seconds_count", platform="discord", command="prsummary"
    )
    after = metrics.sample(
        "prdigest_command_ack_seconds_sum", platform="discord", command="prsummary"
    )
    assert count - before == 1 and after - total == pytest.approx(0.4)
