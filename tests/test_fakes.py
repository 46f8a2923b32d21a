"""Self-tests for the protocol fakes, driven through the real client libraries."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import openai
import pytest
from github import Auth, Github, GithubException, RateLimitExceededException, UnknownObjectException

from tests.fakes import FakeFile, FakeGitHub, FakeHTTPServer, FakeOpenAI, FakePR, Response

REPO = "acme/widgets"
# 2026-02-23 in America/Los_Angeles (UTC-8) is [08:00Z on the 23rd, 08:00Z on the 24th).
DAY_START = datetime(2026, 2, 23, 8, 0, tzinfo=UTC)
DAY_QUERY = "merged:2026-02-23T00:00:00-08:00..2026-02-23T23:59:59-08:00"


def make_github(srv: FakeGitHub, suffix: str = "") -> Github:
    return Github(
        base_url=srv.url + suffix,
        auth=Auth.Token("t"),
        per_page=100,
        seconds_between_requests=None,
        seconds_between_writes=None,
        retry=None,
    )


@pytest.fixture
def gh_srv() -> Iterator[FakeGitHub]:
    with FakeGitHub() as srv:
        srv.add_repo(REPO, default_branch="main")
        yield srv


# -- generic server ------------------------------------------------------------------------


def test_base_server_keep_alive_recording_and_faults() -> None:
    srv = FakeHTTPServer()
    srv.route(
        "POST", r"/echo/(?P<x>\w+)", lambda req, m: Response(200, {"x": m["x"], "got": req.json})
    )
    with srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        srv.inject(r"^/echo/", 502, every=3)
        statuses = []
        for i in range(6):  # all on one kept-alive connection
            conn.request(
                "POST", f"/echo/a{i}?k=v", body=json.dumps({"i": i}), headers={"X-Test": "1"}
            )
            resp = conn.getresponse()
            payload = resp.read()
            assert int(resp.headers["Content-Length"]) == len(payload)
            statuses.append(resp.status)
        conn.request("GET", "/nope")
        assert conn.getresponse().status == 404
        conn.close()

    assert statuses == [200, 200, 502, 200, 200, 502]
    calls = srv.calls(r"^/echo/", method="POST")
    assert len(calls) == 6 and srv.count() == 7
    assert calls[0].json == {"i": 0} and calls[0].query == {"k": "v"}
    assert calls[0].header("x-test") == "1" and calls[2].fault and calls[2].status == 502


# -- GitHub --------------------------------------------------------------------------------


def test_github_repo_and_404(gh_srv: FakeGitHub) -> None:
    gh = make_github(gh_srv)
    repo = gh.get_repo(REPO)
    assert (repo.full_name, repo.default_branch, repo.private) == (REPO, "main", False)
    assert repo.html_url == f"https://github.com/{REPO}"
    with pytest.raises(UnknownObjectException):
        gh.get_repo("acme/missing")
    # GitHub Enterprise form: same data under /api/v3, and URLs keep the prefix.
    ghe_repo = make_github(gh_srv, "/api/v3").get_repo(REPO)
    assert ghe_repo.url == f"{gh_srv.url}/api/v3/repos/{REPO}"
    assert gh_srv.count(r"^/api/v3/repos/") == 1


def test_github_search_paginates_and_filters(gh_srv: FakeGitHub) -> None:
    for n in range(1, 251):  # 250 PRs merged during the day, newest = highest number
        merged = DAY_START + timedelta(seconds=n * 300)
        gh_srv.add_pr(
            REPO, FakePR(n, f"PR {n}", merged_at=merged, created_at=merged - timedelta(hours=1))
        )
    gh_srv.add_pr(REPO, FakePR(300, "day before", merged_at=DAY_START - timedelta(seconds=1)))
    gh_srv.add_pr(REPO, FakePR(301, "next day", merged_at=DAY_START + timedelta(days=1)))
    gh_srv.add_pr(
        REPO, FakePR(302, "boundary", merged_at=DAY_START + timedelta(days=1, seconds=-1))
    )
    gh_srv.add_pr(
        REPO, FakePR(303, "other base", merged_at=DAY_START + timedelta(hours=1), base_ref="dev")
    )
    gh_srv.add_pr(REPO, FakePR(304, "still open", state="open"))
    gh_srv.add_issue(REPO, 305, "an issue")

    gh = make_github(gh_srv)
    results = gh.search_issues(f"repo:{REPO} is:pr is:merged base:main {DAY_QUERY}")
    items = list(results)

    assert results.totalCount == 251  # 250 + the inclusive end-of-day boundary PR
    assert [i.number for i in items[:2]] == [302, 250]  # newest-created first
    assert len({i.number for i in items}) == 251
    assert gh_srv.count(r"/search/issues") == 3
    q = gh_srv.search_queries[0]
    assert (
        q.repos == [REPO] and q.is_ == {"pr", "merged"} and q.base == "main" and q.per_page == 100
    )
    assert q.merged is not None and q.merged.start == DAY_START
    assert [sq.page for sq in gh_srv.search_queries] == [1, 2, 3]
    assert items[0].pull_request is not None and items[0].pull_request.merged_at is not None
    assert items[0].as_pull_request().title == "boundary"

    with pytest.raises(GithubException) as exc:
        list(gh.search_issues("repo:acme/missing is:pr"))
    assert exc.value.status == 422


def test_github_pull_files_and_issue(gh_srv: FakeGitHub) -> None:
    files = [
        FakeFile(f"src/f{i}.py", additions=1, deletions=0, patch="@@ -0,0 +1 @@\n+x")
        for i in range(249)
    ]
    files.append(FakeFile("logo.png", status="added", additions=0, deletions=0, patch=None))
    files.append(
        FakeFile(
            "new.py", status="renamed", patch="@@ -1 +1 @@\n-a\n+b", previous_filename="old.py"
        )
    )
    pr = FakePR(
        7,
        "Add retries",
        author="alice",
        merged_at=DAY_START,
        merged_by="bob",
        body="Body text",
        labels=["enhancement"],
        files=files,
    )
    gh_srv.add_pr(REPO, pr)
    gh_srv.add_issue(REPO, 8, "Plain issue")

    gh = make_github(gh_srv)
    repo = gh.get_repo(REPO)
    pull = repo.get_pull(7)
    assert (pull.title, pull.body, pull.merged, pull.state) == (
        "Add retries",
        "Body text",
        True,
        "closed",
    )
    assert (
        pull.merged_at == DAY_START and pull.merged_by.login == "bob" and pull.user.login == "alice"
    )
    assert [label.name for label in pull.labels] == ["enhancement"]
    assert pull.head.sha == pr.head_sha and pull.base.ref == "main"
    assert pull.merge_commit_sha == pr.merge_commit_sha
    assert (pull.additions, pull.deletions, pull.changed_files) == (250, 1, 251)
    assert pull.html_url == f"https://github.com/{REPO}/pull/7"

    got = list(pull.get_files())
    assert len(got) == 251 and gh_srv.count(r"/pulls/7/files") == 3
    assert got[249].filename == "logo.png" and got[249].patch is None
    assert got[250].previous_filename == "old.py" and got[250].changes == 2

    with pytest.raises(UnknownObjectException):
        repo.get_pull(8)  # a plain issue is not a pull request
    issue = repo.get_issue(8)
    assert issue.title == "Plain issue" and issue.pull_request is None
    assert repo.get_issue(7).pull_request is not None


def test_github_fault_injection(gh_srv: FakeGitHub) -> None:
    gh = make_github(gh_srv)
    gh_srv.inject(r"/repos/acme/widgets$", 502)
    with pytest.raises(GithubException) as exc:
        gh.get_repo(REPO)
    assert exc.value.status == 502
    assert gh.get_repo(REPO).name == "widgets"  # one-shot fault consumed

    gh_srv.inject_rate_limit(r"/repos/", reset_in=30)
    with pytest.raises(RateLimitExceededException) as rl:
        gh.get_repo(REPO)
    assert rl.value.headers is not None and rl.value.headers["x-ratelimit-remaining"] == "0"
    last = gh_srv.requests[-1]
    assert last.fault and last.status == 403


# -- OpenAI --------------------------------------------------------------------------------

SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "pr_summary",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                k: {"type": "string"}
                for k in (
                    "what_changed",
                    "technical_impact",
                    "potential_risks",
                    "key_insights",
                    "type",
                )
            },
            "required": [
                "what_changed",
                "technical_impact",
                "potential_risks",
                "key_insights",
                "type",
            ],
            "additionalProperties": False,
        },
    },
}
MESSAGES = [
    {"role": "system", "content": "You summarize pull requests."},
    {"role": "user", "content": "Repository: acme/widgets\nTitle: Fix typo in README\nBody: ..."},
]


async def test_openai_json_schema_default_responder() -> None:
    with FakeOpenAI() as srv:
        client = openai.AsyncOpenAI(base_url=srv.url + "/v1", api_key="k", max_retries=0)
        resp = await client.chat.completions.create(
            model="gpt-test", messages=MESSAGES, response_format=SCHEMA_FORMAT
        )
        models = await client.models.list()
        await client.close()

    assert resp.model == "gpt-test" and resp.object == "chat.completion"
    assert resp.choices[0].finish_reason == "stop" and resp.choices[0].message.role == "assistant"
    data = json.loads(resp.choices[0].message.content or "")
    assert data["type"] == "TRIVIAL" and "Fix typo in README" in data["what_changed"]
    assert all(data[k].count("`") == 2 for k in ("what_changed", "key_insights"))
    assert resp.usage is not None and resp.usage.prompt_tokens > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    assert (
        srv.completions_count == 1
        and srv.chat_requests[0]["response_format"]["type"] == "json_schema"
    )
    assert "gpt-4o-mini" in [m.id for m in models.data]


async def test_openai_script_retry_and_reject_json_schema() -> None:
    with FakeOpenAI(reject_json_schema=True) as srv:
        client = openai.AsyncOpenAI(base_url=srv.url + "/v1", api_key="k", max_retries=1)
        # retry-after-ms keeps the client's backoff short so the test stays fast.
        srv.script([("status", 500, {"retry-after-ms": "10"}), ("content", "not json")])
        resp = await client.chat.completions.create(
            model="m", messages=MESSAGES, response_format={"type": "json_object"}
        )
        assert resp.choices[0].message.content == "not json"
        assert srv.completions_count == 2 and srv.script_remaining == 0

        with pytest.raises(openai.BadRequestError) as exc:
            await client.chat.completions.create(
                model="m", messages=MESSAGES, response_format=SCHEMA_FORMAT
            )
        assert exc.value.status_code == 400 and exc.value.param == "response_format"
        assert srv.completions_count == 3  # 400s are not retried

        srv.script([("status", 429, {"Retry-After": "0"}), ("hang", 30)])
        no_retry = client.with_options(max_retries=0, timeout=0.2)
        with pytest.raises(openai.RateLimitError):
            await no_retry.chat.completions.create(model="m", messages=MESSAGES)
        with pytest.raises(openai.APITimeoutError):
            await no_retry.chat.completions.create(model="m", messages=MESSAGES)
        await client.close()
        started = time.monotonic()
    assert time.monotonic() - started < 1  # stop() does not wait for the hanging handler


async def test_openai_concurrent_latency() -> None:
    with FakeOpenAI(latency=0.3) as srv:
        client = openai.AsyncOpenAI(base_url=srv.url + "/v1", api_key="k", max_retries=0)
        started = time.monotonic()
        results = await asyncio.gather(
            *(client.chat.completions.create(model="m", messages=MESSAGES) for _ in range(8))
        )
        elapsed = time.monotonic() - started
        await client.close()
    # All eight were in flight at once: that, not the wall time (a loaded CI machine's), is
    # what shows the fake serves requests concurrently.
    assert len(results) == 8 and srv.max_in_flight == 8
    print(f"\n8 concurrent requests at 0.3 s latency: {elapsed:.2f} s")
