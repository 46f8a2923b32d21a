"""A day is a whole calendar day in the configured zone, 23 or 25 hours across DST."""

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.day_window import day_window, parse_day
from bot.core.errors import UserInputError
from bot.digest.github_source import RepoInfo, search_query

NOW = datetime(2026, 3, 10, 8, 0, tzinfo=ZoneInfo("America/Los_Angeles"))


def test_an_ordinary_pacific_day_is_24_hours_from_midnight_to_midnight():
    window = day_window(date(2026, 2, 23), "America/Los_Angeles")
    assert window.start.isoformat() == "2026-02-23T00:00:00-08:00"
    assert window.end.isoformat() == "2026-02-24T00:00:00-08:00"
    assert window.end - window.start == timedelta(hours=24)
    assert window.tz_abbrev == "PST"


def test_spring_forward_day_is_23_hours():
    window = day_window(date(2026, 3, 8), "America/Los_Angeles")
    assert (window.end.timestamp() - window.start.timestamp()) / 3600 == 23
    assert window.end.isoformat() == "2026-03-09T00:00:00-07:00"
    assert window.tz_abbrev == "PDT"


def test_fall_back_day_is_25_hours():
    window = day_window(date(2026, 11, 1), "America/Los_Angeles")
    assert (window.end.timestamp() - window.start.timestamp()) / 3600 == 25
    assert window.start.isoformat() == "2026-11-01T00:00:00-07:00"
    assert window.tz_abbrev == "PST"


def test_other_zones_show_their_own_abbreviation():
    assert day_window(date(2026, 2, 23), "Europe/Berlin").tz_abbrev == "CET"
    assert day_window(date(2026, 7, 1), "Europe/Berlin").tz_abbrev == "CEST"
    assert day_window(date(2026, 7, 1), "America/Los_Angeles").tz_abbrev == "PDT"


def test_window_contains_its_first_instant_but_not_the_next_midnight():
    window = day_window(date(2026, 2, 23), "America/Los_Angeles")
    assert window.contains(window.start)
    assert window.contains(window.end - timedelta(seconds=1))
    assert not window.contains(window.end)


def test_search_query_uses_explicit_offsets_and_stops_a_second_before_midnight():
    window = day_window(date(2026, 3, 8), "America/Los_Angeles")
    query = search_query(RepoInfo("vllm-project/vllm", "main", "https://github.com/x/y"), window)
    assert query == (
        "repo:vllm-project/vllm is:pr is:merged base:main "
        "merged:2026-03-08T00:00:00-08:00..2026-03-08T23:59:59-07:00"
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-02-23", date(2026, 2, 23)),
        ("today", date(2026, 3, 10)),
        ("yesterday", date(2026, 3, 9)),
        ("Yesterday ", date(2026, 3, 9)),
        ("1 day ago", date(2026, 3, 9)),
        ("3 days ago", date(2026, 3, 7)),
    ],
)
def test_dates_people_type(text, expected):
    assert parse_day(text, "America/Los_Angeles", now=NOW) == expected


def test_today_and_yesterday_are_the_zones_not_utcs():
    # 20:00 Pacific on March 9 is already March 10 in UTC.
    evening = datetime(2026, 3, 9, 20, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
    assert parse_day("today", "America/Los_Angeles", now=evening) == date(2026, 3, 9)


@pytest.mark.parametrize(
    "text, message",
    [
        ("2026-03-11", "in the future"),
        ("2026-02-30", "no such day"),
        ("23/02/2026", "Bad date"),
        ("tomorrow", "Bad date"),
        ("", "Bad date"),
        ("1999-01-01", "before GitHub"),
    ],
)
def test_bad_dates_are_one_line_errors(text, message):
    with pytest.raises(UserInputError, match=message) as info:
        parse_day(text, "America/Los_Angeles", now=NOW)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["Mars/Olympus", "", "../etc/passwd", "PST8PDT "])
def test_unknown_zones_are_refused(name):
    with pytest.raises(UserInputError, match="Unknown time zone"):
        day_window(date(2026, 2, 23), name)
