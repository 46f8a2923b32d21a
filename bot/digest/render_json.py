"""The `--json` output: the same digest, for machines."""

from __future__ import annotations

from datetime import tzinfo

from bot.core.models import Digest, DigestEntry


def digest_json(digest: Digest) -> dict:
    window = digest.window
    return {
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
        "summary": None,
        "error": entry.error,
    }  # fmt: skip
    if summary:
        data["summary"] = {
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
