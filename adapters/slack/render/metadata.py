"""What each message a digest posts records in its Slack metadata: enough for crash recovery
to find it again (and never take one digest's message for another's), and for a flag to
know which summary it is about."""

from __future__ import annotations

from typing import Any

from bot.core.models import Digest, DigestEntry
from bot.core.scope import label_of

DIGEST_EVENT = "prdigest_digest"  # metadata of a digest's parent (or empty-day) message
PR_EVENT = "prdigest_pr"  # metadata of one PR's summary, in a thread or as a /prsummary answer
GROUP_EVENT = "prdigest_group"  # metadata of each part of a digest's grouped reply


def digest_metadata(digest: Digest, kind: str) -> dict[str, Any]:
    """What a parent or empty-day message records: repo, day and, for a filtered digest or a
    weekly rollup, its `scope`, so crash recovery never takes one digest's message for
    another's (a whole day's has no scope, as before scopes existed)."""
    payload: dict[str, Any] = {
        "repo": digest.repo,
        "day": digest.window.day.isoformat(),
        "tz": digest.window.tz_name,
        "kind": kind,
    }
    if label := label_of(digest):
        payload["scope"] = label
    return {"event_type": DIGEST_EVENT, "event_payload": payload}


def pr_payload(entry: DigestEntry, *, day: str = "") -> dict[str, Any]:
    """What a PR message's metadata records: enough to find it again and to flag it."""
    payload: dict[str, Any] = {"repo": entry.pr.repo, "pr": entry.pr.number}
    if day:
        payload["day"] = day
    if entry.summary and entry.summary.id is not None:
        payload["summary_id"] = entry.summary.id
    return payload


def pr_metadata(payload: dict[str, Any], part: int) -> dict[str, Any]:
    """Part `part` of a PR's message: part 1 is the message flags attach to and the one
    crash recovery looks for."""
    return {"event_type": PR_EVENT, "event_payload": {**payload, "part": part}}


def group_metadata(digest: Digest, part: int) -> dict[str, Any]:
    """Part `part` of the grouped reply (and, for a weekly rollup's area reply, its title)."""
    payload: dict[str, Any] = {
        "repo": digest.repo,
        "day": digest.window.day.isoformat(),
        "part": part,
    }
    if digest.group_title:
        payload["title"] = digest.group_title
    return {"event_type": GROUP_EVENT, "event_payload": payload}
