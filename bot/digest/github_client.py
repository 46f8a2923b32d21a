"""The PyGithub client: PyGithub's and urllib3's own retry, told what is worth a retry.

Retried, with a bounded wait: a read timeout or a dropped connection, a 5xx, a 429, and
GitHub's rate limits (GithubRetry reads the 403 and waits for Retry-After or the reset).
Between retries the backoff doubles from PRDIGEST_GITHUB_BACKOFF up to 8 s, so the default 5
retries wait at most 0 + 1 + 2 + 4 + 8 = 15 s in all; a Retry-After counts up to 2 minutes.

Not retried: a connection that waiting cannot make. A host name that does not resolve, a refused
connection, a connect timeout (urllib3 counts all three as connect errors) and a TLS failure
("other" errors) fail at the first try.

Every request is counted in `prdigest_github_requests` by its status ("error" when no answer
came): urllib3 asks the retry about each answer (`is_retry`) and is told of each failure
(`increment` with an error), retries and token minting included, so the retry class is the
one place that sees them all without reaching into PyGithub's requester.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from github import Auth, Github, GithubException, GithubIntegration
from github.GithubRetry import GithubRetry

from bot.core.endpoints import Endpoint
from bot.core.metrics import GITHUB_REQUESTS

log = logging.getLogger(__name__)

PER_PAGE = 100  # the most GitHub gives in one page
BACKOFF_MAX = 8.0  # seconds between two retries, at most
RETRY_AFTER_MAX = 120  # seconds of a Retry-After honoured, as the openai client does
# GitHub's primary limit resets within the hour: a bot waits it out (and says so, below).
MAX_RATE_LIMIT_WAIT = 3700
NOTICE_AFTER = 10.0  # a wait this long is said on stderr: nothing else shows it


class _Retry(GithubRetry):
    """GithubRetry that says so when it is about to wait long: a rate limit's reset can be
    most of an hour away, and the library's own log lines are not shown."""

    anonymous = False  # no GITHUB_TOKEN: a used-up limit is worth a hint

    def new(self, **kw: Any) -> _Retry:
        retry = super().new(**kw)
        retry.anonymous = self.anonymous
        return retry

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        # Asked of every answer, once: requests turns urllib3's redirects off, so no answer
        # takes the redirect path that skips this question.
        GITHUB_REQUESTS.labels(status=str(status_code)).inc()
        return super().is_retry(method, status_code, has_retry_after)

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> GithubRetry:
        # Told of every request that got no answer (an answer came through is_retry).
        if response is None and error is not None:
            GITHUB_REQUESTS.labels(status="error").inc()
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def sleep(self, response: Any = None) -> None:
        wait = self._planned(response)
        if wait >= NOTICE_AFTER:
            if response is not None and response.headers.get("X-RateLimit-Remaining") == "0":
                hint = " (a GITHUB_TOKEN allows 5,000 requests an hour)" if self.anonymous else ""
                log.warning("GitHub's rate limit is used up: waiting %.0f s for it%s", wait, hint)
            else:
                log.warning("GitHub asked to wait: trying again in %.0f s", wait)
        super().sleep(response)

    def _planned(self, response: Any) -> float:
        """The wait urllib3's `sleep` is about to make: Retry-After, else the backoff."""
        try:
            after = self.get_retry_after(response) if response is not None else None
        except Exception:  # a malformed header: urllib3 handles it, the notice need not
            after = None
        if after and self.respect_retry_after_header:
            return after
        return self.get_backoff_time()


def github_retry(retries: int, backoff: float, *, anonymous: bool = False) -> GithubRetry:
    retry = _Retry(
        total=retries,
        connect=0,
        other=0,
        # GithubRetry adds 403, which it retries only for a rate limit.
        status_forcelist=[429, *range(500, 600)],
        backoff_factor=backoff,
        backoff_max=BACKOFF_MAX,
        retry_after_max=RETRY_AFTER_MAX,
        max_rate_limit_wait=MAX_RATE_LIMIT_WAIT,
    )
    retry.anonymous = anonymous
    return retry


def make_github(
    api_url: str,
    auth: Auth.Auth | str | None,
    *,
    timeout: int,
    retries: int,
    backoff: float,
) -> Github:
    """A client signed in with `auth`: a token's text, an `Auth` (an App installation's), or
    None for anonymous reads."""
    if isinstance(auth, str):
        auth = Auth.Token(auth)
    return Github(
        base_url=api_url,
        auth=auth,
        **_options(timeout, retries, backoff, anonymous=auth is None),
    )


def make_integration(
    api_url: str, app: Auth.AppAuth, *, timeout: int, retries: int, backoff: float
) -> GithubIntegration:
    """The App's own client (its requests signed with a JWT): it finds installations and mints
    their tokens, with the same retries as every other request."""
    return GithubIntegration(base_url=api_url, auth=app, **_options(timeout, retries, backoff))


def _options(timeout: int, retries: int, backoff: float, *, anonymous: bool = False) -> dict:
    return {
        "per_page": PER_PAGE,
        "timeout": timeout,  # to connect, and then for each answer
        # Requests go out one at a time (the digest's fetcher is a single sequential task),
        # which is what GitHub asks of clients to avoid its secondary rate limits. PyGithub's
        # default 0.25 s pause between reads would add 25 s to a 50-PR day for no benefit:
        # serial reads are within GitHub's guidance, and the retry honours Retry-After and
        # waits out X-RateLimit-Reset when a limit is hit anyway. We never write (minting an
        # App's token is a POST, but not a write to any repository).
        "seconds_between_requests": None,
        "seconds_between_writes": None,
        "retry": github_retry(retries, backoff, anonymous=anonymous),
    }


def describe_failure(
    exc: Exception, doing: str, endpoint: Endpoint, credentials: str | None
) -> str:
    """One line for a failed request: GitHub's status and message, or why no answer came.
    `credentials` names the settings GitHub was signed in with (None: anonymous)."""
    if isinstance(exc, GithubException):
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        line = f"GitHub answered {exc.status} while {doing}" + (f": {message}" if message else "")
        return line + _hint(exc.status, message or "", credentials)
    # requests gives up with RetryError after the retries: name the last status it saw.
    status = re.search(r"too many (\d{3}) error", str(exc))
    if status:
        return f"GitHub answered {status.group(1)} while {doing} (after retries)"
    # No answer at all: where it was going, and the setting that points there.
    line = endpoint.unreachable(exc)
    return line[0].upper() + line[1:]


def _hint(status: int, message: str, credentials: str | None) -> str:
    """What the user can do about an answer that is about the credentials."""
    if status == 401:
        return f" (check {credentials or 'GITHUB_TOKEN'})"
    if status in (403, 429) and "rate limit" in message.lower() and not credentials:
        return " (a GITHUB_TOKEN allows 5,000 requests an hour)"
    return ""
