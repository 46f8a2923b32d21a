"""A PR of thousands of files is summarized from real diff content.

GitHub lists at most 3,000 of a PR's files (30 a page by default, 100 at most), while the PR's
own `changed_files` counts them all. The diff the model reads is chosen by value: hand-written
source before config, tests and docs, the largest changes first, never lock, generated or
vendored files, and never just the files GitHub happens to list first. The prompt says when the
listing was cut off, and the coverage line counts every changed file, listed or not.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from datetime import datetime

from sqlite_utils import Database

from adapters.discord import render as discord_render
from adapters.slack import render as slack_render
from bot.app.compose import build_service
from bot.core.models import ChangedFile, DigestEntry, PullRequest
from bot.digest.render_markdown import render_entry
from bot.store.migrations import migrations
from bot.store.store import Store
from summarizer.diff_budget import rank_files, select_diff
from summarizer.prompt import PromptBudget, build_prompt
from summarizer.tokens import count_tokens
from tests.conftest import PACIFIC, REPO
from tests.fakes.github import FakeFile, FakePR

NUMBER = 40000
LISTED, CHANGED = 3000, 4210
# The hand-written source files with the largest changes: deep in the listing, past page 20.
BIG_SOURCE = [f"vllm/engine/core_{k}.py" for k in range(5)]


def patch(marker: str, lines: int) -> str:
    body = "\n".join(f"+    {marker}_{j} = step({j})" for j in range(lines))
    return f"@@ -1,2 +1,{lines + 2} @@\n def {marker}():\n{body}\n     return None"


def huge_pr() -> FakePR:
    """4,210 changed files. GitHub lists the first 3,000: lock, generated and vendored files
    with the biggest changes first, then a long run of one-line source edits, then tests and
    docs, with the five big source changes near the end of the listing."""
    files = [
        FakeFile("package-lock.json", patch=patch("lockdigest", 900)),
        FakeFile("uv.lock", patch=patch("lockdigest_uv", 800)),
        FakeFile("vllm/proto/engine_pb2.py", patch=patch("generated_message", 700)),
        FakeFile("third_party/cutlass/gemm.h", patch=patch("vendored_kernel", 600)),
    ]
    files += [
        FakeFile(f"vllm/utils/small_{i:04d}.py", patch=patch(f"tiny_{i}", 1)) for i in range(1800)
    ]
    files += [
        FakeFile(f"tests/unit/test_{i:04d}.py", patch=patch(f"check_{i}", 3)) for i in range(700)
    ]
    files += [
        FakeFile(f"docs/pages/page_{i:04d}.md", patch=patch(f"prose_{i}", 2)) for i in range(491)
    ]
    files += [
        FakeFile(path, patch=patch(f"important_change_{k}", 120))
        for k, path in enumerate(BIG_SOURCE)
    ]
    assert len(files) == LISTED
    # Past GitHub's 3,000: changed, counted in `changed_files`, never listed.
    files += [
        FakeFile(f"vllm/unlisted/extra_{i:04d}.py", patch=patch(f"unlisted_{i}", 400))
        for i in range(CHANGED - LISTED)
    ]
    merged = datetime(2026, 2, 23, 10, 0, tzinfo=PACIFIC)
    title = "[Core] Move the engine to a new layout"
    return FakePR(NUMBER, title, merged_at=merged, files=files)


async def summarize(settings) -> DigestEntry:
    service = build_service(settings)
    try:
        await service.summarizer()
        entry = await service.pr_entry(REPO, NUMBER)
    finally:
        await service.aclose()
    return entry


def the_prompt(llm) -> str:
    return llm.summary_requests[0]["messages"][1]["content"]


def diffed(prompt: str) -> list[str]:
    """The files whose diff the prompt shows, in its order."""
    return [
        line.split(" b/", 1)[1] for line in prompt.splitlines() if line.startswith("diff --git a/")
    ]


# -- the whole way: fake GitHub, fake OpenAI ----------------------------------------------------


async def test_the_model_reads_the_biggest_hand_written_changes_not_the_first_files_listed(
    env, github, llm
):
    github.add_pr(REPO, huge_pr())
    entry = await summarize(env)
    assert entry.ok

    prompt = the_prompt(llm)
    shown = diffed(prompt)
    assert shown[: len(BIG_SOURCE)] == BIG_SOURCE
    for k in range(len(BIG_SOURCE)):
        assert f"+    important_change_{k}_0 = step(0)" in prompt  # a real hunk, not a name
    assert "lockdigest" not in prompt and "generated_message" not in prompt
    assert "vendored_kernel" not in prompt
    assert not any(name.startswith("vllm/unlisted/") for name in shown)  # never listed
    # What the budget has left goes to more source, never to tests or docs before it.
    assert all(name.startswith("vllm/") for name in shown)


async def test_the_prompt_says_github_listed_3000_of_4210_files_and_stays_in_budget(
    env, github, llm
):
    github.add_pr(REPO, huge_pr())
    await summarize(env)

    prompt = the_prompt(llm)
    assert "GitHub listed 3,000 of 4,210 changed files" in prompt
    assert "Changed files (4,210)" in prompt
    assert "By kind: " in prompt and "Most changed files that can be shown:" in prompt
    assert "Largest left out: package-lock.json (+900/-0, lock file)" in prompt
    system = llm.summary_requests[0]["messages"][0]["content"]
    assert count_tokens(system) + count_tokens(prompt) <= PromptBudget().max_prompt_tokens


async def test_the_coverage_line_counts_all_4210_changed_files(env, github, llm):
    github.add_pr(REPO, huge_pr())
    entry = await summarize(env)

    summary = entry.summary
    assert summary.files_total == CHANGED
    assert 5 <= summary.files_covered < LISTED
    assert f"the diff of {summary.files_covered} of 4210 changed files" in summary.coverage_line
    assert "all" not in summary.coverage_line


async def test_the_files_are_read_in_30_pages_of_100_and_stored_with_the_true_count(
    env, github, llm
):
    github.add_pr(REPO, huge_pr())
    await summarize(env)

    pages = github.calls(rf"/pulls/{NUMBER}/files$")
    assert len(pages) == 30  # not a 31st, empty page: GitHub's count says when to stop
    assert all(r.query.get("per_page") == "100" for r in pages)
    stored = Store(env.db_path).get_pr(REPO, NUMBER)
    assert len(stored.files) == LISTED and stored.changed_files == CHANGED
    assert [f.filename for f in stored.files[:2]] == ["package-lock.json", "uv.lock"]


async def test_every_surface_shows_the_true_count_and_says_the_listing_stops(env, github, llm):
    github.add_pr(REPO, huge_pr())
    entry = await summarize(env)

    report = render_entry(entry, PACIFIC)
    assert f"[Changed Files](https://github.com/{REPO}/pull/{NUMBER}/files) (4210):" in report
    assert "  - … and 1210 more that GitHub does not list" in report
    slack = json.dumps([m.blocks for m in slack_render.summary_messages(entry, PACIFIC)])
    assert "4210 changed files" in slack
    discord = discord_render.entry_messages(entry, PACIFIC)[0].embeds[0]
    files = next(f["value"] for f in discord["fields"] if f["name"] == "Files")
    assert files.startswith("[4210 changed files](") and files.endswith(" more")


def test_the_fake_github_lists_files_as_github_does(github):
    github.add_pr(REPO, huge_pr())
    base = f"{github.url}/repos/{REPO}/pulls/{NUMBER}"

    def get(url: str):
        with urllib.request.urlopen(url) as response:
            return json.load(response)

    assert get(base)["changed_files"] == CHANGED
    assert len(get(base + "/files")) == 30
    assert len(get(base + "/files?per_page=500")) == 100
    assert len(get(base + "/files?per_page=100&page=30")) == 100
    assert get(base + "/files?per_page=100&page=31") == []


# -- a PR stored before GitHub's count was kept -------------------------------------------------


def test_a_pr_stored_before_the_migration_reads_back_without_a_count(tmp_path):
    path = tmp_path / "old.db"
    db = Database(sqlite3.connect(path))
    migrations.apply(db, stop_before="m009_changed_files")
    db["pull_requests"].insert({"repo": "o/r", "number": 1, "title": "Old", "author": "a",
                                "url": "https://github.com/o/r/pull/1", "state": "merged",
                                "labels": "[]", "head_sha": "h", "merge_commit_sha": "m"})  # fmt: skip
    db["pr_files"].insert({"repo": "o/r", "number": 1, "position": 0, "filename": "a.py",
                           "status": "modified", "additions": 1, "deletions": 0,
                           "patch": "@@ -1 +1 @@\n+a"})  # fmt: skip
    db.conn.close()

    pr = Store(path).get_pr("o/r", 1)
    assert pr.title == "Old" and pr.changed_files is None
    assert [f.filename for f in pr.files] == ["a.py"]
    built = build_prompt(pr, PromptBudget())
    assert built.files_total == 1 == built.files_covered
    assert "GitHub listed" not in built.messages[1]["content"]


def test_a_stored_pr_keeps_its_count(tmp_path):
    store = Store(tmp_path / "x.db")
    store.save_pr(pr_of([source("a.py", 3)], changed_files=4210))
    assert store.get_pr("o/r", 1).changed_files == 4210


# -- choosing files by value --------------------------------------------------------------------


def source(name: str, lines: int) -> ChangedFile:
    return ChangedFile(name, additions=lines, patch=patch(name.replace("/", "_"), lines))


def pr_of(files: list[ChangedFile], changed_files: int | None = None) -> PullRequest:
    return PullRequest(repo="o/r", number=1, title="t", url="https://github.com/o/r/pull/1",
                       author="a", state="merged", files=tuple(files), changed_files=changed_files)  # fmt: skip


def names(files) -> list[str]:
    return [f.filename for f in files]


def test_hand_written_source_ranks_before_lock_generated_vendored_and_binary_files():
    files = [
        source("package-lock.json", 5000),
        source("api/service_pb2.py", 4000),
        source("vendor/lib/x.go", 3000),
        ChangedFile("assets/logo.png", additions=1),
        source("src/app.py", 2),
    ]
    assert names(rank_files(files))[0] == "src/app.py"
    assert set(names(rank_files(files))[1:]) == {f.filename for f in files[:4]}


def test_source_ranks_before_config_tests_and_docs_whatever_their_size():
    files = [
        source("docs/guide.md", 900),
        source("tests/test_app.py", 800),
        source(".github/workflows/ci.yml", 700),
        source("src/app.py", 1),
    ]
    assert names(rank_files(files)) == [
        "src/app.py", ".github/workflows/ci.yml", "tests/test_app.py", "docs/guide.md"
    ]  # fmt: skip


def test_the_largest_change_comes_first_and_listing_order_only_breaks_ties():
    files = [
        source("src/a.py", 3),
        source("src/b.py", 40),
        source("src/c.py", 3),
        source("src/d.py", 12),
    ]
    assert names(rank_files(files)) == ["src/b.py", "src/d.py", "src/a.py", "src/c.py"]


def test_deletions_count_as_change_too():
    removed = ChangedFile("src/old.py", status="modified", deletions=500, patch=patch("old", 2))
    assert names(rank_files([source("src/new.py", 10), removed]))[0] == "src/old.py"


def test_ranking_keeps_every_file():
    files = [source(f"src/f{i}.py", i % 7) for i in range(50)] + [source("yarn.lock", 9)]
    assert sorted(names(rank_files(files))) == sorted(names(files))


def test_a_tight_budget_goes_to_the_biggest_source_changes():
    files = [source(f"src/small_{i}.py", 1) for i in range(300)] + [source("src/big.py", 200)]
    selection = select_diff(files, budget=400)
    assert names(d.file for d in selection.shown)[0] == "src/big.py"
    assert len(selection.files) == len(files)  # every file is still accounted for


# -- the summarized file list -------------------------------------------------------------------


def test_a_small_prompt_budget_still_shows_diff_of_a_huge_pr():
    files = [source(f"pkg{i % 40}/mod_{i}.py", 1 + i % 5) for i in range(3000)]
    files.append(source("pkg0/core.py", 300))
    budget = PromptBudget(max_prompt_tokens=1000, description_tokens=250, compact=True)
    built = build_prompt(pr_of(files, changed_files=4210), budget)
    assert built.prompt_tokens <= 1000
    assert diffed(built.messages[1]["content"])  # the change facts come first, then some diff
    assert "GitHub listed 3,001 of 4,210 changed files" in built.messages[1]["content"]
    assert built.files_total == 4210
    roomier = PromptBudget(max_prompt_tokens=1500, description_tokens=250, compact=True)
    built = build_prompt(pr_of(files, changed_files=4210), roomier)
    assert diffed(built.messages[1]["content"])[0] == "pkg0/core.py"


def test_a_pr_that_fits_is_still_listed_file_by_file():
    files = [source("src/a.py", 3), source("yarn.lock", 50), source("src/b.py", 9)]
    text = build_prompt(pr_of(files), PromptBudget()).messages[1]["content"]
    assert "Changed files (3):\n- src/b.py (modified, +9/-0)\n- src/a.py" in text
    assert "- yarn.lock (modified, +50/-0) [not shown: lock file]" in text
    assert "By kind" not in text


def test_the_summarized_list_counts_files_by_directory_splitting_the_biggest():
    files = [source(f"engine/core/c{i}.py", 2) for i in range(1200)]
    files += [source(f"engine/api/a{i}.py", 1) for i in range(800)]
    files += [source(f"engine/setup_{i}.py", 1) for i in range(3)]
    files += [source(f"kernels/k{i}.cu", 1) for i in range(997)]
    text = build_prompt(pr_of(files, changed_files=3000), PromptBudget()).messages[1]["content"]
    assert "Changed files (3,000):\nBy kind: 3,000 source\nBy directory:\n" in text
    assert "- engine/core/ (1,200 files, +2,400/-0)" in text
    assert "- engine/api/ (800 files, +800/-0)" in text
    assert "- engine/* (3 files, +3/-0)" in text  # the files directly in engine/
    assert "- kernels/ (997 files, +997/-0)" in text
    assert "GitHub listed" not in text  # GitHub's count agrees with its listing


def test_a_full_listing_stored_without_a_count_says_there_may_be_more():
    files = [source(f"src/m{i}.py", 1) for i in range(3000)]
    text = build_prompt(pr_of(files), PromptBudget()).messages[1]["content"]
    assert (
        "Changed files (3,000 listed): GitHub lists at most 3,000 files, so there may be more"
        in text
    )
