"""The store: one class over a sqlite-utils Database, the only place that writes SQL.

Rows go in and out as the dataclasses of `bot.models`; nothing else sees a row dict.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database

from bot.errors import ConfigurationError, PRDigestError
from bot.migrations import migrations
from bot.models import (
    ChangedFile,
    ChangeType,
    DayWindow,
    Flag,
    PostRecord,
    PRSummary,
    PullRequest,
    SummarySections,
    Usage,
)


class StorageError(PRDigestError):
    """The database cannot be written (disk full, read-only file, I/O error): one line for the
    user instead of a traceback, and not worth retrying until someone fixes the disk."""


# SQLite's result codes that mean "the file, not the query, is the problem".
_STORAGE_FAILURES = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the database file is read-only",
    "SQLITE_IOERR": "a disk I/O error occurred",
    "SQLITE_CANTOPEN": "the database file cannot be opened",
    "SQLITE_CORRUPT": "the database file is corrupt",
    "SQLITE_NOTADB": "the file is not a SQLite database",
}


def _storage_failure(exc: sqlite3.Error) -> str | None:
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, reason in _STORAGE_FAILURES.items():
        if name == prefix or name.startswith(prefix + "_"):  # e.g. SQLITE_IOERR_WRITE
            return reason
    return None


def _clear_storage_errors(method):
    """Turn SQLite's disk-level failures inside a Store method into a StorageError."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            reason = _storage_failure(exc)
            if reason is None:
                raise
            raise StorageError(f"Cannot write to the database at {self.path}: {reason}") from None

    return wrapper


def utcnow() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None


def _or(value, default):
    return default if value is None else value


def _parse(moment: str | None) -> datetime | None:
    return datetime.fromisoformat(moment) if moment else None


class Store:
    def __init__(self, path: str | Path):
        """Open (creating if needed) the database at `path` and bring its schema up to date.

        `":memory:"` gives a throwaway database, for tests.
        """
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False: the store is shared by the event loop and its worker
            # threads; sqlite serializes the writes and the busy timeout absorbs contention.
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=15)
            self.db = Database(conn)
            if self.path != ":memory:":
                # WAL: readers never block the writer, and a write killed mid-way is rolled back.
                self.db.enable_wal()
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA synchronous=NORMAL")
            migrations.apply(self.db)
        except (sqlite3.Error, OSError) as exc:
            raise ConfigurationError(f"Cannot open the database at {self.path}: {exc}") from None

    def close(self) -> None:
        self.db.conn.close()

    # -- pull requests -------------------------------------------------------------------

    def save_pr(self, pr: PullRequest) -> None:
        with self.db.atomic():
            self.db["pull_requests"].upsert(
                {
                    "repo": pr.repo,
                    "number": pr.number,
                    "title": pr.title,
                    "url": pr.url,
                    "author": pr.author,
                    "state": pr.state,
                    "body": pr.body,
                    "labels": json.dumps(list(pr.labels)),
                    "merged_by": pr.merged_by,
                    "merged_at": _iso(pr.merged_at),
                    "base_ref": pr.base_ref,
                    "head_sha": pr.head_sha,
                    "merge_commit_sha": pr.merge_commit_sha,
                    "html_base": pr.html_base,
                    "fetched_at": _iso(utcnow()),
                },
                pk=("repo", "number"),
            )
            self.db["pr_files"].delete_where("repo = ? AND number = ?", [pr.repo, pr.number])
            self.db["pr_files"].insert_all(
                (
                    {
                        "repo": pr.repo,
                        "number": pr.number,
                        "position": i,
                        "filename": f.filename,
                        "status": f.status,
                        "additions": f.additions,
                        "deletions": f.deletions,
                        "patch": f.patch,
                        "previous_filename": f.previous_filename,
                    }
                    for i, f in enumerate(pr.files)
                ),
                pk=("repo", "number", "position"),
            )

    def get_pr(self, repo: str, number: int) -> PullRequest | None:
        rows = list(self.db["pull_requests"].rows_where("repo = ? AND number = ?", [repo, number]))
        if not rows:
            return None
        row = rows[0]
        files = tuple(
            ChangedFile(
                filename=f["filename"],
                status=f["status"],
                additions=f["additions"] or 0,
                deletions=f["deletions"] or 0,
                patch=f["patch"],
                previous_filename=f["previous_filename"],
            )
            for f in self.db["pr_files"].rows_where(
                "repo = ? AND number = ?", [repo, number], order_by="position"
            )
        )
        return PullRequest(
            repo=row["repo"],
            number=row["number"],
            title=row["title"],
            url=row["url"],
            author=row["author"],
            state=row["state"],
            body=row["body"] or "",
            labels=tuple(json.loads(row["labels"] or "[]")),
            merged_by=row["merged_by"],
            merged_at=_parse(row["merged_at"]),
            base_ref=row["base_ref"] or "",
            head_sha=row["head_sha"] or "",
            merge_commit_sha=row["merge_commit_sha"],
            files=files,
            html_base=row["html_base"] or "https://github.com",
        )

    # -- a day's list of PRs -------------------------------------------------------------

    def save_day(self, repo: str, window: DayWindow, numbers: list[int], complete: bool) -> None:
        self.db["digests"].upsert(
            {
                "repo": repo,
                "day": window.day.isoformat(),
                "tz_name": window.tz_name,
                "numbers": json.dumps(numbers),
                "complete": int(complete),
                "fetched_at": _iso(utcnow()),
            },
            pk=("repo", "day", "tz_name"),
        )

    def get_day(self, repo: str, window: DayWindow) -> list[int] | None:
        """The day's PR numbers, if they were listed after the day was over (so are final)."""
        row = self._day_row(repo, window)
        if row is None or not row["complete"]:
            return None
        return list(json.loads(row["numbers"]))

    def record_day_result(self, repo: str, window: DayWindow, failed: dict[int, str]) -> None:
        self.db["digests"].update(
            (repo, window.day.isoformat(), window.tz_name),
            {"generated_at": _iso(utcnow()), "failed": json.dumps(failed)},
        )

    def _day_row(self, repo: str, window: DayWindow) -> dict | None:
        rows = list(
            self.db["digests"].rows_where(
                "repo = ? AND day = ? AND tz_name = ?",
                [repo, window.day.isoformat(), window.tz_name],
            )
        )
        return rows[0] if rows else None

    # -- summaries -----------------------------------------------------------------------

    def save_summary(self, summary: PRSummary) -> PRSummary:
        row = {
            "repo": summary.repo,
            "number": summary.number,
            "revision_sha": summary.revision_sha,
            "prompt_version": summary.prompt_version,
            "model": summary.model,
            "revision": summary.revision,
            "change_type": summary.change_type.value,
            "what_changed": summary.sections.what_changed,
            "technical_impact": summary.sections.technical_impact,
            "potential_risks": summary.sections.potential_risks,
            "key_insights": summary.sections.key_insights,
            "files_covered": summary.files_covered,
            "files_total": summary.files_total,
            "prompt_tokens": summary.usage.prompt_tokens,
            "completion_tokens": summary.usage.completion_tokens,
            "created_at": _iso(summary.created_at or utcnow()),
            "grounded_fraction": summary.grounded_fraction,
            "unverified": json.dumps(list(summary.unverified)),
            "change_note": summary.change_note,
        }
        with self.db.atomic():
            # --refresh writes the same key again: the new text replaces the old in place.
            existing = self._summary_rows(
                "repo = ? AND number = ? AND revision_sha = ? AND prompt_version = ?"
                " AND model = ? AND revision = ?",
                [
                    summary.repo,
                    summary.number,
                    summary.revision_sha,
                    summary.prompt_version,
                    summary.model,
                    summary.revision,
                ],
            )
            if existing:
                summary_id = existing[0]["id"]
                self.db["summaries"].update(summary_id, row)
            else:
                summary_id = self.db["summaries"].insert(row).last_pk
        return self.get_summary_by_id(summary_id)  # type: ignore[return-value]

    def get_summary(
        self, repo: str, number: int, revision_sha: str, prompt_version: str, model: str
    ) -> PRSummary | None:
        """The current (not superseded) summary for this exact PR state, prompt and model."""
        rows = self._summary_rows(
            "repo = ? AND number = ? AND revision_sha = ? AND prompt_version = ? AND model = ?"
            " AND superseded_by IS NULL",
            [repo, number, revision_sha, prompt_version, model],
            order_by="revision DESC",
        )
        return self._summary(rows[0]) if rows else None

    def get_summary_by_id(self, summary_id: int) -> PRSummary | None:
        rows = self._summary_rows("id = ?", [summary_id])
        return self._summary(rows[0]) if rows else None

    def latest_summary(self, repo: str, number: int) -> PRSummary | None:
        """The newest current summary of a PR, whatever model or prompt made it."""
        rows = self._summary_rows(
            "repo = ? AND number = ? AND superseded_by IS NULL",
            [repo, number],
            order_by="id DESC",
        )
        return self._summary(rows[0]) if rows else None

    def supersede(self, old_id: int, new_id: int) -> None:
        self.db["summaries"].update(old_id, {"superseded_by": new_id})

    def _summary_rows(self, where: str, args: list, order_by: str | None = None) -> list[dict]:
        return list(self.db["summaries"].rows_where(where, args, order_by=order_by, limit=1))

    @staticmethod
    def _summary(row: dict) -> PRSummary:
        return PRSummary(
            id=row["id"],
            repo=row["repo"],
            number=row["number"],
            revision_sha=row["revision_sha"],
            prompt_version=row["prompt_version"],
            model=row["model"],
            revision=row["revision"],
            change_type=ChangeType(row["change_type"]),
            sections=SummarySections(
                what_changed=row["what_changed"],
                technical_impact=row["technical_impact"],
                potential_risks=row["potential_risks"],
                key_insights=row["key_insights"],
            ),
            files_covered=row["files_covered"],
            files_total=row["files_total"],
            usage=Usage(row["prompt_tokens"] or 0, row["completion_tokens"] or 0),
            created_at=_parse(row["created_at"]),
            superseded=row["superseded_by"] is not None,
            grounded_fraction=_or(row.get("grounded_fraction"), 1.0),
            unverified=tuple(json.loads(row.get("unverified") or "[]")),
            change_note=row.get("change_note"),
        )

    # -- the LLM log ---------------------------------------------------------------------

    def log_llm_call(
        self,
        *,
        repo: str,
        number: int,
        model: str,
        prompt_version: str,
        purpose: str,
        messages: list[dict],
        response: str | None,
        error: str | None,
        usage: Usage,
        duration_ms: int,
    ) -> int:
        return (
            self.db["llm_calls"]
            .insert(
                {
                    "repo": repo,
                    "number": number,
                    "model": model,
                    "prompt_version": prompt_version,
                    "purpose": purpose,
                    "messages": json.dumps(messages),
                    "response": response,
                    "error": error,
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "duration_ms": duration_ms,
                    "created_at": _iso(utcnow()),
                }
            )
            .last_pk
        )

    def llm_call_count(self) -> int:
        return self.db["llm_calls"].count

    # -- posted messages -----------------------------------------------------------------

    def begin_post(self, record: PostRecord, kind: str) -> PostRecord:
        """Write the intent to post before sending, so a crash leaves a trace to reconcile.

        Returns the existing record when one is already there for this digest slot.
        """
        if kind in ("parent", "pr", "empty"):
            existing = self.digest_post(
                record.platform, record.channel, record.repo, record.day, kind, record.pr_number
            )
            if existing:
                return existing
        row_id = (
            self.db["posts"]
            .insert(
                {
                    "platform": record.platform,
                    "channel": record.channel,
                    "repo": record.repo,
                    "day": record.day,
                    "kind": kind,
                    "pr_number": record.pr_number,
                    "message_id": record.message_id or None,
                    "thread_id": record.thread_id,
                    "summary_id": record.summary_id,
                    "tz_name": record.tz_name,
                    "created_at": _iso(utcnow()),
                }
            )
            .last_pk
        )
        return replace(record, id=row_id)

    def complete_post(
        self, record_id: int, message_id: str, thread_id: str | None = None
    ) -> PostRecord:
        values = {"message_id": message_id, "posted_at": _iso(utcnow())}
        if thread_id is not None:
            values["thread_id"] = thread_id
        self.db["posts"].update(record_id, values)
        return self._post(self.db["posts"].get(record_id))

    def mark_attempt(self, record_id: int) -> None:
        self.db["posts"].update(record_id, {"attempted_at": _iso(utcnow())})

    def post_attempted(self, record_id: int) -> bool:
        return bool(self.db["posts"].get(record_id)["attempted_at"])

    def digest_post(
        self, platform: str, channel: str, repo: str, day: str, kind: str, pr_number: int = 0
    ) -> PostRecord | None:
        rows = list(
            self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND repo = ? AND day = ? AND kind = ?"
                " AND pr_number = ?",
                [platform, channel, repo, day, kind, pr_number],
                limit=1,
            )
        )
        return self._post(rows[0]) if rows else None

    def digest_posts(self, platform: str, channel: str, repo: str, day: str) -> list[PostRecord]:
        return [
            self._post(row)
            for row in self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND repo = ? AND day = ? AND kind IN ('parent','pr','empty')",
                [platform, channel, repo, day],
                order_by="id",
            )
        ]

    def post_by_message(self, platform: str, channel: str, message_id: str) -> PostRecord | None:
        rows = list(
            self.db["posts"].rows_where(
                "platform = ? AND channel = ? AND message_id = ?",
                [platform, channel, message_id],
                limit=1,
            )
        )
        return self._post(rows[0]) if rows else None

    def post_kind(self, record_id: int) -> str:
        return self.db["posts"].get(record_id)["kind"]

    @staticmethod
    def _post(row: dict) -> PostRecord:
        return PostRecord(
            id=row["id"],
            platform=row["platform"],
            channel=row["channel"],
            repo=row["repo"],
            day=row["day"],
            pr_number=row["pr_number"],
            message_id=row["message_id"] or "",
            thread_id=row["thread_id"],
            summary_id=row["summary_id"],
            tz_name=row.get("tz_name"),
        )

    def unfinished_digests(self, platform: str, since_day: str) -> list[PostRecord]:
        """Digest parents (from `since_day` on) with a reply slot begun but never completed."""
        rows = self.db.query(
            "SELECT * FROM posts AS parent WHERE parent.platform = ? AND parent.kind = 'parent'"
            " AND parent.day >= ? AND parent.tz_name IS NOT NULL AND (parent.message_id IS NULL"
            " OR EXISTS (SELECT 1 FROM posts AS reply WHERE reply.platform = parent.platform"
            " AND reply.channel = parent.channel AND reply.repo = parent.repo"
            " AND reply.day = parent.day AND reply.kind = 'pr' AND reply.message_id IS NULL))"
            " ORDER BY parent.id",
            [platform, since_day],
        )
        return [self._post(row) for row in rows]

    def claim_flag_ack(self, platform: str, channel: str, summary_id: int) -> bool:
        """True for exactly one caller per (platform, channel, summary)."""
        try:
            self.db["posts"].insert(
                {
                    "platform": platform,
                    "channel": channel,
                    "repo": "",
                    "day": "",
                    "kind": "flag_ack",
                    "pr_number": 0,
                    "summary_id": summary_id,
                    "created_at": _iso(utcnow()),
                }
            )
        except sqlite3.IntegrityError:
            return False
        return True

    # -- flag-driven revisions -----------------------------------------------------------

    def start_revision(self, summary_id: int, user: str) -> int:
        return (
            self.db["revision_attempts"]
            .insert({"summary_id": summary_id, "user": user, "started_at": _iso(utcnow())})
            .last_pk
        )

    def finish_revision(
        self, attempt_id: int, outcome: str, new_summary_id: int | None = None
    ) -> None:
        self.db["revision_attempts"].update(
            attempt_id, {"outcome": outcome, "new_summary_id": new_summary_id}
        )

    def unposted_revisions(self, platform: str, since: datetime) -> list[tuple[int, int, int]]:
        """(flag id, old summary id, new summary id) of revisions whose correction was never
        posted on `platform`: the process stopped between saving the new version and posting."""
        rows = self.db.query(
            "SELECT max(f.id) AS flag_id, a.summary_id, a.new_summary_id"
            " FROM revision_attempts AS a JOIN flags AS f"
            " ON f.summary_id = a.summary_id AND f.user = a.user AND f.platform = ?"
            " WHERE a.outcome = 'revised' AND a.started_at >= ? AND NOT EXISTS ("
            "  SELECT 1 FROM posts AS p WHERE p.platform = ? AND p.kind = 'revision'"
            "  AND p.summary_id = a.new_summary_id AND p.message_id IS NOT NULL)"
            " GROUP BY a.id ORDER BY a.id",
            [platform, _iso(since), platform],
        )
        return [(r["flag_id"], r["summary_id"], r["new_summary_id"]) for r in rows]

    def get_flag(self, flag_id: int) -> Flag | None:
        rows = list(self.db["flags"].rows_where("id = ?", [flag_id], limit=1))
        return self._flag(rows[0]) if rows else None

    def revisions_since(self, summary_id: int, since: datetime) -> int:
        """Re-checks begun since `since`: running or finished, but not failed or cancelled
        (an LLM error must not use up the hour's one re-check)."""
        return self.db["revision_attempts"].count_where(
            "summary_id = ? AND started_at >= ? AND coalesce(outcome, '') NOT IN ('failed', 'cancelled')",
            [summary_id, _iso(since)],
        )

    def flagged_summary_ids(self, since: datetime, repo: str | None = None) -> list[int]:
        """Summaries with any flag (active or removed) since `since`, oldest first."""
        where, args = "created_at >= ?", [_iso(since)]
        if repo:
            where, args = where + " AND repo = ?", [*args, repo]
        rows = self.db.query(
            f"SELECT summary_id, min(id) AS first FROM flags WHERE {where}"
            " GROUP BY summary_id ORDER BY first",
            args,
        )
        return [row["summary_id"] for row in rows]

    def flags_of(self, summary_id: int) -> list[Flag]:
        """Every flag ever put on one summary version, removed ones included."""
        return [
            self._flag(row)
            for row in self.db["flags"].rows_where("summary_id = ?", [summary_id], order_by="id")
        ]

    def revised_version(self, summary_id: int) -> PRSummary | None:
        """The summary that superseded this one, if a flag led to a revision."""
        rows = self._summary_rows(
            "id = (SELECT superseded_by FROM summaries WHERE id = ?)", [summary_id]
        )
        return self._summary(rows[0]) if rows else None

    def revision_flagger(self, new_summary_id: int) -> str | None:
        """Who flagged the summary that `new_summary_id` revised."""
        rows = list(
            self.db["revision_attempts"].rows_where(
                "new_summary_id = ?", [new_summary_id], order_by="id", limit=1
            )
        )
        return rows[0]["user"] if rows else None

    def user_flags_since(self, user: str, since: datetime) -> int:
        return self.db["flags"].count_where("user = ? AND created_at >= ?", [user, _iso(since)])

    # -- flags ---------------------------------------------------------------------------

    def add_flag(self, flag: Flag) -> tuple[Flag, bool]:
        """Record a flag; returns (flag, True) when new, (existing, False) when already there."""
        existing = self._active_flag(flag.platform, flag.channel, flag.message_id, flag.user)
        if existing:
            return existing, False
        row_id = (
            self.db["flags"]
            .insert(
                {
                    "platform": flag.platform,
                    "channel": flag.channel,
                    "message_id": flag.message_id,
                    "user": flag.user,
                    "repo": flag.repo,
                    "number": flag.number,
                    "summary_id": flag.summary_id,
                    "emoji": flag.emoji,
                    "created_at": _iso(utcnow()),
                }
            )
            .last_pk
        )
        return self._flag(self.db["flags"].get(row_id)), True

    def remove_flag(self, platform: str, channel: str, message_id: str, user: str) -> Flag | None:
        existing = self._active_flag(platform, channel, message_id, user)
        if existing is None:
            return None
        self.db["flags"].update(existing.id, {"removed_at": _iso(utcnow())})
        return existing

    def active_flags(self, summary_id: int) -> list[Flag]:
        return [
            self._flag(row)
            for row in self.db["flags"].rows_where(
                "summary_id = ? AND removed_at IS NULL", [summary_id], order_by="id"
            )
        ]

    def flag_count_since(self, since: datetime, repo: str) -> int:
        return self.db["flags"].count_where("created_at >= ? AND repo = ?", [_iso(since), repo])

    def _active_flag(self, platform: str, channel: str, message_id: str, user: str) -> Flag | None:
        rows = list(
            self.db["flags"].rows_where(
                "platform = ? AND channel = ? AND message_id = ? AND user = ? AND removed_at IS NULL",
                [platform, channel, message_id, user],
                limit=1,
            )
        )
        return self._flag(rows[0]) if rows else None

    @staticmethod
    def _flag(row: dict) -> Flag:
        return Flag(
            id=row["id"],
            platform=row["platform"],
            channel=row["channel"],
            message_id=row["message_id"],
            user=row["user"],
            repo=row["repo"],
            number=row["number"],
            summary_id=row["summary_id"],
            emoji=row["emoji"],
            created_at=_parse(row["created_at"]),
        )


# Every public method: a full disk or a read-only file surfaces as one clear StorageError
# (the CLI prints it and exits 2, the bots answer it) rather than a raw sqlite3 traceback.
for _name, _method in list(vars(Store).items()):
    if callable(_method) and not _name.startswith("_") and _name != "close":
        setattr(Store, _name, _clear_storage_errors(_method))
del _name, _method
