"""What people type after /digest and /prsummary, on any platform."""

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.chat.commands import (
    RateLimiter,
    SubscriptionCommand,
    parse_digest_text,
    parse_prsummary_text,
)
from bot.core.errors import UserInputError
from bot.core.scope import DigestScope, Span

NOW = datetime(2026, 2, 24, 9, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
TZ = "America/Los_Angeles"


def digest(text):
    return parse_digest_text(text, default_repo="vllm-project/vllm", tz_name=TZ, now=NOW)


@pytest.mark.parametrize(
    "text, repo, day",
    [
        ("", "vllm-project/vllm", date(2026, 2, 23)),
        ("yesterday", "vllm-project/vllm", date(2026, 2, 23)),
        ("2026-02-09", "vllm-project/vllm", date(2026, 2, 9)),
        ("3 days ago", "vllm-project/vllm", date(2026, 2, 21)),
        ("acme/widgets today", "acme/widgets", date(2026, 2, 24)),
        ("2026-02-09 acme/widgets", "acme/widgets", date(2026, 2, 9)),
    ],
)
def test_digest_days_and_repos(text, repo, day):
    request = digest(text)
    assert isinstance(request, DigestScope) and request.span == Span.DAY
    assert (request.repo, request.window.day) == (repo, day)


def test_subscription_commands():
    assert digest("subscribe acme/widgets at 8:30 tz Europe/Berlin") == SubscriptionCommand(
        "subscribe", "acme/widgets", "08:30", "Europe/Berlin"
    )
    assert digest("subscribe acme/widgets") == SubscriptionCommand(
        "subscribe", "acme/widgets", None, TZ
    )
    assert digest("unsubscribe acme/widgets") == SubscriptionCommand("unsubscribe", "acme/widgets")
    assert digest("subscriptions") == SubscriptionCommand("list")


@pytest.mark.parametrize(
    "text",
    [
        "tomorrow",
        "2026-13-01",
        "2027-01-01",
        "a/b c/d",
        "x" * 500,
        "subscribe",
        "subscribe acme/widgets at 25:00",
        "subscribe acme/widgets tz Nowhere/City",
        "subscribe acme/widgets color blue",
        "help",
        "'; DROP TABLE posts; --",
        "$(rm -rf /)",
    ],
)
def test_bad_digest_input_is_one_short_line(text):
    with pytest.raises(UserInputError) as info:
        digest(text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize(
    "text, repo, number",
    [
        ("35156", "vllm-project/vllm", 35156),
        ("#35156", "vllm-project/vllm", 35156),
        (" 35156 ", "vllm-project/vllm", 35156),
        ("acme/widgets#12", "acme/widgets", 12),
        ("https://github.com/acme/widgets/pull/12", "acme/widgets", 12),
        ("https://github.com/acme/widgets/pull/12/files", "acme/widgets", 12),
    ],
)
def test_prsummary_forms(text, repo, number):
    request = parse_prsummary_text(text, default_repo="vllm-project/vllm")
    assert (request.repo, request.number) == (repo, number)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "-5",
        "0",
        "#",
        "٣٥١٥٦",  # Arabic-Indic digits
        "35156 35157",
        "https://evil.example.com/acme/widgets/pull/12",
        "https://github.com/acme/widgets/issues/12",
        "9" * 40,
        "1; rm -rf /",
    ],
)
def test_bad_pr_references(text):
    with pytest.raises(UserInputError):
        parse_prsummary_text(text, default_repo="vllm-project/vllm")


def test_rate_limiter_allows_a_burst_then_refuses_until_the_window_passes():
    limiter = RateLimiter(limit=3, window=60)
    assert [limiter.allow("u", now=t) for t in (0, 1, 2, 3)] == [True, True, True, False]
    assert limiter.allow("other", now=3)
    assert limiter.allow("u", now=61)
