"""GitHub App authentication: GITHUB_APP_ID and the App's private key (a .pem file or its
text) instead of GITHUB_TOKEN, one installation token per installation, minted again a minute
before it expires, and one line for each way the App's settings can be wrong.

The fake GitHub (tests/fakes/github_app.py) checks what GitHub checks: the RS256 JWT (issuer,
iat and exp, at most 10 minutes), installation tokens that expire and are refused with 401
afterwards, and an installation that reads only its own repositories.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from github import Auth

from bot.app.cli import cli
from bot.core.day_window import day_window
from bot.core.errors import ConfigurationError
from bot.core.metrics import REGISTRY
from bot.core.settings import Settings
from bot.digest.github_auth import GitHubAuth, GitHubClients
from bot.digest.github_source import GitHubSource
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeGitHub
from tests.fakes.github_app import FakeGitHubApp, new_private_key, pem_of

APP_ID = 424242
DAY = "2026-02-23"
APP_VARIABLES = (
    "GITHUB_APP_ID",
    "GITHUB_APP_PRIVATE_KEY",
    "GITHUB_APP_PRIVATE_KEY_PATH",
    "GITHUB_APP_INSTALLATION_ID",
)


@pytest.fixture
def app(github: FakeGitHub) -> FakeGitHubApp:
    app = github.use_app(FakeGitHubApp(app_id=APP_ID, slug="prdigest-acme"))
    app.install(REPO)
    return app


@pytest.fixture
def app_env(env, app, monkeypatch, tmp_path) -> Path:
    """The App's settings alone: no GITHUB_TOKEN. Returns the key file."""
    monkeypatch.delenv("GITHUB_TOKEN")
    for name in APP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    key = tmp_path / "prdigest-app.pem"
    key.write_text(app.private_pem)
    monkeypatch.setenv("GITHUB_APP_ID", str(APP_ID))
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY_PATH", str(key))
    return key


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def app_settings(github: FakeGitHub, app: FakeGitHubApp, **env: str) -> Settings:
    base = {"GITHUB_API_URL": github.url, "GITHUB_APP_ID": str(app.app_id)}
    base.setdefault("GITHUB_APP_PRIVATE_KEY", app.private_pem)
    return Settings.from_env({**base, **env}, dotenv=False)


def source(github: FakeGitHub, app: FakeGitHubApp, **kwargs) -> GitHubSource:
    auth = GitHubAuth.from_settings(app_settings(github, app))
    return GitHubSource.from_auth(auth, **kwargs)


def signed_with(github: FakeGitHub, scheme: str) -> set[str]:
    return {
        r.route_path for r in github.requests if r.header("authorization", "").startswith(scheme)
    }


# -- every command that reads GitHub works with the App alone ------------------------------


def test_report_reads_github_as_the_app_alone_with_its_key_file(app_env, github, app):
    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 4)])
    result = run("report", "--repo", REPO, "--date", DAY, "--output", "out.md")
    assert result.exit_code == 0, result.output
    assert "**Total Merged PRs:** 3" in Path("out.md").read_text()
    # The App's JWT finds the installation and mints its token; the token reads the rest.
    installation = next(iter(app.installations))
    assert signed_with(github, "Bearer ey") == {
        f"/repos/{REPO}/installation",
        f"/app/installations/{installation}/access_tokens",
    }
    reads = [r for r in github.requests if r.route_path.startswith(f"/repos/{REPO}/pulls")]
    assert reads and all(r.header("authorization").startswith("token ghs_") for r in reads)
    assert len(app.minted) == 1 and not app.refused


@pytest.mark.parametrize("one_line", [False, True], ids=["pem-text", "pem-with-escaped-newlines"])
def test_summary_reads_github_with_the_key_given_as_its_text(
    env, github, app, monkeypatch, one_line
):
    monkeypatch.delenv("GITHUB_TOKEN")
    pem = app.private_pem.replace("\n", "\\n") if one_line else app.private_pem
    monkeypatch.setenv("GITHUB_APP_ID", str(APP_ID))
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY", pem)
    github.add_pr(REPO, make_pr(7, f"{DAY} 10:00:00", title="Speed up the scheduler"))
    result = run("summary", "7", "--repo", REPO)
    assert result.exit_code == 0, result.output
    assert "Speed up the scheduler" in result.output
    assert len(app.minted) == 1


def test_post_reads_github_as_the_app(app_env, github, app, monkeypatch):
    from tests.fakes.slack import FakeSlack

    github.add_prs(REPO, [make_pr(n, f"{DAY} 1{n}:00:00") for n in range(1, 3)])
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("PRDIGEST_SLACK_PACE", "0")
        result = run("post", "--date", DAY, "--to", "slack:C0123456")
        assert result.exit_code == 0, result.output
        assert len(slack.posted("C0123456")) == 3
    assert len(app.minted) == 1 and not app.refused


def test_the_app_wins_over_github_token_and_says_so(app_env, github, app, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_used_123")
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    result = run("report", "--repo", REPO, "--date", DAY, "--output", "out.md")
    assert result.exit_code == 0, result.output
    assert "GITHUB_APP_ID and GITHUB_TOKEN are both set: GitHub is read as the App" in result.stderr
    assert not [r for r in github.requests if "ghp_not_used_123" in r.header("authorization", "")]


# -- installations ---------------------------------------------------------------------------


def test_one_token_per_installation_shared_by_its_repositories(github, app):
    github.add_repo("acme/widgets")
    github.add_repo("other-org/tools")
    shared = app.install("acme/widgets", installation_id=next(iter(app.installations)))
    own = app.install("other-org/tools")
    src = source(github, app)
    for name in (REPO, "acme/widgets", "other-org/tools", REPO):
        src.repository(name)
    assert {t.installation_id for t in app.minted} == {shared, own}
    assert len(app.minted) == 2
    assert github.count(r"/installation$") == 3  # each repository's, asked once


def test_an_installation_id_setting_skips_the_look_up(github, app):
    installation = next(iter(app.installations))
    auth = GitHubAuth.from_settings(
        app_settings(github, app, GITHUB_APP_INSTALLATION_ID=str(installation))
    )
    GitHubSource.from_auth(auth).repository(REPO)
    assert github.count(r"/installation$") == 0
    assert [t.installation_id for t in app.minted] == [installation]


def test_a_repository_without_the_app_is_one_line_naming_it_and_where_to_install(
    app_env, github, app
):
    github.add_repo("acme/private-thing")
    result = run("report", "--repo", "acme/private-thing", "--date", DAY)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Error: prdigest's GitHub App is not installed on acme/private-thing: install it at "
        "https://github.com/apps/prdigest-acme/installations/new "
        "(or set GITHUB_APP_INSTALLATION_ID)"
    )


def test_an_installation_id_that_does_not_exist_is_one_line(github, app):
    auth = GitHubAuth.from_settings(app_settings(github, app, GITHUB_APP_INSTALLATION_ID="99"))
    with pytest.raises(ConfigurationError) as caught:
        GitHubSource.from_auth(auth).repository(REPO)
    assert str(caught.value) == (
        "The App has no installation 99 (GITHUB_APP_INSTALLATION_ID): check the id, "
        "or unset it to find each repository's installation"
    )


# -- the App's settings, wrong -------------------------------------------------------------


def test_github_refusing_the_apps_jwt_names_the_id_and_the_key_setting(
    app_env, github, app, monkeypatch
):
    monkeypatch.setenv("GITHUB_APP_ID", "999")
    result = run("report", "--repo", REPO, "--date", DAY)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"Error: GitHub refused the App's credentials while finding the App's installation on "
        f"{REPO} (401: 'Issuer' claim ('iss') must be the App's id): check GITHUB_APP_ID (999) "
        "and GITHUB_APP_PRIVATE_KEY_PATH"
    )


def test_a_key_that_is_not_the_apps_is_refused_in_one_line(github, app):
    other = pem_of(new_private_key())
    auth = GitHubAuth.from_settings(app_settings(github, app, GITHUB_APP_PRIVATE_KEY=other))
    with pytest.raises(ConfigurationError, match=r"^GitHub refused the App's credentials .*"
                       r"\(401: A JSON web token could not be decoded\): check GITHUB_APP_ID "
                       rf"\({APP_ID}\) and GITHUB_APP_PRIVATE_KEY$"):  # fmt: skip
        GitHubSource.from_auth(auth).repository(REPO)


def _malformed_keys() -> dict[str, str]:
    pem = pem_of(new_private_key())
    ec_key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    locked = new_private_key().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"hunter2"),
    )
    return {
        "not a pem": "ghp_this_is_a_token_not_a_key_12345",
        "cut short": pem[: len(pem) // 2],
        "public half": "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n"
        "-----END PUBLIC KEY-----\n",
        "an EC key": ec_key.decode(),
        "password protected": locked.decode(),
    }


MALFORMED = _malformed_keys()
WHY = {
    "an EC key": "is not an RSA key (GitHub Apps sign with RS256)",
    "password protected": "is protected by a password",
}


@pytest.mark.parametrize("as_file", [False, True], ids=["text", "file"])
@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_key_is_one_line_naming_its_setting_never_the_key(
    env, monkeypatch, tmp_path, kind, as_file
):
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("GITHUB_APP_ID", str(APP_ID))
    if as_file:
        path = tmp_path / "key.pem"
        path.write_text(MALFORMED[kind])
        monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY_PATH", str(path))
        setting = f"GITHUB_APP_PRIVATE_KEY_PATH ({path})"
    else:
        monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY", MALFORMED[kind])
        setting = "GITHUB_APP_PRIVATE_KEY"
    result = run("report", "--repo", REPO, "--date", DAY)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {setting} ")
    assert WHY.get(kind, "is not a PEM private key") in lines[0]
    assert "GitHub generated for the App" in lines[0]
    body = MALFORMED[kind].splitlines()
    assert not any(part in result.output for part in body[1:2] + ["ghp_this_is"] if part)


@pytest.mark.parametrize(
    "given, line",
    [
        ({"GITHUB_APP_ID": "5"}, "GITHUB_APP_ID is set but not the App's private key: set "
         "GITHUB_APP_PRIVATE_KEY_PATH to the .pem file GitHub generated for the App"),
        ({"GITHUB_APP_PRIVATE_KEY": "x"}, "GITHUB_APP_PRIVATE_KEY is set but GITHUB_APP_ID is "
         "not: set GITHUB_APP_ID to the App's id"),
        ({"GITHUB_APP_ID": "5", "GITHUB_APP_PRIVATE_KEY": "x", "GITHUB_APP_PRIVATE_KEY_PATH":
          "{key}"}, "GITHUB_APP_PRIVATE_KEY_PATH and GITHUB_APP_PRIVATE_KEY are both set: set "
         "one of them"),
    ],
    ids=["id-without-key", "key-without-id", "two-keys"],
)  # fmt: skip
def test_half_an_app_or_two_keys_is_one_line(tmp_path, given, line):
    key = tmp_path / "k.pem"
    key.write_text("x")
    env = {name: value.format(key=key) for name, value in given.items()}
    with pytest.raises(ConfigurationError) as caught:
        GitHubAuth.from_settings(Settings.from_env(env, dotenv=False))
    assert str(caught.value).startswith(line)


# -- tokens that expire ----------------------------------------------------------------------


def test_a_token_is_minted_again_a_minute_before_it_expires(github, app):
    now = [datetime.now(UTC)]
    clients = source(github, app, clock=lambda: now[0]).clients

    def read() -> None:  # one request
        clients.for_repo(REPO).get_repo(REPO)

    read()
    assert len(app.minted) == 1
    expires = datetime.fromtimestamp(app.minted[0].expires_at, UTC)
    now[0] = expires - timedelta(seconds=61)
    read()
    assert len(app.minted) == 1  # 61 s left: still this token
    now[0] = expires - timedelta(seconds=59)
    read()
    assert len(app.minted) == 2  # under a minute left: a new one, before GitHub refuses
    assert not app.refused


def test_a_digest_that_spans_token_expiries_keeps_working(github):
    """Tokens living 2 s, renewed half a second early, and a day whose reads take longer."""
    app = github.use_app(FakeGitHubApp(app_id=APP_ID, token_life=2.0))
    app.install(REPO)
    github.latency = 0.08
    prs = [make_pr(n, f"{DAY} 1{n % 10}:00:00") for n in range(1, 16)]
    github.add_prs(REPO, prs)
    src = source(github, app, margin=timedelta(seconds=0.5))
    started = time.monotonic()
    info = src.repository(REPO)
    window = day_window(date.fromisoformat(DAY), "America/Los_Angeles")
    fetched = [src.fetch_pr(info, n) for n in src.merged_numbers(info, window)]
    assert time.monotonic() - started > app.token_life  # the digest outlived a token
    assert [pr.number for pr in fetched] == list(range(1, 16))
    assert len(app.minted) >= 2
    assert not app.refused  # no request ever went out with an expired token


def test_a_rate_limit_wait_that_outlasts_the_token_goes_on_with_a_new_one(github):
    """urllib3 sends the retry after a rate limit's wait with the first try's token: GitHub's
    401 then costs one more try with a new token, not the digest."""
    app = github.use_app(FakeGitHubApp(app_id=APP_ID, token_life=2.0))
    app.install(REPO)
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    src = source(github, app, margin=timedelta(seconds=0.5))
    info = src.repository(REPO)
    github.inject_rate_limit(r"/pulls/1$", reset_in=2.0)
    assert src.fetch_pr(info, 1).number == 1
    assert len(app.refused) == 1 and app.refused[0].route_path.endswith("/pulls/1")
    assert len(app.minted) >= 2


# -- who we are, and what is counted ---------------------------------------------------------


def test_who_we_are_names_the_app_or_the_tokens_user(github, app):
    clients = GitHubClients(GitHubAuth.from_settings(app_settings(github, app)))
    assert clients.identity().line == f"the GitHub App prdigest test (prdigest-acme, id {APP_ID})"
    with FakeGitHub() as plain:
        token = GitHubClients(GitHubAuth(plain.url, "ghp_abc"))
        assert (token.identity().kind, token.identity().name) == ("token", "prdigest-bot")
        assert GitHubClients(GitHubAuth(plain.url)).identity().kind == "anonymous"


def _counted(status: str) -> float:
    return REGISTRY.get_sample_value("prdigest_github_requests_total", {"status": status}) or 0.0


def test_every_github_request_is_counted_by_its_status(github, app):
    github.add_pr(REPO, make_pr(1, f"{DAY} 10:00:00"))
    github.inject(r"/pulls/1$", 502, times=1)
    before = {s: _counted(s) for s in ("200", "201", "404", "502", "error")}
    src = source(github, app)
    src.fetch_pr(src.repository(REPO), 1)
    src.codeowners(src.repository(REPO))  # three 404s: no CODEOWNERS anywhere
    by_status: dict[str, int] = {}
    for r in github.requests:
        by_status[str(r.status)] = by_status.get(str(r.status), 0) + 1
    assert by_status["502"] == 1 and by_status["201"] == 1  # the retry, and the minted token
    for status, count in by_status.items():
        assert _counted(status) - before[status] == count, status
    # No answer at all: one "error", and no retry of a refused connection.
    with FakeGitHub() as gone:
        url = gone.url
    with pytest.raises(Exception, match="Could not reach GitHub"):
        GitHubSource(url, "ghp_abc", retries=2).repository(REPO)
    assert _counted("error") - before["error"] == 1


# -- the fake is as strict as GitHub -------------------------------------------------------


def test_the_fake_refuses_expired_tokens_and_jwts_github_would_refuse(github):
    clock = [time.time()]
    app = github.use_app(FakeGitHubApp(app_id=APP_ID, token_life=60, clock=lambda: clock[0]))
    app.install(REPO)
    pem = app.private_pem

    def jwt_of(iss: object, iat: float, exp: float) -> str:
        return jwt.encode({"iss": iss, "iat": int(iat), "exp": int(exp)}, pem, algorithm="RS256")

    def status(path: str, auth: str, method: str = "GET") -> int:
        import requests

        return requests.request(
            method, github.url + path, headers={"Authorization": auth}
        ).status_code

    now = clock[0]
    good = jwt_of(str(APP_ID), now - 60, now + 300)
    assert status("/app", f"Bearer {good}") == 200
    assert status("/app", f"Bearer {jwt_of(str(APP_ID), now - 60, now + 700)}") == 401  # > 10 min
    assert status("/app", f"Bearer {jwt_of(str(APP_ID), now - 700, now - 5)}") == 401  # expired
    assert status("/app", f"Bearer {jwt_of('1', now - 60, now + 300)}") == 401  # another App
    assert status("/app", f"Bearer {jwt_of(str(APP_ID), now + 300, now + 400)}") == 401  # future
    hs256 = jwt.encode({"iss": str(APP_ID), "iat": int(now), "exp": int(now + 60)}, "s" * 32)
    assert status("/app", f"Bearer {hs256}") == 401
    installation = next(iter(app.installations))
    minted = Auth.AppAuth(APP_ID, pem)  # PyGithub's own JWT is accepted
    assert (
        status(f"/app/installations/{installation}/access_tokens", f"Bearer {minted.token}", "POST")
        == 201
    )
    token = app.minted[-1].token
    assert status(f"/repos/{REPO}", f"token {token}") == 200
    clock[0] += 61
    assert status(f"/repos/{REPO}", f"token {token}") == 401
