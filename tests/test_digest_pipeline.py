"""How a day's digest is built: calls made, cache hits, failures and concurrency."""

from __future__ import annotations

import json
import re
from datetime import date

from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.compose import build_service
from bot.core.day_window import day_window
from bot.core.settings import Settings
from bot.store.store import Store
from summarizer.prompt import PROMPT_VERSION
from tests.conftest import REPO, make_pr

DAY = "2026-02-23"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def per_pr_calls(github) -> int:
    return github.count(path_regex=r"/pulls/\d+")


def test_two_github_calls_per_pr_plus_search_pages_and_one_repo_lookup(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} {n % 24:02d}:00:00") for n in range(1, 131)])
    result = run("report", "--date", DAY)
    assert result.exit_code == 0
    assert "**Total Merged PRs:** 130" in result.stdout
    assert github.count(path_regex=r"^/search/issues") == 2  # 100 + 30, following Link headers
    assert github.count(path_regex=r"^/repos/vllm-project/vllm$") == 1
    assert per_pr_calls(github) == 2 * 130
    assert llm.completions_count == 130


def test_a_second_run_makes_no_llm_and_no_github_calls(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 6)])
    first = run("report", "--date", DAY, "--output", "a.md")
    calls_after_first = len(github.requests)
    second = run("report", "--date", DAY, "--output", "b.md")
    assert first.exit_code == second.exit_code == 0
    assert llm.completions_count == 5
    assert len(github.requests) == calls_after_first  # the finished day's list is stored too
    assert open("a.md").read() == open("b.md").read()


def test_refresh_regenerates_the_summaries(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    run("report", "--date", DAY)
    result = run("report", "--date", DAY, "--refresh")
    assert result.exit_code == 0
    assert llm.completions_count == 6
    assert per_pr_calls(github) == 6  # merged PRs never change: they are not fetched again


def test_one_failing_pr_does_not_sink_the_digest_and_is_retried_alone(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 5)])

    def responder(request):
        from tests.fakes.openai_api import default_responder

        if "Title: [Core] Change number 3" in request["messages"][1]["content"]:
            return "this is not json at all"
        return default_responder(request)

    llm.responder = responder
    result = run("report", "--date", DAY, "--output", "day.md")
    assert result.exit_code == 1
    assert "1 of 4 PRs could not be summarized: #3" in result.stderr
    text = open("day.md").read()
    assert "**Total Merged PRs:** 4" in text
    assert re.search(r"PR Number:\*\* #3\n(.*\n)*?- \*\*Type:\*\* `UNKNOWN`", text)
    assert "Summary unavailable: the model's answer was invalid twice" in text
    assert llm.completions_count == 3 + 2  # three good PRs, and #3 with its repair attempt

    from tests.fakes.openai_api import default_responder

    llm.responder = default_responder
    again = run("report", "--date", DAY, "--output", "day.md")
    assert again.exit_code == 0
    assert llm.completions_count == 6  # only #3 was asked again
    assert "Summary unavailable" not in open("day.md").read()


def test_server_errors_are_retried_by_the_client(env, github, llm):
    github.add_prs(REPO, [make_pr(1, f"{DAY} 10:00:00")])
    llm.script([("status", 500), ("status", 429, {"Retry-After": "0"})])
    result = run("report", "--date", DAY, "--output", "x.md")
    # PRDIGEST_LLM_RETRIES=1: the 500 is retried once, then the 429 fails the PR visibly.
    assert result.exit_code == 1
    assert "429" in result.stderr
    assert run("report", "--date", DAY, "--output", "x.md").exit_code == 0


def test_servers_without_json_schema_get_json_object_then_validation(env, github, llm):
    llm.reject_json_schema = True
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    result = run("report", "--date", DAY)
    assert result.exit_code == 0
    formats = [r.get("response_format", {}).get("type") for r in llm.chat_requests]
    # Refused once per request already in flight, then remembered: every PR got json_object.
    assert 1 <= formats.count("json_schema") <= 3
    assert formats.count("json_object") == 3 and None not in formats


def test_github_502_on_one_pr_keeps_the_rest(env, github, llm):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    github.inject(r"/pulls/2$", 502, times=50)
    result = run("report", "--date", DAY, "--output", "x.md")
    assert result.exit_code == 1
    assert "#2 (GitHub answered 502" in result.stderr
    text = open("x.md").read()
    assert "**Total Merged PRs:** 3" in text and "PR #2 (details could not be fetched)" in text


async def test_summaries_start_while_prs_are_still_being_fetched(env, github, llm):
    github.latency = 0.05
    llm.latency = 0.3
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 9)])
    service = build_service(Settings.from_env(dotenv=False), Store(":memory:"))
    digest = await service.digest(REPO, day_window(date(2026, 2, 23), "America/Los_Angeles"))
    await service.aclose()
    assert len(digest.entries) == 8
    first_llm = llm.calls(method="POST")[0].received_at
    last_pr_files = [r for r in github.requests if r.path.endswith("/files")][-1].received_at
    assert first_llm < last_pr_files


def test_every_prompt_and_response_is_logged(env, github, llm):
    github.add_prs(REPO, [make_pr(1, f"{DAY} 10:00:00")])
    run("report", "--date", DAY)
    store = Store(Settings.from_env(dotenv=False).db_path)
    calls = list(store.db["llm_calls"].rows)
    assert len(calls) == 1
    call = calls[0]
    assert json.loads(call["messages"])[1]["content"].count("Title: [Core] Change number 1") == 1
    assert call["prompt_tokens"] > 0 and call["response"] and call["model"] == "gpt-4.1-mini"
    summary = next(iter(store.db["summaries"].rows))
    assert summary["files_covered"] == summary["files_total"] == 2
    assert summary["prompt_version"] == PROMPT_VERSION
    assert summary["headline"]  # written in the same call as the four sections
