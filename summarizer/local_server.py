"""Serve the local GGUF model over an OpenAI-compatible HTTP endpoint on 127.0.0.1.

llama.cpp runs in-process through ``xllamacpp.Server``, so the rest of prdigest
talks to it with the stock ``openai`` client exactly as it would to a hosted
model. Because the server lives in our process, it can never outlive us: if we
exit (normally, on Ctrl-C or killed) its threads go too. ``stop()`` frees the
model early, and ``atexit`` calls it so shutdown is orderly.

A per-process random API key keeps other local users/processes off the port.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import secrets
import signal
import struct
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from summarizer.model_assembly import INSTALL_HINT, RUNTIME_MODULE, local_model_path

DEFAULT_CONTEXT = 8192  # fits a median PR + instructions; more only costs RAM and time
HOST = "127.0.0.1"
_LOG_ERRORS_ONLY = 1  # llama.cpp verbosity: 0 output, 1 error, 2 warn, 3 info
_HEALTH_POLL_SECONDS = 0.1


class LocalServerError(RuntimeError):
    """The local model server could not start or answer."""


class LocalModelServer:
    """One llama.cpp server for one GGUF; a context manager, stopped at exit."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
        verbosity: int = _LOG_ERRORS_ONLY,
    ) -> None:
        self._model_path = Path(model_path) if model_path is not None else None
        self._requested_ctx = n_ctx
        self._n_threads = n_threads or _usable_cpus()
        self._startup_timeout = startup_timeout
        self._verbosity = verbosity
        self._lock = threading.Lock()
        self._server: Any = None  # xllamacpp.Server; its C++ destructor stops llama.cpp
        self._address = ""
        self._api_key = secrets.token_urlsafe(24)
        self._model_name = ""
        self._context_size = 0
        self.load_seconds = 0.0

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> LocalModelServer:
        """Load the model and wait until healthy; a no-op when already running."""
        with self._lock:
            if self._server is not None:
                return self
            started = time.monotonic()
            path = self._model_path or local_model_path()
            self._server = self._launch(path)
            try:
                self._address = self._server.listening_address.rstrip("/")
                self._wait_healthy()
                self._read_model_info(path)
            except BaseException:
                self._release()
                raise
            self.load_seconds = time.monotonic() - started
            atexit.register(self.stop)
            return self

    def stop(self) -> None:
        """Free the model and close the port; safe to call any number of times."""
        with self._lock:
            self._release()
        atexit.unregister(self.stop)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ----------------------------------------------------------------- properties

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        """OpenAI base URL (ends in ``/v1``) for ``openai.AsyncOpenAI(base_url=...)``."""
        self._require_running()
        return f"{self._address}/v1"

    @property
    def api_key(self) -> str:
        """The random bearer token this server accepts (pass as ``api_key=``)."""
        return self._api_key

    @property
    def model_name(self) -> str:
        self._require_running()
        return self._model_name

    @property
    def context_size(self) -> int:
        """The n_ctx llama.cpp actually allocated (prompt + completion tokens)."""
        self._require_running()
        return self._context_size

    # ----------------------------------------------------------------- internals

    def _launch(self, path: Path) -> Any:
        xllamacpp = _import_runtime()
        params = self._params(xllamacpp, path)
        saved = _signal_handlers()
        try:
            # Blocks (holding the GIL) until the model is loaded and warmed up.
            return xllamacpp.Server(params)
        except Exception as exc:
            raise LocalServerError(f"llama.cpp could not load {path}: {exc}") from exc
        finally:
            _restore_signal_handlers(saved)

    def _params(self, xllamacpp: Any, path: Path) -> Any:
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.model_alias = {path.stem}  # a set[str] in xllamacpp: a bare str would split
        params.n_ctx = self._requested_ctx or choose_context_size(path)
        params.n_parallel = 1  # one PR at a time: all cores on one request is fastest
        params.cpuparams.n_threads = self._n_threads
        params.cpuparams_batch.n_threads = self._n_threads
        params.port = 0  # the OS picks a free port atomically: no probe-then-bind race
        params.hostnames = [HOST]
        params.api_keys = [self._api_key]
        params.endpoint_props = True
        params.ui = False
        params.cache_ram_mib = 0  # no cross-prompt RAM cache: PR prompts don't repeat
        params.verbosity = self._verbosity
        return params

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self._startup_timeout
        while True:
            try:
                if self._get("/health", auth=False).get("status") == "ok":
                    return
            except (OSError, ValueError):
                pass  # still loading: /health answers 503 until the model is ready
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"local model server at {self._address} not healthy after "
                    f"{self._startup_timeout:.0f}s"
                )
            time.sleep(_HEALTH_POLL_SECONDS)

    def _read_model_info(self, path: Path) -> None:
        """Ask the server what it really allocated rather than trusting our request."""
        info = self._get("/v1/models")["data"][0]
        self._model_name = str(info.get("id") or path.stem)
        meta = info.get("meta") or {}
        self._context_size = int(meta.get("n_ctx") or self._props_ctx())

    def _props_ctx(self) -> int:
        return int(self._get("/props")["default_generation_settings"]["n_ctx"])

    def count_tokens(self, text: str) -> int:
        """How many tokens the model's own tokenizer makes of `text` (llama.cpp's /tokenize)."""
        body = json.dumps({"content": text, "add_special": False}).encode()
        request = urllib.request.Request(
            self._address + "/tokenize",
            data=body,
            headers={
                "Authorization": f"Bearer {self._api_key}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return len(json.load(response)["tokens"])

    def _get(self, route: str, *, auth: bool = True) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._api_key}"} if auth else {}
        request = urllib.request.Request(self._address + route, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def _release(self) -> None:
        # Dropping the only reference runs ~Server: terminate the loop, join threads.
        server, self._server = self._server, None
        del server

    def _require_running(self) -> None:
        if self._server is None:
            raise LocalServerError("local model server is not running; call start() first")


# --------------------------------------------------------------------------- singleton

_singleton: LocalModelServer | None = None
_singleton_lock = threading.Lock()


def get_local_server(model_path: Path | None = None) -> LocalModelServer:
    """The process-wide server, started on first use and reused for every PR.

    ``model_path`` only matters for the first call (default: ``local_model_path()``).
    """
    global _singleton
    with _singleton_lock:
        if _singleton is None:
            _singleton = LocalModelServer(model_path)
        return _singleton.start()


def stop_local_server() -> None:
    """Stop the process-wide server if one was started."""
    with _singleton_lock:
        if _singleton is not None:
            _singleton.stop()


# --------------------------------------------------------------------------- helpers


def choose_context_size(path: Path, preferred: int = DEFAULT_CONTEXT) -> int:
    """``preferred`` capped at what the model was trained for (from the GGUF header)."""
    trained = gguf_context_length(path)
    return min(preferred, trained) if trained else preferred


def _import_runtime() -> Any:
    try:
        return importlib.import_module(RUNTIME_MODULE)
    except ImportError as exc:
        raise LocalServerError(
            f"the local model runtime ({RUNTIME_MODULE}) is not installed; run: {INSTALL_HINT}"
        ) from exc


def _usable_cpus() -> int:
    # sched_getaffinity respects container/taskset limits that cpu_count() ignores.
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def _signal_handlers() -> dict[int, Any]:
    return {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}


def _restore_signal_handlers(saved: dict[int, Any]) -> None:
    """Some llama.cpp server builds install their own SIGINT/SIGTERM handler, which
    would swallow Ctrl-C; put Python's back so KeyboardInterrupt (and our atexit
    stop) still happen. Only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig, handler in saved.items():
        if handler is not None:
            signal.signal(sig, handler)


# --------------------------------------------------------------------------- GGUF header

_GGUF_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_GGUF_STRING, _GGUF_ARRAY = 8, 9
_MAX_HEADER_KEYS = 256  # context_length comes early; never walk the whole vocab
_MAX_STRING = 1 << 20


def gguf_context_length(path: Path) -> int | None:
    """``<arch>.context_length`` from a GGUF v2/v3 header, or None if unreadable."""
    try:
        with path.open("rb") as f:
            return _scan_context_length(f)
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return None


def _scan_context_length(f: BinaryIO) -> int | None:
    magic, version = struct.unpack("<4sI", f.read(8))
    if magic != b"GGUF" or version < 2:
        return None
    _tensors, n_kv = struct.unpack("<QQ", f.read(16))
    arch: str | None = None
    lengths: dict[str, int] = {}
    for _ in range(min(n_kv, _MAX_HEADER_KEYS)):
        key = _read_string(f)
        value = _read_value(f, struct.unpack("<I", f.read(4))[0])
        if key == "general.architecture":
            arch = str(value)
        elif key.endswith(".context_length") and isinstance(value, int):
            lengths[key] = value
        if arch and f"{arch}.context_length" in lengths:
            return lengths[f"{arch}.context_length"]
    return None


def _read_string(f: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", f.read(8))
    if length > _MAX_STRING:  # a corrupt length must not make us allocate gigabytes
        raise ValueError("GGUF string too long")
    return f.read(length).decode("utf-8")


def _read_value(f: BinaryIO, vtype: int) -> object:
    if vtype in _GGUF_SCALARS:
        fmt = "<" + _GGUF_SCALARS[vtype]
        return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]
    if vtype == _GGUF_STRING:
        return _read_string(f)
    if vtype == _GGUF_ARRAY:
        item_type, count = struct.unpack("<IQ", f.read(12))
        if item_type in _GGUF_SCALARS:  # fixed-size items: jump over them
            f.seek(count * struct.calcsize("<" + _GGUF_SCALARS[item_type]), os.SEEK_CUR)
        else:
            for _ in range(count):  # skipped, not kept: we only need scalars
                _read_value(f, item_type)
        return None
    raise ValueError(f"unknown GGUF value type {vtype}")
