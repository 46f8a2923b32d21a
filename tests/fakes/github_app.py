"""A GitHub App on the fake GitHub: its JWTs checked as GitHub checks them, its installations,
and their short-lived installation tokens.

Usage::

    with FakeGitHub() as srv:
        app = srv.use_app(FakeGitHubApp(app_id=42, slug="prdigest-acme", token_life=2.0))
        srv.add_repo("acme/widgets")
        app.install("acme/widgets")           # -> the installation's id
        env GITHUB_APP_ID=42, GITHUB_APP_PRIVATE_KEY=app.private_pem

The key pair is generated when the fake is made (never a committed key). What GitHub checks,
this checks: an RS256 signature by the App's key, ``iss`` the App's id, ``exp`` in the future
and at most 10 minutes after ``iat`` (and after now), ``iat`` not in the future. An
installation token reads only its installation's repositories, answers 401 "Bad credentials"
once expired, and 403 on ``/user`` (an installation is not a user).
"""

from __future__ import annotations

import itertools
import math
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.http_server import RecordedRequest, Response

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

DOCS = "https://docs.github.com/rest"
MAX_JWT_SECONDS = 600  # GitHub: exp no more than 10 minutes into the future
CLOCK_DRIFT = 60  # seconds an `iat` may lie in the future (another machine's clock)
PERMISSIONS = {"pull_requests": "read", "contents": "read", "metadata": "read"}
_ids = itertools.count(70_000_001)


def new_private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem_of(key: rsa.RSAPrivateKey) -> str:
    """The key as GitHub hands it out: PKCS#1 PEM, no password."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


@dataclass
class MintedToken:
    token: str
    installation_id: int
    expires_at: float  # epoch seconds, whole: what `expires_at` says is what is enforced


@dataclass
class FakeGitHubApp:
    """One GitHub App. ``token_life``: seconds an installation token lives (GitHub: 3600)."""

    app_id: int = 4242
    slug: str = "prdigest-test"
    name: str = "prdigest test"
    owner: str = "acme"
    token_life: float = 3600.0
    key: rsa.RSAPrivateKey = field(default_factory=new_private_key, repr=False)
    clock: Callable[[], float] = time.time
    installations: dict[int, set[str]] = field(default_factory=dict)  # id -> repos (lower)
    minted: list[MintedToken] = field(default_factory=list)
    refused: list[RecordedRequest] = field(default_factory=list)  # 401s for the App's auth
    server: FakeGitHub | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def private_pem(self) -> str:
        return pem_of(self.key)

    def install(self, *repos: str, installation_id: int | None = None) -> int:
        """Install the App on `repos` (one installation, new unless its id is given)."""
        iid = installation_id or next(_ids)
        with self._lock:
            self.installations.setdefault(iid, set()).update(r.lower() for r in repos)
        return iid

    def uninstall(self, installation_id: int) -> None:
        with self._lock:
            self.installations.pop(installation_id, None)

    def attach(self, server: FakeGitHub) -> None:
        self.server = server
        server.route("GET", r"/app", self._get_app)
        server.route("GET", r"/app/installations", self._list_installations)
        server.route("GET", r"/app/installations/(?P<iid>\d+)", self._get_installation)
        server.route("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", self._create_token)
        server.route(
            "GET", r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)/installation", self._repo_installation
        )
        server.route("GET", r"/installation/repositories", self._installation_repos)

    # -- what FakeGitHub asks ----------------------------------------------------------------

    def authorize(self, req: RecordedRequest, personal_token: str | None) -> Response | None:
        """None when the request may go on (anonymous, a live installation token, or the
        server's personal token), else GitHub's refusal."""
        scheme, _, value = (req.header("authorization") or "").partition(" ")
        if not value:
            return None
        if scheme.lower() in ("token", "bearer") and value == personal_token:
            return None
        minted = self._token(value)
        if minted is None or self.clock() >= minted.expires_at:
            self.refused.append(req)
            return _error(401, "Bad credentials")
        if req.route_path == "/user":
            return _error(403, "Resource not accessible by integration")
        return None

    def can_read(self, req: RecordedRequest, full_name: str) -> bool:
        """An installation token reads its installation's repositories only."""
        minted = self._token((req.header("authorization") or "").partition(" ")[2])
        if minted is None:
            return True  # anonymous or the personal token: the server's own rules
        with self._lock:
            return full_name.lower() in self.installations.get(minted.installation_id, set())

    def tokens_of(self, installation_id: int) -> list[MintedToken]:
        with self._lock:
            return [t for t in self.minted if t.installation_id == installation_id]

    # -- the JWT -----------------------------------------------------------------------------

    def _jwt(self, req: RecordedRequest) -> Response | None:
        """None when the request carries a valid JWT of this App, else GitHub's 401."""
        scheme, _, value = (req.header("authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not value:
            return self._refuse(req, "A JSON web token could not be decoded")
        public = self.key.public_key()
        now = self.clock()
        try:
            claims = jwt.decode(
                value,
                public,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"], "verify_iat": False},
            )
        except jwt.ExpiredSignatureError:
            return self._refuse(
                req,
                "'Expiration time' claim ('exp') must be a numeric value representing the "
                "future time at which the assertion expires",
            )
        except jwt.PyJWTError:
            return self._refuse(req, "A JSON web token could not be decoded")
        iat, exp = claims["iat"], claims["exp"]
        if str(claims["iss"]) != str(self.app_id):
            return self._refuse(req, "'Issuer' claim ('iss') must be the App's id")
        if iat > now + CLOCK_DRIFT:
            return self._refuse(req, "'Issued at' claim ('iat') must be an Integer in the past")
        if exp - iat > MAX_JWT_SECONDS or exp > now + MAX_JWT_SECONDS:
            return self._refuse(req, "'Expiration time' claim ('exp') is too far in the future")
        return None

    def _refuse(self, req: RecordedRequest, message: str) -> Response:
        self.refused.append(req)
        return _error(401, message)

    def _token(self, value: str) -> MintedToken | None:
        with self._lock:
            return next((t for t in self.minted if t.token == value), None)

    # -- handlers ----------------------------------------------------------------------------

    def _get_app(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._jwt(req)) is not None:
            return denied
        assert self.server is not None
        html = f"{self.server.html_base}/apps/{self.slug}"
        return Response(
            200,
            {
                "id": self.app_id,
                "slug": self.slug,
                "node_id": f"A_{self.app_id}",
                "client_id": f"Iv1.{self.app_id:016x}",
                "owner": self.server.user_json(self.server._api(req), self.owner),
                "name": self.name,
                "description": "Daily digests of merged pull requests",
                "external_url": "https://example.com/prdigest",
                "html_url": html,
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z",
                "permissions": PERMISSIONS,
                "events": [],
                "installations_count": len(self.installations),
            },
        )

    def installation_json(self, req: RecordedRequest, iid: int) -> dict[str, Any]:
        assert self.server is not None
        api = self.server._api(req)
        return {
            "id": iid,
            "account": self.server.user_json(api, self.owner),
            "repository_selection": "selected",
            "access_tokens_url": f"{api}/app/installations/{iid}/access_tokens",
            "repositories_url": f"{api}/installation/repositories",
            "html_url": f"{self.server.html_base}/organizations/{self.owner}/settings/installations/{iid}",
            "app_id": self.app_id,
            "app_slug": self.slug,
            "target_id": 1,
            "target_type": "Organization",
            "permissions": PERMISSIONS,
            "events": [],
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "single_file_name": None,
        }

    def _list_installations(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._jwt(req)) is not None:
            return denied
        with self._lock:
            ids = sorted(self.installations)
        return Response(200, [self.installation_json(req, iid) for iid in ids])

    def _get_installation(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._jwt(req)) is not None:
            return denied
        if int(m["iid"]) not in self.installations:
            return _error(404, "Not Found")
        return Response(200, self.installation_json(req, int(m["iid"])))

    def _repo_installation(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._jwt(req)) is not None:
            return denied
        wanted = f"{m['owner']}/{m['name']}".lower()
        with self._lock:
            found = [iid for iid, repos in self.installations.items() if wanted in repos]
        if not found:
            return _error(404, "Not Found")
        return Response(200, self.installation_json(req, found[0]))

    def _create_token(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._jwt(req)) is not None:
            return denied
        iid = int(m["iid"])
        if iid not in self.installations:
            return _error(404, "Not Found")
        # Whole seconds, as GitHub writes `expires_at`: the client sees what is enforced.
        expires = math.floor(self.clock() + self.token_life)
        minted = MintedToken(f"ghs_{secrets.token_urlsafe(27)}", iid, expires)
        with self._lock:
            self.minted.append(minted)
        return Response(
            201,
            {
                "token": minted.token,
                "expires_at": datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "permissions": PERMISSIONS,
                "repository_selection": "selected",
            },
        )

    def _installation_repos(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self.authorize(req, None)) is not None:
            return denied
        assert self.server is not None
        minted = self._token((req.header("authorization") or "").partition(" ")[2])
        if minted is None:
            return _error(401, "Bad credentials")
        with self._lock:
            names = sorted(self.installations.get(minted.installation_id, set()))
        api, server = self.server._api(req), self.server
        repos = [server.repo_json(api, server.repo(n)) for n in names if server.has_repo(n)]
        return Response(200, {"total_count": len(repos), "repositories": repos})


def _error(status: int, message: str) -> Response:
    return Response(status, {"message": message, "documentation_url": DOCS, "status": str(status)})
