"""Counting tokens: with the model's own tokenizer when it has one here (the built-in model's,
through llama.cpp), else tiktoken's encoding, else an estimate when that cannot be loaded."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)

_lock = threading.Lock()
_counter: Callable[[str], int] | None = None


def _estimate(text: str) -> int:
    # o200k averages about 4 characters a token on English but nearer 3 on code and diffs;
    # counting 3 keeps a budget computed with the estimate within the real limit.
    return (len(text) + 2) // 3


def count_tokens(text: str) -> int:
    return _get_counter()(text)


def use_model_tokenizer(count: Callable[[str], int]) -> None:
    """Count with the model's own tokenizer from now on (the process talks to one model). A
    failing call falls back to the estimate, said once; repeated texts are counted once."""
    global _counter
    warned: list[bool] = []

    @functools.lru_cache(maxsize=65536)
    def counted(text: str) -> int:
        if not text:
            return 0
        try:
            return count(text)
        except Exception as exc:  # noqa: BLE001 - a count must never fail a summary
            if not warned:
                warned.append(True)
                log.info("the model's tokenizer did not answer (%s): estimating", exc)
            return _estimate(text)

    with _lock:
        _counter = counted


def _get_counter() -> Callable[[str], int]:
    global _counter
    if _counter is None:
        with _lock:
            if _counter is None:
                _counter = _load()
    return _counter


def _load() -> Callable[[str], int]:
    # tiktoken fetches its encoding files on first use; with no network that fails (or, behind
    # a firewall that drops packets, hangs), and a budget does not need exact counts, so an
    # estimate stands in after a short wait (said once, not per PR).
    loaded: dict = {}

    def load() -> None:
        try:
            import tiktoken

            loaded["encoding"] = tiktoken.get_encoding("o200k_base")
        except Exception as exc:  # noqa: BLE001 - any failure to load means "estimate"
            loaded["error"] = type(exc).__name__

    worker = threading.Thread(target=load, name="tiktoken-load", daemon=True)
    worker.start()
    worker.join(timeout=10)
    encoding = loaded.get("encoding")
    if encoding is None:
        log.info(
            "tiktoken encodings unavailable (%s): token counts are estimated",
            loaded.get("error", "timed out"),
        )
        return _estimate
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def fit_lines(texts: Iterable[str], used: int, max_tokens: int) -> tuple[list[str], int]:
    """The first of `texts` that fit in `max_tokens` after the `used` already spent (each with
    its newline), always at least one; and the tokens used then."""
    kept: list[str] = []
    for text in texts:
        cost = count_tokens(text) + 1
        if kept and used + cost > max_tokens:
            break
        kept.append(text)
        used += cost
    return kept, used
