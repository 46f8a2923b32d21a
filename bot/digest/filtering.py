"""A subscription's part of a day: the digest of the PRs its filter keeps.

Every filtered subscription of a repository starts from the same built day (one fetch, one
set of per-PR summaries), so ten filters cost no more summaries than one; each costs at most
its own overview call.
"""

from __future__ import annotations

from dataclasses import replace

from bot.core.codeowners import CodeOwners
from bot.core.filters import SubscriptionFilter
from bot.core.models import Digest
from bot.core.scope import DigestScope
from bot.digest.text import code_span


def filtered(
    digest: Digest,
    flt: SubscriptionFilter,
    owners: CodeOwners | None = None,
    bots: frozenset[str] = frozenset(),
) -> Digest:
    """The digest of the PRs `flt` keeps, with what the parent says about the filter; the
    whole digest, unchanged, for the empty filter."""
    if flt.is_empty:
        return digest
    entries = tuple(
        e
        for e in digest.entries
        if flt.matches(e.pr, e.summary.change_type if e.summary else None, owners, bots)
    )
    return replace(
        digest,
        entries=entries,
        scope=replace(DigestScope.of_digest(digest), filter=flt),
        scope_total=len(digest.entries),
        scope_clause=flt.clause(code=code_span),
    )
