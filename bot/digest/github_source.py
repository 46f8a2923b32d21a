"""GitHub, through PyGithub: a day's merged PRs, each PR's details and files, and a
repository's CODEOWNERS file, read with a token or as a GitHub App (`github_auth`).

PyGithub objects are turned into `bot.core.models` dataclasses here and go no further.
"""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar

from github import GithubException, UnknownObjectException
from github.File import File
from github.PullRequest import PullRequest as GitHubPull
from requests.exceptions import RequestException

from bot.core.clock import utcnow
from bot.core.codeowners import CODEOWNERS_LOCATIONS
from bot.core.errors import NotFoundError, SourceError
from bot.core.logs import mask
from bot.core.models import ChangedFile, DayWindow, PullRequest
from bot.core.settings import Settings
from bot.digest.github_auth import REFRESH_MARGIN, AppCredentials, GitHubAuth, GitHubClients
from bot.digest.github_client import PER_PAGE, describe_failure

log = logging.getLogger(__name__)

# GitHub's files endpoint stops at 3000 files.
MAX_FILES = 3000

# GitHub does not load a CODEOWNERS file of 3 MB or more.
MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024


@dataclass(frozen=True)
class TagSpan:
    """What GitHub's compare of two tags says: when their histories meet (the base's commit,
    or where a release branch left the default one), the newest commit between them, and
    every commit between them (each page of the compare, 100 commits a page)."""

    start: datetime
    end: datetime
    shas: frozenset[str]


@dataclass(frozen=True)
class RepoInfo:
    full_name: str
    default_branch: str
    html_url: str
    private: bool = False


def search_query(repo: RepoInfo, window: DayWindow) -> str:
    """The search that finds a day's merged PRs.

    GitHub's `merged:A..B` is inclusive at both ends, so the range stops one second before the
    next day's 00:00; offsets are explicit because the search otherwise reads times as UTC.
    """
    last = window.end - timedelta(seconds=1)
    return (
        f"repo:{repo.full_name} is:pr is:merged base:{repo.default_branch} "
        f"merged:{window.start.isoformat()}..{last.isoformat()}"
    )


class _Unauthorized(SourceError):
    """GitHub answered 401: with an App, the installation's token may have run out during a
    long wait (a rate limit's reset), which a new token fixes."""


T = TypeVar("T")
P = ParamSpec("P")


def _renewing(
    method: Callable[Concatenate[GitHubSource, P], T],
) -> Callable[Concatenate[GitHubSource, P], T]:
    """Call `method` (whose first argument is the repository) once more with a new
    installation token after a 401. Every request goes out with a token a minute from expiry
    at least, but urllib3 sends a retry after a rate limit's wait (up to an hour) with the
    headers of the first try."""

    @functools.wraps(method)
    def call(self: GitHubSource, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except _Unauthorized:
            repo = args[0]
            if not self.clients.renew(repo.full_name if isinstance(repo, RepoInfo) else str(repo)):
                raise
            return method(self, *args, **kwargs)

    return call


class GitHubSource:
    """GitHub's answers for the digest, read with a token, as a GitHub App, or anonymously.
    Its `clients` give each repository its client (with an App, its installation's)."""

    def __init__(
        self,
        api_url: str,
        token: str | None = None,
        *,
        app: AppCredentials | None = None,
        timeout: int = 30,
        retries: int = 5,
        backoff: float = 0.5,
        clock: Callable[[], datetime] = utcnow,
        margin: timedelta = REFRESH_MARGIN,
    ):
        self.auth = GitHubAuth(api_url, token, app, timeout, retries, backoff)
        self.clients = GitHubClients(self.auth, clock=clock, margin=margin)
        self._anonymous = self.auth.kind == "anonymous"
        self._repos: dict[str, RepoInfo] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> GitHubSource:
        """The settings' GitHub: its App when GITHUB_APP_ID is set, else GITHUB_TOKEN."""
        return cls.from_auth(GitHubAuth.from_settings(settings))

    @classmethod
    def from_auth(cls, auth: GitHubAuth, **kwargs: Any) -> GitHubSource:
        return cls(
            auth.api_url,
            auth.token,
            app=auth.app,
            timeout=auth.timeout,
            retries=auth.retries,
            backoff=auth.backoff,
            **kwargs,
        )

    @_renewing
    def repository(self, full_name: str) -> RepoInfo:
        """One call per repository per process: its default branch and web address."""
        if full_name not in self._repos:
            try:
                repo = self.clients.for_repo(full_name).get_repo(full_name)
            except UnknownObjectException:
                who = "the App" if self.auth.app else "the token"
                raise NotFoundError(
                    f"Repository {full_name} not found (or {who} cannot see it)"
                ) from None
            except (GithubException, RequestException) as exc:
                raise self._failure(exc, f"reading repository {full_name}") from None
            self._repos[full_name] = RepoInfo(
                full_name=repo.full_name,
                default_branch=repo.default_branch,
                html_url=repo.html_url,
                private=bool(repo.private),
            )
            self._say_anonymous()
        return self._repos[full_name]

    def _say_anonymous(self) -> None:
        # Said once GitHub has answered: when it cannot be reached, that is the one line.
        if self._anonymous:
            self._anonymous = False
            log.warning(
                "GITHUB_TOKEN is not set: only public repositories can be read, "
                "and GitHub allows 60 requests an hour without a token"
            )

    @_renewing
    def merged_numbers(self, repo: RepoInfo, window: DayWindow) -> list[int]:
        """Numbers of the PRs merged into the default branch during the window, any order."""
        query = search_query(repo, window)
        try:
            found = self.clients.for_repo(repo.full_name).search_issues(query)
            numbers = [issue.number for issue in found]
        except (GithubException, RequestException) as exc:
            raise self._failure(exc, "searching merged pull requests") from None
        return sorted(set(numbers))

    @_renewing
    def fetch_pr(self, repo: RepoInfo, number: int) -> PullRequest:
        """The PR itself, then its files a page of 100 at a time (at most 30 pages: GitHub
        lists no more than 3,000 files, while `changed_files` counts them all)."""
        gh_repo = self.clients.for_repo(repo.full_name, lazy=True).get_repo(repo.full_name)
        try:
            pull = gh_repo.get_pull(number)
            # The handle is lazy: reading a field is what sends the request, so do it here.
            merged = bool(pull.merged or pull.merged_at)
        except UnknownObjectException:
            raise self._not_a_pr(repo, number) from None
        except (GithubException, RequestException) as exc:
            raise self._failure(exc, f"reading PR #{number}") from None
        changed = pull.changed_files if isinstance(pull.changed_files, int) else None
        try:
            files = self._files(pull, changed)
        except (GithubException, RequestException) as exc:
            raise self._failure(exc, f"reading the files of PR #{number}") from None
        return PullRequest(
            repo=repo.full_name,
            number=pull.number,
            title=pull.title or "",
            url=pull.html_url,
            author=pull.user.login if pull.user else "ghost",
            state="merged" if merged else pull.state,
            body=pull.body or "",
            labels=tuple(label.name for label in pull.labels),
            merged_by=pull.merged_by.login if pull.merged_by else None,
            merged_at=_utc(pull.merged_at),
            base_ref=pull.base.ref if pull.base else "",
            head_sha=pull.head.sha if pull.head else "",
            merge_commit_sha=pull.merge_commit_sha,
            files=tuple(files),
            html_base=_html_base(pull.html_url, repo.full_name),
            changed_files=changed,
        )

    def _files(self, pull: GitHubPull, changed: int | None) -> list[ChangedFile]:
        """The listed files, one page at a time: iterating PyGithub's list would keep every
        page's raw JSON (each patch in it) alive until the last one is read."""
        pages = pull.get_files()
        expected = min(changed, MAX_FILES) if changed is not None else MAX_FILES
        files: list[ChangedFile] = []
        for page in range(-(-MAX_FILES // PER_PAGE)):
            chunk = pages.get_page(page)
            files.extend(_changed_file(f) for f in chunk[: MAX_FILES - len(files)])
            # A short page is the last; so is the page that reaches GitHub's own count, which
            # saves asking for an empty one after it.
            if len(chunk) < PER_PAGE or len(files) >= expected:
                break
        return files

    @_renewing
    def tag_span(self, repo: RepoInfo, base: str, head: str) -> TagSpan:
        """The commits between tags `base` and `head` (any ref GitHub's compare takes)."""
        gh_repo = self.clients.for_repo(repo.full_name, lazy=True).get_repo(repo.full_name)
        try:
            comparison = gh_repo.compare(base, head)
            ahead = comparison.ahead_by  # a lazy handle: reading a field sends the request
            start = comparison.merge_base_commit.commit.committer.date
            commits = [(c.sha.lower(), c.commit.committer.date) for c in comparison.commits]
        except UnknownObjectException:
            raise self._missing_tag(repo, base, head) from None
        except (GithubException, RequestException) as exc:
            raise self._failure(exc, f"comparing {base} with {head}") from None
        if not ahead or not commits:
            raise NotFoundError(
                f"Nothing was merged into {repo.full_name} between {base} and {head}: "
                "name the older tag first"
            )
        end = max(_utc(date) for _, date in commits)
        return TagSpan(_utc(start), end, frozenset(sha for sha, _ in commits))

    def _missing_tag(self, repo: RepoInfo, base: str, head: str) -> NotFoundError:
        # Only on the error path: one call a tag tells which of the two GitHub does not know.
        gh_repo = self.clients.for_repo(repo.full_name, lazy=True).get_repo(repo.full_name)
        for tag in (base, head):
            try:
                gh_repo.get_git_ref(f"tags/{tag}").object  # noqa: B018 - sends the request
            except (GithubException, RequestException):
                return NotFoundError(f"{repo.full_name} has no tag {tag}")
        return NotFoundError(f"GitHub cannot compare {base} with {head} in {repo.full_name}")

    @_renewing
    def codeowners(self, info: RepoInfo) -> tuple[str, str] | None:
        """(path, text) of the repository's CODEOWNERS on its default branch, or None.

        GitHub's reading: the first of `CODEOWNERS_LOCATIONS` that is a file, one call per
        location tried (a 404 tries the next). A file of 3 MB or more, which GitHub does not
        load, is passed over like a missing one. A file over 1 MB, whose content the contents
        API leaves out, costs one more call for its blob.
        """
        gh_repo = self.clients.for_repo(info.full_name, lazy=True).get_repo(info.full_name)
        for path in CODEOWNERS_LOCATIONS:
            doing = f"reading {path} of {info.full_name}"
            try:
                found = gh_repo.get_contents(path, ref=info.default_branch)
            except UnknownObjectException:
                continue
            except (GithubException, RequestException) as exc:
                raise self._failure(exc, doing) from None
            # A directory answers with a list; a symlink out of the tree, or a submodule, with
            # another type: neither is a CODEOWNERS file.
            if isinstance(found, list) or found.type != "file":
                continue
            if found.size >= MAX_CODEOWNERS_BYTES:
                log.warning(
                    "%s: %s is %d bytes, over GitHub's 3 MB limit for CODEOWNERS: ignored",
                    info.full_name,
                    path,
                    found.size,
                )
                continue
            try:
                if found.encoding == "base64":
                    data = found.decoded_content
                else:  # over 1 MB: "encoding": "none" and no content
                    data = base64.b64decode(gh_repo.get_git_blob(found.sha).content)
            except (GithubException, RequestException) as exc:
                raise self._failure(exc, doing) from None
            return path, data.decode("utf-8-sig", errors="replace")
        return None

    def _failure(self, exc: Exception, doing: str) -> SourceError:
        # GitHub's message is shown to users; a proxy or server that echoes the request's
        # credentials must not put the token in a report, a chat post or the log.
        line = describe_failure(exc, doing, self.auth.endpoint, self.auth.credentials)
        line = mask(line, *self.clients.secrets())
        return _Unauthorized(line) if getattr(exc, "status", None) == 401 else SourceError(line)

    def _not_a_pr(self, repo: RepoInfo, number: int) -> NotFoundError:
        # Only on the error path: one more call tells "no such number" from "that is an issue".
        try:
            gh_repo = self.clients.for_repo(repo.full_name, lazy=True).get_repo(repo.full_name)
            issue = gh_repo.get_issue(number)
            issue.title  # noqa: B018 - a lazy handle: reading a field sends the request
        except (GithubException, RequestException):
            return NotFoundError(f"{repo.full_name}#{number} not found")
        return NotFoundError(f"{repo.full_name}#{number} is an issue, not a pull request")


def _changed_file(f: File) -> ChangedFile:
    return ChangedFile(
        filename=f.filename,
        status=f.status,
        additions=f.additions,
        deletions=f.deletions,
        patch=f.patch,
        previous_filename=f.previous_filename,
    )


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _html_base(pr_url: str, full_name: str) -> str:
    """`https://github.com` from the PR's own address, so Enterprise hosts link correctly."""
    marker = f"/{full_name}/"
    return pr_url.split(marker)[0] if marker in pr_url else "https://github.com"
