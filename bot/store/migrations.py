"""The database schema, as named migrations that are only ever appended.

Every user's database upgrades itself when the store opens it: never edit a function
below once released, add a new `mNNN_...` one instead.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from bot.store.search_index import create_search_index_v1, narrow_pr_trigger_v2

migrations = Migrations("prdigest")


@migrations()
def m001_core(db: Database) -> None:
    db["pull_requests"].create(
        {
            "repo": str,
            "number": int,
            "title": str,
            "url": str,
            "author": str,
            "state": str,
            "body": str,
            "labels": str,  # JSON list
            "merged_by": str,
            "merged_at": str,  # ISO 8601, UTC
            "base_ref": str,
            "head_sha": str,
            "merge_commit_sha": str,
            "html_base": str,
            "fetched_at": str,
        },
        pk=("repo", "number"),
    )
    db["pr_files"].create(
        {
            "repo": str,
            "number": int,
            "position": int,  # GitHub's order, which is git's
            "filename": str,
            "status": str,
            "additions": int,
            "deletions": int,
            "patch": str,
            "previous_filename": str,
        },
        pk=("repo", "number", "position"),
    )
    # One row per (repo, day, zone): which PRs the day holds, once GitHub's index is final.
    db["digests"].create(
        {
            "repo": str,
            "day": str,
            "tz_name": str,
            "numbers": str,  # JSON list, newest merge first
            "complete": int,
            "fetched_at": str,
            "generated_at": str,
            "failed": str,  # JSON {number: reason} of the last run
        },
        pk=("repo", "day", "tz_name"),
    )
    db["summaries"].create(
        {
            "id": int,
            "repo": str,
            "number": int,
            "revision_sha": str,
            "prompt_version": str,
            "model": str,
            "revision": int,
            "change_type": str,
            "what_changed": str,
            "technical_impact": str,
            "potential_risks": str,
            "key_insights": str,
            "files_covered": int,
            "files_total": int,
            "prompt_tokens": int,
            "completion_tokens": int,
            "created_at": str,
            "superseded_by": int,
        },
        pk="id",
    )
    db["summaries"].create_index(
        ["repo", "number", "revision_sha", "prompt_version", "model", "revision"], unique=True
    )
    # Every prompt and response, as `llm` logs them: what was asked, what came back, what it cost.
    db["llm_calls"].create(
        {
            "id": int,
            "repo": str,
            "number": int,
            "model": str,
            "prompt_version": str,
            "purpose": str,
            "messages": str,  # JSON
            "response": str,
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "duration_ms": int,
            "created_at": str,
            "summary_id": int,
        },
        pk="id",
    )
    db["llm_calls"].create_index(["repo", "number"])


@migrations()
def m002_posts_and_flags(db: Database) -> None:
    # A row is written *before* a message is sent (message_id still NULL) and completed after:
    # a crash in between leaves a visible "pending" row that a resume must reconcile.
    db["posts"].create(
        {
            "id": int,
            "platform": str,
            "channel": str,
            "repo": str,
            "day": str,
            "kind": str,  # "parent", "pr", "empty", "prsummary", "notice"
            "pr_number": int,
            "message_id": str,
            "thread_id": str,
            "summary_id": int,
            "created_at": str,
            "attempted_at": str,  # set just before sending: a crash after it may have sent
            "posted_at": str,
        },
        pk="id",
    )
    db.execute(
        "CREATE UNIQUE INDEX idx_posts_digest ON posts (platform, channel, repo, day, kind, pr_number)"
        " WHERE kind IN ('parent', 'pr', 'empty')"
    )
    db["posts"].create_index(["platform", "channel", "message_id"])
    # "Flagged as inaccurate, thanks" is said once per summary and channel, even under races.
    db.execute(
        "CREATE UNIQUE INDEX idx_posts_flag_ack ON posts (platform, channel, summary_id)"
        " WHERE kind = 'flag_ack'"
    )
    db["flags"].create(
        {
            "id": int,
            "platform": str,
            "channel": str,
            "message_id": str,
            "user": str,
            "repo": str,
            "number": int,
            "summary_id": int,
            "emoji": str,
            "created_at": str,
            "removed_at": str,
        },
        pk="id",
    )
    db["flags"].create_index(["summary_id"])
    db["flags"].create_index(["platform", "channel", "message_id", "user"])


@migrations()
def m003_summary_grounding(db: Database) -> None:
    # The claim check's result, and a revision's one-line note of what it corrected.
    summaries = db["summaries"]
    summaries.add_column("grounded_fraction", float)
    summaries.add_column("unverified", str)  # JSON list of names the PR never mentions
    summaries.add_column("change_note", str)


@migrations()
def m004_revision_attempts(db: Database) -> None:
    # One row per flag-driven re-check, so limits survive restarts.
    db["revision_attempts"].create(
        {
            "id": int,
            "summary_id": int,
            "user": str,
            "started_at": str,
            "outcome": str,  # "revised", "unchanged", "withdrawn", "failed"
            "new_summary_id": int,
        },
        pk="id",
    )
    db["revision_attempts"].create_index(["summary_id"])


@migrations()
def m005_subscriptions_and_leases(db: Database) -> None:
    # Daily digests set up from chat with `/digest subscribe`; prdigest.toml and the
    # environment hold the others, so this table is only what users changed at runtime.
    db["subscriptions"].create(
        {
            "id": int,
            "platform": str,
            "channel": str,
            "repo": str,
            "post_time": str,  # HH:MM in tz_name
            "tz_name": str,
            "display_name": str,
            "trivial_style": str,
            "created_by": str,
            "created_at": str,
        },
        pk="id",
    )
    # One schedule per repository and channel: subscribing again changes its time.
    db.execute(
        "CREATE UNIQUE INDEX idx_subscriptions_target ON subscriptions"
        " (platform, channel, repo COLLATE NOCASE)"
    )
    # When the scheduler first saw each subscription (chat or config): catch-up never posts
    # the days from before a subscription existed.
    db["subscription_starts"].create({"key": str, "first_seen": str}, pk="key")
    # Who may post the schedule: two processes on one database must never both post.
    db["leases"].create(
        {
            "name": str,
            "holder": str,
            "expires_at": float,  # Unix seconds
            "renewed_at": str,
        },
        pk="name",
    )


@migrations()
def m006_post_zone(db: Database) -> None:
    # A digest's zone, so a restart can rebuild exactly the day it was posting, and an edit of
    # a flagged message shows the same times the original did.
    db["posts"].add_column("tz_name", str)


@migrations()
def m007_day_at_a_glance(db: Database) -> None:
    # The headline: one line per PR, written in the same call as the four sections.
    db["summaries"].add_column("headline", str)
    # A grouped reply's PRs (JSON list), so "fully posted" counts them as sent.
    db["posts"].add_column("numbers", str)
    # The digest's own steps, one per channel and day (and PR): the grouped reply and the
    # parent's edit join the parent, the replies and the empty-day message.
    db.execute("DROP INDEX idx_posts_digest")
    db.execute(
        "CREATE UNIQUE INDEX idx_posts_digest ON posts (platform, channel, repo, day, kind, pr_number)"
        " WHERE kind IN ('parent', 'pr', 'empty', 'group', 'parent_edit')"
    )
    # One day's highlights, as checked by code, under the inputs they were chosen from: a
    # re-run with the same headlines makes no call; a changed summary chooses again.
    db["day_overviews"].create(
        {
            "repo": str,
            "day": str,
            "tz_name": str,
            "inputs": str,  # a hash of what the model was shown
            "highlights": str,  # JSON list of PR numbers, in rank order
            "picked_by": str,
            "model": str,
            "created_at": str,
        },
        pk=("repo", "day", "tz_name", "inputs"),
    )
    # Whether a number a PR's text refers to is a PR, learned with at most one GitHub call:
    # a reference to an issue is remembered as not a PR, so it is never asked about again.
    db["not_prs"].create({"repo": str, "number": int, "checked_at": str}, pk=("repo", "number"))


@migrations()
def m008_filters_and_weeks(db: Database) -> None:
    # A subscription's filters (as typed in chat, canonical: "paths:a/**", "" for none), what
    # a quiet day posts ("post" or
    # "skip"), and how often it posts ("daily", or "weekly" on `weekday`).
    subscriptions = db["subscriptions"]
    subscriptions.add_column("filters", str)
    subscriptions.add_column("quiet", str)
    subscriptions.add_column("schedule", str)
    subscriptions.add_column("weekday", str)
    # A repository's CODEOWNERS as read on one (UTC) day: read at most once a day. `path` is
    # NULL when the repository has none, which is remembered for the day too.
    db["codeowners"].create(
        {"repo": str, "fetched_day": str, "path": str, "text": str},
        pk=("repo", "fetched_day"),
    )


@migrations()
def m009_changed_files(db: Database) -> None:
    # GitHub's own count of a PR's changed files: its files listing stops at 3,000, so a bigger
    # PR's stored files are not all of them. NULL for PRs fetched before it was recorded.
    db["pull_requests"].add_column("changed_files", int)


@migrations()
def m010_healing(db: Database) -> None:
    # A digest's reply posted as "Summary unavailable" (the model or GitHub failed for its PR)
    # is edited in place once a summary exists: `unsummarized` marks such a reply, and
    # `heal_attempts` / `heal_after` pace the background retries of its PR. A reply an earlier
    # release posted without a summary is one too.
    posts = db["posts"]
    posts.add_column("unsummarized", int)
    posts.add_column("heal_attempts", int)
    posts.add_column("heal_after", str)
    db.execute(
        "UPDATE posts SET unsummarized = 1"
        " WHERE kind = 'pr' AND summary_id IS NULL AND message_id IS NOT NULL"
    )
    # The healing edits are digest steps too: one per reply, one per edit of the parent.
    db.execute("DROP INDEX idx_posts_digest")
    db.execute(
        "CREATE UNIQUE INDEX idx_posts_digest ON posts (platform, channel, repo, day, kind, pr_number)"
        " WHERE kind IN ('parent', 'pr', 'empty', 'group', 'parent_edit', 'reply_heal',"
        " 'parent_heal')"
    )


@migrations()
def m011_summary_facts(db: Database) -> None:
    # The change facts (definitions, signatures, settings, files) code read from the diff and
    # gave the model before any diff text, as JSON: what a summary can be checked against.
    db["summaries"].add_column("facts", str)


@migrations()
def m012_llm_log_age(db: Database) -> None:
    # The LLM call log keeps prompts and answers for PRDIGEST_LLM_LOG_DAYS, then only the
    # figures: the calls still holding a body, by age, are what a prune reads (an index of
    # the few weeks kept, not of the year).
    db.execute(
        "CREATE INDEX idx_llm_calls_bodies ON llm_calls (created_at)"
        " WHERE messages IS NOT NULL OR response IS NOT NULL"
    )
    # One row `/healthz` rewrites to prove the database takes writes.
    db["health"].create({"name": str, "checked_at": str}, pk="name")


@migrations()
def m013_search_index(db: Database) -> None:
    # `prdigest search`, `/digest search` and ask: every stored merged PR in a full-text
    # index, filled now from what is stored and kept in step by triggers from here on.
    create_search_index_v1(db)


@migrations()
def m014_diff_prune(db: Database) -> None:
    # A merged PR's patches are dropped after PRDIGEST_DIFF_DAYS (they are most of a year's
    # file, and GitHub keeps them); the PR remembers when, so a new summary reads them again.
    db["pull_requests"].add_column("diff_pruned_at", str)
    # What a prune reads: the PRs still holding their diffs, by age (the few months kept).
    db.execute(
        "CREATE INDEX idx_pull_requests_diffs ON pull_requests (coalesce(merged_at, fetched_at))"
        " WHERE diff_pruned_at IS NULL"
    )
    narrow_pr_trigger_v2(db)
