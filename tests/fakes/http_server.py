"""A small reusable HTTP/1.1 server for protocol-level fakes.

The fakes built on this (GitHub, OpenAI, later Slack and Discord) are driven by the *real*
client libraries over real sockets, so the server has to behave like a well-mannered HTTP/1.1
peer: exact ``Content-Length`` on every response (clients keep connections alive and pool
them), fully drained request bodies, and concurrent handling (one thread per connection) so
latency tests measure the client's concurrency rather than ours.

Subclasses register routes with :meth:`FakeHTTPServer.route` and may override the hooks
:meth:`FakeHTTPServer.default_headers` and :meth:`FakeHTTPServer.error_body`.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

JSON_CONTENT_TYPE = "application/json; charset=utf-8"


@dataclass
class RecordedRequest:
    """One request as received by the server (recorded before it is answered)."""

    method: str
    path: str  # as received, without the query string (prefix included)
    route_path: str  # ``path`` with a configured prefix (e.g. ``/api/v3``) stripped
    query: dict[str, str]  # last value per key; see ``query_lists`` for repeats
    query_lists: dict[str, list[str]]
    raw_query: str
    headers: dict[str, str]  # keys lower-cased, so lookups need not guess the casing
    body: bytes
    json: Any | None  # parsed body when it is valid JSON, else None
    received_at: float = field(default_factory=time.monotonic)
    status: int | None = None  # filled in once the response is chosen
    fault: bool = False  # True when an injected fault answered it

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


@dataclass
class Response:
    """What a route handler returns.

    ``body`` may be a dict/list (sent as JSON), ``str`` (UTF-8), ``bytes`` or ``None`` (empty).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False  # ask the client to drop the connection after this response


Handler = Callable[[RecordedRequest, re.Match[str]], Response]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler


@dataclass
class Fault:
    """An injected failure; returned by :meth:`FakeHTTPServer.inject` so tests can inspect it."""

    pattern: re.Pattern[str]
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    every: int | None = None
    method: str | None = None
    seen: int = 0  # matching requests observed
    fired: int = 0  # requests actually answered by this fault
    after: int = 0  # let this many matching requests through before the fault starts

    def matches(self, req: RecordedRequest) -> bool:
        if self.method is not None and self.method.upper() != req.method:
            return False
        return self.pattern.search(req.path) is not None

    @property
    def exhausted(self) -> bool:
        return self.every is None and self.fired >= self.times

    def observe(self) -> bool:
        """Count one matching request; return True when this one should fail."""
        self.seen += 1
        if self.seen <= self.after:
            return False
        if self.every is not None:
            return (self.seen - self.after) % self.every == 0
        return self.fired < self.times


def merge_headers(*layers: dict[str, str] | None) -> dict[str, str]:
    """Merge header dicts case-insensitively; later layers win, keeping their casing."""
    merged: dict[str, tuple[str, str]] = {}
    for layer in layers:
        for key, value in (layer or {}).items():
            merged[key.lower()] = (key, str(value))
    return dict(merged.values())


def encode_body(body: Any) -> tuple[bytes, str | None]:
    """Return ``(bytes, default content type)`` for a handler's body."""
    if body is None:
        return b"", None
    if isinstance(body, bytes):
        return body, "application/octet-stream"
    if isinstance(body, str):
        return body.encode("utf-8"), "text/plain; charset=utf-8"
    return json.dumps(body, separators=(",", ":")).encode("utf-8"), JSON_CONTENT_TYPE


class _Server(ThreadingHTTPServer):
    # Daemon threads: a client that keeps a connection alive (or a "hang" behaviour) must
    # never keep the test process from exiting.
    daemon_threads = True
    allow_reuse_address = True
    # The stdlib default listen backlog is 5: a burst of concurrent connects overflows it and
    # the kernel drops SYNs, which the client only retransmits after ~1 s.
    request_queue_size = 128

    def __init__(self, owner: FakeHTTPServer) -> None:
        self.owner = owner
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _RequestHandler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that dropped its kept-alive connection (a finished or killed process, an
        # event loop shut down mid-request) is normal here, not a bug in the fake: stay quiet
        # instead of printing a traceback into whatever stderr the test is capturing.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real services
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle + delayed ACK
    # add ~40 ms to every request on a kept-alive connection.
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.sockets_lock:
            self.server.open_sockets.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.server.sockets_lock:
                self.server.open_sockets.discard(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep pytest output clean; requests are recorded instead

    def _read_body(self) -> bytes:
        # Always drain the body, or the next request on a kept-alive connection is garbage.
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()  # CRLF after each chunk
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self) -> None:
        owner = self.server.owner
        body = self._read_body()
        split = urlsplit(self.path)
        query_lists = parse_qs(split.query, keep_blank_values=True)
        parsed_json: Any | None = None
        if body:
            try:
                parsed_json = json.loads(body)
            except ValueError:
                parsed_json = None
        req = RecordedRequest(
            method=self.command,
            path=split.path,
            route_path=owner.strip_prefix(split.path),
            query={k: v[-1] for k, v in query_lists.items()},
            query_lists=query_lists,
            raw_query=split.query,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            json=parsed_json,
        )
        owner._record(req)
        resp = owner._respond(req)
        req.status = resp.status
        self._write(req, resp)

    def _write(self, req: RecordedRequest, resp: Response) -> None:
        owner = self.server.owner
        payload, default_type = encode_body(resp.body)
        headers = merge_headers(
            {"Date": formatdate(usegmt=True)},
            owner.default_headers(req, resp),
            {"Content-Type": default_type} if default_type else None,
            resp.headers,
        )
        if "content-type" in {k.lower() for k in headers} and not payload:
            headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        close = resp.close or owner.stopping
        try:
            self.send_response_only(resp.status)
            for key, value in headers.items():
                if key.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if req.method != "HEAD":
                self.wfile.write(payload)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            # The client gave up (timeout after a "hang") - nothing left to answer.
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _dispatch


class FakeHTTPServer:
    """Threaded HTTP/1.1 server on ``127.0.0.1:<random port>`` with recording and faults.

    Use as a context manager (``with FakeX() as srv: ...srv.url...``) or call
    :meth:`start` / :meth:`stop`.
    """

    #: Prefixes stripped from the path before route matching (e.g. GitHub Enterprise ``/api/v3``).
    path_prefixes: tuple[str, ...] = ()

    def __init__(self, *, latency: float = 0.0) -> None:
        self.latency = latency  # seconds slept before answering each request
        self.errors: list[str] = []  # tracebacks from handlers that raised (bugs in the fake)
        self._routes: list[Route] = []
        self._faults: list[Fault] = []
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._in_flight = 0
        self.max_in_flight = 0  # peak number of requests being answered at once
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        if self._server is not None:
            return self
        self._stop_event.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}-http",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server = self._server
        if server is None:
            return
        self._stop_event.set()  # wakes handlers sleeping in latency / hang
        server.shutdown()
        # Kept-alive connections park their handler thread in readline(); shutting the
        # sockets down lets those threads finish instead of lingering until process exit.
        with server.sockets_lock:
            sockets = list(server.open_sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def stopping(self) -> bool:
        return self._stop_event.is_set()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. ``http://127.0.0.1:54321``."""
        return f"http://127.0.0.1:{self.port}"

    def sleep(self, seconds: float) -> bool:
        """Sleep, but wake early when the server stops. Returns False if interrupted."""
        if seconds <= 0:
            return True
        return not self._stop_event.wait(seconds)

    # -- routing ---------------------------------------------------------------------------

    def route(self, method: str, path_regex: str, handler: Handler) -> None:
        """Register ``handler`` for ``method`` and a path regex (full match, prefix stripped)."""
        self._routes.append(Route(method.upper(), re.compile(path_regex), handler))

    def strip_prefix(self, path: str) -> str:
        for prefix in self.path_prefixes:
            if path == prefix or path.startswith(prefix + "/"):
                return path[len(prefix) :] or "/"
        return path

    # -- hooks for subclasses --------------------------------------------------------------

    def default_headers(self, req: RecordedRequest, resp: Response) -> dict[str, str]:
        """Headers added to every response (the handler's and a fault's headers win)."""
        return {}

    def error_body(self, status: int, headers: dict[str, str], req: RecordedRequest) -> Any:
        """Body used for injected faults without an explicit body and for 404/500s."""
        return {"error": {"status": status, "message": reason(status)}}

    def not_found(self, req: RecordedRequest) -> Response:
        return Response(404, self.error_body(404, {}, req))

    # -- recording -------------------------------------------------------------------------

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(req)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def calls(
        self, path_regex: str | None = None, method: str | None = None
    ) -> list[RecordedRequest]:
        """Requests whose path matches ``path_regex`` (``re.search``) and method, if given."""
        pattern = re.compile(path_regex) if path_regex is not None else None
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (pattern is None or pattern.search(r.path))
        ]

    def count(self, path_regex: str | None = None, method: str | None = None) -> int:
        return len(self.calls(path_regex, method))

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    # -- fault injection -------------------------------------------------------------------

    def inject(
        self,
        path_regex: str,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        times: int = 1,
        every: int | None = None,
        method: str | None = None,
        after: int = 0,
    ) -> Fault:
        """Make requests whose path matches ``path_regex`` (``re.search``) fail with ``status``.

        Without ``every`` the next ``times`` matching requests fail. With ``every=N`` every Nth
        matching request fails (the Nth, 2Nth, ...) for as long as the fault is installed, and
        ``times`` is ignored. ``after=K`` lets the first K matching requests through first
        (a fault "in the middle" of a run). ``body=None`` uses the server's :meth:`error_body`.
        """
        if every is not None and every < 1:
            raise ValueError("every must be >= 1")
        fault = Fault(
            pattern=re.compile(path_regex),
            status=status,
            body=body,
            headers=dict(headers or {}),
            times=times,
            every=every,
            method=method,
            after=after,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, req: RecordedRequest) -> Fault | None:
        chosen: Fault | None = None
        with self._lock:
            for fault in self._faults:
                if fault.exhausted or not fault.matches(req):
                    continue
                # Only the first firing fault answers; later times-based faults are not
                # consumed, but every-N faults still count the request they observed.
                if chosen is not None and fault.every is None:
                    continue
                if fault.observe() and chosen is None:
                    fault.fired += 1
                    chosen = fault
        return chosen

    # -- dispatch --------------------------------------------------------------------------

    def _respond(self, req: RecordedRequest) -> Response:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            return self._respond_inner(req)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _respond_inner(self, req: RecordedRequest) -> Response:
        self.sleep(self.latency)
        fault = self._take_fault(req)
        if fault is not None:
            req.fault = True
            body = (
                fault.body
                if fault.body is not None
                else self.error_body(fault.status, fault.headers, req)
            )
            return Response(fault.status, body, dict(fault.headers))
        for route in self._routes:
            match = route.pattern.fullmatch(req.route_path)
            if match is None:
                continue
            if route.method != req.method and not (route.method == "GET" and req.method == "HEAD"):
                continue
            try:
                return route.handler(req, match)
            except Exception:
                self.errors.append(traceback.format_exc())
                return Response(500, self.error_body(500, {}, req))
        return self.not_found(req)


_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def reason(status: int) -> str:
    """Standard reason phrase for ``status`` (used for default error messages)."""
    return _REASONS.get(status, f"HTTP {status}")
