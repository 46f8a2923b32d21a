"""GitHub or the LLM out of reach: one line that names the service, the host and the setting,
at once when waiting cannot help, after a bounded wait when it can; never a library's warning.

Unreachable places are local: a port that was bound and closed again (connection refused), a
name under `.invalid` (which never resolves), `https://` to a plain HTTP server (TLS fails).
"""

from __future__ import annotations

import gc
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.llm_settings import LLMSettings
from bot.digest.github_client import github_retry
from tests.conftest import REPO, make_pr

DAY = "2026-02-23"


def run(*args: str):
    collect_strays()
    return CliRunner().invoke(cli, list(args))


def collect_strays() -> None:
    """Collect what earlier tests left unclosed first: an openai client that is collected
    while a loop runs closes itself on that loop, and asyncio logs the failure to the stderr
    of whichever command is running then."""
    gc.collect()


def dead_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_line(result) -> str:
    """The one line a failure prints on stderr, after checking there is no traceback."""
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def dropping_server() -> Iterator[int]:
    """A server that accepts every connection and resets it without an answer: a failure
    worth retrying (urllib3 warns on each retry), that never heals."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.recv(65536)
            # Linger 0: the close is a reset, whatever the client has sent by then.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


# -- GitHub -----------------------------------------------------------------------------------


def test_a_dead_github_port_fails_at_once_naming_host_and_setting(env, monkeypatch):
    port = dead_port()
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("PRDIGEST_GITHUB_RETRIES", "8")  # a retry would show in the time
    monkeypatch.setenv("PRDIGEST_GITHUB_BACKOFF", "1")
    started = time.monotonic()
    result = run("report", "--date", DAY, "--output", "report.md")
    assert time.monotonic() - started < 2
    assert result.exit_code == 2
    assert one_line(result) == (
        f"Error: Could not reach GitHub at 127.0.0.1:{port} (GITHUB_API_URL): connection refused"
    )


def test_an_unresolvable_github_host_fails_at_once(env, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.invalid/api/v3")
    monkeypatch.setenv("PRDIGEST_GITHUB_BACKOFF", "1")
    started = time.monotonic()
    result = run("report", "--date", DAY)
    assert time.monotonic() - started < 2
    assert one_line(result) == (
        "Error: Could not reach GitHub at ghe.invalid (GITHUB_API_URL): "
        "the host name does not resolve"
    )


def test_https_to_a_plain_http_server_is_a_tls_failure_not_retried(env, github, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", f"https://127.0.0.1:{github.port}")
    monkeypatch.setenv("PRDIGEST_GITHUB_BACKOFF", "1")
    result = run("report", "--date", DAY)
    line = one_line(result)
    assert line.startswith(
        f"Error: Could not reach GitHub at 127.0.0.1:{github.port} (GITHUB_API_URL): "
        "TLS handshake failed"
    )
    assert len(github.requests) == 0  # nothing reached the server as HTTP


def test_github_answering_502_then_200_is_retried_and_the_day_completes(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 3)])
    fault = github.inject(r"^/repos/vllm-project/vllm$", 502, times=1)
    result = run("report", "--date", DAY, "--output", "day.md")
    assert result.exit_code == 0, result.stderr
    assert fault.fired == 1 and "**Total Merged PRs:** 2" in Path("day.md").read_text()
    assert "Retrying" not in result.stderr


def test_github_always_502_gives_up_after_a_bounded_wait(env, github, monkeypatch):
    monkeypatch.setenv("PRDIGEST_GITHUB_RETRIES", "3")
    monkeypatch.setenv("PRDIGEST_GITHUB_BACKOFF", "0.1")  # waits 0, 0.2, 0.4 s
    github.inject(r"^/repos/", 502, times=100)
    started = time.monotonic()
    result = run("report", "--date", DAY)
    elapsed = time.monotonic() - started
    assert one_line(result) == (
        "Error: GitHub answered 502 while reading repository vllm-project/vllm (after retries)"
    )
    assert github.count(path_regex=r"^/repos/") == 4  # the first try and 3 retries
    assert 0.6 <= elapsed < 3


def test_the_default_retries_wait_at_most_15_seconds_in_all():
    from urllib3.response import HTTPResponse

    retry, waited = github_retry(5, 0.5), 0.0
    for _ in range(5):
        retry = retry.increment("GET", "/repos/o/r", HTTPResponse(status=502))
        waited += retry.get_backoff_time()
    assert waited == 0 + 1 + 2 + 4 + 8


def test_library_retry_warnings_stay_off_the_terminal_and_show_with_v(
    env, dropping_server, monkeypatch
):
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{dropping_server}")
    expected = (
        f"Error: Could not reach GitHub at 127.0.0.1:{dropping_server} (GITHUB_API_URL): "
        "connection reset"
    )
    quiet = run("report", "--date", DAY)
    assert one_line(quiet) == expected  # retried twice (a read error may heal), then this line
    verbose = run("-v", "report", "--date", DAY)
    assert "WARNING urllib3.connectionpool: Retrying" in verbose.stderr
    assert verbose.stderr.rstrip().splitlines()[-1] == expected


def test_the_quick_start_with_github_unreachable_ends_within_5_seconds(tmp_path):
    """The README's command as a user runs it, in a fresh process: one line, no warning."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRDIGEST_", "GITHUB_"))}
    port = dead_port()
    env.update(
        PRDIGEST_DB=str(tmp_path / "p.db"),
        GITHUB_API_URL=f"http://127.0.0.1:{port}",
        OPENAI_BASE_URL=f"http://127.0.0.1:{dead_port()}/v1",  # never reached: GitHub is first
    )
    env.pop("OPENAI_API_KEY", None)
    command = "from bot.app.cli import main; main()"
    args = ["report", "--repo", "vllm-project/vllm", "--date", "yesterday", "--output", "r.md"]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", command, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert time.monotonic() - started < 5
    assert done.returncode == 2
    assert done.stderr == (
        f"Error: Could not reach GitHub at 127.0.0.1:{port} (GITHUB_API_URL): connection refused\n"
    )


# -- the LLM ----------------------------------------------------------------------------------


def failed_line(result) -> str:
    """The report's line naming the PRs that could not be summarized."""
    assert result.exit_code == 1, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "could not be summarized" in line]
    return line


def test_a_dead_llm_port_fails_each_pr_at_once_naming_host_and_setting(env, github, monkeypatch):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 3)])
    port = dead_port()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "5")  # a retry would show in the time
    started = time.monotonic()
    result = run("report", "--date", DAY, "--output", "day.md")
    assert time.monotonic() - started < 3
    reason = f"could not reach the LLM at 127.0.0.1:{port} (OPENAI_BASE_URL): connection refused"
    assert f"#2 ({reason}), #1 ({reason})" in failed_line(result) or (
        f"#1 ({reason}), #2 ({reason})" in failed_line(result)
    )
    assert "Traceback" not in result.stderr


def test_an_unresolvable_llm_host_is_named(env, github, monkeypatch):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://llm.invalid/v1")
    result = run("report", "--date", DAY)
    assert (
        "#1 (could not reach the LLM at llm.invalid (OPENAI_BASE_URL): "
        "the host name does not resolve)" in failed_line(result)
    )


def test_llm_answering_502_then_200_is_retried(env, github, llm):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    llm.script([("status", 502)])
    result = run("report", "--date", DAY, "--output", "day.md")
    assert result.exit_code == 0, result.stderr
    assert llm.completions_count == 2 and "Summary unavailable" not in Path("day.md").read_text()


def test_llm_always_502_gives_up_after_a_bounded_wait(env, github, llm, monkeypatch):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "2")  # waits of about 0.5 s and 1 s
    llm.fault_every(1, [("status", 502)])
    started = time.monotonic()
    result = run("report", "--date", DAY)
    elapsed = time.monotonic() - started
    assert "#1 (the LLM endpoint answered 502" in failed_line(result)
    assert llm.completions_count == 3 and elapsed < 5


def test_an_llm_timeout_names_the_host_and_the_timeout_setting(env, github, llm, monkeypatch):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    monkeypatch.setenv("PRDIGEST_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("PRDIGEST_LLM_RETRIES", "0")
    llm.script([("hang", 2.0)])
    result = run("report", "--date", DAY)
    assert (
        f"#1 (the LLM at 127.0.0.1:{llm.port} (OPENAI_BASE_URL) timed out after 0.3 s "
        "(PRDIGEST_LLM_TIMEOUT))" in failed_line(result)
    )


def test_openai_itself_is_named_when_no_base_url_is_set():
    assert LLMSettings(openai_api_key="sk-x").endpoint.place == (
        "OpenAI at api.openai.com (OPENAI_BASE_URL)"
    )
    assert LLMSettings(openai_base_url="http://gpu-box:8000/v1").endpoint.place == (
        "the LLM at gpu-box:8000 (OPENAI_BASE_URL)"
    )
