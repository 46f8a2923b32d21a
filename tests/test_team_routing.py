"""Each team gets its part: filtered subscriptions, quiet days and the weekly rollup.

Driven as a user drives them: `prdigest post` and `prdigest report` with a prdigest.toml,
and `/digest` in Slack, against the fake GitHub, LLM and Slack.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.chat.commands import SubscriptionCommand, parse_digest_text
from bot.chat.subscribe import handle_subscription_command
from bot.core.errors import UserInputError
from bot.core.scope import DigestScope, Span
from bot.core.settings import Settings
from bot.schedule.subscriptions import Subscriptions
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile
from tests.fakes.slack import BotUnderTest, FakeSlack
from tests.test_subscriptions import SchedulerStub

DAY = "2026-02-23"  # a Monday
CHANNEL = "C0TEAM"

# Four PRs of one day, by what they touch.
FILES = {
    1: ["vllm/v1/attention/backends/flash_attn.py", "tests/v1/test_attention.py"],
    2: ["docs/usage/quickstart.md"],
    3: ["csrc/attention/paged_attention.cu", "vllm/config/cache.py"],
    4: ["vllm/platforms/rocm.py"],
}
CODEOWNERS = """\
# the whole tree
*                       @vllm-project/core
/vllm/platforms/        @vllm-project/rocm-team
/csrc/                  @vllm-project/kernels
/docs/
"""


def add_day(github, day: str = DAY, numbers=(1, 2, 3, 4), offset: int = 0) -> None:
    github.add_prs(
        REPO,
        [
            make_pr(
                n + offset,
                f"{day} 1{n}:00:00",
                file_list=[FakeFile(f, patch="@@ -1 +1,2 @@\n x = 1\n+y = 2\n") for f in FILES[n]],
            )
            for n in numbers
        ],
    )


def write_config(tmp_path: Path, extra: str, channel: str = CHANNEL) -> Path:
    path = tmp_path / f"prdigest-{channel}.toml"
    path.write_text(f'[[subscription]]\nrepo = "{REPO}"\nto = "slack:{channel}"\n{extra}\n')
    return path


@pytest.fixture
def slack_env(env, monkeypatch):
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
        yield slack


def post(monkeypatch, config: Path, day: str = DAY, channel: str = CHANNEL):
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    return CliRunner().invoke(cli, ["post", "--date", day, "--to", f"slack:{channel}"])


def posted_prs(slack: FakeSlack) -> list[int]:
    """The PRs that have a reply of their own in the channel's threads."""
    return [
        m.metadata["event_payload"]["pr"]
        for m in slack.posted(CHANNEL)
        if m.metadata and m.metadata.get("event_type") == "prdigest_pr"
    ]


def parent_text(slack: FakeSlack) -> str:
    parent = next(m for m in slack.posted(CHANNEL) if m.thread_ts is None)
    current = slack.message(CHANNEL, parent.ts) or parent
    return " ".join(b.get("text", {}).get("text", "") for b in current.blocks if "text" in b)


# -- filters ---------------------------------------------------------------------------------


def test_a_paths_subscription_posts_exactly_the_prs_whose_files_match(
    slack_env, github, monkeypatch, tmp_path
):
    add_day(github)
    config = write_config(tmp_path, 'paths = ["vllm/v1/attention/**", "csrc/attention/**"]')
    result = post(monkeypatch, config)
    assert result.exit_code == 0, result.output
    assert sorted(posted_prs(slack_env)) == [1, 3]
    assert "2 of 4 PRs merged on 2026-02-23" in parent_text(slack_env)
    again = post(monkeypatch, config)
    assert again.stderr.startswith("Already posted: ")


def test_a_paths_exclude_drops_a_pr_only_when_all_its_files_are_excluded(
    slack_env, github, monkeypatch, tmp_path
):
    add_day(github)
    config = write_config(tmp_path, 'paths = ["vllm/**", "csrc/**", "!vllm/config/**"]')
    assert post(monkeypatch, config).exit_code == 0
    assert sorted(posted_prs(slack_env)) == [1, 3, 4]  # 3 keeps its kernel file


def test_a_codeowners_subscription_posts_the_prs_the_file_assigns_to_that_owner(
    slack_env, github, monkeypatch, tmp_path
):
    add_day(github)
    github.set_file(REPO, ".github/CODEOWNERS", CODEOWNERS)
    config = write_config(tmp_path, 'codeowners = ["@vllm-project/rocm-team"]')
    assert post(monkeypatch, config).exit_code == 0
    assert posted_prs(slack_env) == [4]
    # Another team's subscription the same day reads CODEOWNERS from the store, not GitHub.
    contents = len(github.contents_requests())
    kernels = write_config(tmp_path, 'codeowners = "@vllm-project/kernels"', channel="C0KERN")
    assert post(monkeypatch, kernels, channel="C0KERN").exit_code == 0
    assert len(github.contents_requests()) == contents
    kernel_replies = [
        m.metadata["event_payload"]["pr"]
        for m in slack_env.posted("C0KERN")
        if m.metadata and m.metadata.get("event_type") == "prdigest_pr"
    ]
    assert kernel_replies == [3]  # csrc/: the last matching line wins over `*`


def test_filtered_subscriptions_share_one_set_of_summaries(
    slack_env, github, llm, monkeypatch, tmp_path
):
    add_day(github)
    for n, paths in enumerate(('"vllm/**"', '"csrc/**"', '"docs/"')):
        config = write_config(tmp_path, f"paths = [{paths}]", channel=f"C0TEAM{n}")
        assert post(monkeypatch, config, channel=f"C0TEAM{n}").exit_code == 0
    assert len(llm.summary_requests) == 4  # one per PR of the day, whatever the filters


# -- quiet days ------------------------------------------------------------------------------


def test_a_quiet_day_posts_one_line_by_default(slack_env, github, monkeypatch, tmp_path):
    add_day(github)
    config = write_config(tmp_path, 'paths = ["benchmarks/**"]')
    assert post(monkeypatch, config).exit_code == 0
    (line,) = slack_env.posted(CHANNEL)
    assert "None of the 4 PRs merged" in line.text


def test_a_quiet_day_can_post_nothing_and_is_recorded_so_it_is_not_retried(
    slack_env, github, monkeypatch, tmp_path
):
    add_day(github)
    config = write_config(tmp_path, 'paths = ["benchmarks/**"]\nquiet = "skip"')
    assert post(monkeypatch, config).exit_code == 0
    assert slack_env.posted(CHANNEL) == []
    db = sqlite3.connect(Settings.from_env(dotenv=False).db_path)
    rows = db.execute("SELECT kind, message_id FROM posts WHERE channel = ?", [CHANNEL]).fetchall()
    assert rows == [("empty", "-")]
    again = post(monkeypatch, config)
    assert again.exit_code == 0 and slack_env.posted(CHANNEL) == []


# -- from chat -------------------------------------------------------------------------------


def parse(text: str):
    return parse_digest_text(text, default_repo=REPO, tz_name="America/Los_Angeles")


async def test_subscribing_from_chat_keeps_the_filters_and_lists_them():
    store = SubscriptionStore(Store(":memory:"))
    scheduler = SchedulerStub(Subscriptions([], store), Settings())
    text = f"subscribe {REPO} paths:vllm/v1/attention/**,csrc/attention/** at 09:00 quiet skip"
    command = parse(text)
    assert isinstance(command, SubscriptionCommand)
    answer = await handle_subscription_command(command, "slack", "C1", store, scheduler)
    assert "only the PRs matching paths vllm/v1/attention/**, csrc/attention/**" in answer
    (saved,) = store.all()
    assert saved.filters == "paths:vllm/v1/attention/**,csrc/attention/**"
    assert saved.quiet == "skip"
    listed = await handle_subscription_command(
        parse("subscriptions"), "slack", "C1", store, scheduler
    )
    assert "paths vllm/v1/attention/**, csrc/attention/**" in listed
    assert "quiet days skipped" in listed


@pytest.mark.parametrize(
    "text, named",
    [
        ("yesterday pahts:vllm/**", "pahts"),
        ("yesterday types:big", "big"),
        ("yesterday bots:sometimes", "sometimes"),
        (f"subscribe {REPO} paths:", "paths"),
    ],
)
def test_a_malformed_filter_is_one_line_naming_the_bad_part(text, named):
    with pytest.raises(UserInputError) as error:
        parse(text)
    assert named in str(error.value) and "\n" not in str(error.value)


def test_week_requests_cover_the_seven_days_ending_yesterday_or_a_monday_to_sunday():
    week_of = parse("week of 2026-02-25")
    assert isinstance(week_of, DigestScope) and week_of.span == Span.WEEK
    assert str(week_of.first) == "2026-02-23"
    assert week_of.shown_day == "the week 2026-02-23 to 2026-03-01"
    filtered = parse("week of 2026-02-23 paths:docs/")
    assert filtered.post_key == "2026-02-23 week paths:docs/"


async def test_an_ad_hoc_filtered_digest_is_posted_once_beside_the_whole_day(env, github):
    add_day(github)
    with FakeSlack() as slack:
        bot = BotUnderTest(env, slack)
        try:
            await bot.command("/digest", f"{DAY} paths:docs/")
            await bot.command("/digest", f"{DAY} paths:docs/")
            await bot.command("/digest", DAY)
        finally:
            await bot.aclose()
        parents = [m for m in slack.posted("C0DIGEST") if m.thread_ts is None]
        assert len(parents) == 2  # the docs digest once, and the whole day
        replies = [
            m.metadata["event_payload"]["pr"]
            for m in slack.posted("C0DIGEST")
            if m.metadata and m.metadata.get("event_type") == "prdigest_pr"
        ]
        assert replies.count(2) == 2 and sorted(set(replies)) == [1, 2, 3, 4]


# -- the weekly rollup -----------------------------------------------------------------------


def test_a_weekly_rollup_over_built_days_makes_no_per_pr_llm_call(env, github, llm, tmp_path):
    add_day(github, "2026-02-23")
    add_day(github, "2026-02-25", offset=10)
    add_day(github, "2026-03-01", numbers=(1, 3), offset=20)  # Sunday, the week's last day
    add_day(github, "2026-03-02", numbers=(2,), offset=30)  # the next Monday: not in it
    runner = CliRunner()
    for day in ("2026-02-23", "2026-02-25", "2026-03-01"):
        assert runner.invoke(cli, ["report", "--date", day]).exit_code == 0
    summaries = len(llm.summary_requests)
    out = tmp_path / "week.md"
    result = runner.invoke(cli, ["report", "--week", "2026-02-26", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(llm.summary_requests) == summaries  # no per-PR call: every day was built
    assert len(llm.highlights_requests) == 1  # the rollup's own overview call
    text = out.read_text()
    assert "Weekly" in text and "**Total Merged PRs:** 10" in text
    again = runner.invoke(cli, ["report", "--week", "2026-02-23"])
    assert again.exit_code == 0 and len(llm.highlights_requests) == 1  # cached with the week


def test_a_weekly_rollup_builds_the_days_not_built_yet_and_says_so(env, github, llm):
    add_day(github, "2026-02-24")
    result = CliRunner().invoke(cli, ["report", "--week", "2026-02-23"])
    assert result.exit_code == 0, result.output
    assert "2026-02-24: 4 PRs ready" in result.stderr
    assert len(llm.summary_requests) == 4


# -- weekly subscriptions ----------------------------------------------------------------------


def test_a_weekly_subscription_posts_on_its_weekday_for_the_seven_days_before():
    from datetime import UTC, datetime

    from bot.core.models import Subscription
    from bot.core.post_times import digest_day, latest_post, next_post

    sub = Subscription(REPO, "slack", "C1", "09:00", "UTC", schedule="weekly", weekday="monday")
    wednesday = datetime(2026, 2, 25, 12, tzinfo=UTC)
    latest = latest_post(sub, wednesday)
    assert latest == datetime(2026, 2, 23, 9, tzinfo=UTC)  # Monday
    assert str(digest_day(sub, latest)) == "2026-02-22"  # the week ends the Sunday before
    assert next_post(sub, wednesday) == datetime(2026, 3, 2, 9, tzinfo=UTC)


def test_a_weekly_subscription_posts_the_rollup_once_with_one_reply_per_area(
    slack_env, github, llm, monkeypatch, tmp_path
):
    add_day(github, "2026-02-23")
    add_day(github, "2026-02-27", numbers=(1, 4), offset=10)
    config = write_config(tmp_path, 'schedule = "weekly"\nweekday = "monday"')
    first = post(monkeypatch, config, day="2026-03-01")  # the week ending Sunday 1 March
    assert first.exit_code == 0, first.output
    messages = slack_env.posted(CHANNEL)
    parents = [m for m in messages if m.thread_ts is None]
    assert len(parents) == 1 and "weekly rollup" in parent_text(slack_env)
    areas = [m for m in messages if (m.metadata or {}).get("event_type") == "prdigest_group"]
    assert areas and not any(
        (m.metadata or {}).get("event_type") == "prdigest_pr" for m in messages
    )  # one line per PR in its area's reply, no reply per PR
    assert "*6* merged" in parent_text(slack_env)
    again = post(monkeypatch, config, day="2026-03-01")
    assert again.exit_code == 0 and len(slack_env.posted(CHANNEL)) == len(messages)


async def test_subscribing_every_monday_from_chat_makes_a_weekly_rollup():
    store = SubscriptionStore(Store(":memory:"))
    scheduler = SchedulerStub(Subscriptions([], store), Settings())
    command = parse(f"subscribe {REPO} every monday at 08:00 paths:docs/")
    answer = await handle_subscription_command(command, "slack", "C1", store, scheduler)
    assert answer.startswith("Subscribed: the weekly rollup of") and "Monday at 08:00" in answer
    (saved,) = store.all()
    assert (saved.schedule, saved.weekday, saved.filters) == ("weekly", "monday", "paths:docs/")


def test_a_codeowners_filter_on_a_repository_without_codeowners_is_a_clear_error(
    slack_env, github, monkeypatch, tmp_path
):
    add_day(github)
    config = write_config(tmp_path, 'codeowners = ["@vllm-project/rocm-team"]')
    result = post(monkeypatch, config)
    assert result.exit_code != 0
    assert "has no CODEOWNERS file" in result.stderr and "Traceback" not in result.output
    assert slack_env.posted(CHANNEL) == []


def test_run_refuses_a_configured_codeowners_subscription_of_a_repository_without_one(
    slack_env, github, monkeypatch, tmp_path
):
    """A subscription in prdigest.toml is "made" when `prdigest run` starts: refused there, in
    one line naming it, before any connection; not left to fail each morning in a log."""
    add_day(github)
    config = write_config(tmp_path, 'codeowners = ["@vllm-project/rocm-team"]')
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test-token")
    result = CliRunner().invoke(cli, ["run"])
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    assert str(config) in line and f"{REPO} to slack:{CHANNEL} filters by codeowners" in line
    assert "has no CODEOWNERS file" in line and "Traceback" not in result.output
    assert slack_env.posted(CHANNEL) == []
