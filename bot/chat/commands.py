"""What `/digest` and `/prsummary` mean, for every chat platform.

Adapters hand over the raw text and who typed it where; they get back a request to carry
out or a short error to show. Parsing, allow-lists and rate limits live here, once.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from datetime import datetime

from bot.core.day_window import parse_day, parse_hhmm, week_start, zone
from bot.core.errors import UserInputError
from bot.core.filters import SubscriptionFilter, parse_filter_args, split_filter_words
from bot.core.post_times import WEEKDAYS
from bot.core.pr_ref import parse_pr_ref, parse_repo
from bot.core.scope import RANGE_JOIN, WEEK_WORD, DigestScope, TagRange, parse_range
from bot.core.search import SearchTerms, parse_search_words
from bot.core.settings import Settings
from bot.digest.service import DigestService

MAX_COMMAND_LENGTH = 400  # room for a few filters

DIGEST_HELP = (
    "Usage: /digest [day | week | D1..D2 | TAG..TAG] [owner/repo] [filters] · "
    "/digest subscribe owner/repo [at HH:MM] [every monday] [quiet skip] [filters] · "
    "/digest unsubscribe owner/repo · /digest subscriptions · "
    "filters: paths: codeowners: labels: authors: bots: types:"
)
PRSUMMARY_HELP = "Usage: /prsummary 35156 (or #35156, owner/repo#35156, or a PR link)"


@dataclass(frozen=True)
class SubscriptionCommand:
    action: str  # "subscribe", "unsubscribe" or "list"
    repo: str | None = None
    post_time: str | None = None
    tz_name: str | None = None
    filter: SubscriptionFilter = field(default_factory=SubscriptionFilter)
    quiet: str | None = None  # "post" or "skip"; None keeps the current one
    weekday: str | None = None  # "every monday": a weekly rollup on that day

    @property
    def filters(self) -> str:
        """The filter as the subscription stores it: its canonical chat form."""
        return self.filter.to_args()


@dataclass(frozen=True)
class PRRequest:
    repo: str
    number: int


# -- /digest search, /digest ask ---------------------------------------------------------

SEARCH_USAGE = (
    "Usage: /digest search fused moe [since:2026-02-01] [until:D] [area:LoRA] "
    "[author:login] [type:substantial]"
)
ASK_USAGE = "Usage: /digest ask what changed in LoRA last week? (the same filters as search)"


@dataclass(frozen=True)
class SearchRequest:
    """`/digest search words filters`: the stored PRs that match, best first."""

    terms: SearchTerms

    @property
    def repo(self) -> str | None:
        return self.terms.repo


@dataclass(frozen=True)
class AskRequest:
    """`/digest ask a question`: an answer from the stored summaries (the question is
    `terms.text`)."""

    terms: SearchTerms

    @property
    def repo(self) -> str | None:
        return self.terms.repo


def parse_search_text(
    value: str, *, tz_name: str, now: datetime | None = None
) -> SearchRequest | AskRequest:
    """`search …` or `ask …` (the text after /digest): its words and filters."""
    word, _, rest = value.partition(" ")
    terms = parse_search_words(rest.split(" "), tz_name, now=now)
    if word.lower() == "ask":
        if not terms.text:
            raise UserInputError(ASK_USAGE)
        return AskRequest(terms)
    if not terms.text and not terms.has_filter:
        raise UserInputError(SEARCH_USAGE)
    return SearchRequest(terms)


def _clean(text: str | None, usage: str = DIGEST_HELP) -> str:
    value = " ".join((text or "").split())
    if len(value) > MAX_COMMAND_LENGTH:
        raise UserInputError("That is too long for a command. " + usage)
    return value


def parse_digest_text(
    text: str | None, *, default_repo: str | None, tz_name: str, now: datetime | None = None
) -> DigestScope | TagRange | SubscriptionCommand | SearchRequest | AskRequest:
    """What `/digest ...` asks for: a digest's scope (a day, a week or a range, with its
    filter; a tag range is resolved when it is built), or a subscription command. Chat words
    become a filter here, once."""
    value = _clean(text)
    if value.partition(" ")[0].lower() in ("search", "ask"):  # before the digest's filters
        return parse_search_text(value, tz_name=tz_name, now=now)
    words, filter_words = split_filter_words(value.split(" ") if value else [])
    flt = parse_filter_args(filter_words) if filter_words else SubscriptionFilter()
    if words and words[0].lower() in {"help", "-h", "--help"}:
        raise UserInputError(DIGEST_HELP)
    if words and words[0].lower() in {"subscribe", "unsubscribe", "subscriptions"}:
        if not flt.is_empty and words[0].lower() != "subscribe":
            raise UserInputError(f"/digest {words[0].lower()} takes no filters")
        return replace(_parse_subscription(words, tz_name), filter=flt)
    repo_words = [w for w in words if "/" in w and not re.fullmatch(r"[\d/]+", w)]
    if len(repo_words) > 1:
        raise UserInputError("Name one repository. " + DIGEST_HELP)
    repo = parse_repo(repo_words[0] if repo_words else default_repo)
    day_words = [w for w in words if w not in repo_words]
    if day_words and day_words[0].lower() == WEEK_WORD:
        first = week_start(" ".join(day_words[1:]), tz_name, now=now)
        return DigestScope.week(repo, first, tz_name, flt)
    day_text = " ".join(day_words) or "yesterday"
    if RANGE_JOIN in day_text:  # "2026-02-01..2026-02-14", "3 days ago..today", "v0.8.0..v0.9.0"
        return parse_range(repo, day_text, tz_name, flt, now=now)
    return DigestScope.day(repo, parse_day(day_text, tz_name, now=now), tz_name, flt)


def _parse_subscription(words: list[str], default_tz: str) -> SubscriptionCommand:
    action = words[0].lower()
    if action == "subscriptions":
        if len(words) > 1:
            raise UserInputError("/digest subscriptions takes no arguments")
        return SubscriptionCommand("list")
    if len(words) < 2:
        raise UserInputError(f"Usage: /digest {action} owner/repo")
    repo = parse_repo(words[1])
    if action == "unsubscribe":
        if len(words) > 2:
            raise UserInputError("Usage: /digest unsubscribe owner/repo")
        return SubscriptionCommand("unsubscribe", repo)
    post_time, tz_name, quiet, weekday = None, None, None, None
    rest = words[2:]
    while rest:
        key = rest.pop(0).lower()
        if not rest:
            raise UserInputError(f"'{key}' needs a value. " + DIGEST_HELP)
        value = rest.pop(0)
        if key == "at":
            post_time = parse_hhmm(value)
        elif key == "tz":
            zone(value)
            tz_name = value
        elif key == "quiet":
            if value.lower() not in ("post", "skip"):
                raise UserInputError(f"quiet is post or skip, not {value[:20]!r}")
            quiet = value.lower()
        elif key == "every":
            if value.lower() not in WEEKDAYS:
                raise UserInputError(f"every takes a day of the week, not {value[:20]!r}")
            weekday = value.lower()
        else:
            raise UserInputError(f"Unknown option {key[:20]!r}. " + DIGEST_HELP)
    return SubscriptionCommand(
        "subscribe", repo, post_time, tz_name or default_tz, quiet=quiet, weekday=weekday
    )


def parse_prsummary_text(text: str | None, *, default_repo: str | None) -> PRRequest:
    value = _clean(text, PRSUMMARY_HELP)  # (the /digest usage line was shown here before)
    if not value or value.lower() in {"help", "-h", "--help"}:
        raise UserInputError(PRSUMMARY_HELP)
    if " " in value:
        raise UserInputError("Give one PR. " + PRSUMMARY_HELP)
    ref = parse_pr_ref(value)
    if ref.repo is None and not default_repo:
        raise UserInputError("No default repository is set: use owner/repo#35156")
    return PRRequest(repo=parse_repo(ref.repo or default_repo), number=ref.number)


class RateLimiter:
    """At most `limit` events per key in any `window` seconds (in memory, per process)."""

    def __init__(self, limit: int, window: float = 60.0):
        self.limit = limit
        self.window = window
        self._events: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, key: str, now: float | None = None, cost: int = 1) -> bool:
        """Record `cost` events for `key` if they fit in the window; False (recording
        nothing) if they do not. A cost above the limit counts as the whole limit."""
        if not self.fits(key, now, cost):
            return False
        if self.limit > 0:
            now = time.monotonic() if now is None else now
            self._events[key].extend([now] * self.counted(cost))
        return True

    def counted(self, cost: int) -> int:
        """How many events `allow(cost=cost)` records."""
        return min(max(cost, 0), self.limit) if self.limit > 0 else 0

    def give_back(self, key: str, at: float, count: int) -> None:
        """Forget up to `count` of the events recorded for `key` at `at` (work that was
        allowed, then not done); events that already left the window are gone anyway."""
        events = self._events[key]
        for _ in range(max(count, 0)):
            try:
                events.remove(at)
            except ValueError:
                return

    def fits(self, key: str, now: float | None = None, cost: int = 1) -> bool:
        """Whether `cost` more events would be allowed now, without recording them."""
        if self.limit <= 0 or cost <= 0:
            return True
        now = time.monotonic() if now is None else now
        events = self._events[key]
        while events and events[0] <= now - self.window:
            events.popleft()
        return len(events) + min(cost, self.limit) <= self.limit


@dataclass(frozen=True)
class Budget:
    """The new summaries a command was allowed, counted against both limits when it was
    accepted (so a burst of commands cannot all pass before any has started); `settle`
    gives back whatever its work did not hand to the model."""

    user_key: str
    channel_key: str
    at: float
    cost: int


class ChatCommands:
    """The platform-neutral side of the slash commands."""

    def __init__(self, service: DigestService, settings: Settings):
        self.service = service
        self.settings = settings
        self.user_limit = RateLimiter(settings.user_llm_per_minute)
        self.channel_limit = RateLimiter(settings.channel_llm_per_minute)

    # -- checks --------------------------------------------------------------------------

    def check_access(self, repo: str | None, channel: str) -> None:
        """PRDIGEST_ALLOWED_REPOS and PRDIGEST_ALLOWED_CHANNELS (either may be unset: all).

        `repo` is None for commands that name none (`/digest subscriptions`): the channel
        allow-list still applies to them.
        """
        allowed_channels = self.settings.allowed_channels
        if allowed_channels and channel not in allowed_channels:
            raise UserInputError("This bot is not enabled in this channel")
        allowed_repos = self.settings.allowed_repos
        if repo is not None and allowed_repos and repo.lower() not in allowed_repos:
            raise UserInputError(f"{repo} is not one of the repositories this bot may summarize")

    def check_llm_budget(self, user: str, channel: str, *, cost: int = 1) -> Budget:
        """Commands that make the LLM work are limited per user and per channel.

        `cost` is the number of new summaries the command may need (see `digest_cost`). It
        is counted now, so that the next command sees it, and `settle` gives back what the
        work did not use: a repository or PR not found, an issue, a summary stored meanwhile
        cost nothing. Nothing is counted when the command is refused.
        """
        user_key, channel_key = f"user:{user}", f"channel:{channel}"
        if not self.user_limit.fits(user_key, cost=cost):
            raise UserInputError(
                "You have asked for a lot of new summaries in the last minute: "
                "please wait a moment and try again."
            )
        if not self.channel_limit.fits(channel_key, cost=cost):
            raise UserInputError(
                "This channel has asked for a lot of new summaries in the last minute: "
                "please wait a moment and try again."
            )
        at = time.monotonic()
        self.user_limit.allow(user_key, now=at, cost=cost)
        self.channel_limit.allow(channel_key, now=at, cost=cost)
        return Budget(user_key, channel_key, at, cost)

    def settle(self, budget: Budget, used: int) -> None:
        """Keep `used` of the summaries `budget` allowed (those the model was asked for, see
        `bot.core.llm_work`), give back the rest."""
        limits = ((self.user_limit, budget.user_key), (self.channel_limit, budget.channel_key))
        for limiter, key in limits:
            counted = limiter.counted(budget.cost)
            limiter.give_back(key, budget.at, counted - min(max(used, 0), counted))

    async def digest_cost(self, request: DigestScope | TagRange) -> int:
        """The new summaries a `/digest` may cost, for `check_llm_budget(cost=...)`.

        0 when the day is listed and every PR in it is summarized already; else the PRs
        still to summarize; a day never listed counts as a user's whole minute (its size is
        only known after asking GitHub, which the 3-second acknowledgement cannot wait for).
        """
        return await self.service.store.aio.read(self._digest_cost, request)

    def _digest_cost(self, request: DigestScope | TagRange) -> int:
        whole_minute = max(1, self.settings.user_llm_per_minute)
        if isinstance(request, TagRange):  # its days are known once GitHub is asked
            return whole_minute
        pending = 0
        for window in request.windows:
            numbers = self.service.store.get_day(request.repo, window)
            if numbers is None:
                return whole_minute
            pending += sum(self.service.needs_summary(request.repo, n) for n in numbers)
        return min(pending, whole_minute)

    # -- /digest -------------------------------------------------------------------------

    def digest_request(
        self, text: str | None, channel: str
    ) -> DigestScope | TagRange | SubscriptionCommand | SearchRequest | AskRequest:
        request = parse_digest_text(
            text, default_repo=self.settings.repo, tz_name=self.settings.timezone
        )
        if isinstance(request, DigestScope):  # a tag range's days are checked once resolved
            request.check_length(self.settings.range_max_days)
        # Every form, `/digest subscriptions` included, is refused outside the allowed channels.
        self.check_access(request.repo, channel)
        return request

    # -- /prsummary ----------------------------------------------------------------------

    def pr_request(self, text: str | None, channel: str) -> PRRequest:
        request = parse_prsummary_text(text, default_repo=self.settings.repo)
        self.check_access(request.repo, channel)
        return request
