"""Who owns what in a repository: its CODEOWNERS, read from GitHub at most once a (UTC) day.

The first read of a day asks GitHub (see `GitHubSource.codeowners`) and stores what it found,
an absent file included; every later read that day, in this process or another one over the
same database, is the stored copy. Concurrent reads of one repository share one GitHub read,
and a failed read is not stored, so the next one asks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from bot.core.clock import utcnow
from bot.core.codeowners import CODEOWNERS_LOCATIONS, CodeOwners, parse_codeowners
from bot.core.errors import UserInputError
from bot.store.store import Store

if TYPE_CHECKING:  # PyGithub takes 0.15 s to import: the source is made, and loads it, on use
    from bot.digest.github_source import GitHubSource

# (path, text) of a repository's CODEOWNERS, or (None, None) when it has none.
_Found = tuple[str | None, str | None]


def no_codeowners_message(repo: str) -> str:
    looked = ", ".join(CODEOWNERS_LOCATIONS)
    return f"{repo} has no CODEOWNERS file (looked in {looked}): a codeowners filter needs one"


@dataclass
class CodeOwnersReader:
    store: Store
    # The service's GitHub source, built on first use (`lambda: service.source`).
    source: Callable[[], GitHubSource]
    # The read in flight for each (repo, day), which concurrent callers await together.
    _reads: dict[tuple[str, str], asyncio.Task[_Found]] = field(
        default_factory=dict, init=False, repr=False
    )
    # The last text parsed for each repo, and what it gave: no parse when the text is unchanged.
    _parsed: dict[str, tuple[str, CodeOwners]] = field(default_factory=dict, init=False, repr=False)

    async def owners(self, repo: str, *, today: date | None = None) -> CodeOwners | None:
        """`repo`'s CODEOWNERS as of `today` (UTC by default), or None when it has none.

        Stored today already: no GitHub call. Otherwise one read through GitHub (one call
        per location tried), stored for the day, absent or not. A GitHub failure raises
        SourceError and is not stored; an unknown repository raises NotFoundError.
        """
        day = (today or utcnow().date()).isoformat()
        path, text = await self._found(repo, day)
        if path is None:
            return None
        return await self._parse(repo, text or "")

    async def require(self, repo: str, *, today: date | None = None) -> CodeOwners:
        """`owners(repo)`, or UserInputError with a one-line reason when it has none."""
        found = await self.owners(repo, today=today)
        if found is None:
            raise UserInputError(no_codeowners_message(repo))
        return found

    async def _found(self, repo: str, day: str) -> _Found:
        key = (repo, day)
        loop = asyncio.get_running_loop()
        task = self._reads.get(key)
        if task is None or task.get_loop() is not loop:
            task = loop.create_task(self._stored_or_read(repo, day))
            self._reads[key] = task
            task.add_done_callback(lambda done: self._forget(key, done))
        # One caller given up (a timed-out command) must not cancel the others' read.
        return await asyncio.shield(task)

    def _forget(self, key: tuple[str, str], done: asyncio.Task[_Found]) -> None:
        if self._reads.get(key) is done:
            del self._reads[key]
        if not done.cancelled():
            done.exception()  # retrieved here too: every caller may have gone already

    async def _stored_or_read(self, repo: str, day: str) -> _Found:
        stored = await self.store.aio.get_codeowners(repo, day)
        if stored is not None:
            return stored
        # Built here, on the loop's thread, as the service builds its own: never twice.
        source = self.source()
        found = await asyncio.to_thread(_read, source, repo)
        path, text = found if found is not None else (None, None)
        await self.store.aio.save_codeowners(repo, day, path, text)
        return path, text

    async def _parse(self, repo: str, text: str) -> CodeOwners:
        cached = self._parsed.get(repo)
        if cached is not None and cached[0] == text:
            return cached[1]
        # Up to 3 MB of patterns: compiled off the event loop.
        parsed = await asyncio.to_thread(parse_codeowners, text)
        self._parsed[repo] = (text, parsed)
        return parsed


def _read(source: GitHubSource, repo: str) -> tuple[str, str] | None:
    """The repository (known to the source after its first call) and its CODEOWNERS."""
    return source.codeowners(source.repository(repo))
