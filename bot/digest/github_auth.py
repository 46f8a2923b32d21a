"""Who prdigest is on GitHub (a token, a GitHub App, or nobody) and the client each
repository is read with.

A GitHub App signs a short JWT with its private key (PyGithub's `Auth.AppAuth`), asks GitHub
which installation covers a repository (`GithubIntegration.get_repo_installation`, unless
GITHUB_APP_INSTALLATION_ID names one) and reads the repository with that installation's token.
An installation token lives an hour; `InstallationToken` mints the next one a minute before
it expires, so a bot that runs for months, and a digest under way at that minute, never sends
an expired one. One PyGithub client per installation, shared by its repositories.

The App wins when both it and GITHUB_TOKEN are set (a warning says so): it is the newer, and
the more deliberate, of the two settings.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from github import Auth, Github, GithubException
from github.InstallationAuthorization import InstallationAuthorization
from requests.exceptions import RequestException

from bot.core.clock import utcnow
from bot.core.endpoints import Endpoint
from bot.core.errors import ConfigurationError, PRDigestError, SourceError
from bot.core.logs import mask
from bot.core.settings import Settings
from bot.digest.github_client import describe_failure, make_github, make_integration

log = logging.getLogger(__name__)

# PyGithub's own AppInstallationAuth renews 20 s before expiry: too close for a request that
# waits on a slow answer or a retry's backoff. A minute is mint-ahead enough for both.
REFRESH_MARGIN = timedelta(minutes=1)
PEM_HINT = "the .pem file GitHub generated for the App (-----BEGIN RSA PRIVATE KEY----- ...)"


@dataclass(frozen=True)
class AppCredentials:
    """A GitHub App's id, its private key (PEM text, checked) and the setting it came from."""

    app_id: int
    private_key: str = field(repr=False)
    key_setting: str  # GITHUB_APP_PRIVATE_KEY_PATH or GITHUB_APP_PRIVATE_KEY, named in errors
    installation_id: int | None = None  # GITHUB_APP_INSTALLATION_ID: every repository's


@dataclass(frozen=True)
class GitHubAuth:
    """How prdigest reaches GitHub and signs in: a token, an App, or neither (anonymous)."""

    api_url: str
    token: str | None = field(default=None, repr=False)
    app: AppCredentials | None = None
    timeout: int = 30
    retries: int = 5
    backoff: float = 0.5

    @classmethod
    def from_settings(cls, settings: Settings) -> GitHubAuth:
        """The settings' choice; a missing, unreadable or malformed App key is one
        ConfigurationError line naming its setting (never the key)."""
        app = _app_credentials(settings)
        if app is not None and settings.github_token:
            log.warning(
                "GITHUB_APP_ID and GITHUB_TOKEN are both set: GitHub is read as the App, "
                "and GITHUB_TOKEN is not used"
            )
        return cls(
            api_url=settings.github_api_url,
            token=None if app else settings.github_token,
            app=app,
            retries=settings.github_retries,
            backoff=settings.github_backoff,
        )

    @property
    def kind(self) -> str:
        return "app" if self.app else "token" if self.token else "anonymous"

    @property
    def credentials(self) -> str | None:
        """The settings to check when GitHub refuses them; None when anonymous."""
        if self.app:
            return f"GITHUB_APP_ID and {self.app.key_setting}"
        return "GITHUB_TOKEN" if self.token else None

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint("GitHub", "GITHUB_API_URL", self.api_url)


def github_auth(settings: Settings) -> GitHubAuth:
    return GitHubAuth.from_settings(settings)


def _app_credentials(settings: Settings) -> AppCredentials | None:
    text, path = settings.github_app_private_key, settings.github_app_private_key_path
    if settings.github_app_id is None:
        given = [name for name, value in _app_settings(settings) if value]
        if given:
            raise ConfigurationError(
                f"{given[0]} is set but GITHUB_APP_ID is not: set GITHUB_APP_ID to the App's "
                "id (its settings page, 'App ID'), or unset it to use GITHUB_TOKEN"
            )
        return None
    if text and path:
        raise ConfigurationError(
            "GITHUB_APP_PRIVATE_KEY_PATH and GITHUB_APP_PRIVATE_KEY are both set: "
            "set one of them, the key's file or its text"
        )
    if path:
        key = _check_key(_read_key(path), f"GITHUB_APP_PRIVATE_KEY_PATH ({path})")
        setting = "GITHUB_APP_PRIVATE_KEY_PATH"
    elif text:
        # A .env or a container's environment may hold the PEM on one line, with \n for its
        # line breaks.
        pem = text if "\n" in text else text.replace("\\n", "\n")
        key, setting = _check_key(pem, "GITHUB_APP_PRIVATE_KEY"), "GITHUB_APP_PRIVATE_KEY"
    else:
        raise ConfigurationError(
            "GITHUB_APP_ID is set but not the App's private key: set "
            f"GITHUB_APP_PRIVATE_KEY_PATH to {PEM_HINT}, or GITHUB_APP_PRIVATE_KEY to its text"
        )
    return AppCredentials(
        app_id=settings.github_app_id,
        private_key=key,
        key_setting=setting,
        installation_id=settings.github_app_installation_id,
    )


def _app_settings(settings: Settings) -> list[tuple[str, object]]:
    return [
        ("GITHUB_APP_PRIVATE_KEY_PATH", settings.github_app_private_key_path),
        ("GITHUB_APP_PRIVATE_KEY", settings.github_app_private_key),
        ("GITHUB_APP_INSTALLATION_ID", settings.github_app_installation_id),
    ]


def _read_key(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii")
    except UnicodeDecodeError:
        return ""  # not a PEM file, which is ASCII: said below
    except OSError as exc:
        raise ConfigurationError(
            f"GITHUB_APP_PRIVATE_KEY_PATH: cannot read {path} ({exc.strerror or exc})"
        ) from None


def _check_key(pem: str, setting: str) -> str:
    """`pem` when it is an unencrypted RSA private key. The errors name the setting and never
    quote the text: a key pasted into the wrong place must not end up in a log."""
    try:
        key = load_pem_private_key(pem.strip().encode("ascii", "replace"), password=None)
    except TypeError:  # encrypted, and no password given
        raise ConfigurationError(
            f"{setting} is protected by a password: use {PEM_HINT}, which has none"
        ) from None
    except (ValueError, UnsupportedAlgorithm):
        raise ConfigurationError(f"{setting} is not a PEM private key: use {PEM_HINT}") from None
    if not isinstance(key, RSAPrivateKey):
        raise ConfigurationError(
            f"{setting} is not an RSA key (GitHub Apps sign with RS256): use {PEM_HINT}"
        )
    return pem.strip() + "\n"


class InstallationToken(Auth.Auth):
    """An installation's token for PyGithub's requests, minted by `mint` (PyGithub's
    `GithubIntegration.get_access_token`) and minted again `margin` before it expires.

    Thread-safe: PyGithub calls run on worker threads, and one token serves an installation.
    """

    def __init__(
        self,
        mint: Callable[[], InstallationAuthorization],
        *,
        clock: Callable[[], datetime] = utcnow,
        margin: timedelta = REFRESH_MARGIN,
    ):
        self._mint = mint
        self._clock = clock
        self._margin = margin
        self._lock = threading.Lock()
        self._current: InstallationAuthorization | None = None

    @property
    def token_type(self) -> str:
        return "token"

    @property
    def token(self) -> str:
        with self._lock:
            current = self._current
            if current is None or current.expires_at - self._margin <= self._clock():
                current = self._current = self._mint()
            return current.token

    def expire(self) -> None:
        """Mint a new token for the next request (GitHub refused the current one)."""
        with self._lock:
            self._current = None

    @property
    def current(self) -> str | None:
        with self._lock:
            return self._current.token if self._current else None

    @property
    def _masked_token(self) -> str:
        return "token (installation token removed)"


@dataclass(frozen=True)
class GitHubIdentity:
    """Who GitHub sees: `kind` is app, token or anonymous; `name` the App's slug or the
    token's login ("" when anonymous); `line` says it to a person."""

    kind: str
    name: str
    line: str


class GitHubClients:
    """The authenticated PyGithub client of each repository, made at its first use: with a
    token (or none) one client serves all; with an App, one per installation."""

    def __init__(
        self,
        auth: GitHubAuth,
        *,
        clock: Callable[[], datetime] = utcnow,
        margin: timedelta = REFRESH_MARGIN,
    ):
        self.auth = auth
        self._clock, self._margin = clock, margin
        self._lock = threading.Lock()
        self._options = {"timeout": auth.timeout, "retries": auth.retries, "backoff": auth.backoff}
        self._installation_of: dict[str, int] = {}
        self._clients: dict[int | None, tuple[Github, Github]] = {}
        self._tokens: dict[int, InstallationToken] = {}
        self._app = self._integration = None
        if auth.app is not None:
            self._app = Auth.AppAuth(auth.app.app_id, auth.app.private_key)
            self._integration = make_integration(auth.api_url, self._app, **self._options)

    def for_repo(self, full_name: str, *, lazy: bool = False) -> Github:
        """The client that reads `full_name`; `lazy`: its handles make no call of their own.
        With an App, finding the repository's installation may raise the one-line
        ConfigurationError of an App that is not installed there or whose key GitHub refuses."""
        return self._client(self.installation(full_name) if self._app else None, lazy)

    def _client(self, installation: int | None, lazy: bool = False) -> Github:
        with self._lock:
            if installation not in self._clients:
                client = make_github(
                    self.auth.api_url, self._auth_for(installation), **self._options
                )
                self._clients[installation] = (client, client.withLazy(True))
            plain, lazy_client = self._clients[installation]
        return lazy_client if lazy else plain

    def _auth_for(self, installation: int | None) -> Auth.Auth | str | None:
        if installation is None:
            return self.auth.token
        token = InstallationToken(
            lambda: self._mint(installation), clock=self._clock, margin=self._margin
        )
        self._tokens[installation] = token
        return token

    def installation(self, full_name: str) -> int:
        """The App's installation on `full_name`: GITHUB_APP_INSTALLATION_ID, else GitHub's
        answer (asked once per repository)."""
        app = self.auth.app
        assert app is not None and self._integration is not None
        if app.installation_id is not None:
            return app.installation_id
        key = full_name.lower()
        if key not in self._installation_of:
            owner, _, name = full_name.partition("/")
            try:
                found = self._integration.get_repo_installation(owner, name)
            except (GithubException, RequestException) as exc:
                if isinstance(exc, GithubException) and exc.status == 404:
                    raise self._not_installed(full_name) from None
                doing = f"finding the App's installation on {full_name}"
                raise self._app_failure(exc, doing) from None
            self._installation_of[key] = found.id
        return self._installation_of[key]

    def _mint(self, installation: int) -> InstallationAuthorization:
        assert self._integration is not None
        try:
            return self._integration.get_access_token(installation)
        except (GithubException, RequestException) as exc:
            given = self.auth.app is not None and self.auth.app.installation_id
            if isinstance(exc, GithubException) and exc.status == 404 and given:
                raise ConfigurationError(
                    f"The App has no installation {installation} (GITHUB_APP_INSTALLATION_ID): "
                    "check the id, or unset it to find each repository's installation"
                ) from None
            doing = f"minting a token for installation {installation}"
            raise self._app_failure(exc, doing) from None

    def renew(self, full_name: str) -> bool:
        """After GitHub refused a token: mint the repository's installation a new one. False
        when there is nothing to renew (a personal token, or anonymous)."""
        if self._app is None:
            return False
        token = self._tokens.get(self.installation(full_name))
        if token is None:
            return False
        token.expire()
        return True

    def secrets(self) -> list[str]:
        """The secrets in use now, to mask in any message that quotes the server."""
        tokens = [t.current for t in list(self._tokens.values())]
        return [s for s in [self.auth.token, *tokens] if s]

    def identity(self) -> GitHubIdentity:
        """Who GitHub sees: one request (GET /app with the App's JWT, or GET /user)."""
        try:
            if self._integration is not None:
                app = self._integration.get_app()
                line = f"the GitHub App {app.name} ({app.slug}, id {app.id})"
                return GitHubIdentity("app", app.slug, line)
            if self.auth.token:
                login = self._client(None).get_user().login
                return GitHubIdentity("token", login, f"the token of @{login}")
        except (GithubException, RequestException) as exc:
            raise self._app_failure(exc, "asking GitHub who we are") from None
        return GitHubIdentity("anonymous", "", "no token: public repositories only")

    def install_url(self) -> str | None:
        """Where the App is installed on more repositories, from GET /app; None when GitHub
        does not say."""
        assert self._integration is not None
        try:
            app = self._integration.get_app()
            base = app.html_url or f"https://github.com/apps/{app.slug}"
        except (GithubException, RequestException, AttributeError):
            return None
        return f"{base.rstrip('/')}/installations/new"

    def _not_installed(self, full_name: str) -> ConfigurationError:
        url = self.install_url()
        where = (
            f"at {url}" if url else "from the App's page on GitHub (Settings, Developer settings)"
        )
        return ConfigurationError(
            f"prdigest's GitHub App is not installed on {full_name}: install it {where} "
            "(or set GITHUB_APP_INSTALLATION_ID)"
        )

    def _app_failure(self, exc: Exception, doing: str) -> PRDigestError:
        """One line: a refused JWT names the App's settings; anything else is GitHub's."""
        app = self.auth.app
        if app and isinstance(exc, GithubException) and exc.status == 401:
            message = exc.data.get("message") if isinstance(exc.data, dict) else None
            return ConfigurationError(
                f"GitHub refused the App's credentials while {doing} (401"
                + (f": {message}" if message else "")
                + f"): check GITHUB_APP_ID ({app.app_id}) and {app.key_setting}"
            )
        line = describe_failure(exc, doing, self.auth.endpoint, self.auth.credentials)
        return SourceError(mask(line, *self.secrets()))
