"""Subscriptions: prdigest.toml (refused with line and reason), the environment, and chat."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlite_utils import Database

from bot.chat.commands import SubscriptionCommand, parse_digest_text
from bot.chat.subscribe import handle_subscription_command
from bot.core.errors import ConfigurationError
from bot.core.models import Subscription
from bot.core.post_times import latest_post, next_post, post_instant
from bot.core.settings import Settings
from bot.schedule.subscriptions import (
    StaticSubscriptions,
    Subscriptions,
    configured_subscriptions,
    env_subscriptions,
    load_config,
)
from bot.store.migrations import migrations
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "prdigest.toml"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def settings(**env: str) -> Settings:
    return Settings.from_env(env, dotenv=False)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prdigest.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- the environment alone ---------------------------------------------------------------


def test_the_environment_alone_gives_one_subscription_per_channel():
    subs = env_subscriptions(
        settings(
            PRDIGEST_REPO="vllm-project/vllm",
            PRDIGEST_SLACK_CHANNEL="C0123",
            PRDIGEST_DISCORD_CHANNEL="42",
            PRDIGEST_DIGEST_TIME="7:30",
            PRDIGEST_TIMEZONE="Europe/Berlin",
        )
    )
    assert [(s.platform, s.channel, s.post_time, s.tz_name) for s in subs] == [
        ("slack", "C0123", "07:30", "Europe/Berlin"),
        ("discord", "42", "07:30", "Europe/Berlin"),
    ]


def test_defaults_are_nine_in_the_morning_pacific():
    (sub,) = env_subscriptions(settings(PRDIGEST_REPO="o/r", PRDIGEST_SLACK_CHANNEL="C1"))
    assert (sub.post_time, sub.tz_name) == ("09:00", "America/Los_Angeles")


def test_no_channel_means_no_subscription():
    assert env_subscriptions(settings(PRDIGEST_REPO="o/r")) == []


@pytest.mark.parametrize(
    "env, message",
    [
        ({"PRDIGEST_SLACK_CHANNEL": "C1"}, "PRDIGEST_SLACK_CHANNEL is set but PRDIGEST_REPO is not"),
        ({"PRDIGEST_REPO": "o/r", "PRDIGEST_SLACK_CHANNEL": "C1", "PRDIGEST_DIGEST_TIME": "9am"},
         "PRDIGEST_DIGEST_TIME: '9am' is not a time"),
        ({"PRDIGEST_REPO": "o/r", "PRDIGEST_SLACK_CHANNEL": "C1", "PRDIGEST_TIMEZONE": "Mars/Base"},
         "PRDIGEST_TIMEZONE: Unknown time zone"),
        ({"PRDIGEST_REPO": "o/r", "PRDIGEST_SLACK_CHANNEL": "#general"}, "is not a channel ID"),
    ],
)  # fmt: skip
def test_a_bad_environment_is_one_sentence(env, message):
    with pytest.raises(ConfigurationError, match=message):
        env_subscriptions(settings(**env))


# -- prdigest.toml -----------------------------------------------------------------------


def test_the_example_file_loads():
    subs = load_config(EXAMPLE, settings())
    assert [(s.repo, s.platform, s.post_time, s.tz_name, s.trivial_style) for s in subs] == [
        ("vllm-project/vllm", "slack", "09:00", "America/Los_Angeles", "full"),
        ("vllm-project/vllm", "discord", "09:00", "America/Los_Angeles", "full"),
        ("pytorch/pytorch", "slack", "08:30", "Europe/Berlin", "grouped"),
    ]
    assert subs[0].display_name == "vLLM" and subs[2].display_name is None


def test_the_config_file_wins_over_the_environment_and_env_fills_its_defaults(tmp_path):
    path = write(tmp_path, '[[subscription]]\nrepo = "a/b"\nto = "discord:7"\n')
    subs = configured_subscriptions(
        settings(
            PRDIGEST_CONFIG=str(path),
            PRDIGEST_REPO="o/r",
            PRDIGEST_SLACK_CHANNEL="C1",
            PRDIGEST_DIGEST_TIME="06:15",
        )
    )
    assert [(s.repo, s.platform, s.channel, s.post_time) for s in subs] == [
        ("a/b", "discord", "7", "06:15")
    ]


GOOD = """\
[defaults]
timezone = "Europe/Berlin"

[[subscription]]
repo = "o/r"
to = "slack:C1"

[[subscription]]
repo = "o/s"
to = "slack:C1"
post_time = "10:00"
"""


@pytest.mark.parametrize(
    "old, new, line, reason",
    [
        ('post_time = "10:00"', 'post_time = "25:00"', 11, "'25:00' is not a time"),
        ('repo = "o/s"', 'repo = "not a repo"', 9, "is not a repository"),
        ('to = "slack:C1"\npost', 'to = "slack:#general"\npost', 10, "is not a channel ID"),
        ('to = "slack:C1"\npost', 'to = "email:me"\npost', 10, "is not a target"),
        ('timezone = "Europe/Berlin"', 'timezone = "Europe/Bern"', 2, "Unknown time zone"),
        ('timezone = "Europe/Berlin"', 'timezon = "Europe/Berlin"', 2, "unknown default 'timezon'"),
        ('post_time = "10:00"', 'posttime = "10:00"', 11, "unknown setting 'posttime'"),
        ('post_time = "10:00"', "post_time = 10", 11, "post_time must be a string in quotes"),
        ('repo = "o/s"\n', "", 8, "this subscription has no 'repo'"),
        ('repo = "o/s"', 'repo = "o/r"', 8, "is already subscribed on line 4"),
        ('post_time = "10:00"', 'trivial_style = "tiny"', 11, "trivial_style must be full, compact or grouped"),
        ("[[subscription]]\nrepo = \"o/r\"", "[subscriptions]\nrepo = \"o/r\"", 4,
         "unknown setting 'subscriptions' (did you mean [[subscription]]?)"),
        ('post_time = "10:00"', 'post_time = "10:00', 11, "column"),  # a TOML syntax error
        ('post_time = "10:00"', "post_time = ", 11, "Invalid value"),
    ],
)  # fmt: skip
def test_a_malformed_file_is_refused_with_its_line_and_reason(tmp_path, old, new, line, reason):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ConfigurationError) as err:
        load_config(path, settings())
    message = str(err.value)
    assert message.startswith(f"{path}, line {line}: "), message
    assert reason in message
    assert "\n" not in message


def test_a_file_without_subscriptions_or_that_is_missing_is_refused(tmp_path):
    with pytest.raises(ConfigurationError, match=r"line 1: no subscriptions"):
        load_config(write(tmp_path, "[defaults]\n"), settings())
    with pytest.raises(ConfigurationError, match="does not exist"):
        load_config(tmp_path / "nope.toml", settings())


# -- when a day's digest is due ------------------------------------------------------------


def test_the_post_instant_is_the_next_morning_in_the_zone_across_dst():
    sub = Subscription("o/r", "slack", "C1", post_time="09:00", tz_name="America/Los_Angeles")
    assert post_instant(sub, date(2026, 3, 7)) == datetime(2026, 3, 8, 16, tzinfo=UTC)  # PDT
    assert post_instant(sub, date(2026, 3, 6)) == datetime(2026, 3, 7, 17, tzinfo=UTC)  # PST
    just_before = datetime(2026, 3, 8, 15, 59, tzinfo=UTC)
    assert latest_post(sub, just_before) == datetime(2026, 3, 7, 17, tzinfo=UTC)
    assert next_post(sub, just_before) == datetime(2026, 3, 8, 16, tzinfo=UTC)


# -- chat: the store and /digest subscribe ----------------------------------------------------


class SchedulerStub:
    """What the handler needs of the scheduler: its subscriptions, settings, clock, reload."""

    def __init__(self, subs: Subscriptions, settings: Settings):
        self.subscriptions = subs
        self.settings = settings
        self.reloads = 0

    def clock(self) -> datetime:
        return NOW

    def reload(self) -> None:
        self.reloads += 1


@pytest.fixture
def chat():
    store = SubscriptionStore(Store(":memory:"))
    configured = [Subscription("cfg/repo", "slack", "C1", post_time="08:00", tz_name="UTC")]
    return store, SchedulerStub(Subscriptions(configured, store), settings())


def command(text: str) -> SubscriptionCommand:
    parsed = parse_digest_text(text, default_repo=None, tz_name="America/Los_Angeles")
    assert isinstance(parsed, SubscriptionCommand)
    return parsed


async def test_subscribe_list_and_unsubscribe_from_chat(chat):
    store, scheduler = chat
    answer = await handle_subscription_command(
        command("subscribe vllm-project/vllm at 7:45 tz Europe/Berlin"), "slack", "C1", store,
        scheduler, user="U1",
    )  # fmt: skip
    assert answer == (
        "Subscribed: the digest of vllm-project/vllm is posted here every day at 07:45 "
        "Europe/Berlin, for the day before (next: Sun 22 Nov 07:45 CET)."
    )
    assert scheduler.reloads == 1
    assert [s.repo for s in scheduler.subscriptions.all()] == ["cfg/repo", "vllm-project/vllm"]

    answer = await handle_subscription_command(
        command("subscriptions"), "slack", "C1", store, scheduler
    )
    assert answer == (
        "Digests in this channel: cfg/repo at 08:00 UTC (from the configuration file); "
        "vllm-project/vllm at 07:45 Europe/Berlin."
    )
    other = await handle_subscription_command(
        command("subscriptions"), "slack", "C2", store, scheduler
    )
    assert other.startswith("No daily digest is scheduled in this channel")

    again = await handle_subscription_command(
        command("subscribe vllm-project/vllm at 10:00"), "slack", "C1", store, scheduler
    )
    assert again.startswith(
        "Updated: the digest of vllm-project/vllm is posted here every day at 10:00"
    )
    assert len(store.list("slack", "C1")) == 1

    gone = await handle_subscription_command(
        command("unsubscribe VLLM-project/vllm"), "slack", "C1", store, scheduler
    )
    assert gone == "Unsubscribed: no more daily digest of vllm-project/vllm in this channel."
    assert store.list("slack", "C1") == [] and scheduler.reloads == 3
    missing = await handle_subscription_command(
        command("unsubscribe vllm-project/vllm"), "slack", "C1", store, scheduler
    )
    assert missing == "vllm-project/vllm has no daily digest in this channel."


async def test_only_channels_the_bot_is_in_and_not_over_the_config(chat):
    store, scheduler = chat
    outside = await handle_subscription_command(
        command("subscribe o/r"), "slack", "C9", store, scheduler, bot_in_channel=False
    )
    assert outside.startswith("I am not a member of this channel")
    configured = await handle_subscription_command(
        command("unsubscribe cfg/repo"), "slack", "C1", store, scheduler
    )
    assert configured == "cfg/repo is scheduled here by the configuration file: remove it there."
    assert store.all() == [] and scheduler.reloads == 0


async def test_a_channel_holds_at_most_ten_chat_subscriptions(chat):
    store, scheduler = chat
    for n in range(10):
        await handle_subscription_command(
            command(f"subscribe o/r{n}"), "slack", "C2", store, scheduler
        )
    answer = await handle_subscription_command(
        command("subscribe o/one-more"), "slack", "C2", store, scheduler
    )
    assert answer.startswith("This channel already has 10 daily digests")


def test_first_seen_is_recorded_once_and_forgotten_on_unsubscribe():
    store = SubscriptionStore(Store(":memory:"))
    sub, created = store.add(Subscription("o/r", "discord", "5"))
    assert created and sub.id is not None
    first = store.first_seen(sub, NOW)
    assert store.first_seen(sub, datetime(2030, 1, 1, tzinfo=UTC)) == first == NOW
    store.remove("discord", "5", "o/r")
    assert store.first_seen(sub, datetime(2030, 1, 1, tzinfo=UTC)).year == 2030


def test_static_subscriptions_are_a_source():
    sub = Subscription("o/r", "slack", "C1")
    assert StaticSubscriptions((sub,)).all() == [sub]


# -- the schema ------------------------------------------------------------------------------


def test_a_database_from_the_previous_release_gains_the_tables_and_keeps_its_posts(tmp_path):
    path = tmp_path / "old.db"
    db = Database(sqlite3.connect(path))
    migrations.apply(db, stop_before="m005_subscriptions_and_leases")
    db["posts"].insert({"platform": "slack", "channel": "C1", "repo": "o/r", "day": "2026-02-23",
                        "kind": "parent", "pr_number": 0, "message_id": "1.2"})  # fmt: skip
    db.conn.close()

    store = Store(path)
    assert {"subscriptions", "subscription_starts", "leases"} <= set(store.db.table_names())
    assert store.digest_post("slack", "C1", "o/r", "2026-02-23", "parent").message_id == "1.2"
    SubscriptionStore(store).add(Subscription("o/r", "slack", "C1"))
    with pytest.raises(sqlite3.IntegrityError):  # one schedule per repository and channel
        store.db["subscriptions"].insert({"platform": "slack", "channel": "C1", "repo": "O/R"})
