"""The search index: `search_docs`, one row per stored merged PR, and its FTS5 table
`search_docs_fts` (sqlite-utils' `enable_fts`, with its own triggers).

A PR's row holds its title, author, labels and changed paths, and its current summary (the
newest that no revision superseded: headline, the four sections, type); the text of the
summaries a revision superseded is kept in `earlier`, so words of a corrected summary still
find the PR, shown through the revision. SQLite triggers on `pull_requests` and `summaries`
write the row, inside the transaction that stores the PR or the summary: whatever writes them,
a summary is searchable the moment it is stored. Changed paths are read when the PR's summary
is stored (a digest stores the files first).

File paths need no splitting of their own: FTS5's tokenizer cuts at every `/`, `_`, `.` and
`-`, and the search quotes `fused_moe_lora` as the phrase "fused moe lora".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlite_utils import Database

from bot.core.models import ChangedFile
from bot.store.base import Tables, iso, parse_time
from bot.store.threads import reads

DOCS = "search_docs"
FTS = "search_docs_fts"
# The indexed columns, in the FTS table's order, and each one's weight in the ranking (bm25):
# a word in the title or headline counts most, then paths, labels and author, then the
# sections, and a superseded summary's words least.
COLUMN_WEIGHTS = {
    "ref": 10.0,  # "#35156"
    "title": 10.0,
    "headline": 6.0,
    "paths": 4.0,
    "labels": 4.0,
    "author": 4.0,
    "body": 2.0,
    "earlier": 0.5,
}
TOKENIZER = "porter"  # unicode61 with English stemming: "quantized" finds "quantization"


@dataclass(frozen=True)
class SearchWhere:
    """The filters SQL applies; the area is decided by code, over what this returns."""

    repos: tuple[str, ...] = ()  # empty: every repository
    merged_from: datetime | None = None  # UTC, inclusive
    merged_before: datetime | None = None  # UTC, exclusive
    author: str | None = None
    change_type: str | None = None
    summarized: bool = False  # only PRs with a stored summary (what ask can cite)

    def sql(self) -> tuple[str, dict]:
        clauses, args = ["merged_at IS NOT NULL"], {}
        if self.repos:
            names = {f"repo{i}": repo.lower() for i, repo in enumerate(self.repos)}
            clauses.append(f"lower(repo) IN ({', '.join(':' + n for n in names)})")
            args |= names
        if self.merged_from:
            clauses.append("merged_at >= :merged_from")
            args["merged_from"] = iso(self.merged_from)
        if self.merged_before:
            clauses.append("merged_at < :merged_before")
            args["merged_before"] = iso(self.merged_before)
        if self.author:
            clauses.append("author = :author COLLATE NOCASE")
            args["author"] = self.author
        if self.change_type:
            clauses.append("change_type = :change_type")
            args["change_type"] = self.change_type
        if self.summarized:
            clauses.append("summary_id IS NOT NULL")
        return " AND ".join(clauses), args


@dataclass(frozen=True)
class SearchHit:
    """One row of the index: a stored PR and its current summary's headline."""

    repo: str
    number: int
    title: str
    url: str
    author: str
    merged_at: datetime
    headline: str
    change_type: str | None
    summary_id: int | None


@dataclass(frozen=True)
class PostedReply:
    message_id: str
    thread_id: str | None


_HIT_COLUMNS = (
    "repo", "number", "title", "url", "author", "merged_at", "headline", "change_type",
    "summary_id",
)  # fmt: skip


class SearchTables(Tables):
    @reads
    def search_prs(
        self, match: str | None, where: SearchWhere, *, limit: int, offset: int = 0
    ) -> list[SearchHit]:
        """The PRs `match` (an FTS5 query, already safe) finds under `where`, best first (bm25
        by `COLUMN_WEIGHTS`, then the newest merge); with no `match`, the newest merges."""
        clause, args = where.sql()
        if match:
            rows = self.db[DOCS].search(
                match, where=clause, where_args=args, columns=_HIT_COLUMNS, limit=limit,
                offset=offset, order_by=f"{FTS}.rank, merged_at DESC",
            )  # fmt: skip
        else:
            rows = self.db[DOCS].rows_where(
                clause, args, select=", ".join(_HIT_COLUMNS), limit=limit, offset=offset,
                order_by="merged_at DESC, number DESC",
            )  # fmt: skip
        return [_hit(row) for row in rows]

    @reads
    def match_count(self, match: str) -> int:
        """How many indexed PRs an FTS5 query matches: how common a word is."""
        row = self.db.execute(f"SELECT count(*) FROM {FTS} WHERE {FTS} MATCH ?", [match]).fetchone()
        return int(row[0])

    @reads
    def indexed_count(self) -> int:
        return self.db[DOCS].count

    @reads
    def changed_files_of(
        self, keys: Iterable[tuple[str, int]]
    ) -> dict[tuple[str, int], tuple[ChangedFile, ...]]:
        """Each PR's changed files (names and sizes, no patch): what its area is decided by."""
        files: dict[tuple[str, int], list[ChangedFile]] = {}
        by_repo: dict[str, list[int]] = {}
        for repo, number in keys:
            files[(repo, number)] = []
            by_repo.setdefault(repo, []).append(number)
        for repo, numbers in by_repo.items():  # one query a repository, not one a PR
            rows = self.db.execute(
                "SELECT number, filename, additions, deletions FROM pr_files"
                " WHERE repo = ? AND number IN (SELECT value FROM json_each(?))"
                " ORDER BY number, position",
                [repo, json.dumps(numbers)],
            )
            for number, name, added, deleted in rows.fetchall():
                files[(repo, number)].append(
                    ChangedFile(name, additions=added or 0, deletions=deleted or 0)
                )
        return {key: tuple(found) for key, found in files.items()}

    @reads
    def posted_replies(
        self, platform: str, channel: str, keys: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], PostedReply]:
        """The newest digest reply of each PR sent in this channel (its thread's message)."""
        found: dict[tuple[str, int], PostedReply] = {}
        for repo, number in keys:
            row = self.db.execute(
                "SELECT message_id, thread_id FROM posts WHERE platform = ? AND channel = ?"
                " AND repo = ? AND pr_number = ? AND kind = 'pr' AND message_id IS NOT NULL"
                " AND message_id != '' ORDER BY id DESC LIMIT 1",
                [platform, channel, repo, number],
            ).fetchone()
            if row:
                found[(repo, number)] = PostedReply(row[0], row[1])
        return found


def _hit(row: dict) -> SearchHit:
    return SearchHit(
        repo=row["repo"],
        number=row["number"],
        title=row["title"] or "",
        url=row["url"] or "",
        author=row["author"] or "",
        merged_at=parse_time(row["merged_at"]),  # type: ignore[arg-type]  # filtered NOT NULL
        headline=row["headline"] or "",
        change_type=row["change_type"],
        summary_id=row["summary_id"],
    )


# -- the schema: written once by migration m013, never edited (add a new version instead) ----

# One PR's row, from the stored PR, its files and its summaries; `{key}` is NEW or OLD.
_REFRESH_V1 = """
INSERT INTO search_docs (repo, number, ref, title, url, author, labels, merged_at, paths,
    summary_id, headline, body, change_type, earlier)
SELECT p.repo, p.number, '#' || p.number, p.title, p.url, p.author,
    (SELECT group_concat(j.value, ' ') FROM json_each(
        CASE WHEN json_valid(p.labels) THEN p.labels ELSE '[]' END) AS j),
    p.merged_at,
    (SELECT group_concat(f.filename, ' ') FROM pr_files AS f
        WHERE f.repo = p.repo AND f.number = p.number),
    s.id, s.headline,
    coalesce(s.what_changed, '') || char(10) || coalesce(s.technical_impact, '') || char(10)
        || coalesce(s.potential_risks, '') || char(10) || coalesce(s.key_insights, ''),
    s.change_type,
    (SELECT group_concat(coalesce(o.headline, '') || ' ' || coalesce(o.what_changed, '') || ' '
        || coalesce(o.technical_impact, '') || ' ' || coalesce(o.potential_risks, '') || ' '
        || coalesce(o.key_insights, ''), char(10))
        FROM summaries AS o WHERE o.repo = p.repo AND o.number = p.number
        AND o.superseded_by IS NOT NULL)
FROM pull_requests AS p
LEFT JOIN summaries AS s ON s.id = (SELECT max(c.id) FROM summaries AS c
    WHERE c.repo = p.repo AND c.number = p.number AND c.superseded_by IS NULL)
WHERE p.state = 'merged' AND {where}
ON CONFLICT (repo, number) DO UPDATE SET ref = excluded.ref, title = excluded.title,
    url = excluded.url, author = excluded.author, labels = excluded.labels,
    merged_at = excluded.merged_at, paths = excluded.paths, summary_id = excluded.summary_id,
    headline = excluded.headline, body = excluded.body, change_type = excluded.change_type,
    earlier = excluded.earlier;
"""


def _refresh(key: str) -> str:
    return _REFRESH_V1.format(where=f"p.repo = {key}.repo AND p.number = {key}.number")


_TRIGGERS_V1 = f"""
CREATE TRIGGER search_docs_pr_insert AFTER INSERT ON pull_requests BEGIN {_refresh("NEW")} END;
CREATE TRIGGER search_docs_pr_update AFTER UPDATE ON pull_requests BEGIN {_refresh("NEW")} END;
CREATE TRIGGER search_docs_pr_delete AFTER DELETE ON pull_requests BEGIN
    DELETE FROM search_docs WHERE repo = OLD.repo AND number = OLD.number;
END;
CREATE TRIGGER search_docs_summary_insert AFTER INSERT ON summaries BEGIN {_refresh("NEW")} END;
CREATE TRIGGER search_docs_summary_update AFTER UPDATE ON summaries BEGIN {_refresh("NEW")} END;
CREATE TRIGGER search_docs_summary_delete AFTER DELETE ON summaries BEGIN {_refresh("OLD")} END;
"""


def create_search_index_v1(db: Database) -> None:
    """Migration m013's body: the index table, filled from what is stored; its FTS5 table
    (sqlite-utils keeps it in step with the table by its own triggers) with the ranking's
    weights; the triggers that keep the table in step with PRs and summaries."""
    db.execute(
        "CREATE TABLE search_docs (id INTEGER PRIMARY KEY, repo TEXT NOT NULL,"
        " number INTEGER NOT NULL, ref TEXT, title TEXT, url TEXT, author TEXT, labels TEXT,"
        " merged_at TEXT, paths TEXT, summary_id INTEGER, headline TEXT, body TEXT,"
        " change_type TEXT, earlier TEXT)"
    )
    # The row id is the FTS table's key: an INTEGER PRIMARY KEY keeps it through a VACUUM.
    db.execute("CREATE UNIQUE INDEX idx_search_docs_pr ON search_docs (repo, number)")
    db.execute("CREATE INDEX idx_search_docs_merged ON search_docs (merged_at)")
    db.execute(_REFRESH_V1.format(where="1"))
    db[DOCS].enable_fts(list(COLUMN_WEIGHTS), create_triggers=True, tokenize=TOKENIZER)
    weights = ", ".join(f"{w:g}" for w in COLUMN_WEIGHTS.values())
    db.execute(f"INSERT INTO {FTS} ({FTS}, rank) VALUES ('rank', 'bm25({weights})')")
    db.executescript(_TRIGGERS_V1)  # statement by statement inside the migration's transaction


# -- version 2 (migration m014): a PR's row is written again only when what it shows changes --

# A prune dropping old diffs (`pull_requests.diff_pruned_at`) must not rewrite the index rows
# of a year of PRs: the PR trigger fires on the columns the index reads, and no others.
_PR_UPDATE_V2 = f"""
CREATE TRIGGER search_docs_pr_update
AFTER UPDATE OF repo, number, title, url, author, labels, merged_at, state ON pull_requests
BEGIN {_refresh("NEW")} END
"""


def narrow_pr_trigger_v2(db: Database) -> None:
    db.execute("DROP TRIGGER search_docs_pr_update")
    db.execute(_PR_UPDATE_V2)  # one statement: inside the migration's transaction
