"""Building a day's digest: list the PRs, fetch each once, summarize them concurrently.

Fetching is one sequential task (GitHub wants a client's requests one at a time); each PR's
summary starts the moment its files are in, so fetching and summarizing overlap. Everything
fetched or generated goes to the store first, so a second run makes no calls at all.

A rollup (a week, any range of days, the PRs between two tags) builds its days the same way
and rolls them up; `plan` tells, before any LLM call, which days are still to build and how
many summaries that costs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING, TypeVar

from bot.core import llm_work
from bot.core.clock import utcnow
from bot.core.day_window import is_complete, zone
from bot.core.errors import ConfigurationError, NotFoundError, SourceError
from bot.core.filters import SubscriptionFilter
from bot.core.models import (
    ChangeType,
    DayOverview,
    DayWindow,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    RelatedPR,
    SummarySections,
    WeekDay,
    WeekInfo,
)
from bot.core.reverts import is_revert
from bot.core.scope import DigestScope, Span, TagRange, post_key_of
from bot.digest.areas import AreaMap, area_of, group_areas
from bot.digest.filtering import filtered
from bot.digest.overview import (
    DAY,
    PICKED_BY_RULE,
    WEEK,
    HighlightRange,
    candidates,
    checked_highlights,
    folded_areas,
    highlight_count,
    inputs_key,
    rule_highlights,
)
from bot.digest.ownership import CodeOwnersReader
from bot.digest.related import find_related
from bot.digest.text import code_span
from bot.ports.summarizer import (
    Revision,
    SummarizeError,
    Summarizer,
    SummaryWriter,
    calls_of,
)
from bot.store.base import StorageError
from bot.store.store import Store
from bot.store.summaries import CurrentSummary
from summarizer.prompt import scrub_sections

if TYPE_CHECKING:  # PyGithub takes 0.15 s to import: the source is made, and loads it, on use
    from bot.digest.github_source import GitHubSource, RepoInfo

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (done, total)
WeekProgress = Callable[[date, int, int], None]  # (day, done, total): a rollup's days
SummarizerFactory = Callable[[], Summarizer]
T = TypeVar("T")
RANGE_MAX_DAYS = 31  # PRDIGEST_RANGE_MAX_DAYS's default


@dataclass(frozen=True)
class DayPlan:
    """One day of a rollup or a backfill, before it is built: counted by code, no LLM call."""

    day: date
    prs: int  # merged that day
    new: int  # of them with no current summary (`current_summary`): one summary each
    listed: bool  # its list of PRs was final and stored already

    @property
    def built(self) -> bool:
        """Nothing left to fetch or summarize: building it again costs no call."""
        return self.listed and not self.new


@dataclass(frozen=True)
class BuildPlan:
    days: tuple[DayPlan, ...]

    @property
    def to_build(self) -> tuple[DayPlan, ...]:
        return tuple(d for d in self.days if not d.built)

    @property
    def new_summaries(self) -> int:
        return sum(d.new for d in self.days)


@dataclass
class DigestService:
    """The core's one entry point for "a day" and "a PR", shared by the CLI and the bots."""

    store: Store
    source_factory: Callable[[], GitHubSource]
    summarizer_factory: SummarizerFactory
    display_names: Callable[[str], str] = lambda repo: repo.split("/")[-1]
    area_map: AreaMap | None = None  # prdigest.toml's [areas], over the default rules
    range_max_days: int = RANGE_MAX_DAYS  # the longest range `build` rolls up

    def __post_init__(self) -> None:
        self._source: GitHubSource | None = None
        self._summarizer: Summarizer | None = None
        self._summarizer_lock = asyncio.Lock()
        self._pr_locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._fetching: dict[tuple[str, int], asyncio.Future[PullRequest]] = {}
        self._owners: CodeOwnersReader | None = None
        self._building: dict[tuple[str, date, str], asyncio.Future[Digest]] = {}
        # Days `plan` listed from GitHub, for the build that follows: (repo, day, zone) ->
        # (the repository as GitHub spells it, its PR numbers). Each is used once.
        self._listed: dict[tuple[str, date, str], tuple[str, list[int]]] = {}
        self._tag_commits: dict[tuple[str, str], frozenset[str]] = {}  # (repo, tags) -> SHAs

    @property
    def source(self) -> GitHubSource:
        if self._source is None:
            self._source = self.source_factory()
        return self._source

    async def summarizer(self) -> Summarizer:
        # Made on first need, so a fully cached day never starts a model or opens a client.
        async with self._summarizer_lock:
            if self._summarizer is None:
                made = await asyncio.to_thread(self.summarizer_factory)
                self._summarizer = self._summarizer or made  # `writer()` may have made one
            return self._summarizer

    def writer(self) -> SummaryWriter | None:
        """The model and prompt version that write new summaries, which a stored summary must
        match to be reused (`current_summary`); None when no LLM is configured."""
        if self._summarizer is None:
            try:
                self._summarizer = self.summarizer_factory()  # named from settings: no start
            except ConfigurationError:
                return None
        return SummaryWriter(self._summarizer.model, self._summarizer.prompt_version)

    async def aclose(self) -> None:
        if self._summarizer is not None:
            await self._summarizer.aclose()
            self._summarizer = None

    # -- a day ---------------------------------------------------------------------------

    async def digest(
        self,
        repo: str,
        window: DayWindow,
        *,
        refresh: bool = False,
        progress: Progress | None = None,
        glance: bool = False,
    ) -> Digest:
        """The day's digest; with `glance`, also its day at a glance (`at_a_glance`)."""
        digest = await self._digest(repo, window, refresh=refresh, progress=progress)
        return await self.at_a_glance(digest) if glance else digest

    async def _digest(
        self, repo: str, window: DayWindow, *, refresh: bool, progress: Progress | None
    ) -> Digest:
        numbers = None if refresh else await self.store.aio.get_day(repo, window)
        info: RepoInfo | None = None
        listed = self._listed.pop(_day_key(repo, window), None)
        if numbers is None and listed is not None and not refresh:
            repo, numbers = listed
        if numbers is None:
            info = await asyncio.to_thread(self.source.repository, repo)
            repo = info.full_name
            numbers = await asyncio.to_thread(self.source.merged_numbers, info, window)
        entries = await self._entries(repo, numbers, info, refresh=refresh, progress=progress)
        entries = [e for e in entries if _in_window(e.pr, window)]
        entries.sort(key=_newest_first)

        fetched_all = all(e.pr.merged_at is not None for e in entries)
        await self.store.aio.save_day(
            repo,
            window,
            [e.pr.number for e in entries],
            complete=fetched_all and is_complete(window),
        )
        await self.store.aio.record_day_result(
            repo, window, {e.pr.number: e.error or "" for e in entries if not e.ok}
        )
        return Digest(
            repo=repo,
            display_name=self.display_names(repo),
            window=window,
            entries=tuple(entries),
            recent_flags=await self.store.aio.flag_count_since(utcnow() - timedelta(days=1), repo),
        )

    # -- every kind of digest, from its scope --------------------------------------------

    async def build(
        self,
        scope: DigestScope | TagRange,
        *,
        bots: frozenset[str] = frozenset(),
        refresh: bool = False,
        progress: Progress | None = None,
        week_progress: WeekProgress | None = None,
        glance: bool = True,
    ) -> Digest:
        """The digest of `scope`, at a glance: the one place that tells a day from a rollup
        (a week or a range; a tag range is resolved first). `glance=False` leaves a whole
        day as the seed report shows it (no areas, no highlights). Concurrent builds of one
        day (subscriptions of one repository posting at the same time) share one fetch and
        one set of summaries."""
        scope = await self.resolve(scope)
        if scope.span != Span.DAY:
            return await self.rollup(scope, bots=bots, progress=week_progress)
        day = await self._shared_day(scope.repo, scope.window, refresh, progress)
        if scope.filter.is_empty and not glance:
            return day
        return await self.part(day, scope.filter, bots=bots)

    async def _shared_day(
        self, repo: str, window: DayWindow, refresh: bool, progress: Progress | None
    ) -> Digest:
        key = (repo.lower(), window.day, window.tz_name)
        task = self._building.get(key)
        if task is None or refresh:
            task = asyncio.ensure_future(
                self.digest(repo, window, refresh=refresh, progress=progress)
            )
            self._building[key] = task
            task.add_done_callback(lambda done: self._built(key, done))
        return await asyncio.shield(task)

    def _built(self, key: tuple[str, date, str], task: asyncio.Future[Digest]) -> None:
        self._building.pop(key, None)
        if not task.cancelled():
            task.exception()  # retrieved here: its awaiters have it, asyncio need not log it

    # -- a subscription's part of a day -----------------------------------------------------

    async def part(
        self,
        day: Digest,
        flt: SubscriptionFilter | None = None,
        *,
        bots: frozenset[str] = frozenset(),
    ) -> Digest:
        """The digest of the PRs of the built `day` that `flt` keeps, at a glance; the whole
        day's for no filter. Every subscription of a repository starts from the one built
        day: ten filtered subscriptions cost one fetch and one summary per PR, and each at
        most its own overview call."""
        flt = flt or SubscriptionFilter()
        if flt.is_empty:
            return await self.at_a_glance(day)
        # No CODEOWNERS is an error, not a silent empty digest.
        owners = await self.owners.require(day.repo) if flt.needs_codeowners else None
        return await self.at_a_glance(filtered(day, flt, owners, bots))

    async def rollup(
        self,
        scope: DigestScope,
        *,
        bots: frozenset[str] = frozenset(),
        progress: WeekProgress | None = None,
    ) -> Digest:
        """The rollup of the days of `scope` (a week or a range; a tag range keeps only the
        PRs between its tags): the days not built yet are built first (`progress(day, done,
        total)` follows each), the days already built cost no per-PR call; the rollup itself
        is one overview call, cached like a day's. A range longer than `range_max_days` is
        refused before any call."""
        scope.check_length(self.range_max_days)
        flt, repo = scope.filter, scope.repo
        owners = None
        keep = await self._commits_between(scope) if scope.tags else None
        entries: list[DigestEntry] = []
        days: list[WeekDay] = []
        total = 0
        for window in scope.windows:
            day = window.day
            tick = (lambda done, n, day=day: progress(day, done, n)) if progress else None
            built = await self._shared_day(repo, window, False, tick)
            repo = built.repo
            if keep is not None:
                built = replace(built, entries=_between(built.entries, keep))
            if flt.needs_codeowners and owners is None:
                owners = await self.owners.require(repo)
            part = filtered(built, flt, owners, bots)
            entries.extend(part.entries)
            days.append(WeekDay(day, len(part.entries)))
            total += len(built.entries)
        entries.sort(key=_newest_first)
        start, end = scope.windows[0], scope.windows[-1]
        window = DayWindow(day=scope.first, tz_name=scope.tz_name, start=start.start, end=end.end)
        rollup = Digest(
            repo=repo,
            display_name=self.display_names(repo),
            window=window,
            entries=tuple(entries),
            scope=replace(scope, repo=repo),
            scope_total=total if not flt.is_empty else 0,
            scope_clause=flt.clause(code=code_span),
            week=WeekInfo(tuple(days)),
        )
        return await self.at_a_glance(rollup, WEEK)

    # -- a tag range -----------------------------------------------------------------------

    async def resolve(self, scope: DigestScope | TagRange) -> DigestScope:
        """A tag range as the range of days its two commits span (two GitHub calls, three
        for a compare of more than 100 commits); any other scope as it is. The PRs between
        the tags are the merged PRs of those days whose merge commit GitHub's compare of the
        two tags lists, on the default branch; `rollup` keeps only those."""
        if isinstance(scope, DigestScope):
            return scope
        info = await asyncio.to_thread(self.source.repository, scope.repo)
        span = await asyncio.to_thread(self.source.tag_span, info, scope.base, scope.head)
        self._tag_commits[(info.full_name.lower(), scope.tags)] = span.shas
        tz = zone(scope.tz_name)
        first, last = span.start.astimezone(tz).date(), span.end.astimezone(tz).date()
        return scope.resolved(info.full_name, first, last)

    async def _commits_between(self, scope: DigestScope) -> frozenset[str]:
        key = (scope.repo.lower(), scope.tags)
        if key not in self._tag_commits:  # resolved by another service: asked again
            base, _, head = scope.tags.partition("..")
            await self.resolve(TagRange(scope.repo, base, head, scope.tz_name))
        return self._tag_commits[key]

    # -- what building costs ---------------------------------------------------------------

    async def plan(self, repo: str, windows: list[DayWindow]) -> BuildPlan:
        """Which of these days are built, and what the others cost: each day not listed yet
        is listed from GitHub now (one search, kept for the build that follows, so it is not
        asked twice), and its PRs without a current summary are counted. No LLM call."""
        plans = []
        info: RepoInfo | None = None
        for window in windows:
            numbers = await self.store.aio.get_day(repo, window)
            listed = numbers is not None
            if numbers is None:
                if info is None:
                    info = await asyncio.to_thread(self.source.repository, repo)
                numbers = await asyncio.to_thread(self.source.merged_numbers, info, window)
                self._listed[_day_key(repo, window)] = (info.full_name, numbers)
            new = await self.store.aio.read(self._count_new, repo, numbers)
            plans.append(DayPlan(window.day, len(numbers), new, listed))
        return BuildPlan(tuple(plans))

    def _count_new(self, repo: str, numbers: list[int]) -> int:
        return sum(self.needs_summary(repo, n) for n in numbers)

    @property
    def owners(self) -> CodeOwnersReader:
        """Each repository's CODEOWNERS, read from GitHub at most once a day."""
        if self._owners is None:
            self._owners = CodeOwnersReader(self.store, lambda: self.source)
        return self._owners

    # -- the day at a glance -----------------------------------------------------------------

    async def at_a_glance(self, digest: Digest, span: HighlightRange = DAY) -> Digest:
        """The digest with each PR's area and related PRs, and the day's overview: the areas
        and the highlights (one LLM call per day, cached with the day's inputs)."""
        entries = [replace(e, area=area_of(e.pr, self.area_map)) for e in digest.entries]
        related = await self._related(digest.window, entries)
        entries = [replace(e, related=related.get(e.pr.number, ())) for e in entries]
        areas = folded_areas(group_areas(entries), [e.pr.number for e in entries])
        area = {n: group.name for group in areas for n in group.numbers}
        entries = [replace(e, area=area.get(e.pr.number, e.area)) for e in entries]
        highlights, picked_by = await self._highlights(digest, entries, span)
        overview = DayOverview(tuple(highlights), areas, picked_by)
        return replace(digest, entries=tuple(entries), overview=overview)

    async def _related(
        self, window: DayWindow, entries: list[DigestEntry]
    ) -> dict[int, tuple[RelatedPR, ...]]:
        """Reverts and follow-ups, from the store (and at most one GitHub call per PR they
        name); links are a bonus, so anything but a full disk leaves them out instead."""
        try:
            return await find_related(entries, window, store=self.store, fetch_pr=self.pull_request)
        except StorageError:
            raise
        except Exception:  # noqa: BLE001 - a digest without its links still posts
            log.exception("finding related PRs of %s failed", window.day)
            return {}

    async def _highlights(
        self, digest: Digest, entries: list[DigestEntry], span: HighlightRange
    ) -> tuple[list[int], str]:
        """The model's ranking of the day, checked by code; the rule's when it fails."""
        if len(entries) <= span.least:
            return rule_highlights(entries, span), PICKED_BY_RULE  # every PR is a highlight
        summarizer = await self.summarizer()
        shown = candidates(entries)
        key = inputs_key(shown, summarizer.model, summarizer.prompt_version)
        day, tz_name = post_key_of(digest), digest.window.tz_name
        cached = await self.store.aio.get_overview(digest.repo, day, tz_name, key)
        if cached is not None:
            return cached
        try:
            picked = await self._calls_kept(
                summarizer.pick_highlights(digest.repo, day, shown, highlight_count(entries, span))
            )
        except SummarizeError as exc:
            log.warning("overview of %s %s failed: %s; the rule picks", digest.repo, day, exc)
            return rule_highlights(entries, span), PICKED_BY_RULE
        except StorageError:
            raise
        except Exception:  # noqa: BLE001 - the overview must never stop a digest
            log.exception("overview of %s %s failed unexpectedly", digest.repo, day)
            return rule_highlights(entries, span), PICKED_BY_RULE
        numbers, picked_by = checked_highlights(picked, entries, span)
        await self.store.aio.save_overview(
            digest.repo, day, tz_name, key, numbers, picked_by, summarizer.model, picked.calls
        )
        return numbers, picked_by

    async def _entries(
        self,
        repo: str,
        numbers: list[int],
        info: RepoInfo | None,
        *,
        refresh: bool,
        progress: Progress | None,
    ) -> list[DigestEntry]:
        """Each PR fetched in turn (newest first) and summarized as soon as it is in."""
        total, done = len(numbers), 0
        if progress and total:
            progress(0, total)  # the day's size, known before the first PR is read

        def tick(_: asyncio.Task | None) -> None:
            nonlocal done
            done += 1
            if progress:
                progress(done, total)

        semaphore: asyncio.Semaphore | None = None
        tasks: list[asyncio.Task[DigestEntry]] = []
        unfetched: list[DigestEntry] = []  # PRs GitHub would not give us: named, not summarized
        try:
            for number in sorted(numbers, reverse=True):
                try:
                    pr, info = await self._stored_or_fetched(repo, number, info)
                except (NotFoundError, SourceError) as exc:  # GitHub's answer for this PR
                    unfetched.append(DigestEntry(_placeholder(repo, number), error=str(exc)))
                    tick(None)
                    continue
                if semaphore is None:
                    semaphore = asyncio.Semaphore(await self._concurrency())
                task = asyncio.create_task(self._entry(pr, refresh=refresh, semaphore=semaphore))
                task.add_done_callback(tick)
                tasks.append(task)
            return [*await asyncio.gather(*tasks), *unfetched]
        except BaseException:
            # An error that ends the digest (a full disk while storing a PR or a call, say):
            # stop the summaries already started, before the caller closes the LLM client
            # under them, instead of leaving them to fail one by one with tracebacks.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _stored_or_fetched(
        self, repo: str, number: int, info: RepoInfo | None
    ) -> tuple[PullRequest, RepoInfo | None]:
        """A merged PR from the store, else from GitHub (and stored); and the repo's info."""
        pr = await self.store.aio.get_pr(repo, number)
        if pr is None or not pr.is_merged:
            if info is None:
                info = await asyncio.to_thread(self.source.repository, repo)
            pr = await asyncio.to_thread(self.source.fetch_pr, info, number)
            await self.store.aio.save_pr(pr)
        return pr, info

    async def _concurrency(self) -> int:
        return max(1, (await self.summarizer()).concurrency)

    # -- one PR --------------------------------------------------------------------------

    async def pull_request(self, repo: str, number: int) -> PullRequest:
        """A PR's data: from the store when merged (it can no longer change), else fresh.

        Concurrent requests for one PR (a burst of /prsummary for the same number) share a
        single fetch: without this, 200 commands for 50 PRs read 200 PRs from GitHub.
        """
        pr = await self.store.aio.get_pr(repo, number)
        if pr is not None and pr.is_merged:
            return pr
        return await self._fetch_shared(repo, number)

    async def _fetch_shared(self, repo: str, number: int) -> PullRequest:
        """The PR from GitHub (and stored), one fetch for all who ask for it at once."""
        key = (repo, number)
        fetch = self._fetching.get(key)
        if fetch is None:
            fetch = self._fetching[key] = asyncio.ensure_future(self._fetch_pr(repo, number))
            fetch.add_done_callback(lambda done: self._fetch_done(key, done))
        return await asyncio.shield(fetch)

    async def with_diff(self, pr: PullRequest) -> PullRequest:
        """`pr` with its patches: a stored PR whose diff a prune dropped (PRDIGEST_DIFF_DAYS)
        is read from GitHub again, and stored again with it. A summary is only ever written
        from the diff; showing a stored one never needs it."""
        if not pr.diff_pruned:
            return pr
        log.info("reading the diff of %s#%s from GitHub again (pruned)", pr.repo, pr.number)
        return await self._fetch_shared(pr.repo, pr.number)

    async def _fetch_pr(self, repo: str, number: int) -> PullRequest:
        info = await asyncio.to_thread(self.source.repository, repo)
        pr = await asyncio.to_thread(self.source.fetch_pr, info, number)
        await self.store.aio.save_pr(pr)
        return pr

    def _fetch_done(self, key: tuple[str, int], done: asyncio.Future[PullRequest]) -> None:
        self._fetching.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here too, in case every waiter was cancelled

    async def find_cached(self, repo: str, number: int) -> DigestEntry | None:
        """`cached_entry`, read off the event loop."""
        return await self.store.aio.read(self.cached_entry, repo, number)

    def cached_entry(self, repo: str, number: int) -> DigestEntry | None:
        """A merged PR whose current summary is stored, whichever model wrote it (`prdigest
        summary` names that model): answerable with no call at all."""
        stored = self._stored(repo, number)
        return DigestEntry(stored[0], stored[1].summary) if stored else None

    def needs_summary(self, repo: str, number: int) -> bool:
        """Whether a digest would ask the model for this PR, as `_entry` decides it: no up to
        date summary of it is stored. What `/digest`'s cost estimate counts."""
        stored = self._stored(repo, number)
        return stored is None or not stored[1].up_to_date

    def _stored(self, repo: str, number: int) -> tuple[PullRequest, CurrentSummary] | None:
        pr = self.store.get_pr(repo, number)
        if pr is None or not pr.is_merged:
            return None
        current = self.store.current_summary(pr, self.writer())
        return (pr, current) if current else None

    async def pr_entry(self, repo: str, number: int, *, refresh: bool = False) -> DigestEntry:
        """One PR summarized (open and closed PRs too); raises PRDigestError for bad refs."""
        pr = await self.pull_request(repo, number)
        semaphore = asyncio.Semaphore(1)
        return await self._entry(pr, refresh=refresh, semaphore=semaphore)

    async def _entry(
        self, pr: PullRequest, *, refresh: bool, semaphore: asyncio.Semaphore
    ) -> DigestEntry:
        # One lock per PR: two commands asking for the same PR at once make one LLM call.
        lock = self._pr_locks.setdefault((pr.repo, pr.number), asyncio.Lock())
        async with lock:
            summarizer = await self.summarizer()
            if not refresh:
                current = await self.store.aio.current_summary(pr, self.writer())
                if current is not None and current.up_to_date:
                    return DigestEntry(pr, current.summary)
            async with semaphore:
                llm_work.started()  # what a chat command's LLM limits count
                try:
                    pr = await self.with_diff(pr)
                    result = await self._calls_kept(summarizer.summarize(pr))
                except (SummarizeError, SourceError, NotFoundError) as exc:
                    log.warning("summary of %s#%s failed: %s", pr.repo, pr.number, exc)
                    return DigestEntry(pr, error=str(exc))
                except StorageError:
                    # A full disk or read-only database (hit while logging the failed LLM
                    # calls) is not this PR's problem: stop the digest with the store's
                    # one-line error.
                    raise
                except Exception as exc:  # noqa: BLE001 - one PR must never sink the digest
                    log.exception("summary of %s#%s failed unexpectedly", pr.repo, pr.number)
                    return DigestEntry(pr, error=f"unexpected error ({type(exc).__name__})")
            summary = await self.store.aio.save_summary(
                PRSummary(
                    repo=pr.repo,
                    number=pr.number,
                    revision_sha=pr.revision_sha,
                    prompt_version=summarizer.prompt_version,
                    model=summarizer.model,
                    change_type=classified(result.change_type, pr),
                    sections=scrubbed(result.sections, pr),
                    files_covered=result.files_covered,
                    files_total=result.files_total,
                    usage=result.usage,
                    grounded_fraction=result.grounded_fraction,
                    unverified=result.unverified,
                    facts=result.facts,
                ),
                result.calls,
            )
            return DigestEntry(pr, summary)

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        """Re-check a flagged summary with the deeper pass; the answer is scrubbed like every
        summary, and counts as changed only if the scrubbed text differs from the current."""
        pr = await self.with_diff(pr)
        revision = await self._calls_kept((await self.summarizer()).revise(pr, current))
        # The new version, if any, is stored by the flag's record (bot.chat.flags.revisions).
        await self.store.aio.log_llm_calls(revision.result.calls)
        result = revision.result
        sections = scrubbed(result.sections, pr)
        change_type = classified(result.change_type, pr)
        same = sections == current.sections and change_type == current.change_type
        return Revision(replace(result, sections=sections, change_type=change_type),
                        revision.changed and not same, revision.note)  # fmt: skip

    async def _calls_kept(self, work: Awaitable[T]) -> T:
        """Await a summarizer's `work`. Its result carries its LLM calls, which are stored with
        it; when it fails, its error carries those made so far, logged here before it goes on
        (a full disk while logging them stops the digest, as any other write does)."""
        try:
            return await work
        except Exception as exc:
            if calls := calls_of(exc):
                await self.store.aio.log_llm_calls(calls)
            raise
        except BaseException as exc:  # cancelled: logged too, but never a reason to fail
            if calls := calls_of(exc):
                with contextlib.suppress(Exception):
                    await self.store.aio.log_llm_calls(calls)
            raise


def classified(change_type: ChangeType, pr: PullRequest) -> ChangeType:
    """The type shown, for every summarizer: a revert undoes a change to what the code does,
    so it is SUBSTANTIAL whatever the model said (the built-in model judges a short revert
    TRIVIAL by its size; the real reports call reverts SUBSTANTIAL)."""
    return ChangeType.SUBSTANTIAL if is_revert(pr) else change_type


def scrubbed(sections: SummarySections, pr: PullRequest) -> SummarySections:
    """The one scrub every summary goes through, new or revised, whatever summarizer made
    it: no links, mass mentions or quoted prompt, even when the PR's text told the model to
    write them (prompt injection)."""
    return scrub_sections(sections, pr)


def _placeholder(repo: str, number: int) -> PullRequest:
    """Stands in for a PR GitHub would not give us, so the digest still names it."""
    return PullRequest(
        repo=repo,
        number=number,
        title=f"PR #{number} (details could not be fetched)",
        url=f"https://github.com/{repo}/pull/{number}",
        author="",
        state="merged",
    )


def _day_key(repo: str, window: DayWindow) -> tuple[str, date, str]:
    return (repo.lower(), window.day, window.tz_name)


def _between(entries: tuple[DigestEntry, ...], commits: frozenset[str]) -> tuple[DigestEntry, ...]:
    """The entries whose merge commit is one of `commits` (a tag range's compare)."""
    return tuple(e for e in entries if (e.pr.merge_commit_sha or "").lower() in commits)


def _in_window(pr: PullRequest, window: DayWindow) -> bool:
    # The search's range is inclusive and second-granular; the store's list must be exact.
    return pr.merged_at is None or window.contains(pr.merged_at)


def _newest_first(entry: DigestEntry) -> tuple[float, int]:
    merged = entry.pr.merged_at.timestamp() if entry.pr.merged_at else float("-inf")
    return (-merged, -entry.pr.number)
