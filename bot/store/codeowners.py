"""The `codeowners` table: a repository's CODEOWNERS as read on one (UTC) day, so GitHub is
asked at most once a day per repository. `path` NULL remembers that it has none."""

from __future__ import annotations

from bot.store.base import Tables
from bot.store.threads import reads, writes


class CodeOwnersTables(Tables):
    @writes
    def save_codeowners(self, repo: str, day: str, path: str | None, text: str | None) -> None:
        """What `repo`'s CODEOWNERS was on `day` (ISO date): its path and text, or None for
        both when the repository has none."""
        self.db["codeowners"].upsert(
            {
                "repo": repo,
                "fetched_day": day,
                "path": path,
                "text": text if path is not None else None,
            },
            pk=("repo", "fetched_day"),
        )

    @reads
    def get_codeowners(self, repo: str, day: str) -> tuple[str | None, str | None] | None:
        """None when `repo`'s CODEOWNERS was not read on `day`; else (path, text), with
        (None, None) when it had none."""
        rows = list(
            self.db["codeowners"].rows_where("repo = ? AND fetched_day = ?", [repo, day], limit=1)
        )
        if not rows:
            return None
        return rows[0]["path"], rows[0]["text"]
