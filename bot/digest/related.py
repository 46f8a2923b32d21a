"""Related PRs of a day: which PR reverts which, and which follows up on which.

Read from titles and descriptions (`bot.core.reverts`) and resolved against the day's own PRs
first, then the store, and only then GitHub, at most once per referenced number: a number that
turns out not to be a PR (an issue: "fixes #N") is remembered in the store and never asked
about again, and a PR once fetched is stored like any other.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from bot.core.errors import NotFoundError, SourceError
from bot.core.models import DayWindow, DigestEntry, PullRequest, RelatedPR, RelationKind
from bot.core.reverts import RevertRef, followup_refs, is_revert, revert_target
from bot.store.store import Store

log = logging.getLogger(__name__)

FetchPR = Callable[[str, int], Awaitable[PullRequest]]

# How far back a follow-up's reference may point: "fixes #N" and "after #N" also name old
# PRs in passing, and a link to a change from months ago tells the reader nothing new.
RECENT = timedelta(days=14)

# The order a reply lists its related PRs in.
_KIND_ORDER = {kind: i for i, kind in enumerate(RelationKind)}


async def find_related(
    entries: Sequence[DigestEntry],
    window: DayWindow,
    *,
    store: Store,
    fetch_pr: FetchPR,
) -> dict[int, tuple[RelatedPR, ...]]:
    """PR number of the day -> the PRs it is tied to, for the PRs of `entries` that have any.

    A revert gets REVERTS (the PR it undoes) and that PR, when it is one of the day's, gets
    REVERTED_BY; a follow-up gets FOLLOWS_UP and the earlier PR, if of the day, FOLLOWED_UP_BY.
    `fetch_pr(repo, number)` (`DigestService.pull_request`, which stores what it fetches) is
    called only for numbers neither the day, the store nor the `not_prs` table knows, at most
    once each; a NotFoundError marks the number as not a PR, any other PRDigestError (GitHub
    answering 502) just leaves that link out. Each list is in a fixed order: reverts first,
    then follow-ups, by number.
    """
    return await _Finder(entries, window, store, fetch_pr).run()


@dataclass
class _Finder:
    entries: Sequence[DigestEntry]
    window: DayWindow
    store: Store
    fetch_pr: FetchPR
    found: dict[int, dict[tuple[RelationKind, int], RelatedPR]] = field(default_factory=dict)
    looked_up: dict[tuple[str, int], PullRequest | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.day = {e.pr.number: e.pr for e in self.entries}

    async def run(self) -> dict[int, tuple[RelatedPR, ...]]:
        for number in sorted(self.day):  # in number order: the fetches happen in a fixed order
            pr = self.day[number]
            reverted = await self._reverted(pr) if is_revert(pr) else None
            if reverted is not None:
                self._link(pr, reverted, RelationKind.REVERTS, RelationKind.REVERTED_BY)
            for ref in followup_refs(pr):
                if reverted is not None and ref == reverted.number:
                    continue  # already tied as its revert
                earlier = await self._merged_pr(pr.repo, ref)
                if earlier is not None and self._recent(earlier):
                    self._link(pr, earlier, RelationKind.FOLLOWS_UP, RelationKind.FOLLOWED_UP_BY)
        return {
            number: tuple(sorted(links.values(), key=lambda r: (_KIND_ORDER[r.kind], r.number)))
            for number, links in sorted(self.found.items())
        }

    # -- reverts ---------------------------------------------------------------------------

    async def _reverted(self, revert: PullRequest) -> PullRequest | None:
        """The merged PR `revert` undoes: by number, else by the reverted commit, else by its
        title. Of any age: unlike a follow-up's loose "after #N", a revert names exactly what
        it undoes, and knowing that an old change is gone is news whatever its age (and the
        chat layer links the original's own digest message when there was one)."""
        ref = revert_target(revert)
        if ref is None:
            return None
        if ref.number is not None:
            target = await self._merged_pr(revert.repo, ref.number)
            if target is not None:
                return target
        if ref.sha is not None:
            target = await self._by_sha(revert, ref)
            if target is not None:
                return target
        if ref.title is not None:
            return await self._by_title(revert, ref)
        return None

    async def _by_sha(self, revert: PullRequest, ref: RevertRef) -> PullRequest | None:
        sha = ref.sha or ""
        same_day = [
            pr
            for pr in self.day.values()
            if pr.is_merged and (pr.merge_commit_sha or "").lower().startswith(sha)
        ]
        if len(same_day) == 1:
            return _other(same_day[0], revert)
        # No GitHub call here: only a PR number can be fetched, and a commit GitHub still
        # has but the store does not would cost a search for each revert.
        return _other(await self.store.aio.pr_by_merge_sha(revert.repo, sha), revert)

    async def _by_title(self, revert: PullRequest, ref: RevertRef) -> PullRequest | None:
        same_day = sorted(
            (
                (pr.merged_at, pr.number, pr)
                for pr in self.day.values()
                if pr.merged_at is not None and pr.title == ref.title and pr.number != revert.number
            ),
            key=lambda item: item[:2],
        )
        if same_day:
            return same_day[-1][2]  # the latest of that title: the one most likely undone
        return _other(await self.store.aio.merged_pr_by_title(revert.repo, ref.title), revert)

    # -- one number ------------------------------------------------------------------------

    async def _merged_pr(self, repo: str, number: int) -> PullRequest | None:
        """PR `number`, if it is a merged PR: from the day, the store, or one GitHub call."""
        pr = await self._pr(repo, number)
        return pr if pr is not None and pr.is_merged and pr.merged_at is not None else None

    async def _pr(self, repo: str, number: int) -> PullRequest | None:
        if number in self.day:
            return self.day[number]
        key = (repo, number)
        if key not in self.looked_up:
            self.looked_up[key] = await self._look_up(repo, number)
        return self.looked_up[key]

    async def _look_up(self, repo: str, number: int) -> PullRequest | None:
        # A stored PR is taken as it is, open or closed, so that a reference costs a call at
        # most once: the digest of the day a PR is merged stores it merged anyway.
        stored = await self.store.aio.get_pr(repo, number)
        if stored is not None:
            return stored
        if await self.store.aio.is_not_pr(repo, number):
            return None
        try:
            return await self.fetch_pr(repo, number)
        except NotFoundError:
            await self.store.aio.mark_not_pr(repo, number)  # an issue, or no such number
            return None
        except SourceError as exc:
            # GitHub failing (a 502 after retries): this link is left out, and the number is
            # not marked, so the next digest asks again.
            log.warning("related PR %s#%s not fetched: %s", repo, number, exc)
            return None

    # -- the result ------------------------------------------------------------------------

    def _recent(self, pr: PullRequest) -> bool:
        assert pr.merged_at is not None
        return self.window.end - RECENT <= pr.merged_at < self.window.end

    def _link(
        self, pr: PullRequest, other: PullRequest, kind: RelationKind, back: RelationKind
    ) -> None:
        """`pr` relates to `other` as `kind`; `other`, when it is one of the day's, back."""
        same_day = other.number in self.day
        self._add(pr.number, self._related(other, kind, same_day))
        if same_day:
            self._add(other.number, self._related(pr, back, same_day))

    def _add(self, number: int, related: RelatedPR) -> None:
        self.found.setdefault(number, {}).setdefault((related.kind, related.number), related)

    def _related(self, pr: PullRequest, kind: RelationKind, same_day: bool) -> RelatedPR:
        merged = pr.merged_at.astimezone(self.window.start.tzinfo) if pr.merged_at else None
        return RelatedPR(
            kind=kind,
            number=pr.number,
            title=pr.title,
            url=pr.url,
            merged_day=merged.date().isoformat() if merged else None,
            same_day=same_day,
        )


def _other(pr: PullRequest | None, revert: PullRequest) -> PullRequest | None:
    """`pr`, unless it is the revert itself."""
    return None if pr is None or pr.number == revert.number else pr
