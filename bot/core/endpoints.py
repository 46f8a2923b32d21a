"""The network places prdigest reaches, named the way a user fixes them: the service, the URL's
host, and the setting that points there, e.g.
"could not reach GitHub at ghe.example.com (GITHUB_API_URL): connection refused".

`check_url` validates a URL setting when it is read. `Endpoint.unreachable` says why a
connection failed, read from the exception's chain (requests/urllib3 and httpx wrap the socket's
own error several times over), so this module needs neither library.

Nothing here shows a secret: a host carries no user:password, and a URL quoted back to the user
has its user info and query masked.
"""

from __future__ import annotations

import errno
import re
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.core.errors import ConfigurationError

HTTP = ("http", "https")
WEBSOCKET = ("ws", "wss")


@dataclass(frozen=True)
class Endpoint:
    service: str  # "GitHub", "OpenAI", "the LLM"
    setting: str  # the variable that holds the URL
    url: str

    @property
    def host(self) -> str:
        return host_of(self.url)

    @property
    def place(self) -> str:
        return f"{self.service} at {self.host} ({self.setting})"

    def unreachable(self, exc: BaseException) -> str:
        """One line, lower-case first like every reason a report lists."""
        return f"could not reach {self.place}: {why_unreachable(exc)}"


def host_of(url: str) -> str:
    """`ghe.example.com`, or `127.0.0.1:8000` when the URL names a port: never user info."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number: settings refuse it, but be safe
        host, port = urlsplit(url).hostname, None
    if not host:
        return "(no host)"
    host = f"[{host}]" if ":" in host else host  # IPv6
    return f"{host}:{port}" if port else host


def shown(value: str) -> str:
    """A setting's value as an error message may quote it: user info and query masked, as
    either can carry a token (`https://user:TOKEN@host`, `?api-key=...`)."""
    value = re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)?[^/?#]*@", r"\1***@", value)
    return re.sub(r"\?.*$", "?***", value)


def check_url(name: str, raw: str, example: str, schemes: tuple[str, ...] = HTTP) -> str:
    """`raw` (stripped of a trailing slash) when it is a URL prdigest can use, else a
    ConfigurationError naming the setting and what it should look like."""
    got = f"(got {shown(raw)!r})"
    parts = urlsplit(raw)
    if "://" not in raw:  # `ghe.example.com/api/v3`, or `localhost:8000` read as a scheme
        raise ConfigurationError(f"{name} must be a URL with a scheme, like {example} {got}")
    if parts.scheme.lower() not in schemes:
        kind = " or ".join(f"{scheme}://" for scheme in schemes)
        raise ConfigurationError(f"{name} must be a URL starting {kind}, like {example} {got}")
    if not parts.hostname or any(c.isspace() for c in raw):
        raise ConfigurationError(f"{name} must be a URL with a host, like {example} {got}")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        like = f"{parts.scheme}://{parts.hostname}:8443"
        raise ConfigurationError(
            f"{name} must have a port from 1 to 65535 after the host, like {like} {got}"
        )
    return raw.rstrip("/")


def why_unreachable(exc: BaseException) -> str:
    """The cause of a failed connection in a few words: what the socket said, wherever in the
    chain of wrappers it is."""
    chain = list(_chain(exc))
    for check in _CAUSES:
        for error in chain:
            reason = check(error)
            if reason:
                return reason
    return type(exc).__name__


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and everything it wraps: causes, contexts, a `reason` (urllib3's MaxRetryError)
    and exceptions passed as arguments (requests' ConnectionError)."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        error = todo.pop(0)
        if not isinstance(error, BaseException) or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        todo += [error.__cause__, error.__context__, getattr(error, "reason", None), *error.args]


def _dns(error: BaseException) -> str | None:
    if isinstance(error, socket.gaierror) or type(error).__name__ == "NameResolutionError":
        return "the host name does not resolve"
    return None


def _tls(error: BaseException) -> str | None:
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS certificate not accepted ({error.verify_message or 'verify failed'})"
    if isinstance(error, ssl.SSLError):
        reason = str(error.reason or "").lower().replace("_", " ")
        return "TLS handshake failed" + (f" ({reason})" if reason else "")
    return None


def _socket(error: BaseException) -> str | None:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, OSError) and error.errno in _ERRNO:
        return _ERRNO[error.errno]
    return None


def _url(error: BaseException) -> str | None:
    if type(error).__name__ in ("UnsupportedProtocol", "MissingSchema", "InvalidSchema"):
        return "the URL needs http:// or https://"
    return None


def _timeout(error: BaseException) -> str | None:
    name = type(error).__name__
    if name in ("ConnectTimeout", "ConnectTimeoutError"):
        return "the connection timed out"
    if isinstance(error, TimeoutError) or "Timeout" in name:
        return "no answer in time (timed out)"
    if name in ("RemoteProtocolError", "RemoteDisconnected", "ProtocolError"):
        return "the server closed the connection without an answer"
    return None


_ERRNO = {
    errno.ENETUNREACH: "the network is unreachable",
    errno.EHOSTUNREACH: "no route to the host",
}
# Most telling first: a name that does not resolve is the answer even where a library's
# wrapper has "Timeout" in its class name (urllib3's NewConnectionError does).
_CAUSES = (_dns, _tls, _socket, _url, _timeout)
