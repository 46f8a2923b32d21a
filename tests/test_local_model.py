"""The local model server.

The first part drives ``LocalModelServer`` against a tiny fake ``xllamacpp``
(a stdlib HTTP server) so lifecycle logic is tested everywhere, fast. The
second part is end-to-end with the REAL built-in model and is skipped unless
the ``local`` extra (runtime + weights) is installed: those tests load a 1.1 GB
model (2–5 s each) and generate real text (~20–40 s), so they share one server.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import weakref
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlparse

import pytest

from summarizer import local_server
from summarizer.local_server import (
    LocalModelServer,
    LocalServerError,
    choose_context_size,
    get_local_server,
    gguf_context_length,
    stop_local_server,
)
from summarizer.model_assembly import INSTALL_HINT, local_runtime_available

# The real-model tests take about a minute of full CPU and assemble the 1.1 GB model in the
# suite's temporary cache, so they are opt-in: `pytest -m real_model` (see conftest.py).
REAL_MODEL = importlib.util.find_spec("xllamacpp") is not None and local_runtime_available()


def needs_real_model(test):
    return pytest.mark.real_model(
        pytest.mark.skipif(
            not REAL_MODEL, reason="the local model runtime is not installed (prdigest[local])"
        )(test)
    )


ROOT = Path(__file__).resolve().parents[1]


def _is_listening(base_url: str) -> bool:
    url = urlparse(base_url)
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((url.hostname, url.port)) == 0


# --------------------------------------------------------------------------- GGUF header


def _gguf_string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _write_gguf(path: Path, arch: str, context_length: int | None) -> Path:
    """A header-only GGUF v3 with a vocab-like string array before the key we want."""
    kvs = [
        _gguf_string("general.architecture") + struct.pack("<I", 8) + _gguf_string(arch),
        _gguf_string("tokenizer.ggml.tokens")
        + struct.pack("<IIQ", 9, 8, 3)
        + b"".join(_gguf_string(t) for t in ("a", "bb", "ccc")),
        _gguf_string("tokenizer.ggml.token_type") + struct.pack("<IIQ", 9, 5, 3) + bytes(12),
        _gguf_string("other.context_length") + struct.pack("<II", 4, 999),
    ]
    if context_length is not None:
        kvs.append(_gguf_string(f"{arch}.context_length") + struct.pack("<II", 4, context_length))
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def test_gguf_context_length_read_from_header(tmp_path: Path) -> None:
    model = _write_gguf(tmp_path / "m.gguf", "qwen2", 32768)
    assert gguf_context_length(model) == 32768
    assert choose_context_size(model) == 8192  # capped: more context only costs RAM


def test_small_trained_context_caps_request(tmp_path: Path) -> None:
    assert choose_context_size(_write_gguf(tmp_path / "m.gguf", "llama", 2048)) == 2048


def test_unreadable_header_falls_back(tmp_path: Path) -> None:
    assert gguf_context_length(_write_gguf(tmp_path / "m.gguf", "llama", None)) is None
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 40)
    assert gguf_context_length(junk) is None
    assert gguf_context_length(tmp_path / "missing.gguf") is None
    assert choose_context_size(junk) == 8192


# --------------------------------------------------------------------------- fake runtime


class _FakeServer:
    """Stands in for ``xllamacpp.Server``: serves /health and /v1/models, stops on delete."""

    created: list[weakref.ref[_FakeServer]] = []  # weak: stopping must drop the last ref
    alive = 0

    def __init__(self, params: Any) -> None:
        self.params = params
        model_id = next(iter(params.model_alias))
        keys = params.api_keys

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                if self.path == "/health":
                    return self._send(200, {"status": "ok"})
                if self.headers.get("Authorization") != f"Bearer {keys[0]}":
                    return self._send(401, {"error": "unauthorized"})
                meta = {"n_ctx": params.n_ctx, "n_ctx_train": 32768}
                self._send(200, {"data": [{"id": model_id, "meta": meta}]})

            def _send(self, status: int, body: dict) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        self.listening_address = f"http://127.0.0.1:{self._http.server_address[1]}"
        _FakeServer.created.append(weakref.ref(self))
        _FakeServer.alive += 1

    def shutdown(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
            _FakeServer.alive -= 1

    def __del__(self) -> None:  # the real Server's C++ destructor stops llama.cpp
        self.shutdown()


def _fake_runtime() -> SimpleNamespace:
    def params() -> SimpleNamespace:
        return SimpleNamespace(
            model=SimpleNamespace(path=""),
            cpuparams=SimpleNamespace(n_threads=-1),
            cpuparams_batch=SimpleNamespace(n_threads=-1),
        )

    return SimpleNamespace(CommonParams=params, Server=_FakeServer)


@pytest.fixture
def fake_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    _FakeServer.created.clear()
    monkeypatch.setattr(local_server, "_import_runtime", _fake_runtime)
    monkeypatch.setattr(local_server, "_singleton", None)
    yield _write_gguf(tmp_path / "tiny-model.gguf", "llama", 4096)
    for ref in _FakeServer.created:
        if (server := ref()) is not None:
            server.shutdown()  # don't leak threads if a test failed midway


def test_fake_server_lifecycle(fake_runtime: Path) -> None:
    with LocalModelServer(fake_runtime, n_threads=3) as srv:
        assert srv.running
        assert srv.base_url.startswith("http://127.0.0.1:") and srv.base_url.endswith("/v1")
        assert srv.model_name == "tiny-model"
        assert srv.context_size == 4096  # min(8192, trained 4096), as reported back
        params = _FakeServer.created[0]().params
        assert params.n_parallel == 1 and params.port == 0
        assert params.cpuparams.n_threads == params.cpuparams_batch.n_threads == 3
        assert params.hostnames == ["127.0.0.1"] and params.api_keys == [srv.api_key]
        base_url = srv.base_url
    assert not srv.running
    assert _FakeServer.alive == 0 and not _is_listening(base_url)
    srv.stop()  # idempotent
    with pytest.raises(LocalServerError):
        _ = srv.model_name


def test_stop_is_registered_at_exit(fake_runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[Any] = []
    monkeypatch.setattr(local_server.atexit, "register", registered.append)
    monkeypatch.setattr(local_server.atexit, "unregister", registered.remove)
    srv = LocalModelServer(fake_runtime).start()
    assert registered == [srv.stop]
    registered[0]()  # what the interpreter does on exit
    assert not srv.running and _FakeServer.alive == 0 and registered == []


def test_singleton_starts_once_across_threads(fake_runtime: Path) -> None:
    results: list[LocalModelServer] = []
    threads = [
        threading.Thread(target=lambda: results.append(get_local_server(fake_runtime)))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(r is results[0] for r in results)
    assert len(_FakeServer.created) == 1
    stop_local_server()
    stop_local_server()
    assert _FakeServer.alive == 0
    assert get_local_server() is results[0] and _FakeServer.alive == 1  # restarts on demand
    stop_local_server()


def test_unhealthy_server_is_released(fake_runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def never_healthy(self: LocalModelServer) -> None:
        raise LocalServerError("not healthy")

    monkeypatch.setattr(LocalModelServer, "_wait_healthy", never_healthy)
    srv = LocalModelServer(fake_runtime)
    with pytest.raises(LocalServerError):
        srv.start()
    assert not srv.running and _FakeServer.alive == 0


def test_missing_runtime_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(local_server, "RUNTIME_MODULE", "prdigest_no_such_runtime")
    srv = LocalModelServer(_write_gguf(tmp_path / "m.gguf", "llama", 4096))
    with pytest.raises(LocalServerError, match=re.escape(INSTALL_HINT)):
        srv.start()
    assert not srv.running


# --------------------------------------------------------------------------- real model


@pytest.fixture(scope="module")
def real_server() -> Iterator[LocalModelServer]:
    with LocalModelServer() as srv:
        yield srv


@needs_real_model
def test_prdigest_report_with_no_key_summarizes_a_real_pr_with_the_built_in_model(
    tmp_path: Path,
) -> None:
    """The two README commands with no API key: install with [local], run `prdigest report`."""
    import subprocess
    import sys

    from tests.conftest import pacific
    from tests.fakes.github import FakeFile, FakeGitHub, FakePR
    from tests.report_parser import parse_report

    patch = (
        "@@ -10,7 +10,7 @@ def get_lora_op_configs(op_type: str, num_slices: int):\n"
        '     if op_type == "expand":\n'
        "-        block_n = max(64, next_power_of_2(128 // num_slices))\n"
        "+        block_n = 64 if num_slices > 1 else 128\n"
        '         return {"block_m": 64, "block_n": block_n}\n'
    )
    with FakeGitHub() as github:
        github.add_repo("vllm-project/vllm")
        github.add_pr(
            "vllm-project/vllm",
            FakePR(
                32621,
                "[LoRA] Update LoRA expand kernel block_n calculation",
                author="xyang16",
                merged_by="vllm-bot",
                merged_at=pacific("2026-02-23 23:17:54"),
                body="Simplify the block_n calculation of the LoRA expand kernel.",
                files=[FakeFile("vllm/lora/ops/triton_ops/utils.py", patch=patch)],
            ),
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "PRDIGEST_", "GITHUB_"))
        }
        env.update(GITHUB_API_URL=github.url, PRDIGEST_DB=str(tmp_path / "p.db"))
        result = subprocess.run(
            [sys.executable, "-m", "bot.app.cli", "report", "--repo", "vllm-project/vllm",
             "--date", "2026-02-23"],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "using the built-in local model" in result.stderr
    (entry,) = parse_report(result.stdout).entries
    assert entry.type in ("TRIVIAL", "SUBSTANTIAL")
    for heading in ("What changed and why", "Technical impact", "Potential risks", "Key insights"):
        text = entry.summary.split(f"**{heading}**  \n", 1)[1].split("\n", 1)[0]
        assert text.strip(), heading


@needs_real_model
def test_real_server_reports_what_it_really_runs(real_server: LocalModelServer) -> None:
    assert real_server.base_url.startswith("http://127.0.0.1:") and real_server.base_url.endswith(
        "/v1"
    )
    assert 0 < real_server.context_size <= 8192
    assert real_server.model_name
    assert _is_listening(real_server.base_url)


@needs_real_model
def test_real_server_rejects_requests_without_its_key(real_server: LocalModelServer) -> None:
    import openai

    client = openai.OpenAI(base_url=real_server.base_url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        client.models.list()


@needs_real_model
def test_real_stop_closes_port_and_is_idempotent() -> None:
    srv = LocalModelServer(n_ctx=512).start()
    base_url = srv.base_url
    assert _is_listening(base_url)
    srv.stop()
    srv.stop()
    assert not srv.running
    assert not _is_listening(base_url)
    with pytest.raises(LocalServerError):
        _ = srv.base_url


@needs_real_model
def test_real_ctrl_c_leaves_no_server_behind() -> None:
    """A KeyboardInterrupt in a process using the singleton ends it with the server gone."""
    script = textwrap.dedent(
        """\
        import os, signal, sys, time
        from summarizer.local_server import get_local_server
        srv = get_local_server()
        assert get_local_server() is srv  # reused, not restarted
        print(srv.base_url, flush=True)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)  # KeyboardInterrupt must interrupt this
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "KeyboardInterrupt" in proc.stderr, proc.stderr[-2000:]
    base_url = proc.stdout.strip().splitlines()[-1]
    assert not _is_listening(base_url)
