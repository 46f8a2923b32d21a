"""The `pull_requests`, `pr_files`, `digests` and `not_prs` tables: fetched PRs, each day's
list, and the numbers that turned out to be issues."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from bot.core.clock import utcnow
from bot.core.models import ChangedFile, DayWindow, PullRequest
from bot.store.base import Tables, from_row, iso, parse_time
from bot.store.threads import reads, writes

# A commit as `git revert` names it: an abbreviation of at least 7 hex digits, or all 40.
_SHA_PREFIX = re.compile(r"[0-9a-f]{7,40}")


_FILES_KEY = ("repo", "number", "position")


@dataclass(frozen=True)
class DroppedDiffs:
    prs: int
    bytes: int  # the patches' own bytes


class PRTables(Tables):
    @writes
    def save_pr(self, pr: PullRequest) -> None:
        with self.transaction():
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
                    "merged_at": iso(pr.merged_at),
                    "base_ref": pr.base_ref,
                    "head_sha": pr.head_sha,
                    "merge_commit_sha": pr.merge_commit_sha,
                    "html_base": pr.html_base,
                    "changed_files": pr.changed_files,
                    "fetched_at": iso(utcnow()),
                    "diff_pruned_at": None,  # stored with its patches, as GitHub gave them
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
                pk=_FILES_KEY,
            )

    @reads
    def get_pr(self, repo: str, number: int) -> PullRequest | None:
        rows = list(self.db["pull_requests"].rows_where("repo = ? AND number = ?", [repo, number]))
        if not rows:
            return None
        row = rows[0]
        files = tuple(
            from_row(ChangedFile, f, additions=f["additions"] or 0, deletions=f["deletions"] or 0)
            for f in self.db["pr_files"].rows_where(
                "repo = ? AND number = ?", [repo, number], order_by="position"
            )
        )
        return from_row(
            PullRequest,
            row,
            body=row["body"] or "",
            labels=tuple(json.loads(row["labels"] or "[]")),
            merged_at=parse_time(row["merged_at"]),
            base_ref=row["base_ref"] or "",
            head_sha=row["head_sha"] or "",
            files=files,
            html_base=row["html_base"] or "https://github.com",
            diff_pruned=row.get("diff_pruned_at") is not None,
        )

    @reads
    def pr_by_merge_sha(self, repo: str, sha: str) -> PullRequest | None:
        """The merged PR whose merge commit starts with `sha` (7 to 40 hex digits, as `git
        revert` names it); None if there is none, or if the prefix fits more than one."""
        sha = sha.strip().lower()
        if not _SHA_PREFIX.fullmatch(sha):
            return None
        rows = self.db.execute(
            "SELECT number FROM pull_requests WHERE repo = ? AND state = 'merged'"
            " AND substr(lower(merge_commit_sha), 1, ?) = ? LIMIT 2",
            [repo, len(sha), sha],
        ).fetchall()
        return self.get_pr(repo, rows[0][0]) if len(rows) == 1 else None

    @reads
    def merged_pr_by_title(self, repo: str, title: str) -> PullRequest | None:
        """The most recently merged PR titled exactly `title`, if one is stored."""
        row = self.db.execute(
            "SELECT number FROM pull_requests WHERE repo = ? AND state = 'merged' AND title = ?"
            " ORDER BY merged_at DESC, number DESC LIMIT 1",
            [repo, title],
        ).fetchone()
        return self.get_pr(repo, row[0]) if row else None

    @writes
    def drop_old_diffs(self, before: str, limit: int) -> DroppedDiffs:
        """Drop the patches of at most `limit` PRs merged (or, unmerged, fetched) before
        `before`, oldest first; their files keep names and sizes. One short transaction.

        The files are deleted and written again without their patches rather than updated:
        SQLite merges the pages a delete leaves nearly empty, not those an update shrinks."""
        with self.transaction():
            keys = self.db.execute(
                "SELECT repo, number FROM pull_requests WHERE diff_pruned_at IS NULL"
                " AND coalesce(merged_at, fetched_at) < ?"
                " ORDER BY coalesce(merged_at, fetched_at) LIMIT ?",
                [before, limit],
            ).fetchall()
            now, dropped = iso(utcnow()), 0
            for repo, number in keys:
                dropped += self._drop_patches(repo, number)
                self.db.execute(
                    "UPDATE pull_requests SET diff_pruned_at = ? WHERE repo = ? AND number = ?",
                    [now, repo, number],
                )
        return DroppedDiffs(len(keys), dropped)

    def _drop_patches(self, repo: str, number: int) -> int:
        where = "repo = ? AND number = ?"
        files = list(self.db["pr_files"].rows_where(where, [repo, number]))
        self.db["pr_files"].delete_where(where, [repo, number])
        self.db["pr_files"].insert_all(({**f, "patch": None} for f in files), pk=_FILES_KEY)
        return sum(len((f["patch"] or "").encode()) for f in files)

    @reads
    def old_diffs(self, before: str) -> DroppedDiffs:
        """What `drop_old_diffs` would drop, all batches together."""
        prs, size = self.db.execute(
            "SELECT count(DISTINCT p.number || ' ' || p.repo),"
            " coalesce(sum(length(CAST(f.patch AS BLOB))), 0)"
            " FROM pull_requests AS p LEFT JOIN pr_files AS f"
            " ON f.repo = p.repo AND f.number = p.number"
            " WHERE p.diff_pruned_at IS NULL AND coalesce(p.merged_at, p.fetched_at) < ?",
            [before],
        ).fetchone()
        return DroppedDiffs(prs, size)

    @writes
    def mark_not_pr(self, repo: str, number: int) -> None:
        """Remember that `repo#number` is not a PR (an issue, or nothing), so that a reference
        to it is never looked up on GitHub again."""
        with self.transaction():  # sqlite-utils' upsert is two statements: one write
            self.db["not_prs"].upsert(
                {"repo": repo, "number": number, "checked_at": iso(utcnow())},
                pk=("repo", "number"),
            )

    @reads
    def is_not_pr(self, repo: str, number: int) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM not_prs WHERE repo = ? AND number = ?", [repo, number]
        ).fetchone()
        return row is not None

    @writes
    def save_day(self, repo: str, window: DayWindow, numbers: list[int], complete: bool) -> None:
        self.db["digests"].upsert(
            {
                "repo": repo,
                "day": window.day.isoformat(),
                "tz_name": window.tz_name,
                "numbers": json.dumps(numbers),
                "complete": int(complete),
                "fetched_at": iso(utcnow()),
            },
            pk=("repo", "day", "tz_name"),
        )

    @reads
    def get_day(self, repo: str, window: DayWindow) -> list[int] | None:
        """The day's PR numbers, if they were listed after the day was over (so are final)."""
        row = self._day_row(repo, window)
        if row is None or not row["complete"]:
            return None
        return list(json.loads(row["numbers"]))

    @writes
    def record_day_result(self, repo: str, window: DayWindow, failed: dict[int, str]) -> None:
        self.db["digests"].update(
            (repo, window.day.isoformat(), window.tz_name),
            {"generated_at": iso(utcnow()), "failed": json.dumps(failed)},
        )

    def _day_row(self, repo: str, window: DayWindow) -> dict | None:
        rows = list(
            self.db["digests"].rows_where(
                "repo = ? AND day = ? AND tz_name = ?",
                [repo, window.day.isoformat(), window.tz_name],
            )
        )
        return rows[0] if rows else None
