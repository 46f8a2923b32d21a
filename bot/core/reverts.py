"""Reverts and follow-ups: how a PR's title and description name another PR.

GitHub's revert button titles a PR `Revert "<title>"` and starts its body `Reverts owner/repo#N`;
`git revert` of a squash commit writes `Revert "<title> (#N)"` and `This reverts commit <sha>.`;
people also write `Revert #N`. A follow-up says so in words: "follow-up to #N", "followup of
#N", "fixes #N", "after #N", with a `#N`, an `owner/repo#N` or a `.../owner/repo/pull/N` link.

Everything here is pure parsing: which PR (or commit, or title) the text points at. Whether
that number is a PR, and when it was merged, is `bot.digest.related`'s business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest

_TITLE = re.compile(r"^\s*\[?revert\b", re.IGNORECASE)
_BODY = re.compile(
    r"^\s*(?:reverts\s+(?:[\w.-]+/[\w.-]+#\d+|#\d+|https?://\S+/pull/\d+)"
    r"|this reverts commit [0-9a-f]{7,40})",
    re.IGNORECASE | re.MULTILINE,
)

# One reference to a PR: `#N`, `owner/repo#N`, or a link to `.../owner/repo/pull/N`, maybe
# written as a Markdown link (`[#N](https://...)`).
_REF = re.compile(
    r"\[?(?:"
    r"(?P<repo>[\w.-]+/[\w.-]+)?#(?P<num>\d+)\b"
    r"|https?://[^\s/()\[\]<>]+/(?P<url_repo>[\w.-]+/[\w.-]+)/pull/(?P<url_num>\d+)\b[^\s()\[\]<>]*"
    r")\]?(?:\([^()\s]*\))?"
)
# Between the references of a list: "#1, #2 and #3".
_LIST_SEP = re.compile(r"[ \t]*(?:,|&|\+|/|\band\b)?[ \t]*", re.IGNORECASE)

# A revert's title: `Revert "<title>"` (maybe with the squash commit's ` (#M)` after it) ...
_REVERT_QUOTED = re.compile(
    r"^\s*\[?revert\]?\s*:?\s*[\"“](?P<title>.+)[\"”]\s*(?:\(#\d+\))?\s*$", re.IGNORECASE
)
# ... or `Revert #N`, `Revert PR #N`, `Revert owner/repo#N`, `Revert https://.../pull/N`.
_REVERT_REF = re.compile(r"^\s*\[?revert\]?\s*:?\s*(?:(?:pr|pull request)\s*)?", re.IGNORECASE)
# The squash commit's number at the end of a title: `[Bugfix] Foo (#34208)`.
_SQUASH_NUMBER = re.compile(r"\s*\(#(?P<num>\d+)\)\s*$")
_REVERTS_LINE = re.compile(r"^\s*reverts\s+", re.IGNORECASE | re.MULTILINE)
_REVERTS_COMMIT = re.compile(r"\bthis reverts commit (?P<sha>[0-9a-f]{7,40})\b", re.IGNORECASE)

# The words that make a reference a follow-up: "follow-up to", "followup of", "follows up on",
# "fixes", "fix for", "after". Template text ("FIX #xxxx (*link existing issues*)") has no
# number, so it never matches.
_FOLLOWUP = re.compile(
    r"\b(?:follow(?:s|ed|ing)?[ \t-]?ups?(?:[ \t]+(?:pr|pull[ \t]+request))?"
    r"(?:[ \t]+(?:to|of|on|for|from))?"
    r"|fix(?:es|ed|ing)?(?:[ \t]+(?:for|to))?"
    r"|after)[ \t]*:?[ \t]*",
    re.IGNORECASE,
)

# Text that quotes rather than says: HTML comments (PR templates' instructions), fenced code
# blocks and inline code spans.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class RevertRef:
    """What a revert says it reverts; any of the three may be missing.

    Resolved in this order: the PR number, the reverted commit, the reverted PR's title.
    """

    number: int | None = None  # the reverted PR, in the revert's own repository
    sha: str | None = None  # the reverted commit, lower case, 7 to 40 hex digits
    title: str | None = None  # the reverted PR's title, without a squash commit's "(#N)"


def is_revert(pr: PullRequest) -> bool:
    return bool(_TITLE.match(pr.title) or _BODY.search(pr.body or ""))


def revert_target(pr: PullRequest) -> RevertRef | None:
    """What the revert `pr` reverts, from its title and body; None if it is not a revert or
    names nothing (`[Revert] Undo the scheduler change`). References to another repository's
    PRs, and to the PR itself, are ignored."""
    if not is_revert(pr):
        return None
    number: int | None = None
    title: str | None = None
    body = prose(pr.body or "")

    for line in _REVERTS_LINE.finditer(body):  # GitHub's button: `Reverts owner/repo#N`
        number = _ref_number(_REF.match(body, line.end()), pr)
        if number is not None:
            break
    if quoted := _REVERT_QUOTED.match(pr.title):
        inner = quoted.group("title").strip()
        if squash := _SQUASH_NUMBER.search(inner):  # `Revert "[X] foo (#12345)"`
            if number is None and int(squash.group("num")) != pr.number:
                number = int(squash.group("num"))
            inner = inner[: squash.start()].rstrip()
        title = inner or None
    elif number is None and (lead := _REVERT_REF.match(pr.title)):
        number = _ref_number(_REF.match(pr.title, lead.end()), pr)  # `Revert #34208`
    commit = _REVERTS_COMMIT.search(body)
    sha = commit.group("sha").lower() if commit else None

    if number is None and sha is None and title is None:
        return None
    return RevertRef(number=number, sha=sha, title=title)


def followup_refs(pr: PullRequest) -> list[int]:
    """The numbers `pr` calls itself a follow-up to (or a fix for, or work after), title first,
    then the description, each once, in the order written.

    Only this repository's: `other/repo#N` and links to another repository are ignored, and
    so are references to the PR itself and anything inside code or HTML comments. A number
    may still turn out to be an issue ("fixes #N"); the caller checks.
    """
    found: list[int] = []
    for text in (prose(pr.title), prose(pr.body or "")):
        for keyword in _FOLLOWUP.finditer(text):
            pos = keyword.end()
            while ref := _REF.match(text, pos):
                number = _ref_number(ref, pr)
                if number is not None and number not in found:
                    found.append(number)
                pos = _LIST_SEP.match(text, ref.end()).end()  # type: ignore[union-attr]
    return found


def prose(text: str) -> str:
    """`text` without what it quotes: HTML comments, fenced code blocks and code spans."""
    text = _COMMENT.sub(" ", text.replace("\r\n", "\n"))
    text = _FENCE.sub(" ", text)
    return "\n".join(_without_code_spans(line) for line in text.split("\n"))


def _without_code_spans(line: str) -> str:
    """`line` with its code spans blanked: a run of backticks opens one, closed by the next
    run of the same length (CommonMark's rule); a run with no such partner is plain text.
    Linear in the line's length, whatever the line (a regex would be quadratic on some)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    if len(runs) < 2:
        return line
    partner: list[int | None] = [None] * len(runs)
    later: dict[int, int] = {}  # run length -> the nearest later run of that length
    for i in range(len(runs) - 1, -1, -1):
        size = runs[i][1] - runs[i][0]
        partner[i] = later.get(size)
        later[size] = i
    kept, pos, i = [], 0, 0
    while i < len(runs):
        j = partner[i]
        if j is None:
            i += 1
            continue
        kept.append(line[pos : runs[i][0]])
        kept.append(" ")
        pos = runs[j][1]
        i = j + 1
    kept.append(line[pos:])
    return "".join(kept)


def _ref_number(ref: re.Match[str] | None, pr: PullRequest) -> int | None:
    """The number a `_REF` match names, if it is another PR of `pr`'s repository."""
    if ref is None:
        return None
    repo = ref.group("repo") or ref.group("url_repo")
    if repo is not None and repo.lower() != pr.repo.lower():
        return None
    number = int(ref.group("num") or ref.group("url_num"))
    return None if number == pr.number or number == 0 else number
