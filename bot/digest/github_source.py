"""GitHub, through PyGithub: a day's merged PRs, each PR's details and files, and a
repository's CODEOWNERS file.

PyGithub objects are turned into `bot.core.models` dataclasses here and go no further.
"""

from __future__ import annotations

import base64
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from github import GithubException, UnknownObjectException
from github.File import File
from github.PullRequest import PullRequest as GitHubPull
from requests.exceptions import RequestException

from bot.core.codeowners import CODEOWNERS_LOCATIONS
from bot.core.endpoints import Endpoint
from bot.core.errors import NotFoundError, SourceError
from bot.core.logs import mask
from bot.core.models import ChangedFile, DayWindow, PullRequest
from bot.digest.github_client import PER_PAGE, make_github

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


class GitHubSource:
    def __init__(
        self,
        api_url: str,
        token: str | None,
        *,
        timeout: int = 30,
        retries: int = 5,
        backoff: float = 0.5,
    ):
        self.github = make_github(api_url, token, timeout=timeout, retries=retries, backoff=backoff)
        self.endpoint = Endpoint("GitHub", "GITHUB_API_URL", api_url)
        self._anonymous = not token
        # Kept only to mask it: an error message quoting the server could echo it back.
        self._secret = token or ""
        # Repository handles that make no call of their own: the PR calls name the repo anyway.
        self._lazy = self.github.withLazy(True)
        self._repos: dict[str, RepoInfo] = {}

    def repository(self, full_name: str) -> RepoInfo:
        """One call per repository per process: its default branch and web address."""
        if full_name not in self._repos:
            try:
                repo = self.github.get_repo(full_name)
            except UnknownObjectException:
                raise NotFoundError(
                    f"Repository {full_name} not found (or the token cannot see it)"
                ) from None
            except (GithubException, RequestException) as exc:
                raise SourceError(self._describe(exc, f"reading repository {full_name}")) from None
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

    def merged_numbers(self, repo: RepoInfo, window: DayWindow) -> list[int]:
        """Numbers of the PRs merged into the default branch during the window, any order."""
        query = search_query(repo, window)
        try:
            numbers = [issue.number for issue in self.github.search_issues(query)]
        except (GithubException, RequestException) as exc:
            raise SourceError(self._describe(exc, "searching merged pull requests")) from None
        return sorted(set(numbers))

    def fetch_pr(self, repo: RepoInfo, number: int) -> PullRequest:
        """The PR itself, then its files a page of 100 at a time (at most 30 pages: GitHub
        lists no more than 3,000 files, while `changed_files` counts them all)."""
        gh_repo = self._lazy.get_repo(repo.full_name)
        try:
            pull = gh_repo.get_pull(number)
            # The handle is lazy: reading a field is what sends the request, so do it here.
            merged = bool(pull.merged or pull.merged_at)
        except UnknownObjectException:
            raise self._not_a_pr(repo, number) from None
        except (GithubException, RequestException) as exc:
            raise SourceError(self._describe(exc, f"reading PR #{number}")) from None
        changed = pull.changed_files if isinstance(pull.changed_files, int) else None
        try:
            files = self._files(pull, changed)
        except (GithubException, RequestException) as exc:
            raise SourceError(self._describe(exc, f"reading the files of PR #{number}")) from None
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

    def tag_span(self, repo: RepoInfo, base: str, head: str) -> TagSpan:
        """The commits between tags `base` and `head` (any ref GitHub's compare takes)."""
        gh_repo = self._lazy.get_repo(repo.full_name)
        try:
            comparison = gh_repo.compare(base, head)
            ahead = comparison.ahead_by  # a lazy handle: reading a field sends the request
            start = comparison.merge_base_commit.commit.committer.date
            commits = [(c.sha.lower(), c.commit.committer.date) for c in comparison.commits]
        except UnknownObjectException:
            raise self._missing_tag(repo, base, head) from None
        except (GithubException, RequestException) as exc:
            raise SourceError(self._describe(exc, f"comparing {base} with {head}")) from None
        if not ahead or not commits:
            raise NotFoundError(
                f"Nothing was merged into {repo.full_name} between {base} and {head}: "
                "name the older tag first"
            )
        end = max(_utc(date) for _, date in commits)
        return TagSpan(_utc(start), end, frozenset(sha for sha, _ in commits))

    def _missing_tag(self, repo: RepoInfo, base: str, head: str) -> NotFoundError:
        # Only on the error path: one call a tag tells which of the two GitHub does not know.
        gh_repo = self._lazy.get_repo(repo.full_name)
        for tag in (base, head):
            try:
                gh_repo.get_git_ref(f"tags/{tag}").object  # noqa: B018 - sends the request
            except (GithubException, RequestException):
                return NotFoundError(f"{repo.full_name} has no tag {tag}")
        return NotFoundError(f"GitHub cannot compare {base} with {head} in {repo.full_name}")

    def codeowners(self, info: RepoInfo) -> tuple[str, str] | None:
        """(path, text) of the repository's CODEOWNERS on its default branch, or None.

        GitHub's reading: the first of `CODEOWNERS_LOCATIONS` that is a file, one call per
        location tried (a 404 tries the next). A file of 3 MB or more, which GitHub does not
        load, is passed over like a missing one. A file over 1 MB, whose content the contents
        API leaves out, costs one more call for its blob.
        """
        gh_repo = self._lazy.get_repo(info.full_name)
        for path in CODEOWNERS_LOCATIONS:
            doing = f"reading {path} of {info.full_name}"
            try:
                found = gh_repo.get_contents(path, ref=info.default_branch)
            except UnknownObjectException:
                continue
            except (GithubException, RequestException) as exc:
                raise SourceError(self._describe(exc, doing)) from None
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
                raise SourceError(self._describe(exc, doing)) from None
            return path, data.decode("utf-8-sig", errors="replace")
        return None

    def _describe(self, exc: Exception, doing: str) -> str:
        # GitHub's message is shown to users; a proxy or server that echoes the request's
        # credentials must not put the token in a report, a chat post or the log.
        return mask(_describe(exc, doing, self.endpoint, bool(self._secret)), self._secret)

    def _not_a_pr(self, repo: RepoInfo, number: int) -> NotFoundError:
        # Only on the error path: one more call tells "no such number" from "that is an issue".
        try:
            issue = self._lazy.get_repo(repo.full_name).get_issue(number)
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


def _describe(exc: Exception, doing: str, endpoint: Endpoint, token: bool) -> str:
    if isinstance(exc, GithubException):
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        line = f"GitHub answered {exc.status} while {doing}" + (f": {message}" if message else "")
        return line + _hint(exc.status, message or "", token)
    # requests gives up with RetryError after the retries: name the last status it saw.
    status = re.search(r"too many (\d{3}) error", str(exc))
    if status:
        return f"GitHub answered {status.group(1)} while {doing} (after retries)"
    # No answer at all: where it was going, and the setting that points there.
    line = endpoint.unreachable(exc)
    return line[0].upper() + line[1:]


def _hint(status: int, message: str, token: bool) -> str:
    """What the user can do about an answer that is about the token."""
    if status == 401:
        return " (check GITHUB_TOKEN)"
    if status in (403, 429) and "rate limit" in message.lower() and not token:
        return " (a GITHUB_TOKEN allows 5,000 requests an hour)"
    return ""
