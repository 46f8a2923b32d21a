"""GitHub: who we are (a token, an App, or anonymous), the rate limit left, each repository readable, and CODEOWNERS
where a subscription's filter needs it.

Through the bot's own client (`bot.app.deferred.github_source`), told not to retry: a doctor
says what GitHub answers now, and never waits out a rate limit (the limit is read first, from
/rate_limit, which costs nothing). Each PyGithub call runs on a thread of its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime

from github import GithubException
from requests.exceptions import RequestException

from bot.app.deferred import github_source
from bot.app.doctor.check import Check, failed, in_thread, passed, skipped, within
from bot.core.codeowners import owner_key, parse_codeowners
from bot.core.day_window import zone
from bot.core.errors import ConfigurationError, NotFoundError, PRDigestError
from bot.core.models import Subscription
from bot.core.scope import subscription_filter
from bot.core.settings import Settings
from bot.digest.github_client import describe_failure
from bot.digest.github_source import GitHubSource, RepoInfo
from bot.digest.ownership import no_codeowners_message

SECONDS = 15.0  # per call: a host that takes the connection and never answers
NEW_TOKEN = (
    "create a token that can read the repositories (GitHub → Settings → Developer settings → "
    "Personal access tokens; fine-grained: Contents and Pull requests, read-only) and set "
    "GITHUB_TOKEN"
)
API_URL_FIX = (
    "check GITHUB_API_URL (GitHub Enterprise: https://HOST/api/v3) and that this machine "
    "can reach it"
)


async def github_checks(settings: Settings, repos: dict[str, str], subs: list[Subscription]):
    """The GitHub lines; `repos` maps each repository to where it is set."""
    try:
        source = github_source(dataclasses.replace(settings, github_retries=0))
    except PRDigestError as exc:  # an App's key that cannot be read
        return [failed("GitHub", str(exc), "fix the App's settings (GITHUB_APP_ID and its key)")]
    where = source.auth.endpoint.place
    who = await within(SECONDS, "GitHub", in_thread(identity, source), where=where)
    if not who.ok:
        return [who]
    first = next(iter(repos), None)
    limit = await within(
        SECONDS, "GitHub rate limit", in_thread(rate_limit, source, settings, first), where=where
    )
    if not limit.ok:
        if source.auth.kind == "anonymous":  # no request before this one: GitHub's own line
            return [dataclasses.replace(limit, name="GitHub")]
        return [who, limit]
    anonymous = source.auth.kind == "anonymous"
    reads = [
        within(SECONDS, f"GitHub {repo}", repo_check(source, repo, origin, anonymous=anonymous))
        for repo, origin in repos.items()
    ]
    owners = [
        within(SECONDS, f"CODEOWNERS of {repo}", codeowners_check(source, repo, teams))
        for repo, teams in codeowners_needed(subs).items()
    ]
    return [who, limit, *await asyncio.gather(*reads, *owners)]


def identity(source: GitHubSource) -> Check:
    """Who GitHub sees (`GitHubClients.identity`: GET /app for an App, GET /user for a token)."""
    try:
        who = source.clients.identity()
    except ConfigurationError as exc:  # an App's credentials refused: the line names them
        return failed("GitHub", str(exc), "fix the App's settings (GITHUB_APP_ID and its key)")
    except PRDigestError as exc:
        text = str(exc)
        if " 403 " in text and source.auth.kind == "token":  # an Actions or App token
            return passed("GitHub", "a token that reads repositories but cannot name its user")
        return failed("GitHub", text, NEW_TOKEN if " 401 " in text else API_URL_FIX)
    return passed("GitHub", f"{who.line}, at {source.auth.endpoint.host}")


def rate_limit(source: GitHubSource, settings: Settings, repo: str | None) -> Check:
    """GET /rate_limit (free of charge) of the client that reads `repo`: an App's limit is
    its installation's."""
    name = "GitHub rate limit"
    if repo is None and source.auth.kind == "app":
        return skipped(
            name, "not checked: an App's limit is per installation, and no repository is set"
        )
    try:
        core = source.clients.for_repo(repo or "").get_rate_limit().resources.core
    except GithubException as exc:
        if exc.status == 404:  # GitHub Enterprise with rate limiting turned off
            return passed(name, "none: this server has rate limiting turned off")
        return failed(name, describe(exc, source, "reading /rate_limit"), API_URL_FIX)
    except ConfigurationError:  # the App is not installed there: the repository's line says
        return skipped(name, f"not checked: the App has no installation on {repo} to ask")
    except (RequestException, PRDigestError) as exc:
        return failed(name, describe(exc, source, "reading /rate_limit"), API_URL_FIX)
    reset = _local_time(core.reset, settings.timezone)
    left = f"{core.remaining:,} of {core.limit:,} requests left this hour (renewed at {reset})"
    if core.remaining > 0:
        return passed(name, left)
    more = (
        ", or set GITHUB_TOKEN (5,000 requests an hour)" if source.auth.kind == "anonymous" else ""
    )
    return failed(name, left, f"wait until {reset}{more}")


async def repo_check(source: GitHubSource, repo: str, where: str, *, anonymous: bool) -> Check:
    name = f"GitHub {repo}"
    try:
        info: RepoInfo = await in_thread(source.repository, repo)
    except NotFoundError:
        access = " (without GITHUB_TOKEN, public ones only)" if anonymous else ""
        return failed(
            name,
            f"not found, or the token cannot read it{access}",
            f"check the name in {where}; for a private repository, give GITHUB_TOKEN read "
            "access to it",
        )
    except ConfigurationError as exc:  # an App not installed there: the line says where to
        return failed(name, str(exc), f"install the App on {repo}, or check the name in {where}")
    except PRDigestError as exc:
        return failed(name, str(exc), source_fix(str(exc)))
    kind = "private" if info.private else "public"
    return passed(name, f"readable ({kind}, default branch {info.default_branch})")


def codeowners_needed(subs: list[Subscription]) -> dict[str, set[str]]:
    """Each repository a codeowners filter reads, with the owners the filters name."""
    needed: dict[str, set[str]] = {}
    for sub in subs:
        terms = subscription_filter(sub).codeowners
        if not terms.is_empty:
            needed.setdefault(sub.repo, set()).update(terms.include)
    return needed


async def codeowners_check(source: GitHubSource, repo: str, teams: set[str]) -> Check:
    name = f"CODEOWNERS of {repo}"
    try:
        info = await in_thread(source.repository, repo)
        found = await in_thread(source.codeowners, info)
    except PRDigestError as exc:
        return failed(name, str(exc), source_fix(str(exc)))
    if found is None:
        return failed(
            name,
            no_codeowners_message(repo),
            "add a CODEOWNERS file to the repository, or drop the codeowners filter",
        )
    path, text = found
    parsed = await in_thread(parse_codeowners, text)
    named = {owner_key(owner) for owner in parsed.all_owners}
    unknown = sorted(team for team in teams if owner_key(team) not in named)
    if unknown:
        return failed(
            name,
            f"{path} never names {', '.join(unknown)}: that filter would post nothing",
            "check the spelling in the filter (the file names "
            f"{', '.join(parsed.all_owners[:5]) or 'nobody'})",
        )
    return passed(name, f"{path}: {len(parsed.rules)} rules, naming {', '.join(sorted(teams))}")


def describe(exc: Exception, source: GitHubSource, doing: str) -> str:
    """GitHub's answer in one line, or where the connection failed. (Every line the doctor
    prints is masked for the settings' secrets, in case GitHub quotes the token.)"""
    if isinstance(exc, PRDigestError):
        return str(exc)
    return describe_failure(exc, doing, source.auth.endpoint, source.auth.credentials)


def source_fix(line: str) -> str:
    """The fix of a failed read, from the line `GitHubSource` made of it."""
    if " 401" in line:
        return NEW_TOKEN
    if " 403" in line:
        return "check that the token may read this repository (a fine-grained token lists them)"
    if line.startswith("Could not reach"):
        return API_URL_FIX
    return "GitHub had trouble answering: run prdigest doctor again in a minute"


def _local_time(moment: datetime, tz_name: str) -> str:
    return moment.astimezone(zone(tz_name)).strftime("%H:%M %Z")
