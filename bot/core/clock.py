"""The one clock: an aware UTC now, which every layer uses (and tests replace by passing
their own callable where a `clock` parameter is taken)."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)
