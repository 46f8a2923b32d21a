"""The day at a glance: what a digest's parent message shows, chosen once for every renderer.

Pure functions, a `Digest` in and a `Glance` out: the counts, the highlights (a same-day
revert and what it reverts are one item), the same-day reverts that were not highlighted,
and every PR in exactly one area. Every number, count and link comes from the entries and
the overview, which code decided; nothing here reads model text except to show it. The
Slack, Discord and Markdown renderers only format (and escape) what this returns.

The wording of a related PR's line ("Merged, then reverted by #B (same day)") is here too,
so the two chat renderers say it the same way, and so is what a filtered digest says about
its filter ("7 of 52 PRs merged on 2026-02-23 touch `…`") and how a weekly rollup counts its
days (`week_days`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from bot.core.models import ChangeType, Digest, DigestEntry, RelatedPR, RelationKind
from bot.core.scope import DigestScope, Span
from bot.digest.areas import OTHER, group_areas
from bot.digest.overview import rule_highlights

ELLIPSIS = "…"
MAX_TITLE_NAME = 80  # characters of a display name in a rollup's title
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # not %a: that follows the locale


@dataclass(frozen=True)
class GlanceCounts:
    merged: int
    substantial: int
    trivial: int
    unsummarized: int  # PRs without a summary (the summarizer failed on them)
    contributors: int  # distinct authors
    tokens: int


@dataclass(frozen=True)
class GlancePR:
    """One PR as the glance points at it; a same-day revert pair is one item, the reverted
    PR with `reverted_by` set."""

    number: int
    title: str  # the PR's title, as its author wrote it
    headline: str  # the summary's headline, else the title
    url: str  # the PR's page on GitHub
    link: str  # a message about it (its reply) when the digest has one, else `url`
    reverted_by: GlancePR | None = None

    @property
    def linked(self) -> bool:
        """Whether `link` opens a message about the PR rather than its page."""
        return self.link != self.url


@dataclass(frozen=True)
class GlanceArea:
    name: str
    numbers: tuple[int, ...]  # newest merge first
    link: str | None = None  # the message about its first PR that has one

    @property
    def count(self) -> int:
        return len(self.numbers)


@dataclass(frozen=True)
class Glance:
    counts: GlanceCounts
    highlights: tuple[GlancePR, ...]  # in rank order
    reverts: tuple[GlancePR, ...]  # same-day revert pairs that are not among the highlights
    areas: tuple[GlanceArea, ...]  # every PR of the day in exactly one, "Other" last
    picked_by: str  # who chose the highlights: "model", "model+rule" or "rule"

    @property
    def items(self) -> tuple[GlancePR, ...]:
        """What the parent lists: the highlights, then the other same-day reverts."""
        return self.highlights + self.reverts

    @property
    def linked(self) -> bool:
        """Whether any item or area links to a reply (the parent was edited after them)."""
        return any(i.linked for i in self.items) or any(a.link for a in self.areas)


def glance(digest: Digest) -> Glance:
    """The day at a glance of `digest`, as every renderer shows it."""
    pairs = revert_pairs(digest)
    by_member = {}
    for pair in pairs:
        by_member[pair.number] = pair
        if pair.reverted_by is not None:
            by_member[pair.reverted_by.number] = pair
    highlights: list[GlancePR] = []
    for number in _highlight_numbers(digest):
        entry = digest.entry(number)
        if entry is None:
            continue
        item = by_member.get(number) or _item(entry, digest.links)
        if item not in highlights:
            highlights.append(item)
    reverts = tuple(p for p in pairs if p not in highlights)
    picked_by = digest.overview.picked_by if digest.overview else "rule"
    return Glance(counts(digest), tuple(highlights), reverts, areas(digest), picked_by)


def counts(digest: Digest) -> GlanceCounts:
    return GlanceCounts(
        merged=len(digest.entries),
        substantial=digest.count(ChangeType.SUBSTANTIAL),
        trivial=digest.count(ChangeType.TRIVIAL),
        unsummarized=len(digest.failed),
        contributors=digest.contributors,
        tokens=digest.usage.total_tokens,
    )


def revert_pairs(digest: Digest) -> tuple[GlancePR, ...]:
    """Every same-day revert pair once, as "#A — merged, then reverted by #B", in the order
    the reverted PRs appear in the digest. Both PRs must be in the digest."""
    found: dict[tuple[int, int], None] = {}
    for entry in digest.entries:
        for related in entry.related:
            if not related.same_day:
                continue
            if related.kind == RelationKind.REVERTED_BY:
                found.setdefault((entry.pr.number, related.number))
            elif related.kind == RelationKind.REVERTS:
                found.setdefault((related.number, entry.pr.number))
    pairs = []
    for reverted, reverter in found:
        first, second = digest.entry(reverted), digest.entry(reverter)
        if first is None or second is None or reverted == reverter:
            continue
        pairs.append((first, second))
    position = {e.pr.number: i for i, e in enumerate(digest.entries)}
    pairs.sort(key=lambda p: (position[p[0].pr.number], position[p[1].pr.number]))
    return tuple(
        _item(first, digest.links, reverted_by=_item(second, digest.links))
        for first, second in pairs
    )


def areas(digest: Digest) -> tuple[GlanceArea, ...]:
    """The day's areas, each PR in exactly one: the overview's when it has them (numbers it
    names twice or that are not of this day dropped, PRs it left out added to "Other"), else
    the entries' own areas, biggest first, "Other" last."""
    day = [e.pr.number for e in digest.entries]
    groups: list[tuple[str, list[int]]] = []
    if digest.overview is not None:
        known, seen = set(day), set()
        for group in digest.overview.areas:
            numbers = [n for n in dict.fromkeys(group.numbers) if n in known and n not in seen]
            seen.update(numbers)
            if numbers:
                groups.append((_name(group.name), numbers))
        missing = [n for n in day if n not in seen]
        if missing:
            groups.append((OTHER, missing))
    else:
        groups = [(_name(g.name), list(g.numbers)) for g in group_areas(digest.entries)]
    merged: dict[str, list[int]] = {}
    for name, numbers in groups:  # two groups of one name (say "Other") become one
        merged.setdefault(name, []).extend(numbers)
    ordered = sorted(merged.items(), key=lambda g: g[0] == OTHER)  # stable: Other last
    return tuple(
        GlanceArea(name, tuple(numbers), _first_link(numbers, digest.links))
        for name, numbers in ordered
    )


def number_list(numbers: Sequence[int], limit: int) -> str:
    """`#12, #11, #9` within `limit` characters: as many numbers as fit, then "…"."""
    text = ""
    for i, number in enumerate(numbers):
        piece = f"#{number}" if not text else f", #{number}"
        rest = len(numbers) - i - 1
        reserve = len(", " + ELLIPSIS) if rest else 0
        if len(text) + len(piece) + reserve > limit:
            return f"{text}, {ELLIPSIS}" if text else ELLIPSIS
        text += piece
    return text


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# -- a weekly rollup and a filtered digest ----------------------------------------------------


@dataclass(frozen=True)
class GlanceDay:
    """One day of a weekly rollup: its PRs among the rollup's entries, and its digest's thread
    in the channel when one was posted there."""

    day: date
    count: int
    link: str | None = None

    @property
    def label(self) -> str:
        """`Mon 02-23`."""
        return f"{WEEKDAYS[self.day.weekday()]} {self.day:%m-%d}"


def week_days(digest: Digest) -> tuple[GlanceDay, ...]:
    """The seven days of a weekly rollup, first to last, each with the number of its entries
    merged that day (in the digest's zone, counted here from the entries) and its link from
    `digest.day_links`; () for a digest that is not a rollup."""
    if digest.week is None:
        return ()
    tz = digest.window.start.tzinfo
    merged = Counter(e.pr.merged_at.astimezone(tz).date() for e in digest.entries if e.pr.merged_at)
    return tuple(
        GlanceDay(d.day, merged.get(d.day, 0), digest.day_links.get(d.day.isoformat()) or None)
        for d in digest.week.days
    )


def week_title(digest: Digest) -> str:
    """`vllm weekly rollup · 2026-02-23 to 2026-03-01`, a range's `vllm rollup · …` or a tag
    range's `vllm v0.8.0..v0.9.0 rollup · …` (plain: the renderer escapes it); a long name
    is cut so that the days still fit in a heading."""
    name = _one_line(digest.display_name)
    if len(name) > MAX_TITLE_NAME:
        name = name[: MAX_TITLE_NAME - 1].rstrip() + ELLIPSIS
    return f"{name} {rollup_name(digest)} · {span_text(digest, 'to')}"


def rollup_name(digest: Digest) -> str:
    """What a rollup calls itself: "weekly rollup", "rollup", "v0.8.0..v0.9.0 rollup"."""
    scope = DigestScope.of_digest(digest)
    if scope.span == Span.RANGE:
        return f"{scope.tags} rollup" if scope.tags else "rollup"
    return "weekly rollup"


def rollup_span(digest: Digest) -> str:
    """What "within" a rollup means: "the week", "the range", or a tag range's tags."""
    scope = DigestScope.of_digest(digest)
    if scope.span == Span.RANGE:
        return scope.tags or "the range"
    return "the week"


def rollup_when(digest: Digest) -> str:
    """A rollup in a few words, as a thread's name says it: "week of 2026-02-23",
    "2026-02-01 to 2026-02-14", "v0.8.0..v0.9.0"."""
    scope = DigestScope.of_digest(digest)
    if scope.span == Span.RANGE:
        return scope.tags or span_text(digest, "to")
    return f"week of {digest.window.day.isoformat()}"


@dataclass(frozen=True)
class GlanceUndo:
    """A revert of a rollup that undoes a PR merged before it, and that PR."""

    revert: GlancePR
    undone: RelatedPR


def earlier_reverts(digest: Digest) -> tuple[GlanceUndo, ...]:
    """The reverts of a rollup whose reverted PR is not in it (merged before): with the pairs
    (`Glance.reverts`), every revert of the rollup and what it undid; newest first."""
    found = []
    for entry in digest.entries:
        for related in entry.related:
            if related.kind == RelationKind.REVERTS and not related.same_day:
                found.append(GlanceUndo(_item(entry, digest.links), related))
    return tuple(found)


def span_text(digest: Digest, joiner: str = "") -> str:
    """The digest's days: `2026-02-23`, or a rollup's `2026-02-23 to 2026-03-01` (with
    `joiner` "to"); with no joiner, as a sentence says it: "on 2026-02-23", "from … to …"."""
    if digest.week is None:
        day = digest.window.day.isoformat()
        return day if joiner else f"on {day}"
    first, last = digest.week.first.isoformat(), digest.week.last.isoformat()
    return f"{first} to {last}" if joiner else f"from {first} to {last}"


def scope_filters(digest: Digest) -> str:
    """The filter of a digest in its chat form ("paths:vllm/v1/attention/**"), without the
    "week" of a rollup's scope; "" for a whole day or an unfiltered week."""
    return DigestScope.of_digest(digest).filters


def scope_note(digest: Digest) -> str:
    """What a filtered digest's parent says of its filter, counted here: "7 of 52 PRs merged on
    2026-02-23 touch `vllm/v1/attention/**`"; "" when the digest is not filtered. Plain
    text whose code spans the clause already holds; the renderer escapes the rest."""
    if not digest.scope_clause:
        return ""
    total = max(digest.scope_total, len(digest.entries))
    return (
        f"{len(digest.entries)} of {plural(total, 'PR')} merged {span_text(digest)} "
        f"{digest.scope_clause}"
    )


def empty_note(digest: Digest, repo: Callable[[str], str] = str) -> str:
    """The one sentence of a digest with no PR: "No pull requests were merged into o/r on
    2026-02-23 (America/Los_Angeles).", or of a filtered one whose day had PRs, "None of the
    52 PRs merged into o/r on 2026-02-23 touch `…`." `repo` formats the repository's name."""
    name = repo(digest.repo)
    if digest.scope_clause and digest.scope_total:
        return (
            f"None of the {plural(digest.scope_total, 'PR')} merged into {name} "
            f"{span_text(digest)} {digest.scope_clause}."
        )
    return (
        f"No pull requests were merged into {name} {span_text(digest)} ({digest.window.tz_name})."
    )


# -- related PRs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RelatedPhrase:
    """One related PR's line in three parts: `lead` `#N` `title` `tail`. The title is the
    other PR's (untrusted, so the renderer escapes it); "" when the line does not show it."""

    lead: str
    number: int
    title: str
    tail: str


def related_phrase(related: RelatedPR) -> RelatedPhrase:
    day = f" (merged {related.merged_day})" if related.merged_day else ""
    if related.kind == RelationKind.REVERTED_BY:
        if related.same_day:
            return RelatedPhrase("Merged, then reverted by", related.number, "", " (same day)")
        return RelatedPhrase("Reverted by", related.number, related.title, day)
    if related.kind == RelationKind.REVERTS:
        tail = " (merged the same day)" if related.same_day else day
        return RelatedPhrase("Reverts", related.number, related.title, tail)
    if related.kind == RelationKind.FOLLOWS_UP:
        return RelatedPhrase("Follow-up to", related.number, related.title, "")
    return RelatedPhrase("Followed up by", related.number, "", "")


def related_target(related: RelatedPR, links: Mapping[int, str] | None) -> str:
    """Where a related PR's number links: a message about it if the digest has one, else
    its page."""
    return (links or {}).get(related.number) or related.url


# -- helpers --------------------------------------------------------------------------------


def _highlight_numbers(digest: Digest) -> list[int]:
    if digest.overview is not None:
        return list(digest.overview.highlights)
    return rule_highlights(digest.entries)


def _item(
    entry: DigestEntry, links: Mapping[int, str], *, reverted_by: GlancePR | None = None
) -> GlancePR:
    pr = entry.pr
    return GlancePR(
        number=pr.number,
        title=_one_line(pr.title),
        headline=_one_line(entry.headline),
        url=pr.url,
        link=links.get(pr.number) or pr.url,
        reverted_by=reverted_by,
    )


def _first_link(numbers: Iterable[int], links: Mapping[int, str]) -> str | None:
    return next((links[n] for n in numbers if links.get(n)), None)


def _name(name: str | None) -> str:
    return _one_line(name) or OTHER


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())
