"""A fake GitHub REST API, shaped the way PyGithub parses it.

Usage::

    with FakeGitHub() as srv:
        srv.add_repo("acme/widgets")
        srv.add_pr("acme/widgets", FakePR(number=1, title="Fix bug", merged_at=...))
        srv.set_file("acme/widgets", ".github/CODEOWNERS", "* @acme/core\n")
        gh = Github(base_url=srv.url, auth=Auth.Token("t"))

Paths are accepted with or without the GitHub Enterprise ``/api/v3`` prefix; URLs inside the
JSON echo whichever form the request used, because PyGithub follows those URLs (``url``,
``Link`` headers) verbatim.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, unquote, urlencode

from tests.fakes.github_app import FakeGitHubApp
from tests.fakes.http_server import FakeHTTPServer, RecordedRequest, Response, reason

DOCS = "https://docs.github.com/rest"
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
MAX_PR_FILES = 3000  # GitHub stops listing a PR's files after 3000
MAX_SEARCH_RESULTS = 1000  # the search API only ever exposes the first 1000 hits
MAX_INLINE_CONTENT = 1024 * 1024  # the contents API leaves out the content of larger files

_UNSEARCHABLE_MESSAGE = (
    "The listed users and repositories cannot be searched either because the resources do "
    "not exist or you do not have permission to view them."
)


def iso(dt: datetime | None) -> str | None:
    """GitHub's timestamp format: UTC, second precision, ``Z`` suffix."""
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sha(*parts: object) -> str:
    return hashlib.sha1("\0".join(map(str, parts)).encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


# --------------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------------


@dataclass
class FakeFile:
    """A file changed by a PR. ``additions``/``deletions`` default to counts from ``patch``."""

    filename: str
    status: str = "modified"  # added | removed | modified | renamed | copied | changed | unchanged
    additions: int | None = None
    deletions: int | None = None
    patch: str | None = None  # None => key omitted (binary file or diff too large)
    previous_filename: str | None = None

    def __post_init__(self) -> None:
        lines = (self.patch or "").splitlines()
        if self.additions is None:
            self.additions = sum(
                1 for ln in lines if ln.startswith("+") and not ln.startswith("+++")
            )
        if self.deletions is None:
            self.deletions = sum(
                1 for ln in lines if ln.startswith("-") and not ln.startswith("---")
            )


@dataclass
class FakePR:
    """A pull request. ``state`` is ``merged`` | ``open`` | ``closed`` (closed = unmerged).

    Defaults: a merged PR without ``merged_at`` is merged "now"; ``created_at`` defaults to two
    hours before the merge (or one day ago); SHAs are derived deterministically from the number.
    """

    number: int
    title: str
    author: str = "octocat"
    state: str = "merged"
    merged_at: datetime | None = None
    merged_by: str | None = None
    body: str | None = None
    labels: list[str] = field(default_factory=list)
    base_ref: str = "main"
    head_sha: str = ""
    merge_commit_sha: str = ""
    files: list[FakeFile] = field(default_factory=list)
    created_at: datetime | None = None
    head_ref: str = ""
    updated_at: datetime | None = None
    closed_at: datetime | None = None
    commits: int = 1
    draft: bool = False

    def __post_init__(self) -> None:
        if self.state not in ("merged", "open", "closed"):
            raise ValueError(f"FakePR.state must be merged|open|closed, not {self.state!r}")
        for name in ("merged_at", "created_at", "updated_at", "closed_at"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise ValueError(f"FakePR.{name} must be timezone-aware")
        if self.state == "merged" and self.merged_at is None:
            self.merged_at = _now()
        if self.state != "merged" and self.merged_at is not None:
            raise ValueError("merged_at is only valid when state == 'merged'")
        if self.created_at is None:
            self.created_at = (
                self.merged_at - timedelta(hours=2)
                if self.merged_at
                else _now() - timedelta(days=1)
            )
        if self.closed_at is None and self.state != "open":
            self.closed_at = self.merged_at or self.created_at + timedelta(hours=1)
        if self.updated_at is None:
            self.updated_at = self.closed_at or self.created_at
        self.head_sha = self.head_sha or _sha("head", self.number, self.title)
        self.merge_commit_sha = self.merge_commit_sha or _sha("merge", self.number, self.title)
        self.head_ref = self.head_ref or f"feature/pr-{self.number}"

    @property
    def merged(self) -> bool:
        return self.state == "merged"

    @property
    def api_state(self) -> str:
        return "open" if self.state == "open" else "closed"


@dataclass
class FakeIssue:
    """A plain issue (not a PR)."""

    number: int
    title: str
    body: str | None = None
    author: str = "octocat"
    state: str = "open"  # open | closed
    labels: list[str] = field(default_factory=list)
    created_at: datetime = field(default_factory=lambda: _now() - timedelta(days=1))
    updated_at: datetime | None = None
    closed_at: datetime | None = None


@dataclass
class FakeCommit:
    """A commit pushed to the default branch that is no PR's merge (see FakeGitHub.add_commit)."""

    sha: str
    message: str
    date: datetime


@dataclass
class FakeRepo:
    id: int
    owner: str
    name: str
    default_branch: str = "main"
    private: bool = False
    pulls: dict[int, FakePR] = field(default_factory=dict)
    issues: dict[int, FakeIssue] = field(default_factory=dict)
    # The files of each branch (ref -> path -> bytes); see FakeGitHub.set_file.
    files: dict[str, dict[str, bytes]] = field(default_factory=dict)
    # The default branch's history is linear: each merged PR's merge commit at its merge
    # time, and the commits pushed directly (add_commit). Tags name commits of it.
    pushed: list[FakeCommit] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)  # name -> sha

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def history(self) -> list[FakeCommit]:
        """The default branch's commits, oldest first."""
        merges = [
            FakeCommit(pr.merge_commit_sha, f"{pr.title} (#{pr.number})", pr.merged_at)
            for pr in self.pulls.values()
            if pr.merged and pr.base_ref == self.default_branch and pr.merged_at is not None
        ]
        return sorted([*merges, *self.pushed], key=lambda c: (c.date, c.sha))

    def commit_index(self, ref: str) -> int | None:
        """Where a tag, the default branch or a SHA (7 characters or more) is in `history`."""
        history = self.history()
        if ref == self.default_branch:
            return len(history) - 1 if history else None
        sha = self.tags.get(ref, ref).lower()
        found = [i for i, c in enumerate(history) if len(sha) >= 7 and c.sha.startswith(sha)]
        return found[0] if len(found) == 1 else None

    def tree(self, ref: str | None) -> dict[str, bytes] | None:
        """The files of `ref` (the default branch when None), or None for an unknown ref."""
        ref = ref or self.default_branch
        if ref == self.default_branch:
            return self.files.setdefault(ref, {})
        return self.files.get(ref)


@dataclass
class DateRange:
    """Inclusive range; ``None`` means open-ended (``*`` in GitHub syntax)."""

    start: datetime | None
    end: datetime | None

    def contains(self, dt: datetime | None) -> bool:
        if dt is None:
            return False
        if self.start is not None and dt < self.start:
            return False
        return not (self.end is not None and dt > self.end)


@dataclass
class SearchQuery:
    """A parsed ``/search/issues`` query, recorded in :attr:`FakeGitHub.search_queries`."""

    raw: str
    repos: list[str] = field(default_factory=list)
    is_: set[str] = field(default_factory=set)  # pr, issue, merged, unmerged, open, closed
    base: str | None = None
    merged: DateRange | None = None
    created: DateRange | None = None
    updated: DateRange | None = None
    authors: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)  # free text (ignored when matching)
    ignored: list[str] = field(default_factory=list)  # unsupported qualifiers
    sort: str | None = None
    order: str = "desc"
    per_page: int = DEFAULT_PER_PAGE
    page: int = 1


# --------------------------------------------------------------------------------------------
# Search query parsing
# --------------------------------------------------------------------------------------------

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_github_datetime(text: str, *, end: bool) -> datetime:
    """Parse a search date. Date-only values cover the whole (UTC) day; naive times are UTC."""
    if _DATE_ONLY.match(text):
        day = datetime.fromisoformat(text).replace(tzinfo=UTC)
        return day + timedelta(days=1, microseconds=-1) if end else day
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def parse_date_range(value: str) -> DateRange:
    """Parse ``A..B``, ``A..*``, ``*..B``, ``>=A``, ``>A``, ``<=B``, ``<B`` or ``A``."""
    if ".." in value:
        start_s, end_s = value.split("..", 1)
        start = None if start_s in ("", "*") else parse_github_datetime(start_s, end=False)
        stop = None if end_s in ("", "*") else parse_github_datetime(end_s, end=True)
        return DateRange(start, stop)
    for op in (">=", "<=", ">", "<"):
        if value.startswith(op):
            rest = value[len(op) :]
            if op == ">=":
                return DateRange(parse_github_datetime(rest, end=False), None)
            if op == ">":
                after = parse_github_datetime(rest, end=True)
                return DateRange(after + timedelta(microseconds=1), None)
            if op == "<=":
                return DateRange(None, parse_github_datetime(rest, end=True))
            before = parse_github_datetime(rest, end=False)
            return DateRange(None, before - timedelta(microseconds=1))
    return DateRange(
        parse_github_datetime(value, end=False), parse_github_datetime(value, end=True)
    )


def parse_search_query(raw: str) -> SearchQuery:
    # A '+' in a UTC offset that reached us unencoded decodes as a space; put it back.
    fixed = re.sub(r"(T\d{2}:\d{2}(?::\d{2})?) (\d{2}:?\d{2})", r"\1+\2", raw)
    try:
        tokens = shlex.split(fixed)
    except ValueError:
        tokens = fixed.split()
    query = SearchQuery(raw=raw)
    for token in tokens:
        key, sep, value = token.partition(":")
        if not sep or not value or key.startswith("-"):
            (query.terms if not sep else query.ignored).append(token)
            continue
        key = key.lower()
        try:
            if key == "repo":
                query.repos.append(value.lower())
            elif key in ("is", "type", "state"):
                value = value.lower()
                query.is_.add({"pull-request": "pr"}.get(value, value))
            elif key == "base":
                query.base = value
            elif key in ("merged", "created", "updated"):
                setattr(query, key, parse_date_range(value))
            elif key == "author":
                query.authors.append(value.lower())
            elif key == "label":
                query.labels.append(value.lower())
            else:
                query.ignored.append(token)
        except ValueError:
            query.ignored.append(token)  # an unparsable date: GitHub would also not filter
    return query


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

_REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"


class FakeGitHub(FakeHTTPServer):
    """Fake GitHub REST API.

    Args:
        html_base: base for ``html_url`` links (default ``https://github.com``).
        token: when set, requests whose ``Authorization`` carries another token get 401
            "Bad credentials"; requests without ``Authorization`` are anonymous (private
            repositories are then 404, as on GitHub).
        latency: seconds to sleep before answering each request.
    """

    path_prefixes = ("/api/v3",)

    def __init__(
        self,
        *,
        html_base: str = "https://github.com",
        token: str | None = None,
        latency: float = 0.0,
    ) -> None:
        super().__init__(latency=latency)
        self.html_base = html_base.rstrip("/")
        self.token = token
        self.search_queries: list[SearchQuery] = []
        self.rate_limit = 5000
        self.search_rate_limit = 30
        self._rate_reset = int(time.time()) + 3600
        self._used = {"core": 0, "search": 0}
        self._repos: dict[str, FakeRepo] = {}
        # Primary rate limits whose X-RateLimit-Reset is set when they first fire (see
        # inject_rate_limit(after=...)): fault id -> (fault, seconds until reset).
        self._live_resets: dict[int, tuple[Any, float]] = {}
        self._data_lock = threading.RLock()
        self._next_id = 1000
        self.app: FakeGitHubApp | None = None  # see use_app

        self.route("GET", r"/rate_limit", self._get_rate_limit)
        self.route("GET", r"/user", self._get_user)
        self.route("GET", r"/search/issues", self._search_issues)
        self.route("GET", _REPO, self._get_repo)
        self.route("GET", _REPO + r"/pulls", self._list_pulls)
        self.route("GET", _REPO + r"/pulls/(?P<number>\d+)", self._get_pull)
        self.route("GET", _REPO + r"/pulls/(?P<number>\d+)/files", self._get_pull_files)
        self.route("GET", _REPO + r"/issues/(?P<number>\d+)", self._get_issue)
        self.route("GET", _REPO + r"/contents(?:/(?P<path>.*))?", self._get_contents)
        self.route("GET", _REPO + r"/git/blobs/(?P<sha>[0-9a-fA-F]{40})", self._get_blob)
        self.route("GET", _REPO + r"/compare/(?P<base>.+?)\.\.\.(?P<head>.+)", self._compare)
        self.route("GET", _REPO + r"/git/ref/(?P<ref>.+)", self._get_git_ref)
        self.route("GET", _REPO + r"/tags", self._list_tags)

    # -- data loading ----------------------------------------------------------------------

    def _new_id(self) -> int:
        with self._data_lock:
            self._next_id += 1
            return self._next_id

    def add_repo(
        self, full_name: str, default_branch: str = "main", private: bool = False
    ) -> FakeRepo:
        owner, _, name = full_name.partition("/")
        if not owner or not name or "/" in name:
            raise ValueError(f"repository must be 'owner/name', got {full_name!r}")
        repo = FakeRepo(self._new_id(), owner, name, default_branch, private)
        with self._data_lock:
            self._repos[full_name.lower()] = repo
        return repo

    def repo(self, full_name: str) -> FakeRepo:
        with self._data_lock:
            return self._repos[full_name.lower()]

    def has_repo(self, full_name: str) -> bool:
        with self._data_lock:
            return full_name.lower() in self._repos

    def use_app(self, app: FakeGitHubApp) -> FakeGitHubApp:
        """Serve a GitHub App (tests/fakes/github_app.py): its JWT endpoints, and its
        installation tokens accepted, each for its own repositories until it expires."""
        self.app = app
        app.attach(self)
        return app

    def add_pr(self, repo: str, pr: FakePR) -> FakePR:
        r = self.repo(repo)
        with self._data_lock:
            if pr.number in r.issues:
                raise ValueError(f"#{pr.number} is already an issue in {repo}")
            r.pulls[pr.number] = pr
        return pr

    def add_prs(self, repo: str, prs: list[FakePR]) -> None:
        for pr in prs:
            self.add_pr(repo, pr)

    def add_issue(self, repo: str, number: int, title: str, **kwargs: Any) -> FakeIssue:
        """Add a plain issue; extra kwargs go to :class:`FakeIssue` (body, author, state...)."""
        r = self.repo(repo)
        issue = FakeIssue(number, title, **kwargs)
        with self._data_lock:
            if number in r.pulls:
                raise ValueError(f"#{number} is already a pull request in {repo}")
            r.issues[number] = issue
        return issue

    def add_commit(self, repo: str, message: str, date: datetime, sha: str = "") -> str:
        """Push a commit that is no PR's merge to the default branch; returns its SHA."""
        commit = FakeCommit(sha or _sha("commit", repo, message, date), message, date)
        with self._data_lock:
            self.repo(repo).pushed.append(commit)
        return commit.sha

    def add_tag(self, repo: str, name: str, sha: str) -> None:
        """Tag a commit of the default branch (a PR's ``merge_commit_sha``, an add_commit's)."""
        with self._data_lock:
            self.repo(repo).tags[name] = sha

    def set_file(
        self, repo: str, path: str, content: str | bytes | None, *, ref: str | None = None
    ) -> None:
        """Put a file in a branch of `repo` (the default branch unless `ref` names another),
        served by ``GET /repos/{owner}/{repo}/contents/{path}?ref=``; ``None`` removes it."""
        r = self.repo(repo)
        path = path.strip("/")
        if not path:
            raise ValueError("a file needs a path")
        with self._data_lock:
            files = r.files.setdefault(ref or r.default_branch, {})
            if content is None:
                files.pop(path, None)
            else:
                files[path] = content.encode() if isinstance(content, str) else content

    def contents_requests(self, repo: str | None = None) -> list[RecordedRequest]:
        """The contents API requests received (for one repository when given)."""
        prefix = rf"/repos/{re.escape(repo)}" if repo else r"/repos/[^/]+/[^/]+"
        return [r for r in self.requests if re.search(prefix + r"/contents(/|$)", r.path, re.I)]

    # -- fault helpers ---------------------------------------------------------------------

    def inject_rate_limit(
        self,
        path_regex: str = r".",
        *,
        times: int = 1,
        reset_in: float = 1.0,
        secondary: bool = False,
        after: int = 0,
    ) -> None:
        """Primary (403, remaining 0, reset) or secondary (403 + Retry-After) rate limiting.

        ``after=K`` lets K matching requests through first: a limit hit in the middle of a run.
        The reset time is computed when the limit first answers, not when it is installed.
        """
        reset = str(int(time.time() + reset_in))
        if secondary:
            body = {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
            }
            headers = {"Retry-After": str(max(0, round(reset_in)))}
        else:
            body = {
                "message": "API rate limit exceeded for user ID 1.",
                "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
            }
            headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
        fault = self.inject(path_regex, 403, body=body, headers=headers, times=times, after=after)
        if not secondary:
            self._live_resets[id(fault)] = (fault, reset_in)

    def _take_fault(self, req: RecordedRequest):  # type: ignore[override]
        fault = super()._take_fault(req)
        live = self._live_resets.get(id(fault)) if fault is not None else None
        if live is not None and fault is not None and fault.fired == 1:
            # The window resets `reset_in` seconds after the limit was first hit.
            fault.headers["X-RateLimit-Reset"] = str(math.ceil(time.time() + live[1]))
        return fault

    # -- hooks -----------------------------------------------------------------------------

    def default_headers(self, req: RecordedRequest, resp: Response) -> dict[str, str]:
        resource = "search" if req.route_path.startswith("/search/") else "core"
        limit = self.search_rate_limit if resource == "search" else self.rate_limit
        with self._data_lock:
            self._used[resource] += 1
            used = self._used[resource]
        return {
            "Content-Type": "application/json; charset=utf-8",
            "Server": "github.com",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "X-GitHub-Request-Id": _sha("req", time.monotonic_ns())[:20].upper(),
            "X-RateLimit-Limit": str(limit),
            # Never report 0 on our own: clients may sleep until reset. Use inject_rate_limit.
            "X-RateLimit-Remaining": str(max(1, limit - used)),
            "X-RateLimit-Reset": str(self._rate_reset),
            "X-RateLimit-Used": str(used),
            "X-RateLimit-Resource": resource,
        }

    def error_body(self, status: int, headers: dict[str, str], req: RecordedRequest) -> Any:
        lowered = {k.lower(): v for k, v in headers.items()}
        if status == 403 and lowered.get("x-ratelimit-remaining") == "0":
            message = "API rate limit exceeded for user ID 1."
        elif status in (403, 429) and "retry-after" in lowered:
            message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
        elif status >= 500:
            message = "Server Error"
        elif status == 422:
            message = "Validation Failed"
        else:
            message = reason(status)
        return {"message": message, "documentation_url": DOCS, "status": str(status)}

    def not_found(self, req: RecordedRequest) -> Response:
        return _error(404, "Not Found")

    # -- URL helpers -----------------------------------------------------------------------

    def _api(self, req: RecordedRequest) -> str:
        """API base URL matching the request's form (with ``/api/v3`` when it used it)."""
        prefix = (
            req.path[: len(req.path) - len(req.route_path)] if req.route_path != req.path else ""
        )
        return self.url + prefix

    def _authorized(self, req: RecordedRequest) -> Response | None:
        auth = req.header("authorization")
        if self.app is not None:
            return self.app.authorize(req, self.token)
        if self.token is None or auth is None:
            return None
        scheme, _, value = auth.partition(" ")
        if scheme.lower() in ("token", "bearer") and value == self.token:
            return None
        return _error(401, "Bad credentials")

    def _repo_or_error(self, req: RecordedRequest, m: re.Match[str]) -> FakeRepo | Response:
        """The repository the path names, or GitHub's answer when it may not be read: 401 for
        a refused token, 404 for one missing or not visible to the caller."""
        if (denied := self._authorized(req)) is not None:
            return denied
        repo = self._find_repo(req, m["owner"], m["name"])
        return _error(404, "Not Found") if repo is None else repo

    def _find_repo(self, req: RecordedRequest, owner: str, name: str) -> FakeRepo | None:
        with self._data_lock:
            repo = self._repos.get(f"{owner}/{name}".lower())
        if repo is None or (repo.private and req.header("authorization") is None):
            return None
        if self.app is not None and not self.app.can_read(req, repo.full_name):
            return None
        return repo

    # -- JSON builders ---------------------------------------------------------------------

    def user_json(self, api: str, login: str) -> dict[str, Any]:
        uid = int(_sha("user", login)[:7], 16)
        return {
            "login": login,
            "id": uid,
            "node_id": f"U_{uid}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "gravatar_id": "",
            "url": f"{api}/users/{login}",
            "html_url": f"{self.html_base}/{login.removesuffix('[bot]')}",
            "type": "Bot" if login.endswith("[bot]") else "User",
            "site_admin": False,
        }

    def repo_json(self, api: str, repo: FakeRepo) -> dict[str, Any]:
        base = f"{api}/repos/{repo.full_name}"
        created = datetime(2020, 1, 1, tzinfo=UTC)
        return {
            "id": repo.id,
            "node_id": f"R_{repo.id}",
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "visibility": "private" if repo.private else "public",
            "owner": self.user_json(api, repo.owner),
            "html_url": f"{self.html_base}/{repo.full_name}",
            "description": None,
            "fork": False,
            "url": base,
            "pulls_url": base + "/pulls{/number}",
            "issues_url": base + "/issues{/number}",
            "commits_url": base + "/commits{/sha}",
            "clone_url": f"{self.html_base}/{repo.full_name}.git",
            "created_at": iso(created),
            "updated_at": iso(created),
            "pushed_at": iso(created),
            "default_branch": repo.default_branch,
            "archived": False,
            "disabled": False,
            "has_issues": True,
            "open_issues_count": 0,
            "permissions": {"admin": False, "push": False, "pull": True},
        }

    def label_json(self, api: str, repo: FakeRepo, name: str) -> dict[str, Any]:
        lid = int(_sha("label", repo.full_name, name)[:7], 16)
        return {
            "id": lid,
            "node_id": f"LA_{lid}",
            "url": f"{api}/repos/{repo.full_name}/labels/{quote(name)}",
            "name": name,
            "color": "ededed",
            "default": False,
            "description": None,
        }

    def _pr_urls(self, api: str, repo: FakeRepo, number: int) -> dict[str, str]:
        html = f"{self.html_base}/{repo.full_name}/pull/{number}"
        return {
            "url": f"{api}/repos/{repo.full_name}/pulls/{number}",
            "html_url": html,
            "diff_url": html + ".diff",
            "patch_url": html + ".patch",
        }

    def issue_json(self, api: str, repo: FakeRepo, item: FakePR | FakeIssue) -> dict[str, Any]:
        """Issue-shaped JSON for an issue or a PR (search results, ``/issues/{n}``)."""
        base = f"{api}/repos/{repo.full_name}"
        is_pr = isinstance(item, FakePR)
        url = f"{base}/issues/{item.number}"
        data: dict[str, Any] = {
            "url": url,
            "repository_url": base,
            "labels_url": url + "/labels{/name}",
            "comments_url": url + "/comments",
            "events_url": url + "/events",
            "timeline_url": url + "/timeline",
            "html_url": f"{self.html_base}/{repo.full_name}/{'pull' if is_pr else 'issues'}/{item.number}",
            "id": int(_sha("issue", repo.full_name, item.number)[:8], 16),
            "node_id": f"{'PR' if is_pr else 'I'}_{repo.id}_{item.number}",
            "number": item.number,
            "title": item.title,
            "user": self.user_json(api, item.author),
            "labels": [self.label_json(api, repo, name) for name in item.labels],
            "state": item.api_state if isinstance(item, FakePR) else item.state,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": 0,
            "created_at": iso(item.created_at),
            "updated_at": iso(item.updated_at or item.created_at),
            "closed_at": iso(item.closed_at),
            "author_association": "CONTRIBUTOR",
            "active_lock_reason": None,
            "body": item.body,
            "reactions": {"url": url + "/reactions", "total_count": 0},
            "performed_via_github_app": None,
            "state_reason": None if is_pr or item.state == "open" else "completed",
        }
        if isinstance(item, FakePR):
            data["draft"] = item.draft
            data["pull_request"] = {
                **self._pr_urls(api, repo, item.number),
                "merged_at": iso(item.merged_at),
            }
        return data

    def _ref_json(self, api: str, repo: FakeRepo, ref: str, sha: str) -> dict[str, Any]:
        return {
            "label": f"{repo.owner}:{ref}",
            "ref": ref,
            "sha": sha,
            "user": self.user_json(api, repo.owner),
            "repo": self.repo_json(api, repo),
        }

    def pull_json(
        self, api: str, repo: FakeRepo, pr: FakePR, *, full: bool = True
    ) -> dict[str, Any]:
        """Pull request JSON; ``full=False`` is the shorter shape used by list endpoints."""
        base = f"{api}/repos/{repo.full_name}"
        urls = self._pr_urls(api, repo, pr.number)
        data: dict[str, Any] = {
            **urls,
            "id": int(_sha("pr", repo.full_name, pr.number)[:8], 16),
            "node_id": f"PR_{repo.id}_{pr.number}",
            "issue_url": f"{base}/issues/{pr.number}",
            "commits_url": urls["url"] + "/commits",
            "review_comments_url": urls["url"] + "/comments",
            "review_comment_url": base + "/pulls/comments{/number}",
            "comments_url": f"{base}/issues/{pr.number}/comments",
            "statuses_url": f"{base}/statuses/{pr.head_sha}",
            "number": pr.number,
            "state": pr.api_state,
            "locked": False,
            "title": pr.title,
            "user": self.user_json(api, pr.author),
            "body": pr.body,
            "labels": [self.label_json(api, repo, name) for name in pr.labels],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": iso(pr.created_at),
            "updated_at": iso(pr.updated_at),
            "closed_at": iso(pr.closed_at),
            "merged_at": iso(pr.merged_at),
            "merge_commit_sha": pr.merge_commit_sha,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "draft": pr.draft,
            "head": self._ref_json(api, repo, pr.head_ref, pr.head_sha),
            "base": self._ref_json(
                api, repo, pr.base_ref, _sha("base", repo.full_name, pr.base_ref)
            ),
            "_links": {
                "self": {"href": urls["url"]},
                "html": {"href": urls["html_url"]},
                "issue": {"href": f"{base}/issues/{pr.number}"},
            },
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
        }
        if full:
            data.update(
                {
                    "merged": pr.merged,
                    "mergeable": None if pr.state != "open" else True,
                    "rebaseable": None if pr.state != "open" else True,
                    "mergeable_state": "unknown" if pr.state != "open" else "clean",
                    "merged_by": self.user_json(api, pr.merged_by) if pr.merged_by else None,
                    "comments": 0,
                    "review_comments": 0,
                    "maintainer_can_modify": False,
                    "commits": pr.commits,
                    "additions": sum(f.additions or 0 for f in pr.files),
                    "deletions": sum(f.deletions or 0 for f in pr.files),
                    "changed_files": len(pr.files),
                }
            )
        return data

    def file_json(self, api: str, repo: FakeRepo, pr: FakePR, f: FakeFile) -> dict[str, Any]:
        path = quote(f.filename)
        data: dict[str, Any] = {
            "sha": _sha("blob", f.filename, f.patch),
            "filename": f.filename,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": (f.additions or 0) + (f.deletions or 0),
            "blob_url": f"{self.html_base}/{repo.full_name}/blob/{pr.head_sha}/{path}",
            "raw_url": f"{self.html_base}/{repo.full_name}/raw/{pr.head_sha}/{path}",
            "contents_url": f"{api}/repos/{repo.full_name}/contents/{path}?ref={pr.head_sha}",
        }
        if f.patch is not None:
            data["patch"] = f.patch
        if f.previous_filename is not None:
            data["previous_filename"] = f.previous_filename
        return data

    def content_json(
        self, api: str, repo: FakeRepo, ref: str, path: str, data: bytes | None, *, full: bool
    ) -> dict[str, Any]:
        """A file (``data``) or directory (``None``) as the contents API shows it; ``full``
        adds a file's base64 content (left out, ``"encoding": "none"``, over 1 MB)."""
        is_file = data is not None
        sha = _blob_sha(data) if data is not None else _sha("tree", repo.full_name, ref, path)
        qpath = quote(path)
        url = f"{api}/repos/{repo.full_name}/contents/{qpath}?ref={quote(ref, safe='')}"
        git_url = f"{api}/repos/{repo.full_name}/git/{'blobs' if is_file else 'trees'}/{sha}"
        html_url = (
            f"{self.html_base}/{repo.full_name}/{'blob' if is_file else 'tree'}/{ref}/{qpath}"
        )
        body: dict[str, Any] = {
            "type": "file" if is_file else "dir",
            "size": len(data) if data is not None else 0,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "url": url,
            "git_url": git_url,
            "html_url": html_url,
            "download_url": (
                f"{self.html_base}/{repo.full_name}/raw/{ref}/{qpath}" if is_file else None
            ),
            "_links": {"self": url, "git": git_url, "html": html_url},
        }
        if full and data is not None:
            inline = len(data) <= MAX_INLINE_CONTENT
            body["encoding"] = "base64" if inline else "none"
            body["content"] = _wrapped_base64(data) if inline else ""
        return body

    # -- pagination ------------------------------------------------------------------------

    def _page_params(self, req: RecordedRequest) -> tuple[int, int]:
        try:
            per_page = int(req.query.get("per_page", DEFAULT_PER_PAGE))
        except ValueError:
            per_page = DEFAULT_PER_PAGE
        try:
            page = int(req.query.get("page", 1))
        except ValueError:
            page = 1
        per_page = DEFAULT_PER_PAGE if per_page < 1 else min(per_page, MAX_PER_PAGE)
        return per_page, max(page, 1)

    def _link_header(self, req: RecordedRequest, page: int, last_page: int) -> dict[str, str]:
        """RFC 5988 ``Link`` header with absolute URLs, in GitHub's rel order."""
        if last_page <= 1:
            return {}

        def page_url(n: int) -> str:
            params = [(k, v) for k, vs in req.query_lists.items() if k != "page" for v in vs]
            params.append(("page", str(n)))
            return f"{self.url}{req.path}?{urlencode(params)}"

        links: list[str] = []
        if page > 1:
            links.append(f'<{page_url(min(page - 1, last_page))}>; rel="prev"')
        if page < last_page:
            links.append(f'<{page_url(page + 1)}>; rel="next"')
            links.append(f'<{page_url(last_page)}>; rel="last"')
        if page > 1:
            links.append(f'<{page_url(1)}>; rel="first"')
        return {"Link": ", ".join(links)} if links else {}

    # -- handlers --------------------------------------------------------------------------

    def _get_rate_limit(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        def res(limit: int, used: int, reset: int) -> dict[str, int]:
            return {"limit": limit, "used": used, "remaining": max(1, limit - used), "reset": reset}

        with self._data_lock:
            used = dict(self._used)
        core = res(self.rate_limit, used["core"], self._rate_reset)
        search = res(self.search_rate_limit, used["search"], self._rate_reset)
        return Response(200, {"resources": {"core": core, "search": search}, "rate": core})

    def _get_user(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._authorized(req)) is not None:
            return denied
        if req.header("authorization") is None:
            return _error(401, "Requires authentication")
        return Response(200, self.user_json(self._api(req), "prdigest-bot"))

    def _get_repo(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        return Response(200, self.repo_json(self._api(req), repo))

    def _get_pr_or_404(
        self, req: RecordedRequest, m: re.Match[str]
    ) -> tuple[FakeRepo, FakePR] | Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        with self._data_lock:
            pr = repo.pulls.get(int(m["number"]))
        if pr is None:  # includes plain issues, as on GitHub
            return _error(404, "Not Found")
        return repo, pr

    def _get_pull(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        found = self._get_pr_or_404(req, m)
        if isinstance(found, Response):
            return found
        repo, pr = found
        return Response(200, self.pull_json(self._api(req), repo, pr))

    def _get_pull_files(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        found = self._get_pr_or_404(req, m)
        if isinstance(found, Response):
            return found
        repo, pr = found
        files = pr.files[:MAX_PR_FILES]
        per_page, page = self._page_params(req)
        last_page = max(1, -(-len(files) // per_page))
        chunk = files[(page - 1) * per_page : page * per_page]
        api = self._api(req)
        body = [self.file_json(api, repo, pr, f) for f in chunk]
        return Response(200, body, self._link_header(req, page, last_page))

    def _list_pulls(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        state = req.query.get("state", "open")
        with self._data_lock:
            prs = [
                pr
                for pr in repo.pulls.values()
                if (state == "all" or pr.api_state == state)
                and ("base" not in req.query or pr.base_ref == req.query["base"])
            ]
        sort = req.query.get("sort", "created")
        key = {"updated": lambda p: p.updated_at}.get(sort, lambda p: p.created_at)
        # GitHub: desc when sorting by creation (the default sort), asc otherwise.
        default_direction = "desc" if sort == "created" else "asc"
        prs.sort(
            key=lambda p: (key(p), p.number),
            reverse=req.query.get("direction", default_direction) == "desc",
        )
        per_page, page = self._page_params(req)
        last_page = max(1, -(-len(prs) // per_page))
        api = self._api(req)
        body = [
            self.pull_json(api, repo, pr, full=False)
            for pr in prs[(page - 1) * per_page : page * per_page]
        ]
        return Response(200, body, self._link_header(req, page, last_page))

    def _get_issue(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        number = int(m["number"])
        with self._data_lock:
            item: FakePR | FakeIssue | None = repo.pulls.get(number) or repo.issues.get(number)
        if item is None:
            return _error(404, "Not Found")
        return Response(200, self.issue_json(self._api(req), repo, item))

    def _search_issues(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._authorized(req)) is not None:
            return denied
        raw = req.query.get("q", "")
        if not raw.strip():
            return _validation_failed("q", "missing")
        query = parse_search_query(raw)
        query.per_page, query.page = self._page_params(req)
        query.sort = req.query.get("sort")
        query.order = req.query.get("order", "desc").lower()
        with self._data_lock:
            self.search_queries.append(query)
            repos: list[FakeRepo] = []
            for full_name in query.repos:
                repo = self._repos.get(full_name)
                if repo is None or (repo.private and req.header("authorization") is None):
                    return _validation_failed("q", "invalid", message=_UNSEARCHABLE_MESSAGE)
                repos.append(repo)
            if not query.repos:
                repos = list(self._repos.values())
            hits = [
                (repo, item)
                for repo in repos
                for item in self._items(repo)
                if _matches(query, item)
            ]

        if query.sort in ("created", "updated"):
            attr = f"{query.sort}_at"
            hits.sort(
                key=lambda h: (getattr(h[1], attr) or h[1].created_at, h[1].number),
                reverse=query.order != "asc",
            )
        else:  # "best match": we approximate it as newest-created first
            hits.sort(key=lambda h: (h[1].created_at, h[1].number), reverse=True)

        per_page, page = query.per_page, query.page
        if (page - 1) * per_page >= MAX_SEARCH_RESULTS:
            return _error(422, "Only the first 1000 search results are available")
        visible = min(len(hits), MAX_SEARCH_RESULTS)
        last_page = max(1, -(-visible // per_page))
        chunk = hits[(page - 1) * per_page : min(page * per_page, visible)]
        api = self._api(req)
        items = [{**self.issue_json(api, repo, item), "score": 1.0} for repo, item in chunk]
        body = {"total_count": len(hits), "incomplete_results": False, "items": items}
        return Response(200, body, self._link_header(req, page, last_page))

    def _get_contents(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        ref = req.query.get("ref") or repo.default_branch
        path = unquote(m["path"] or "").strip("/")
        api = self._api(req)
        with self._data_lock:
            tree = repo.tree(ref)
            if tree is None:
                return _error(404, f"No commit found for the ref {ref}")
            files = dict(tree)
        if path in files:
            return Response(200, self.content_json(api, repo, ref, path, files[path], full=True))
        prefix = f"{path}/" if path else ""
        children: dict[str, bytes | None] = {}
        for name, data in files.items():
            if name.startswith(prefix):
                head, sep, _ = name[len(prefix) :].partition("/")
                children[prefix + head] = None if sep else data
        if not children:
            return _error(404, "Not Found")
        listing = [
            self.content_json(api, repo, ref, name, data, full=False)
            for name, data in sorted(children.items())
        ]
        return Response(200, listing)

    def _get_blob(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        sha = m["sha"].lower()
        with self._data_lock:
            blobs = {_blob_sha(d): d for tree in repo.files.values() for d in tree.values()}
        data = blobs.get(sha)
        if data is None:
            return _error(404, "Not Found")
        body = {
            "sha": sha,
            "node_id": f"B_{sha[:12]}",
            "size": len(data),
            "url": f"{self._api(req)}/repos/{repo.full_name}/git/blobs/{sha}",
            "content": _wrapped_base64(data),
            "encoding": "base64",
        }
        return Response(200, body)

    def commit_json(self, api: str, repo: FakeRepo, commit: FakeCommit, parent: str | None):
        base = f"{api}/repos/{repo.full_name}"
        person = {"name": "Octo Cat", "email": "octocat@example.com", "date": iso(commit.date)}
        return {
            "sha": commit.sha,
            "node_id": f"C_{commit.sha[:12]}",
            "url": f"{base}/commits/{commit.sha}",
            "html_url": f"{self.html_base}/{repo.full_name}/commit/{commit.sha}",
            "commit": {
                "author": person,
                "committer": person,
                "message": commit.message,
                "tree": {"sha": _sha("tree", commit.sha), "url": f"{base}/git/trees/x"},
                "url": f"{base}/git/commits/{commit.sha}",
                "comment_count": 0,
            },
            "author": None,
            "committer": None,
            "parents": [{"sha": parent, "url": f"{base}/commits/{parent}"}] if parent else [],
        }

    def _compare(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        """GitHub's compare of two refs on the (linear) default branch: the commits after
        `base` up to `head`, oldest first, ``per_page`` (250 by default, at most 1000) a page."""
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        with self._data_lock:
            history = repo.history()
            base, head = (
                repo.commit_index(unquote(m["base"])),
                repo.commit_index(unquote(m["head"])),
            )
        if base is None or head is None:
            return _error(404, "Not Found")
        between = history[base + 1 : head + 1]
        try:
            per_page = min(max(int(req.query.get("per_page", 250)), 1), 1000)
            page = max(int(req.query.get("page", 1)), 1)
        except ValueError:
            per_page, page = 250, 1
        api = self._api(req)

        def commit(i: int) -> dict[str, Any]:
            return self.commit_json(api, repo, history[i], history[i - 1].sha if i else None)

        first = base + 1 + (page - 1) * per_page
        url = f"{api}/repos/{repo.full_name}/compare/{m['base']}...{m['head']}"
        body = {
            "url": url,
            "html_url": f"{self.html_base}/{repo.full_name}/compare/{m['base']}...{m['head']}",
            "permalink_url": url,
            "diff_url": url + ".diff",
            "patch_url": url + ".patch",
            "base_commit": commit(base),
            "merge_base_commit": commit(min(base, head)),
            "status": "ahead" if head > base else ("behind" if head < base else "identical"),
            "ahead_by": max(head - base, 0),
            "behind_by": max(base - head, 0),
            "total_commits": len(between),
            "commits": [commit(i) for i in range(first, min(first + per_page, head + 1))],
            "files": [],
        }
        last_page = max(1, -(-len(between) // per_page))
        return Response(200, body, self._link_header(req, page, last_page))

    def _get_git_ref(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        ref = unquote(m["ref"])
        kind, _, name = ref.partition("/")
        with self._data_lock:
            sha = repo.tags.get(name) if kind == "tags" else None
            if kind == "heads" and name == repo.default_branch and repo.history():
                sha = repo.history()[-1].sha
        if sha is None:
            return _error(404, "Not Found")
        base = f"{self._api(req)}/repos/{repo.full_name}"
        return Response(200, {
            "ref": f"refs/{ref}",
            "node_id": f"REF_{_sha(ref)[:12]}",
            "url": f"{base}/git/refs/{ref}",
            "object": {"type": "commit", "sha": sha, "url": f"{base}/git/commits/{sha}"},
        })  # fmt: skip

    def _list_tags(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        repo = self._repo_or_error(req, m)
        if isinstance(repo, Response):
            return repo
        with self._data_lock:
            tags = sorted(repo.tags.items(), reverse=True)
        per_page, page = self._page_params(req)
        base = f"{self._api(req)}/repos/{repo.full_name}"
        body = [
            {"name": name, "commit": {"sha": sha, "url": f"{base}/commits/{sha}"},
             "zipball_url": f"{base}/zipball/refs/tags/{name}",
             "tarball_url": f"{base}/tarball/refs/tags/{name}", "node_id": f"TAG_{name}"}
            for name, sha in tags[(page - 1) * per_page : page * per_page]
        ]  # fmt: skip
        return Response(200, body, self._link_header(req, page, max(1, -(-len(tags) // per_page))))

    @staticmethod
    def _items(repo: FakeRepo) -> list[FakePR | FakeIssue]:
        return [*repo.pulls.values(), *repo.issues.values()]


def _matches(q: SearchQuery, item: FakePR | FakeIssue) -> bool:
    is_pr = isinstance(item, FakePR)
    state = item.api_state if isinstance(item, FakePR) else item.state
    checks = {
        "pr": is_pr,
        "issue": not is_pr,
        "merged": isinstance(item, FakePR) and item.merged,
        "unmerged": isinstance(item, FakePR) and item.state == "closed",
        "open": state == "open",
        "closed": state == "closed",
    }
    if not all(checks.get(flag, True) for flag in q.is_):  # unknown is:/type: values ignored
        return False
    if q.base is not None and not (isinstance(item, FakePR) and item.base_ref == q.base):
        return False
    if q.merged is not None and not (
        isinstance(item, FakePR) and q.merged.contains(item.merged_at)
    ):
        return False
    if q.created is not None and not q.created.contains(item.created_at):
        return False
    if q.updated is not None and not q.updated.contains(item.updated_at or item.created_at):
        return False
    if q.authors and item.author.lower() not in q.authors:
        return False
    item_labels = {label.lower() for label in item.labels}
    return all(label in item_labels for label in q.labels)


def _blob_sha(data: bytes) -> str:
    """Git's object id of a blob, as GitHub shows it in ``sha``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _wrapped_base64(data: bytes) -> str:
    """Base64 in lines of 60 characters, each ending in a newline, as GitHub sends it."""
    text = base64.b64encode(data).decode()
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def _error(status: int, message: str) -> Response:
    return Response(status, {"message": message, "documentation_url": DOCS, "status": str(status)})


def _validation_failed(field_name: str, code: str, message: str | None = None) -> Response:
    error: dict[str, Any] = {"resource": "Search", "field": field_name, "code": code}
    if message:
        error["message"] = message
    body = {
        "message": "Validation Failed",
        "errors": [error],
        "documentation_url": f"{DOCS}/search/search#search-issues-and-pull-requests",
        "status": "422",
    }
    return Response(422, body)
