"""A repository's CODEOWNERS is read as GitHub reads it, through PyGithub, at most once a day.

GitHub uses the first of `.github/CODEOWNERS`, `CODEOWNERS` and `docs/CODEOWNERS` on the
default branch. `CodeOwnersReader` asks GitHub on a repository's first read of a (UTC) day,
one call per location tried, stores what it found (an absent file too) and answers every
later read that day from the store. A repository without one is a one-line user error when a
subscription needs it. Everything here runs the real PyGithub against the fake GitHub, over a
real store on a temporary file.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from datetime import date, timedelta

import pytest
from github import Auth, Github, GithubException

from bot.app.compose import build_service
from bot.core.clock import utcnow
from bot.core.errors import NotFoundError, SourceError, UserInputError
from bot.core.settings import Settings
from bot.digest.ownership import CodeOwnersReader
from bot.digest.service import DigestService
from tests.conftest import REPO

DAY = date(2026, 2, 23)
ROCM = "@vllm-project/rocm-team"

GITHUB_DIR = "/csrc/rocm @vllm-project/rocm-team\n"
ROOT = "* @vllm-project/maintainers\n"
DOCS = "/docs/ @hmellor\n"


def contents_calls(github) -> int:
    return github.count(path_regex=r"/contents/")


@pytest.fixture
def service(env: Settings) -> Iterator[DigestService]:
    """The digest service as the app builds it, over the test's database file."""
    service = build_service(env)
    yield service
    service.store.close()


@pytest.fixture
def reader(service: DigestService) -> CodeOwnersReader:
    """Wired as the lead wires it: the service's store and its lazily built GitHub source."""
    return CodeOwnersReader(store=service.store, source=lambda: service.source)


def read_directly(service: DigestService) -> tuple[str, str] | None:
    source = service.source
    return source.codeowners(source.repository(REPO))


# -- where GitHub looks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("present", "used", "calls"),
    [
        ({".github/CODEOWNERS": GITHUB_DIR, "CODEOWNERS": ROOT, "docs/CODEOWNERS": DOCS},
         ".github/CODEOWNERS", 1),
        ({"CODEOWNERS": ROOT, "docs/CODEOWNERS": DOCS}, "CODEOWNERS", 2),
        ({"docs/CODEOWNERS": DOCS}, "docs/CODEOWNERS", 3),
    ],
)  # fmt: skip
def test_the_first_location_that_exists_is_the_repositorys_codeowners(
    service, github, present, used, calls
):
    for path, text in present.items():
        github.set_file(REPO, path, text)
    assert read_directly(service) == (used, present[used])
    assert contents_calls(github) == calls  # one call per location tried, no more


def test_a_repository_with_none_reads_as_none_after_trying_each_location_once(service, github):
    github.set_file(REPO, "README.md", "# vLLM\n")
    assert read_directly(service) is None
    assert [r.path for r in github.contents_requests(REPO)] == [
        f"/repos/{REPO}/contents/.github/CODEOWNERS",
        f"/repos/{REPO}/contents/CODEOWNERS",
        f"/repos/{REPO}/contents/docs/CODEOWNERS",
    ]


def test_it_is_read_from_the_default_branch(service, github):
    github.add_repo("acme/widgets", default_branch="trunk")
    github.set_file("acme/widgets", "CODEOWNERS", "* @acme/trunk-team\n")
    github.set_file("acme/widgets", ".github/CODEOWNERS", "* @acme/other\n", ref="feature")
    source = service.source
    assert source.codeowners(source.repository("acme/widgets")) == (
        "CODEOWNERS",
        "* @acme/trunk-team\n",
    )
    assert {r.query.get("ref") for r in github.contents_requests("acme/widgets")} == {"trunk"}


def test_a_directory_named_codeowners_is_not_the_file(service, github):
    github.set_file(REPO, ".github/CODEOWNERS/README.md", "not a CODEOWNERS file\n")
    github.set_file(REPO, "CODEOWNERS", ROOT)
    assert read_directly(service) == ("CODEOWNERS", ROOT)


def test_a_file_over_1_mb_is_read_whole_through_its_blob(service, github):
    text = ROOT + "".join(f"/vllm/module_{n}.py @owner{n}\n" for n in range(60_000))
    assert 1024 * 1024 < len(text) < 3 * 1024 * 1024
    github.set_file(REPO, ".github/CODEOWNERS", text)
    assert read_directly(service) == (".github/CODEOWNERS", text)
    assert contents_calls(github) == 1 and github.count(path_regex=r"/git/blobs/") == 1


def test_a_file_of_3_mb_or_more_is_ignored_as_github_does(service, github):
    github.set_file(REPO, ".github/CODEOWNERS", "# padding\n" * (320 * 1024))  # 3.1 MiB
    github.set_file(REPO, "CODEOWNERS", ROOT)
    assert read_directly(service) == ("CODEOWNERS", ROOT)
    assert github.count(path_regex=r"/git/blobs/") == 0  # never downloaded


def test_the_text_is_decoded_as_utf8_without_a_byte_order_mark(service, github):
    github.set_file(REPO, "CODEOWNERS", "\ufeff/docs/café @hmellor\n".encode())
    assert read_directly(service) == ("CODEOWNERS", "/docs/café @hmellor\n")


# -- at most once a day -----------------------------------------------------------------------


async def test_the_owners_are_parsed_from_the_file_github_uses(reader, github):
    github.set_file(REPO, ".github/CODEOWNERS", ROOT + GITHUB_DIR)
    github.set_file(REPO, "CODEOWNERS", "* @someone-else\n")
    owners = await reader.owners(REPO, today=DAY)
    assert owners is not None
    assert owners.owned_by(["csrc/rocm/attention.cu"], [ROCM])
    assert not owners.owned_by(["vllm/engine/llm_engine.py"], [ROCM])


async def test_a_second_read_the_same_day_makes_no_github_call(reader, env, github):
    github.set_file(REPO, ".github/CODEOWNERS", GITHUB_DIR)
    first = await reader.owners(REPO, today=DAY)
    before = len(github.requests)
    assert await reader.owners(REPO, today=DAY) == first
    # Another reader (a restarted bot, the CLI) over the same database file: no call either.
    other = build_service(env)
    try:
        fresh = CodeOwnersReader(store=other.store, source=lambda: other.source)
        assert await fresh.owners(REPO, today=DAY) == first
    finally:
        other.store.close()
    assert len(github.requests) == before


async def test_the_next_day_reads_again_and_sees_a_change(reader, github):
    github.set_file(REPO, ".github/CODEOWNERS", ROOT)
    assert not (await reader.owners(REPO, today=DAY)).owned_by(["csrc/rocm/a.cu"], [ROCM])
    github.set_file(REPO, ".github/CODEOWNERS", ROOT + GITHUB_DIR)
    # Still the day's copy: GitHub is not asked again before tomorrow.
    assert not (await reader.owners(REPO, today=DAY)).owned_by(["csrc/rocm/a.cu"], [ROCM])
    assert contents_calls(github) == 1
    tomorrow = await reader.owners(REPO, today=DAY + timedelta(days=1))
    assert tomorrow.owned_by(["csrc/rocm/a.cu"], [ROCM])
    assert contents_calls(github) == 2


async def test_a_repository_without_one_is_a_one_line_error_remembered_for_the_day(reader, github):
    assert await reader.owners(REPO, today=DAY) is None
    assert contents_calls(github) == 3
    with pytest.raises(UserInputError) as raised:
        await reader.require(REPO, today=DAY)
    assert str(raised.value) == (
        "vllm-project/vllm has no CODEOWNERS file (looked in .github/CODEOWNERS, CODEOWNERS, "
        "docs/CODEOWNERS): a codeowners filter needs one"
    )
    assert contents_calls(github) == 3  # "none" is remembered for the day too
    # Added later that day: seen the next day.
    github.set_file(REPO, "docs/CODEOWNERS", DOCS)
    assert await reader.owners(REPO, today=DAY) is None
    assert await reader.require(REPO, today=DAY + timedelta(days=1))


async def test_require_gives_the_owners_when_there_is_a_file(reader, github):
    github.set_file(REPO, "CODEOWNERS", GITHUB_DIR)
    owners = await reader.require(REPO, today=DAY)
    assert owners.owners_of("csrc/rocm/x.cu") == ("@vllm-project/rocm-team",)


async def test_concurrent_reads_of_one_repository_share_one_github_read(reader, github):
    github.set_file(REPO, "docs/CODEOWNERS", DOCS)
    github.latency = 0.05  # every answer takes a while, so the reads overlap
    results = await asyncio.gather(*(reader.owners(REPO, today=DAY) for _ in range(8)))
    assert results[0] is not None and all(r == results[0] for r in results)
    assert contents_calls(github) == 3  # the three locations, once
    assert github.count(path_regex=rf"^/repos/{REPO}$") == 1


async def test_a_502_is_a_source_error_and_is_not_remembered(reader, service, github):
    github.set_file(REPO, ".github/CODEOWNERS", GITHUB_DIR)
    github.inject(r"/contents/", 502, times=100)  # more than the retries
    with pytest.raises(SourceError) as raised:
        await reader.owners(REPO, today=DAY)
    assert str(raised.value) == (
        "GitHub answered 502 while reading .github/CODEOWNERS of vllm-project/vllm (after retries)"
    )
    assert service.store.get_codeowners(REPO, DAY.isoformat()) is None
    github.clear_faults()
    github.clear_requests()
    assert await reader.owners(REPO, today=DAY) is not None
    assert contents_calls(github) == 1
    assert service.store.get_codeowners(REPO, DAY.isoformat()) == (
        ".github/CODEOWNERS",
        GITHUB_DIR,
    )


async def test_an_unknown_repository_is_not_found_and_not_remembered(reader, service, github):
    with pytest.raises(NotFoundError):
        await reader.owners("vllm-project/nope", today=DAY)
    assert service.store.get_codeowners("vllm-project/nope", DAY.isoformat()) is None
    assert contents_calls(github) == 0


async def test_without_a_day_it_is_todays_utc_date(reader, service, github):
    github.set_file(REPO, "CODEOWNERS", ROOT)
    await reader.owners(REPO)
    assert service.store.get_codeowners(REPO, utcnow().date().isoformat()) == ("CODEOWNERS", ROOT)


# -- the fake GitHub's contents API, as PyGithub reads it -------------------------------------


def test_the_fake_serves_files_directories_and_refs_like_github(github):
    github.set_file(REPO, ".github/CODEOWNERS", GITHUB_DIR)
    github.set_file(REPO, ".github/workflows/ci.yml", "on: push\n")
    github.set_file(REPO, "CODEOWNERS", ROOT, ref="release")
    client = Github(base_url=github.url, auth=Auth.Token("t"), seconds_between_requests=None)
    repo = client.get_repo(REPO)

    found = repo.get_contents(".github/CODEOWNERS", ref="main")
    assert (found.type, found.path, found.size) == ("file", ".github/CODEOWNERS", len(GITHUB_DIR))
    assert found.decoded_content.decode() == GITHUB_DIR
    blob = repo.get_git_blob(found.sha)  # a file's sha is its git blob's
    assert (blob.encoding, base64.b64decode(blob.content).decode()) == ("base64", GITHUB_DIR)
    listing = repo.get_contents(".github")
    assert sorted((c.type, c.path) for c in listing) == [
        ("dir", ".github/workflows"),
        ("file", ".github/CODEOWNERS"),
    ]
    assert repo.get_contents("CODEOWNERS", ref="release").decoded_content.decode() == ROOT
    for missing in (("CODEOWNERS", "main"), ("CODEOWNERS", "no-such-branch")):
        with pytest.raises(GithubException) as raised:
            repo.get_contents(*missing)
        assert raised.value.status == 404
    github.set_file(REPO, ".github/CODEOWNERS", None)  # removed
    assert [c.path for c in repo.get_contents(".github")] == [".github/workflows"]
    assert len(github.contents_requests(REPO)) == 6  # the blob is not one
