"""Parsing what people type to name a repository or a pull request."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlparse

from bot.core.errors import UserInputError

# GitHub's own limits: owners are 1-39 chars of [A-Za-z0-9-], repo names 1-100 of [A-Za-z0-9._-].
_REPO = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})$")
_MAX_PR_NUMBER = 10**9


def parse_repo(text: str | None) -> str:
    """`owner/name`, validated; a GitHub URL of the repository is accepted too."""
    value = (text or "").strip()
    if not value:
        raise UserInputError("No repository given: pass --repo owner/name or set PRDIGEST_REPO")
    if value.startswith(("http://", "https://")):
        path = urlparse(value).path.strip("/").split("/")
        value = "/".join(path[:2])
    value = value.removesuffix(".git")
    if not _REPO.match(value) or value.split("/")[1] in {".", ".."}:
        raise UserInputError(f"{value[:80]!r} is not a repository: use owner/name")
    return value


@dataclass(frozen=True)
class PRRef:
    number: int
    repo: str | None = None  # None: the channel's or the configured default repo


def parse_pr_ref(text: str, *, github_host: str = "github.com") -> PRRef:
    """Accept `35156`, `#35156`, `owner/repo#35156` or a PR URL on `github_host`."""
    value = (text or "").strip()
    if not value:
        raise UserInputError("Give a PR number, like 35156, #35156, owner/repo#35156 or a PR URL")
    if len(value) > 300:
        raise UserInputError("That is too long to be a PR reference")
    repo: str | None = None
    number_text = value
    if value.startswith(("http://", "https://")):
        url = urlparse(value)
        hosts = {github_host.lower(), "github.com", "www.github.com"}
        if (url.hostname or "").lower() not in hosts:
            raise UserInputError(f"Only links to {github_host} pull requests are accepted")
        parts = url.path.strip("/").split("/")
        if len(parts) < 4 or parts[2] not in {"pull", "pulls"}:
            raise UserInputError("That link is not a pull request link (…/owner/repo/pull/N)")
        repo = parse_repo(f"{parts[0]}/{parts[1]}")
        number_text = parts[3]
    elif "#" in value:
        before, _, number_text = value.rpartition("#")
        if before:
            repo = parse_repo(before)
    # isdecimal() alone would accept non-ASCII digits such as "٣٥"; GitHub numbers are ASCII.
    if not (number_text.isascii() and number_text.isdigit()):
        raise UserInputError(f"{number_text[:40]!r} is not a PR number")
    number = int(number_text)
    if not 0 < number < _MAX_PR_NUMBER:
        raise UserInputError(f"{number_text[:40]} is not a PR number")
    return PRRef(number=number, repo=repo)
