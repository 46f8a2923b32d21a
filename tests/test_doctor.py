"""`prdigest doctor`: one line per configured part, ✓ or ✗ with the fix, exit 0 only when all
pass; parts not configured are named and skipped. It changes nothing (no post, no channel
joined, no database written), makes at most one LLM request, never prints a secret, and a
dead or silent host costs it seconds, not minutes. `prdigest run` runs the same checks at start
and logs each failure.

Every service is one of the local fakes, reached through the real clients.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.doctor import github as github_doctor
from bot.app.doctor import llm as llm_doctor
from bot.app.doctor import runner as doctor_runner
from bot.app.doctor.runner import check_at_start
from bot.core.models import Subscription
from bot.core.settings import Settings
from bot.store.store import Store
from bot.store.subscriptions import SubscriptionStore
from tests.conftest import REPO
from tests.fakes.discord import FakeDiscord
from tests.fakes.github import FakeGitHub
from tests.fakes.github_app import FakeGitHubApp
from tests.fakes.openai_api import FakeOpenAI
from tests.fakes.slack import DEFAULT_SCOPES, FakeSlack

CHANNEL = "C0DIGEST"
SKIPPED, PASSED, FAILED = "·", "✓", "✗"


def doctor(*args: str):
    return CliRunner().invoke(cli, ["doctor", *args])


def line(result, name: str) -> str:
    """The one line of check `name` (its mark, then `name:`)."""
    found = [ln for ln in result.output.splitlines() if ln[2:].startswith(f"{name}:")]
    assert len(found) == 1, f"no single line for {name!r} in:\n{result.output}"
    return found[0]


@pytest.fixture
def everything(env, github, llm, slack, fake, monkeypatch) -> SimpleNamespace:
    """GitHub, the LLM, Slack and Discord all configured, as a user's .env would have them."""
    for name, value in {
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_APP_TOKEN": slack.app_token,
        "SLACK_API_URL": slack.api_url,
        "PRDIGEST_SLACK_CHANNEL": CHANNEL,
        "DISCORD_BOT_TOKEN": fake.token,
        "DISCORD_API_URL": fake.api_url,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "PRDIGEST_DISCORD_CHANNEL": fake.channel_id,
        "PRDIGEST_DISCORD_GUILDS": fake.guild_id,
    }.items():
        monkeypatch.setenv(name, value)
    return SimpleNamespace(github=github, llm=llm, slack=slack, discord=fake)


# -- all is well -----------------------------------------------------------------------------


def test_everything_configured_passes_one_line_each_and_exits_0(everything):
    result = doctor()
    assert result.exit_code == 0, result.output
    assert line(result, "GitHub").startswith(f"{PASSED} GitHub: the token of @prdigest-bot")
    assert "requests left this hour" in line(result, "GitHub rate limit")
    assert line(result, f"GitHub {REPO}") == (
        f"{PASSED} GitHub {REPO}: readable (public, default branch main)"
    )
    assert "serving 3 models" in line(result, "LLM endpoint")
    assert line(result, "LLM model") == f"{PASSED} LLM model: gpt-4.1-mini is served"
    assert "answered in the summary schema" in line(result, "LLM structured output")
    assert line(result, "Slack") == f"{PASSED} Slack: signed in as @prdigest in Fake Team"
    assert line(result, "Slack scopes").startswith(f"{PASSED} Slack scopes: the manifest's 6")
    assert line(result, f"Slack channel {CHANNEL}").startswith(PASSED)
    assert line(result, "Slack Socket Mode").startswith(PASSED)
    assert line(result, "Discord") == f"{PASSED} Discord: signed in as prdigest"
    assert line(result, "Discord servers") == f"{PASSED} Discord servers: in 1: Test Guild"
    assert "#pr-digests: the bot has every permission" in line(
        result, f"Discord channel {everything.discord.channel_id}"
    )
    assert line(result, "Time zone").startswith(f"{PASSED} Time zone: America/Los_Angeles")
    assert "the digest at " in line(result, f"Next post to slack:{CHANNEL} ({REPO})")
    assert FAILED not in result.output
    assert result.output.rstrip().endswith("checks passed.")


def test_it_changes_nothing_and_asks_the_llm_once(everything):
    """No post, no join, no write anywhere: every request is a read, and one LLM call."""
    result = doctor()
    assert result.exit_code == 0, result.output
    assert everything.llm.completions_count == 1
    slack_methods = {r.path.rsplit("/", 1)[-1] for r in everything.slack.requests}
    assert slack_methods <= {
        "auth.test", "conversations.info", "conversations.history", "apps.connections.open"
    }  # fmt: skip
    assert everything.slack.posted() == []
    assert {call.method for call in everything.discord.calls} == {"GET"}
    assert {r.method for r in everything.github.requests} == {"GET"}


def test_an_existing_database_is_read_not_written(everything, tmp_path):
    Store(tmp_path / "prdigest.db").close()
    before = dump(tmp_path / "prdigest.db")
    result = doctor()
    assert result.exit_code == 0, result.output
    assert "writable, schema up to date" in line(result, "Database")
    assert dump(tmp_path / "prdigest.db") == before  # not even the LLM call is logged


def test_a_database_not_created_yet_is_named_and_not_created(everything, tmp_path):
    result = doctor()
    assert line(result, "Database") == (
        f"{PASSED} Database: {tmp_path / 'prdigest.db'} (not created yet: the first report or "
        "run creates it)"
    )
    assert not (tmp_path / "prdigest.db").exists()


def test_chat_subscriptions_are_read_from_the_database_and_checked(everything, tmp_path):
    store = Store(tmp_path / "prdigest.db")
    SubscriptionStore(store).add(Subscription(repo=REPO, platform="slack", channel="C0CHAT"))
    store.close()
    everything.slack.not_member.add("C0CHAT")
    result = doctor()
    assert line(result, "Subscriptions") == (
        f"{PASSED} Subscriptions: 2 subscriptions from the environment, and 1 from /digest "
        "subscribe"
    )
    assert line(result, "Slack channel C0CHAT").startswith(f"{FAILED} Slack channel C0CHAT: ")
    assert line(result, f"Next post to slack:C0CHAT ({REPO})").startswith(PASSED)


def test_parts_not_configured_are_named_and_skipped_without_failing(env):
    result = doctor()
    assert result.exit_code == 0, result.output
    assert line(result, "Slack") == f"{SKIPPED} Slack: not configured (SLACK_BOT_TOKEN unset)"
    assert line(result, "Discord") == (
        f"{SKIPPED} Discord: not configured (DISCORD_BOT_TOKEN unset)"
    )
    assert line(result, "Subscriptions").startswith(f"{SKIPPED} Subscriptions: none configured")
    assert line(result, "Next post").startswith(f"{SKIPPED} Next post: no subscriptions")


def test_json_has_every_check_and_the_verdict(everything):
    result = doctor("--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    names = [check["name"] for check in report["checks"]]
    assert names[:3] == ["Settings", "Subscriptions", "Database"]
    assert {"GitHub", "LLM model", "Slack scopes", "Discord servers", "Time zone"} <= set(names)
    for check in report["checks"]:
        assert set(check) == {"name", "ok", "detail", "fix", "skipped"}
        assert check["ok"] is True and check["fix"] == ""


# -- each failure, with its fix --------------------------------------------------------------


def test_a_bad_setting_is_the_one_line_and_exit_1(env, monkeypatch):
    monkeypatch.setenv("PRDIGEST_TIMEZONE", "Mars/Olympus")
    result = doctor()
    assert result.exit_code == 1
    assert line(result, "Settings").startswith(f"{FAILED} Settings: PRDIGEST_TIMEZONE: ")
    assert "— fix: correct it in the environment or .env" in result.output
    report = json.loads(doctor("--json").output)
    assert report["ok"] is False and [c["name"] for c in report["checks"]] == ["Settings"]


def test_a_prdigest_toml_mistake_names_its_line(env, monkeypatch, tmp_path):
    config = tmp_path / "prdigest.toml"
    config.write_text(f'[[subscription]]\nrepo = "{REPO}"\nto = "slack:C0X"\npost_tim = "9"\n')
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    result = doctor()
    assert result.exit_code == 1
    found = line(result, "prdigest.toml")
    assert found.startswith(f"{FAILED} prdigest.toml: {config}, line 4: ")
    assert found.endswith(
        f"— fix: correct that line of {config}; examples/prdigest.toml shows each key"
    )


def test_a_file_that_is_no_database(env, tmp_path):
    (tmp_path / "prdigest.db").write_text("these are my notes, not a database\n")
    result = doctor()
    assert result.exit_code == 1
    found = line(result, "Database")
    assert found.startswith(f"{FAILED} Database: {tmp_path / 'prdigest.db'}: ")
    assert "— fix: restore it from a backup, or set PRDIGEST_DB" in found


def test_a_database_from_a_newer_release(env, tmp_path):
    Store(tmp_path / "prdigest.db").close()
    with sqlite3.connect(tmp_path / "prdigest.db") as conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
            "VALUES ('prdigest', 'm999_from_the_future', '2027-01-01')"
        )
    conn.close()
    found = line(doctor(), "Database")
    assert "written by a newer prdigest (it has m999_from_the_future)" in found
    assert found.endswith("— fix: upgrade prdigest, or set PRDIGEST_DB to another file")


@pytest.mark.parametrize("token", [True, False], ids=["token", "anonymous"])
def test_an_unreachable_github_is_named_at_once(env, monkeypatch, token):
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    if not token:
        monkeypatch.delenv("GITHUB_TOKEN")
    started = time.monotonic()
    result = doctor()
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    assert line(result, "GitHub") == (
        f"{FAILED} GitHub: Could not reach GitHub at 127.0.0.1:9 (GITHUB_API_URL): connection "
        "refused — fix: check GITHUB_API_URL (GitHub Enterprise: https://HOST/api/v3) and that "
        "this machine can reach it"
    )
    assert "GitHub rate limit" not in result.output


def test_a_refused_github_token(monkeypatch):
    with FakeGitHub(token="ghp_the_right_one") as github:
        github.add_repo(REPO)
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_a_wrong_one")
        found = line(doctor(), "GitHub")
    assert found.startswith(f"{FAILED} GitHub: GitHub answered 401")
    assert "— fix: create a token that can read the repositories" in found


def test_a_repository_github_does_not_show(env, monkeypatch):
    monkeypatch.setenv("PRDIGEST_REPO", "acme/nowhere")
    result = doctor()
    assert result.exit_code == 1
    assert line(result, "GitHub acme/nowhere") == (
        f"{FAILED} GitHub acme/nowhere: not found, or the token cannot read it — fix: check the "
        "name in PRDIGEST_REPO; for a private repository, give GITHUB_TOKEN read access to it"
    )


def test_a_used_up_rate_limit_says_when_it_renews(env, github):
    reset = int(time.time()) + 1800
    core = {"limit": 5000, "used": 5000, "remaining": 0, "reset": reset}
    github.inject(r"/rate_limit$", 200, body={"resources": {"core": core}, "rate": core})
    result = doctor()
    found = line(result, "GitHub rate limit")
    assert found.startswith(f"{FAILED} GitHub rate limit: 0 of 5,000 requests left this hour")
    assert "— fix: wait until " in found
    assert f"GitHub {REPO}:" not in result.output  # not asked while the limit is used up


def test_a_github_app_is_named_and_a_repository_it_is_not_installed_on(env, github, monkeypatch):
    app = github.use_app(FakeGitHubApp(app_id=42, slug="prdigest-acme", name="prdigest acme"))
    app.install(REPO)
    github.add_repo("acme/elsewhere")
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("GITHUB_APP_ID", "42")
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY", app.private_pem)
    result = doctor()
    assert result.exit_code == 0, result.output
    assert line(result, "GitHub").startswith(
        f"{PASSED} GitHub: the GitHub App prdigest acme (prdigest-acme, id 42)"
    )
    assert line(result, f"GitHub {REPO}").startswith(f"{PASSED} GitHub {REPO}: readable")
    assert "BEGIN" not in result.output  # the key is never shown

    monkeypatch.setenv("PRDIGEST_REPO", "acme/elsewhere")
    found = line(doctor(), "GitHub acme/elsewhere")
    assert found.startswith(
        f"{FAILED} GitHub acme/elsewhere: prdigest's GitHub App is not installed on acme/elsewhere"
    )
    assert found.endswith(
        "— fix: install the App on acme/elsewhere, or check the name in PRDIGEST_REPO"
    )


def codeowners_config(tmp_path: Path, owner: str) -> Path:
    config = tmp_path / "prdigest.toml"
    config.write_text(
        f'[[subscription]]\nrepo = "{REPO}"\nto = "slack:{CHANNEL}"\ncodeowners = ["{owner}"]\n'
    )
    return config


def test_codeowners_is_checked_where_a_filter_needs_it(env, github, monkeypatch, tmp_path):
    monkeypatch.setenv("PRDIGEST_CONFIG", str(codeowners_config(tmp_path, "@vllm-project/rocm")))
    found = line(doctor(), f"CODEOWNERS of {REPO}")
    assert found.startswith(f"{FAILED} CODEOWNERS of {REPO}: {REPO} has no CODEOWNERS file")
    assert found.endswith(
        "— fix: add a CODEOWNERS file to the repository, or drop the codeowners filter"
    )

    github.set_file(REPO, ".github/CODEOWNERS", "csrc/ @vllm-project/kernels\n")
    found = line(doctor(), f"CODEOWNERS of {REPO}")
    assert "never names @vllm-project/rocm: that filter would post nothing" in found
    assert "(the file names @vllm-project/kernels)" in found

    github.set_file(REPO, ".github/CODEOWNERS", "rocm/ @vllm-project/rocm\n")
    assert line(doctor(), f"CODEOWNERS of {REPO}").startswith(PASSED)


def test_a_model_the_endpoint_does_not_serve_costs_no_llm_call(env, llm, monkeypatch):
    monkeypatch.setenv("PRDIGEST_MODEL", "gpt-4.1-nano")
    result = doctor()
    assert result.exit_code == 1
    found = line(result, "LLM model")
    assert found.startswith(f"{FAILED} LLM model: gpt-4.1-nano is not one of the 3 models")
    assert "— fix: set PRDIGEST_MODEL to one it serves (e.g. gpt-4.1-mini" in found
    assert llm.completions_count == 0


def test_an_answer_not_in_the_schema(env, llm):
    llm.script([("content", "Sure! Here is a summary of the PR.")])
    found = line(doctor(), "LLM structured output")
    assert found.startswith(f"{FAILED} LLM structured output: gpt-4.1-mini answered, but not in")
    assert "(not JSON)" in found and "— fix: use a model or server that supports" in found
    assert llm.completions_count == 1


def test_an_unreachable_llm(env, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert line(doctor(), "LLM endpoint") == (
        f"{FAILED} LLM endpoint: could not reach the LLM at 127.0.0.1:9 (OPENAI_BASE_URL): "
        "connection refused — fix: check OPENAI_BASE_URL (e.g. http://localhost:8000/v1) and "
        "that the server is up"
    )


def test_a_host_that_never_answers_does_not_hang_the_doctor(env, llm, monkeypatch):
    monkeypatch.setattr(llm_doctor, "CALL_SECONDS", 0.5)
    llm.script([("hang", 30)])
    started = time.monotonic()
    found = line(doctor(), "LLM structured output")
    assert time.monotonic() - started < 10
    assert found.startswith(f"{FAILED} LLM structured output: no answer in 0.5 s — fix: check ")


def test_a_silent_github_does_not_hang_the_doctor(monkeypatch):
    monkeypatch.setattr(github_doctor, "SECONDS", 0.5)
    with FakeGitHub(latency=30) as github:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_token")
        started = time.monotonic()
        found = line(doctor(), "GitHub")
        assert time.monotonic() - started < 10
    assert found.startswith(f"{FAILED} GitHub: no answer in 0.5 s")


def test_the_built_in_model_is_looked_at_not_loaded(monkeypatch, tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + bytes(100))
    monkeypatch.setenv("PRDIGEST_LOCAL_MODEL", str(model))
    found = line(doctor(), "Built-in model")
    assert found.startswith(f"{PASSED} Built-in model: {model} (PRDIGEST_LOCAL_MODEL)")
    model.write_bytes(b"not a model")
    found = line(doctor(), "Built-in model")
    assert found.startswith(f"{FAILED} Built-in model: PRDIGEST_LOCAL_MODEL={model} is not a GGUF")


def test_slack_scopes_missing_from_the_install(everything):
    everything.slack.scopes = set(DEFAULT_SCOPES) - {"users:read"}
    found = line(doctor(), "Slack scopes")
    assert found.startswith(f"{FAILED} Slack scopes: missing users:read — fix: give the app")
    assert "then reinstall it to the workspace" in found


def test_a_channel_the_bot_was_not_invited_to(everything):
    everything.slack.not_member.add(CHANNEL)
    result = doctor()
    assert result.exit_code == 1
    assert line(result, f"Slack channel {CHANNEL}") == (
        f"{FAILED} Slack channel {CHANNEL}: @prdigest is not in #{CHANNEL} — fix: invite "
        f"@prdigest to #{CHANNEL}: type /invite @prdigest in that channel"
    )


def test_a_token_that_may_read_channel_names_names_the_channel(everything):
    everything.slack.scopes.add("channels:read")
    everything.slack.channel_names[CHANNEL] = "pr-digests"
    assert line(doctor(), f"Slack channel {CHANNEL}") == (
        f"{PASSED} Slack channel {CHANNEL}: @prdigest is in #pr-digests and can read it"
    )
    everything.slack.not_member.add(CHANNEL)
    assert line(doctor(), f"Slack channel {CHANNEL}").endswith(
        "— fix: invite @prdigest to #pr-digests: type /invite @prdigest in that channel"
    )


def test_a_channel_slack_does_not_know(everything):
    everything.slack.inject(
        r"conversations\.history", 200, body={"ok": False, "error": "channel_not_found"}
    )
    found = line(doctor(), f"Slack channel {CHANNEL}")
    assert "(a private channel it is not in, or a wrong ID)" in found
    assert "— fix: check the ID (channel details, at the bottom)" in found


def test_a_bad_app_token(everything, monkeypatch):
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-not-this-one")
    found = line(doctor(), "Slack Socket Mode")
    assert found == (
        f"{FAILED} Slack Socket Mode: Slack answered invalid_auth — fix: set SLACK_APP_TOKEN to "
        "an app-level token (xapp-…) with connections:write (Basic Information → App-Level Tokens)"
    )


def test_a_discord_channel_missing_permissions_the_invite_asks_for(everything):
    channel = everything.discord.channels[everything.discord.channel_id]
    denied = discord.Permissions(send_messages=True, embed_links=True).value
    channel["permission_overwrites"] = [
        {"id": everything.discord.guild_id, "type": 0, "allow": "0", "deny": str(denied)}
    ]
    found = line(doctor(), f"Discord channel {everything.discord.channel_id}")
    assert found.startswith(
        f"{FAILED} Discord channel {everything.discord.channel_id}: #pr-digests: the bot lacks "
        "Send Messages, Embed Links — fix: allow them for the bot's role in the channel"
    )


def test_a_discord_channel_or_server_the_bot_is_not_in(everything, monkeypatch):
    monkeypatch.setenv("PRDIGEST_DISCORD_CHANNEL", "1399999999999999999")
    monkeypatch.setenv("PRDIGEST_DISCORD_GUILDS", "1299999999999999999")
    result = doctor()
    assert line(result, "Discord channel 1399999999999999999").endswith(
        "no such channel — fix: check the channel ID (right-click it → Copy Channel ID)"
    )
    assert line(result, "Discord servers") == (
        f"{FAILED} Discord servers: not in 1299999999999999999 (PRDIGEST_DISCORD_GUILDS) — fix: "
        "add the bot to that server with the URL prdigest discord-invite prints, or correct "
        "PRDIGEST_DISCORD_GUILDS"
    )


def test_a_subscription_to_a_platform_not_configured(env, monkeypatch):
    monkeypatch.setenv("PRDIGEST_SLACK_CHANNEL", CHANNEL)
    result = doctor()
    assert result.exit_code == 1
    assert line(result, f"Next post to slack:{CHANNEL} ({REPO})") == (
        f"{FAILED} Next post to slack:{CHANNEL} ({REPO}): Slack is not configured "
        "(SLACK_BOT_TOKEN unset): nothing is ever posted there — fix: set SLACK_BOT_TOKEN, "
        "or remove this subscription"
    )


def test_a_check_that_breaks_is_one_line_not_a_traceback(env, monkeypatch):
    async def broken(*args, **kwargs):
        raise RuntimeError("a bug in a check")

    monkeypatch.setattr(doctor_runner, "llm_checks", broken)
    result = doctor()
    assert result.exit_code == 1
    assert line(result, "LLM") == (
        f"{FAILED} LLM: could not be checked (RuntimeError) — fix: run prdigest -v doctor to "
        "see why"
    )
    assert "Traceback" not in result.output
    assert line(result, "GitHub").startswith(PASSED)  # the others are still checked


# -- never a secret --------------------------------------------------------------------------


SECRETS = {
    "GITHUB_TOKEN": f"ghp_{secrets.token_hex(12)}",
    "OPENAI_API_KEY": f"sk-proj-{secrets.token_hex(12)}",
    "SLACK_BOT_TOKEN": f"xoxb-{secrets.token_hex(12)}",
    "SLACK_APP_TOKEN": f"xapp-{secrets.token_hex(12)}",
    "SLACK_SIGNING_SECRET": secrets.token_hex(16),
    "DISCORD_BOT_TOKEN": f"MTA.{secrets.token_hex(12)}",
}


def test_no_secret_is_printed_even_when_a_server_quotes_it(monkeypatch):
    with (
        FakeGitHub(token=SECRETS["GITHUB_TOKEN"]) as github,
        FakeOpenAI(api_key=SECRETS["OPENAI_API_KEY"]) as llm,
        FakeSlack(
            bot_token=SECRETS["SLACK_BOT_TOKEN"],
            app_token=SECRETS["SLACK_APP_TOKEN"],
            signing_secret=SECRETS["SLACK_SIGNING_SECRET"],
        ) as slack,
        FakeDiscord(token=SECRETS["DISCORD_BOT_TOKEN"]) as fake,
    ):
        github.add_repo(REPO)
        for name, value in {
            **SECRETS,
            "GITHUB_API_URL": github.url,
            "OPENAI_BASE_URL": llm.url + "/v1",
            "SLACK_API_URL": slack.api_url,
            "DISCORD_API_URL": fake.api_url,
            "PRDIGEST_REPO": REPO,
            "PRDIGEST_SLACK_CHANNEL": CHANNEL,
            "PRDIGEST_DISCORD_CHANNEL": fake.channel_id,
        }.items():
            monkeypatch.setenv(name, value)
        assert doctor().exit_code == 0  # every secret accepted
        # Servers that echo the credentials they were sent, in their error messages.
        echo = f"proxy: bad credentials {SECRETS['GITHUB_TOKEN']} {SECRETS['OPENAI_API_KEY']}"
        github.inject(r"/repos/", 403, body={"message": echo}, times=2)
        llm.script([("status", 400, {}, {"error": {"message": echo}})] * 2)
        verbose = CliRunner().invoke(cli, ["-vv", "doctor", "--json"])  # the log lines too
        outputs = [doctor().output, verbose.output]
    assert all(FAILED in text or '"ok": false' in text for text in outputs)
    for text in outputs:
        for name, value in SECRETS.items():
            assert value not in text and value[-16:] not in text, name


# -- a new user, and prdigest run ------------------------------------------------------------


def test_a_new_user_with_only_a_dotenv_gets_a_passing_doctor(everything, tmp_path):
    """The README's setup, from an empty directory: `cp .env.example .env`, the values filled
    in (here the fakes' addresses and tokens), then `prdigest doctor`."""
    ours = {
        name: value
        for name, value in os.environ.items()
        if name.startswith(("GITHUB_", "OPENAI_", "SLACK_", "DISCORD_"))
        or name in ("PRDIGEST_REPO", "PRDIGEST_SLACK_CHANNEL", "PRDIGEST_DISCORD_CHANNEL")
        or name == "PRDIGEST_DISCORD_GUILDS"
    }
    example = (Path(__file__).parent.parent / ".env.example").read_text(encoding="utf-8")
    filled = [
        f"{ln.split('=', 1)[0]}={ours[ln.split('=', 1)[0]]}" if ln.split("=", 1)[0] in ours else ln
        for ln in example.splitlines()
    ]
    home = tmp_path / "fresh"
    home.mkdir()
    (home / ".env").write_text("\n".join(filled) + "\n", encoding="utf-8")
    user_env = {
        k: v for k, v in os.environ.items() if k not in ours and not k.startswith("PRDIGEST_")
    }
    done = subprocess.run(
        [*prdigest(), "doctor"], cwd=home, env=user_env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"read from the environment and {home / '.env'}" in done.stdout
    assert f"{PASSED} Database: " in done.stdout
    assert done.stdout.rstrip().endswith("checks passed.")
    assert "Traceback" not in done.stderr


def prdigest() -> list[str]:
    script = Path(sys.executable).with_name("prdigest")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.app.cli"]


async def test_prdigest_run_logs_each_failure_at_start(everything, caplog):
    everything.slack.not_member.add(CHANNEL)
    settings = Settings.from_env(dotenv=False)
    with caplog.at_level("WARNING"):
        await check_at_start(settings)
    assert everything.llm.completions_count == 0  # a restart costs no LLM call
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [
        f"doctor: {FAILED} Slack channel {CHANNEL}: @prdigest is not in #{CHANNEL} — fix: "
        f"invite @prdigest to #{CHANNEL}: type /invite @prdigest in that channel"
    ]


def dump(path: Path) -> list:
    conn = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return [(t, conn.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables]
    finally:
        conn.close()
