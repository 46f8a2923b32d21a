"""The `--json` output: the same digest, for machines."""

from __future__ import annotations

from datetime import tzinfo

from bot.core.models import Digest, DigestEntry
from bot.digest.glance import GlancePR, glance


def digest_json(digest: Digest) -> dict:
    window = digest.window
    data = {
        "repo": digest.repo,
        "display_name": digest.display_name,
        "date": window.day.isoformat(),
        "timezone": window.tz_name,
        "tz_abbrev": window.tz_abbrev,
        "window": {"start": window.start.isoformat(), "end": window.end.isoformat()},
        "total": len(digest.entries),
        "failed": [e.pr.number for e in digest.failed],
        "usage": {
            "prompt_tokens": digest.usage.prompt_tokens,
            "completion_tokens": digest.usage.completion_tokens,
        },
        "pull_requests": [entry_json(e, window.start.tzinfo) for e in digest.entries],
    }
    if digest.overview is not None:
        data["overview"] = overview_json(digest)
    return data


def overview_json(digest: Digest) -> dict:
    """The day at a glance: the counts, the highlights in rank order (a same-day revert pair
    as one, with `reverted_by`), the same-day reverts not highlighted, and the areas."""
    view = glance(digest)
    c = view.counts
    return {
        "counts": {
            "merged": c.merged, "substantial": c.substantial, "trivial": c.trivial,
            "without_summary": c.unsummarized, "contributors": c.contributors,
        },
        "picked_by": view.picked_by,
        "highlights": [_item_json(item) for item in view.highlights],
        "same_day_reverts": [_item_json(item) for item in view.reverts],
        "areas": [
            {"name": a.name, "count": a.count, "numbers": list(a.numbers)} for a in view.areas
        ],
    }  # fmt: skip


def _item_json(item: GlancePR) -> dict:
    by = item.reverted_by
    return {
        "number": item.number, "headline": item.headline, "title": item.title,
        "url": item.url, "reverted_by": by.number if by else None,
    }  # fmt: skip


def entry_json(entry: DigestEntry, tz: tzinfo | None) -> dict:
    pr, summary = entry.pr, entry.summary
    data: dict = {
        "number": pr.number,
        "title": pr.title,
        "url": pr.url,
        "state": pr.state,
        "author": pr.author,
        "merged_by": pr.merged_by,
        "merged_at": pr.merged_at.astimezone(tz).isoformat() if pr.merged_at else None,
        "labels": list(pr.labels),
        "files": [
            {"filename": f.filename, "status": f.status, "additions": f.additions,
             "deletions": f.deletions, "previous_filename": f.previous_filename}
            for f in pr.files
        ],
        "type": summary.change_type.value if summary else None,
        "area": entry.area,
        "related": [
            {"kind": r.kind.value, "number": r.number, "title": r.title, "url": r.url,
             "merged_day": r.merged_day, "same_day": r.same_day}
            for r in entry.related
        ],
        "summary": None,
        "error": entry.error,
    }  # fmt: skip
    if summary:
        data["summary"] = {
            "headline": summary.sections.headline,
            "what_changed": summary.sections.what_changed,
            "technical_impact": summary.sections.technical_impact,
            "potential_risks": summary.sections.potential_risks,
            "key_insights": summary.sections.key_insights,
            "model": summary.model,
            "prompt_version": summary.prompt_version,
            "revision": summary.revision,
            "files_covered": summary.files_covered,
            "files_total": summary.files_total,
            "prompt_tokens": summary.usage.prompt_tokens,
            "completion_tokens": summary.usage.completion_tokens,
        }
    return data
