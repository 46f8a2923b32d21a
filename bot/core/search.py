"""Search and ask as values: what was asked (`SearchTerms`), what was found (`FoundPR`) and
the checked answer (`AskAnswer`), shared by the CLI, the chat core and the renderers.

The words of a search typed in chat (`since:`, `until:`, `area:`, `author:`, `type:`,
`repo:`) are read here once, by `parse_search_words`; the CLI's options fill the same value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from bot.core.day_window import parse_day
from bot.core.errors import UserInputError
from bot.core.models import ChangeType
from bot.core.pr_ref import parse_repo
from bot.core.untrusted import clean, clean_line

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
SEARCH_KEYS = ("since", "until", "area", "author", "type", "repo")
# `#35156` in an answer: a citation, checked against the PRs the model was given.
CITATION = re.compile(r"#(\d{1,9})\b")
_SHOWN = 40  # characters of a bad value a one-line error repeats


@dataclass(frozen=True)
class SearchTerms:
    """A search: its words (may be empty when a filter is given) and its filters."""

    text: str = ""
    repo: str | None = None  # None: every stored repository (the allowed ones, in chat)
    since: date | None = None  # merged on or after this day, in the zone
    until: date | None = None  # merged on or before this day, in the zone
    area: str | None = None  # the area a digest files the PR under
    author: str | None = None
    change_type: ChangeType | None = None
    limit: int = DEFAULT_LIMIT

    def __post_init__(self) -> None:
        if self.since and self.until and self.since > self.until:
            raise UserInputError(f"since {self.since} is after until {self.until}")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise UserInputError(f"limit is 1 to {MAX_LIMIT}, not {self.limit}")

    @property
    def has_filter(self) -> bool:
        return any(
            (self.repo, self.since, self.until, self.area, self.author, self.change_type)
        )

    def describe(self) -> str:
        """The search in words, for "No stored PR matches …"."""
        parts = [f'"{clean_line(self.text)}"'] if self.text else []
        parts += [
            f"{key}:{value}"
            for key, value in (
                ("repo", self.repo), ("since", self.since), ("until", self.until),
                ("area", self.area), ("author", self.author),
                ("type", self.change_type.value.lower() if self.change_type else None),
            )
            if value
        ]  # fmt: skip
        return " ".join(parts) or "everything"


def parse_search_words(
    words: Sequence[str], tz_name: str, *, now: datetime | None = None
) -> SearchTerms:
    """A search typed in chat: `fused moe since:2026-02-01 area:LoRA author:alice type:substantial
    repo:owner/name`. A quoted value may hold spaces (`area:"Model Runner V2"`)."""
    text: list[str] = []
    values: dict[str, str] = {}
    for word in _rejoined(words):
        key, sep, value = word.partition(":")
        if not sep or key.lower() not in SEARCH_KEYS:
            text.append(word)
            continue
        value = value.strip().strip("\"'")
        if not value:
            raise UserInputError(f"{key.lower()}: needs a value, as in {key.lower()}:yesterday")
        values[key.lower()] = value
    return SearchTerms(
        text=" ".join(text),
        repo=parse_repo(values["repo"]) if "repo" in values else None,
        since=search_day(values.get("since"), tz_name, now=now),
        until=search_day(values.get("until"), tz_name, now=now),
        area=values.get("area"),
        author=values.get("author", "").lstrip("@") or None,
        change_type=change_type(values.get("type")),
    )


def _rejoined(words: Sequence[str]) -> Iterator[str]:
    """The words, with a quoted filter value that holds spaces made one word again."""
    pending = [w for w in words if w]
    while pending:
        word = pending.pop(0)
        while word.count('"') % 2 == 1 and pending and ":" in word.split('"', 1)[0]:
            word += " " + pending.pop(0)
        yield word


def search_day(text: str | None, tz_name: str, *, now: datetime | None = None) -> date | None:
    """A `since:`/`until:` value (YYYY-MM-DD, today, yesterday) as a day in the zone."""
    return parse_day(text, tz_name, now=now) if text else None


def change_type(text: str | None) -> ChangeType | None:
    """`substantial` or `trivial` (any case) as a ChangeType; a one-line error otherwise."""
    if not text:
        return None
    name = text.strip().upper()
    if name not in ChangeType.__members__:
        allowed = " or ".join(t.value.lower() for t in ChangeType)
        raise UserInputError(f"type: {text[:_SHOWN]!r} is not a type: use {allowed}")
    return ChangeType[name]


@dataclass(frozen=True)
class FoundPR:
    """One stored PR a search found: what the reader sees of it, every part from the store."""

    repo: str
    number: int
    day: str  # the day it was merged, in the zone of the search
    title: str
    headline: str  # "" when no summary of it is stored
    url: str  # the PR's page
    author: str = ""
    change_type: str | None = None
    reply_link: str | None = None  # its reply in this channel's digest thread, if one was posted

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", clean_line(self.title))
        object.__setattr__(self, "headline", clean_line(self.headline))

    @property
    def link(self) -> str:
        """Where the reader is sent: the digest's reply in this channel, else the PR."""
        return self.reply_link or self.url

    def with_reply(self, link: str | None) -> FoundPR:
        return replace(self, reply_link=link) if link else self

    def as_json(self) -> dict:
        return {
            "number": self.number,
            "repo": self.repo,
            "day": self.day,
            "title": self.title,
            "headline": self.headline,
            "url": self.url,
            "author": self.author,
            "type": (self.change_type or "").lower() or None,
            "reply_url": self.reply_link,
        }


@dataclass(frozen=True)
class AskAnswer:
    """An answer as the reader sees it: the model's sentences that survived the checks, each
    `#N` in them one of `cited` (built from the store); else `text` is "" and `note` says why,
    with the closest stored PRs in `sources`."""

    question: str
    text: str = ""
    cited: tuple[FoundPR, ...] = ()
    sources: tuple[FoundPR, ...] = ()  # what the model was given (or would have been)
    note: str = ""
    dropped: tuple[int, ...] = field(default=(), compare=False)  # invented citations removed

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", clean(self.text).strip())

    @property
    def answered(self) -> bool:
        return bool(self.text)

    def parts(self) -> Iterator[tuple[str, FoundPR | None]]:
        """The answer's text in pieces, each citation apart with its PR, so a renderer
        escapes the text and builds the links itself."""
        by_number = {pr.number: pr for pr in self.cited}
        last = 0
        for match in CITATION.finditer(self.text):
            pr = by_number.get(int(match.group(1)))
            if pr is None:
                continue
            yield self.text[last : match.start()], None
            yield match.group(0), pr
            last = match.end()
        yield self.text[last:], None

    def as_json(self) -> dict:
        return {
            "question": self.question,
            "answer": self.text or None,
            "note": self.note or None,
            "cited": [pr.as_json() for pr in self.cited],
            "sources": [pr.as_json() for pr in self.sources],
        }
