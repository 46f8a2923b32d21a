"""Core data: what the fetch step, the summarizer, the store and the renderers pass around.

Nothing after the fetch step handles raw API dicts: PyGithub objects become these
dataclasses in `bot.digest.github_source`, and the chat adapters only ever see these.
The enums are `StrEnum`s: they are stored as their text and compare equal to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from enum import StrEnum
from types import MappingProxyType
from typing import Protocol

from bot.core.untrusted import clean, clean_line, pr_page, profile_path, same_page, web_origin


class ChangeType(StrEnum):
    """The seed reports' classification of a PR."""

    TRIVIAL = "TRIVIAL"
    SUBSTANTIAL = "SUBSTANTIAL"


class Platform(StrEnum):
    """A chat platform the bot posts to."""

    SLACK = "slack"
    DISCORD = "discord"


class PostKind(StrEnum):
    """What a row of the posts table is."""

    PARENT = "parent"  # a digest's parent message
    PR = "pr"  # one PR's reply in a digest's thread
    EMPTY = "empty"  # the one message of a day with no merged PR
    GROUP = "group"  # the one compact reply listing a digest's trivial and bot PRs
    PARENT_EDIT = "parent_edit"  # the parent edited to link its replies, once they exist
    PRSUMMARY = "prsummary"  # a /prsummary answer
    REVISION = "revision"  # a corrected summary posted after a flag
    FLAG_ACK = "flag_ack"  # the claim on thanking for a summary's first flag
    # A reply posted as "Summary unavailable", edited in place once a summary exists; and the
    # parent edited again with the new counts (`pr_number` numbers these parent edits).
    REPLY_HEAL = "reply_heal"
    PARENT_HEAL = "parent_heal"

    @property
    def is_digest_slot(self) -> bool:
        """One of a digest's own steps, of which a channel holds one per day (and PR)."""
        return self in DIGEST_SLOTS


DIGEST_SLOTS = frozenset(
    {
        PostKind.PARENT, PostKind.PR, PostKind.EMPTY, PostKind.GROUP, PostKind.PARENT_EDIT,
        PostKind.REPLY_HEAL, PostKind.PARENT_HEAL,
    }
)  # fmt: skip


class PostStatus(StrEnum):
    """What posting a digest did."""

    POSTED = "posted"
    RESUMED = "resumed"
    ALREADY = "already"
    SKIPPED = "skipped"  # a quiet day of a `quiet = "skip"` subscription: recorded, not sent


class RevisionStatus(StrEnum):
    """How a flag's re-check ended."""

    REVISED = "revised"
    UNCHANGED = "unchanged"
    LIMITED = "limited"
    WITHDRAWN = "withdrawn"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TrivialStyle(StrEnum):
    """How a subscription shows trivial PRs: in full, the first section only, or as one line
    each in a single grouped reply (with the PRs of bot accounts)."""

    FULL = "full"
    COMPACT = "compact"
    GROUPED = "grouped"


class RelationKind(StrEnum):
    """How another PR relates to a digest's PR, as read from titles and descriptions."""

    REVERTS = "reverts"  # this PR reverts the other
    REVERTED_BY = "reverted_by"  # the other PR reverts this one
    FOLLOWS_UP = "follows_up"  # this PR follows up on (or fixes) the other
    FOLLOWED_UP_BY = "followed_up_by"  # the other PR follows up on this one


@dataclass(frozen=True)
class ChangedFile:
    filename: str
    status: str = "modified"  # added, removed, modified, renamed, copied, changed, unchanged
    additions: int = 0
    deletions: int = 0
    patch: str | None = None  # None for binary files and for diffs GitHub will not show
    previous_filename: str | None = None

    def __post_init__(self) -> None:
        # A file name is a one-line field wherever it is shown; the patch is never shown.
        _set(self, filename=clean_line(self.filename), status=clean_line(self.status))
        if self.previous_filename is not None:
            _set(self, previous_filename=clean_line(self.previous_filename))


@dataclass(frozen=True)
class PullRequest:
    repo: str  # "owner/name"
    number: int
    title: str
    url: str  # the PR's html_url
    author: str
    state: str  # "open", "closed" or "merged"
    body: str = ""
    labels: tuple[str, ...] = ()
    merged_by: str | None = None
    merged_at: datetime | None = None  # timezone-aware, UTC
    base_ref: str = ""
    head_sha: str = ""
    merge_commit_sha: str | None = None
    files: tuple[ChangedFile, ...] = ()
    html_base: str = "https://github.com"  # where profile links point (GitHub Enterprise differs)
    # GitHub's count of changed files: `files` stops at 3,000, this does not. None when unknown
    # (a PR stored before it was recorded).
    changed_files: int | None = None
    # The stored PR's patches were pruned (PRDIGEST_DIFF_DAYS): its files keep their names and
    # sizes, and a new summary of it reads the diff from GitHub again.
    diff_pruned: bool = False

    def __post_init__(self) -> None:
        _set(
            self,
            title=clean_line(self.title),
            body=clean(self.body),
            labels=tuple(clean_line(label) for label in self.labels),
            author=clean_line(self.author),
            merged_by=clean_line(self.merged_by) if self.merged_by is not None else None,
            base_ref=clean_line(self.base_ref),
        )
        # The one link every surface builds from a PR: its page, rebuilt from checked parts
        # unless GitHub's address is exactly that page.
        page = pr_page(self.html_base, self.repo, self.number)
        if page is not None and not same_page(self.url, page):
            _set(self, url=page)

    @property
    def is_merged(self) -> bool:
        return self.state == "merged"

    @property
    def revision_sha(self) -> str:
        """The commit a summary of this PR describes: it changes only while the PR is open."""
        return (self.merge_commit_sha if self.is_merged else None) or self.head_sha

    @property
    def files_count(self) -> int:
        """How many files the PR changes: GitHub's count, which its file listing (at most
        3,000) can fall short of."""
        return max(self.changed_files or 0, len(self.files))

    @property
    def files_url(self) -> str:
        return f"{self.url}/files"

    def profile_url(self, login: str | None) -> str | None:
        """A login's profile page, or None when the login is not one GitHub could have given
        out (it is then shown as plain text, never linked)."""
        path = profile_path(login or "")
        origin = web_origin(self.html_base)
        return f"{self.html_base.strip().rstrip('/')}{path}" if path and origin else None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True)
class SummarySections:
    what_changed: str
    technical_impact: str
    potential_risks: str
    key_insights: str
    # One plain sentence of at most 20 words: what the PR does for a user of the code. Shown
    # first in chat replies and in the day at a glance; "" for summaries made before it existed.
    headline: str = ""

    def __post_init__(self) -> None:
        _set(self, **{name: clean(getattr(self, name)) for name, _ in self.HEADINGS})
        _set(self, headline=clean_line(self.headline))

    # (field, heading) in the order the seed reports print them
    HEADINGS = (
        ("what_changed", "What changed and why"),
        ("technical_impact", "Technical impact"),
        ("potential_risks", "Potential risks"),
        ("key_insights", "Key insights"),
    )

    def items(self) -> list[tuple[str, str]]:
        """(heading, text) pairs in report order."""
        return [(heading, getattr(self, name)) for name, heading in self.HEADINGS]


@dataclass(frozen=True)
class PRSummary:
    """One version of one PR's summary, as stored."""

    repo: str
    number: int
    revision_sha: str
    prompt_version: str
    model: str
    change_type: ChangeType
    sections: SummarySections
    files_covered: int
    files_total: int
    usage: Usage = field(default_factory=Usage)
    id: int | None = None  # the store's row id; flags point at it
    revision: int = 1  # 2, 3... after a flag-driven regeneration
    created_at: datetime | None = None
    superseded: bool = False
    grounded_fraction: float = 1.0
    unverified: tuple[str, ...] = ()
    change_note: str | None = None  # for a revision: what changed, in one line
    facts: str = ""  # the change facts code read from the diff and gave the model (JSON)

    def __post_init__(self) -> None:
        _set(self, unverified=tuple(clean_line(name) for name in self.unverified))
        if self.change_note is not None:
            _set(self, change_note=clean_line(self.change_note))

    @property
    def coverage_line(self) -> str:
        if self.files_covered >= self.files_total:
            return f"Summary covers all {self.files_total} changed files · {self.model}"
        return (
            f"Summary covers the diff of {self.files_covered} of {self.files_total} changed files"
            f" · {self.model}"
        )


@dataclass(frozen=True)
class DayWindow:
    """One calendar day in one zone: [start, end), so 23 or 25 hours across DST changes."""

    day: date
    tz_name: str
    start: datetime  # aware, in the zone
    end: datetime  # aware, in the zone: the next day's 00:00

    @property
    def tz_abbrev(self) -> str:
        # Noon stands for the day: on a DST change most of the day is in the new offset.
        noon = datetime.combine(self.day, time(12), tzinfo=self.start.tzinfo)
        return noon.strftime("%Z")

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


@dataclass(frozen=True)
class RelatedPR:
    """Another PR a digest's PR is tied to: a revert and what it reverts, or a follow-up."""

    kind: RelationKind
    number: int
    title: str
    url: str  # the PR's page on GitHub
    merged_day: str | None = None  # ISO day it was merged, in the digest's zone, if merged
    same_day: bool = False  # both PRs are in this digest

    def __post_init__(self) -> None:
        _set(self, title=clean_line(self.title))


@dataclass(frozen=True)
class DigestEntry:
    """One PR in a digest: its data and either a summary or the reason there is none."""

    pr: PullRequest
    summary: PRSummary | None = None
    error: str | None = None
    compact: bool = False  # a subscription's "compact" trivial style: the first section only
    area: str = "Other"  # the one area of the day at a glance this PR is counted under
    related: tuple[RelatedPR, ...] = ()
    grouped: bool = False  # "grouped" trivial style: one line in the grouped reply instead

    def __post_init__(self) -> None:
        # An error can quote a server's answer: it is shown like any other untrusted line.
        if self.error is not None:
            _set(self, error=clean_line(self.error))
        _set(self, area=clean_line(self.area))

    @property
    def ok(self) -> bool:
        return self.summary is not None

    @property
    def headline(self) -> str:
        """The PR in one line: the summary's headline, else its title."""
        return (self.summary.sections.headline if self.summary else "") or self.pr.title

    @property
    def size(self) -> int:
        """Lines changed, for ranking when the model's choice falls short."""
        return sum(f.additions + f.deletions for f in self.pr.files)

    def shown_sections(self) -> list[tuple[str, str]]:
        """(heading, text) pairs to show: all four, or just what changed when compact."""
        if self.summary is None:
            return []
        items = self.summary.sections.items()
        return items[:1] if self.compact else items


@dataclass(frozen=True)
class AreaGroup:
    """One area of the day at a glance and its PRs, newest merge first."""

    name: str
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class DayOverview:
    """The day at a glance, as decided by code: which PRs to highlight and the areas.

    `highlights` are PR numbers of this day in rank order (3-5, fewer only on a small day);
    the model proposes them, code checks them (`bot.digest.overview`). `picked_by` says how:
    "model", "model+rule" (the model's picks topped up by the rule) or "rule".
    """

    highlights: tuple[int, ...]
    areas: tuple[AreaGroup, ...]
    picked_by: str = "rule"


@dataclass(frozen=True)
class WeekDay:
    """One day of a weekly rollup: its PR count, counted by code."""

    day: date
    count: int


@dataclass(frozen=True)
class WeekInfo:
    """What makes a digest a weekly rollup: the seven days it covers, first to last. Its
    `Digest.window` is the first day; its entries are the week's, newest merge first."""

    days: tuple[WeekDay, ...]

    @property
    def first(self) -> date:
        return self.days[0].day

    @property
    def last(self) -> date:
        return self.days[-1].day


def is_bot_login(login: str | None, bots: frozenset[str] = frozenset()) -> bool:
    """A GitHub App's account (`dependabot[bot]`) or one of the configured bot logins."""
    name = (login or "").lower()
    return name.endswith("[bot]") or name in bots


class BuiltFor(Protocol):
    """What a digest keeps of the scope it was built for: a `bot.core.scope.DigestScope`,
    which reads filters and so cannot be imported here (filters read these values)."""

    @property
    def post_key(self) -> str: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True)
class Digest:
    repo: str
    display_name: str
    window: DayWindow
    entries: tuple[DigestEntry, ...]  # newest merge first
    recent_flags: int = 0  # flags on this repo's summaries in the 24 h before it was built
    overview: DayOverview | None = None
    # PR number -> a message about it: its reply in this thread (once posted), or an earlier
    # digest's reply for a PR of another day. Filled by the chat layer, read by renderers.
    links: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    # What it was built for (a DigestScope); None for a whole day built on its own.
    # `scope_total` is the day's (or week's) PR count before a filter, and `scope_clause`
    # what the posted PRs share ("touch `vllm/v1/attention/**`").
    scope: BuiltFor | None = None
    scope_total: int = 0
    scope_clause: str = ""
    week: WeekInfo | None = None  # set for a weekly rollup
    # A weekly rollup's day -> that day's digest thread in the channel it is posted to (ISO
    # day -> URL), filled by the chat layer where one was posted.
    day_links: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # The heading of the grouped reply: "" for the day's trivial and bot PRs; an area's name
    # for each of a weekly rollup's area replies (one grouped reply per area).
    group_title: str = ""

    def styled(
        self,
        display_name: str | None = None,
        trivial_style: str = TrivialStyle.FULL,
        bots: frozenset[str] = frozenset(),
        group_bots: bool = False,
    ) -> Digest:
        """This digest as one subscription shows it: its title, and trivial PRs in brief
        (compact) or as one line each in one grouped reply, with bot accounts' PRs (grouped;
        `group_bots` groups those whatever the style, for a `bots:group` filter)."""
        entries = self.entries
        if trivial_style == TrivialStyle.COMPACT:
            entries = tuple(replace(e, compact=_is_trivial(e)) for e in entries)
        grouped = trivial_style == TrivialStyle.GROUPED
        if grouped or group_bots:
            entries = tuple(
                replace(
                    e,
                    grouped=(grouped and _is_trivial(e)) or is_bot_login(e.pr.author, bots),
                )
                for e in entries
            )
        return replace(self, display_name=display_name or self.display_name, entries=entries)

    def with_links(self, links: Mapping[int, str]) -> Digest:
        return replace(self, links=MappingProxyType({**self.links, **links}))

    @property
    def thread_entries(self) -> tuple[DigestEntry, ...]:
        """The PRs that get a reply of their own, in thread order."""
        return tuple(e for e in self.entries if not e.grouped)

    @property
    def grouped_entries(self) -> tuple[DigestEntry, ...]:
        """The PRs listed one line each in the grouped reply."""
        return tuple(e for e in self.entries if e.grouped)

    def reply_index(self, pr_number: int) -> tuple[int, DigestEntry]:
        """A PR's position among the replies of its own (`thread_entries`), and its entry; a
        PR of the grouped reply is placed after them (it gets no reply of its own)."""
        for index, entry in enumerate(self.thread_entries, start=1):
            if entry.pr.number == pr_number:
                return index, entry
        entry = next(e for e in self.entries if e.pr.number == pr_number)
        return len(self.thread_entries) + 1, entry

    def entry(self, number: int) -> DigestEntry | None:
        return next((e for e in self.entries if e.pr.number == number), None)

    @property
    def contributors(self) -> int:
        """Distinct PR authors of the day."""
        return len({e.pr.author.lower() for e in self.entries if e.pr.author})

    @property
    def failed(self) -> list[DigestEntry]:
        return [e for e in self.entries if not e.ok]

    def count(self, change_type: ChangeType) -> int:
        return sum(1 for e in self.entries if e.summary and e.summary.change_type == change_type)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for e in self.entries:
            if e.summary:
                total = total + e.summary.usage
        return total


def _is_trivial(entry: DigestEntry) -> bool:
    return bool(entry.summary and entry.summary.change_type == ChangeType.TRIVIAL)


@dataclass(frozen=True)
class PostRecord:
    """One message the bot posted (or is about to): the single truth for idempotent posting.

    `pr_number` is 0 for a digest's parent message.
    """

    platform: str  # a Platform
    channel: str
    repo: str
    day: str  # ISO date of the digest's day, or "" for a /prsummary answer
    pr_number: int
    message_id: str
    thread_id: str | None = None
    summary_id: int | None = None
    id: int | None = None
    tz_name: str | None = None  # the zone the digest's day and times were shown in
    numbers: tuple[int, ...] = ()  # a grouped reply's PRs
    kind: str = ""  # a PostKind, as read back from the store


@dataclass(frozen=True)
class Flag:
    """A user's reaction marking one exact summary version as inaccurate."""

    platform: str
    channel: str
    message_id: str
    user: str
    repo: str
    number: int
    summary_id: int
    emoji: str
    created_at: datetime | None = None
    id: int | None = None


@dataclass(frozen=True)
class Subscription:
    repo: str
    platform: str
    channel: str
    post_time: str = "09:00"  # HH:MM in tz_name
    tz_name: str = "America/Los_Angeles"
    display_name: str | None = None
    trivial_style: str = TrivialStyle.FULL  # a TrivialStyle
    id: int | None = None
    # Which PRs it posts, in the chat form ("paths:vllm/v1/attention/** types:substantial"),
    # canonical (`bot.core.filters.SubscriptionFilter.to_args`); "" posts every PR.
    filters: str = ""
    quiet: str = "post"  # a day with no matching PR: "post" one line, or "skip" it
    schedule: str = "daily"  # or "weekly": the week's rollup on `weekday`
    weekday: str = "monday"


@dataclass(frozen=True)
class RevisionOutcome:
    """What a flag's re-check came to, for the chat to answer."""

    status: RevisionStatus
    flag: Flag
    old: PRSummary | None = None
    new: PRSummary | None = None
    note: str = ""

    def __post_init__(self) -> None:
        _set(self, note=clean(self.note))


def _set(value: object, **fields: object) -> None:
    """Normalize fields of a frozen dataclass as it is made (only where one differs)."""
    for name, new in fields.items():
        if getattr(value, name) is not new and getattr(value, name) != new:
            object.__setattr__(value, name, new)
