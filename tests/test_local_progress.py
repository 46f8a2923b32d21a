"""While the built-in model works, the CLI says on stderr which PR it is reading and for how
long, against this machine's measured speed; stdout keeps only the report.

The built-in model is stood in for by the fake OpenAI server (llama.cpp's server speaks the
same API), and time by a clock that moves only when the progress line waits: each PR's answer
is held back until its elapsed line has been shown twice, so every line is exact.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from bot.app import progress
from bot.app.cli import cli
from bot.core.models import Usage
from bot.store.store import Store
from summarizer import local_server, tokens
from tests.conftest import REPO, make_pr
from tests.fakes.openai_api import (
    FakeOpenAI,
    default_highlights,
    default_responder,
    find_title,
)
from tests.fakes.slack import FakeSlack

MODEL = "tiny-model"  # the stem of the GGUF file PRDIGEST_LOCAL_MODEL names
DAY = "2026-02-23"
TICKS = 2  # elapsed lines shown while each PR is read


class HeldClock:
    """Time that advances only by the progress line's waits. A PR's first request is answered
    once its line has waited TICKS times; its next wait then never ends (the PR is done)."""

    def __init__(self) -> None:
        self.time = 1000.0
        self.waits: Counter[asyncio.Task[Any] | None] = Counter()
        self.released = threading.Semaphore(0)
        self.answered: set[str | None] = set()

    def now(self) -> float:
        return self.time

    async def pause(self, seconds: float) -> None:
        task = asyncio.current_task()
        self.waits[task] += 1
        if self.waits[task] > TICKS:
            self.released.release()
            await asyncio.Event().wait()  # cancelled when the PR's summary is in
        self.time += seconds

    def responder(self, request: dict[str, Any]) -> str:
        self._hold(find_title(request))
        return default_responder(request)

    def highlights(self, request: dict[str, Any]) -> str:
        self._hold("the day's highlights")
        return default_highlights(request)

    def _hold(self, key: str | None) -> None:
        if key not in self.answered:  # a PR's repair calls, if any, are not held
            self.answered.add(key)
            assert self.released.acquire(timeout=30), "the progress line never ticked"


@pytest.fixture
def clock(env, llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> HeldClock:
    """No OPENAI_API_KEY or OPENAI_BASE_URL, a local model file, and its server faked."""
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    model = tmp_path / f"{MODEL}.gguf"
    model.write_bytes(b"GGUF" + bytes(28))
    monkeypatch.setenv("PRDIGEST_LOCAL_MODEL", str(model))
    server = SimpleNamespace(
        base_url=llm.url + "/v1",
        api_key="local-key",
        model_name=MODEL,
        context_size=8192,
        count_tokens=lambda text: (len(text) + 2) // 3,
    )
    monkeypatch.setattr(local_server, "get_local_server", lambda path=None: server)
    monkeypatch.setattr(tokens, "_counter", tokens._counter)  # the fake tokenizer is undone
    held = HeldClock()
    llm.responder = held.responder
    llm.highlights_responder = held.highlights
    monkeypatch.setattr(progress, "now", held.now)
    monkeypatch.setattr(progress, "pause", held.pause)
    monkeypatch.setattr(progress, "is_terminal", lambda stream: False)
    return held


def past_calls(*seconds: float, model: str = MODEL, purpose: str = "summary", error=None):
    store = Store(Path("prdigest.db"))  # PRDIGEST_DB, in the test's own directory
    for s in seconds:
        store.log_llm_call(
            repo=REPO,
            number=1,
            model=model,
            prompt_version="v",
            purpose=purpose,
            messages=[],
            response=None if error else "{}",
            error=error,
            usage=Usage(),
            duration_ms=int(s * 1000),
        )
    store.close()


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def progress_lines(stderr: str) -> list[str]:
    """stderr without the log's lines (they carry a time stamp and a level)."""
    return [line for line in stderr.splitlines() if " WARNING " not in line]


def warning(stderr: str) -> str:
    (line,) = [line for line in stderr.splitlines() if "built-in local model" in line]
    return line


def two_prs(github) -> None:
    github.add_prs(
        REPO,
        [
            make_pr(35156, f"{DAY} 10:00:00", title="[Bugfix] Fix the scheduler's preemption"),
            make_pr(35101, f"{DAY} 09:00:00", title="[Docs] Explain the KV cache"),
        ],
    )


def test_each_pr_is_named_and_timed_against_this_machines_median(clock, github):
    # Three summaries of 12, 20 and 40 s measured here; the hosted model's, a repair's and
    # a failed call's times are not this machine's speed for a summary.
    past_calls(12, 20, 40)
    past_calls(1, model="gpt-4.1-mini")
    past_calls(90, purpose="repair")
    past_calls(300, error="timed out")
    two_prs(github)

    result = run("report", "--date", DAY)

    assert result.exit_code == 0, result.stderr
    assert "(about 20 s a PR on this machine)" in warning(result.stderr)
    assert progress_lines(result.stderr) == [
        "Summarizing 1 of 2: #35156 [Bugfix] Fix the scheduler's preemption",
        "#35156: 10 s of about 20 s",
        "#35156: 20 s of about 20 s",
        "Summarizing 2 of 2: #35101 [Docs] Explain the KV cache",
        "#35101: 10 s of about 20 s",
        "#35101: 20 s of about 20 s",
    ]
    assert "Summarizing" not in result.stdout and "#35156:" not in result.stdout


def test_stdout_is_the_same_report_whether_or_not_the_model_worked(clock, github):
    two_prs(github)
    first = run("report", "--date", DAY)
    again = run("report", "--date", DAY)  # every summary stored: the model does not start

    assert first.exit_code == again.exit_code == 0
    assert first.stdout == again.stdout
    assert first.stdout.startswith("# ") and "## " in first.stdout
    assert again.stderr == ""


def test_json_on_stdout_stays_json_while_progress_goes_to_stderr(clock, github):
    two_prs(github)
    result = run("report", "--date", DAY, "--json")

    assert result.exit_code == 0
    assert [e["number"] for e in json.loads(result.stdout)["pull_requests"]] == [35156, 35101]
    assert "Summarizing 2 of 2: #35101 [Docs] Explain the KV cache" in result.stderr


def test_the_first_summary_measures_this_machines_speed(clock, github):
    two_prs(github)

    result = run("report", "--date", DAY)

    assert result.exit_code == 0
    assert "(the first summary measures this machine's speed)" in warning(result.stderr)
    assert progress_lines(result.stderr) == [
        "Summarizing 1 of 2: #35156 [Bugfix] Fix the scheduler's preemption",
        "#35156: 10 s (the first summary measures this machine's speed)",
        "#35156: 20 s (the first summary measures this machine's speed)",
        "#35156 took 20 s: about 20 s a PR on this machine.",
        "Summarizing 2 of 2: #35101 [Docs] Explain the KV cache",
        "#35101: 10 s of about 20 s",
        "#35101: 20 s of about 20 s",
    ]


def test_a_pr_longer_than_usual_says_so(clock, github):
    past_calls(15)
    github.add_pr(REPO, make_pr(35156, f"{DAY} 10:00:00", title="[Core] A long one"))

    result = run("report", "--date", DAY)

    assert progress_lines(result.stderr)[1:] == [
        "#35156: 10 s of about 15 s",
        "#35156: 20 s (usually about 15 s)",
    ]


def test_prdigest_summary_names_the_pr_it_reads(clock, github):
    past_calls(30)
    github.add_pr(
        REPO, make_pr(35156, f"{DAY} 10:00:00", title="[Bugfix]\tFix\nthe\x1b[2J scheduler")
    )

    result = run("summary", "35156")

    assert result.exit_code == 0, result.stderr
    assert progress_lines(result.stderr) == [
        "Summarizing #35156 [Bugfix] Fix the scheduler",
        "#35156: 10 s of about 30 s",
        "#35156: 20 s of about 30 s",
    ]
    assert result.stdout.startswith("## ") and "Summarizing" not in result.stdout


def test_on_a_terminal_the_elapsed_line_is_rewritten_in_place(clock, github, monkeypatch):
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    past_calls(20)
    github.add_pr(REPO, make_pr(35156, f"{DAY} 10:00:00", title="[Core] One"))

    result = run("report", "--date", DAY)

    assert result.exit_code == 0
    # The start-up warning comes from another thread: it may land between two updates.
    shown = re.sub(r"\d{4}-\d\d-\d\d [\d:,]+ WARNING [^\n]*\n", "", result.stderr)
    assert shown == (
        "Summarizing 1 of 1: #35156 [Core] One\n"
        "\r#35156: 1 s of about 20 s\x1b[K"
        "\r#35156: 2 s of about 20 s\x1b[K"
        "\r\x1b[K"
    )


def test_a_hosted_model_shows_no_local_progress(env, github):
    two_prs(github)

    result = run("report", "--date", DAY)

    assert result.exit_code == 0
    assert result.stderr == ""


def test_prdigest_post_shows_each_pr_before_the_posted_line(clock, github, monkeypatch):
    past_calls(20)
    two_prs(github)
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
        result = run("post", "--date", DAY, "--to", "slack:C0123456")

    assert result.exit_code == 0, result.stderr
    said = progress_lines(result.stderr)
    # `post` reads the day without counting it first: each PR is named, not numbered.
    assert said[:3] == [
        "Summarizing #35156 [Bugfix] Fix the scheduler's preemption",
        "#35156: 10 s of about 20 s",
        "#35156: 20 s of about 20 s",
    ]
    assert said[3] == "Summarizing #35101 [Docs] Explain the KV cache"
    assert said[-1].startswith("Posted: ")


def test_the_days_highlights_call_is_shown_too(clock, github):
    past_calls(20)
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 7)])
    assert run("report", "--date", DAY).exit_code == 0  # the summaries, stored

    result = run("report", "--date", DAY, "--overview")

    assert result.exit_code == 0, result.stderr
    assert progress_lines(result.stderr) == [
        "Choosing the day's highlights",
        "highlights: 10 s",
        "highlights: 20 s",
    ]
    assert "Choosing" not in result.stdout
