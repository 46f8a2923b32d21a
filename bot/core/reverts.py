"""Reverts: PRs that undo another change, recognised from what GitHub and git write for them.

GitHub's revert button titles a PR `Revert "<title>"` and starts its body `Reverts owner/repo#N`;
`git revert` writes `This reverts commit <sha>.`; people also write `Revert #N`.
"""

from __future__ import annotations

import re

from bot.core.models import PullRequest

_TITLE = re.compile(r"^\s*\[?revert\b", re.IGNORECASE)
_BODY = re.compile(
    r"^\s*(?:reverts\s+[\w.-]+/[\w.-]+#\d+|this reverts commit [0-9a-f]{7,40})",
    re.IGNORECASE | re.MULTILINE,
)


def is_revert(pr: PullRequest) -> bool:
    return bool(_TITLE.match(pr.title) or _BODY.search(pr.body or ""))
