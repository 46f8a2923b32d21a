"""Ask: a question about the merged history, answered in a few sentences from the stored
summaries, in one LLM call.

1. **Retrieve** (`retrieve`): the question's days (`yesterday`, `last week`, `2026-02-23`...)
   become the search's dates; its other words, less the common ones, are searched for any of
   them (bm25 ranks PRs that hold more of them, and rarer ones, first); an area the question
   names narrows the PRs to it. Nothing found: the reader is told so, and no call is made.
2. **Answer**: the best PRs' stored summaries go to the model in one call (the summarizer's
   `answer`), logged like every call.
3. **Check** (`checked`): a citation (`#N`) of a PR the model was not given is dropped, and
   with it a sentence that cited nothing else; links and web addresses the model wrote go, as
   does a sentence with a date none of the PRs has. The numbers, links and days the reader
   sees are the store's, put there by the renderer. An answer left citing nothing is not
   shown: the reader gets the closest PRs instead.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from bot.core import llm_work
from bot.core.day_window import parse_day, zone
from bot.core.errors import PRDigestError
from bot.core.search import CITATION, AskAnswer, FoundPR, SearchTerms
from bot.digest.search import Retrieval, area_key, found, phrases
from bot.digest.service import DigestService
from bot.ports.summarizer import AskSource, SummarizeError, calls_of
from bot.store.search_index import SearchHit
from bot.store.store import Store

log = logging.getLogger(__name__)

ASK_SOURCES = 8  # the PRs the model reads at most
CANDIDATES = 40  # the PRs retrieved before an area narrows them
COMMON_SHARE = 0.5  # a word in more than half the stored PRs says nothing about which
COMMON_MIN_DOCS = 20  # ... once there are enough PRs to tell
NOTHING = "Nothing stored matches that question."
UNANSWERED = "The stored summaries do not answer that; these PRs come closest."

# Words of a question that say nothing about which PR it is about.
STOPWORDS = frozenset(
    """a about after all also an and any anything are as at be been before being but by can
    change changed changes could did do does done during for from get got had has have how i
    if in into is it its last me merged merge more most my new of on or our pr prs pull
    recent recently request requests should so some than that the their them then there these
    they this those to up us was we were what when where which who why will with work would
    you your week weeks day days today yesterday month since until past ago there's what's""".split()
)
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_LAST_DAYS = re.compile(r"\b(?:last|past)\s+(\d{1,3})\s+days?\b", re.IGNORECASE)
_URL = re.compile(r"\(?\b(?:https?://|www\.)\S+\)?", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def question_days(
    question: str, tz_name: str, now: datetime | None = None
) -> tuple[date | None, date | None]:
    """The days a question speaks of, as (since, until): `yesterday`, `today`, `this week`,
    `last week`, `last 3 days`, one or two `YYYY-MM-DD` (after `since` or `before`, one end)."""
    today = (now or datetime.now(zone(tz_name))).astimezone(zone(tz_name)).date()
    text = question.lower()
    days = sorted(_days(_ISO_DAY.findall(text), tz_name, now))
    if len(days) >= 2:
        return days[0], days[-1]
    if days:
        before = re.search(r"\b(?:before|until)\s+" + days[0].isoformat(), text)
        after = re.search(r"\b(?:since|after|from)\s+" + days[0].isoformat(), text)
        return (None if before else days[0], None if after else days[0])
    if match := _LAST_DAYS.search(text):
        return today - timedelta(days=int(match.group(1))), today
    monday = today - timedelta(days=today.weekday())
    for words, span in (
        ("last week", (monday - timedelta(days=7), monday - timedelta(days=1))),
        ("this week", (monday, today)),
        ("yesterday", (today - timedelta(days=1),) * 2),
        ("today", (today, today)),
    ):
        if re.search(rf"\b{words}\b", text):
            return span[0], span[1]
    return None, None


def _days(texts: Sequence[str], tz_name: str, now: datetime | None) -> list[date]:
    days = []
    for text in texts:
        with contextlib.suppress(PRDigestError):  # not a day (or a future one): just words
            days.append(parse_day(text, tz_name, now=now))
    return days


def question_phrases(question: str) -> list[str]:
    """The question's words worth searching for: no common words, no dates, no numbers."""
    return [
        p for p in phrases(_ISO_DAY.sub(" ", question))
        if p not in STOPWORDS and not p.isdigit() and len(p) > 1
    ]  # fmt: skip


@dataclass(frozen=True)
class Retrieved:
    """What a question found: the hits best first, and the zone their days are in."""

    hits: tuple[SearchHit, ...]
    tz_name: str

    @property
    def found(self) -> tuple[FoundPR, ...]:
        return tuple(found(hit, self.tz_name) for hit in self.hits)


def retrieve(
    store: Store, terms: SearchTerms, tz_name: str, *, repos: Sequence[str] = (),
    service: DigestService | None = None, now: datetime | None = None,
) -> Retrieved:  # fmt: skip
    """The stored PRs a question is about, best first (a read: through `store.aio.read`)."""
    since, until = question_days(terms.text, tz_name, now)
    if terms.since or terms.until:  # the asker's own filters win over the question's words
        since, until = terms.since, terms.until
    words = _uncommon(store, question_phrases(terms.text))
    if not words and not (since or until or terms.has_filter):
        return Retrieved((), tz_name)
    scoped = replace(terms, text=" ".join(f'"{w}"' for w in words), since=since, until=until)
    retrieval = Retrieval.of(
        scoped, tz_name, repos=repos, area_map=service.area_map if service else None,
        any_word=True, summarized=True,
    )  # fmt: skip
    hits = retrieval.run(store, CANDIDATES)
    if terms.area is None and hits:
        hits = _named_area(store, retrieval, hits, words)
    return Retrieved(tuple(hits[:ASK_SOURCES]), tz_name)


def _uncommon(store: Store, words: list[str]) -> list[str]:
    """The words that tell PRs apart: not in more than half of them (once there are a few)."""
    total = store.indexed_count()
    if total < COMMON_MIN_DOCS:
        return words
    return [w for w in words if store.match_count(f'"{w}"') <= total * COMMON_SHARE]


def _named_area(
    store: Store, retrieval: Retrieval, hits: list[SearchHit], words: list[str]
) -> list[SearchHit]:
    """The hits in the area the question names, when it names one of theirs."""
    areas = retrieval.areas_of(store, hits)
    keys = {area_key(w) for w in words}
    named = [hit for hit in hits if area_key(areas[(hit.repo, hit.number)]) in keys]
    return named or hits


def sources_of(store: Store, retrieved: Retrieved) -> list[AskSource]:
    """What the model reads of each PR: its stored summary (a read)."""
    sources = []
    for hit, pr in zip(retrieved.hits, retrieved.found, strict=True):
        summary = store.get_summary_by_id(hit.summary_id) if hit.summary_id else None
        text = " ".join(body for _, body in summary.sections.items()) if summary else ""
        sources.append(AskSource(pr.number, pr.day, pr.title, pr.headline, text))
    return sources


async def answer_question(
    service: DigestService, terms: SearchTerms, tz_name: str, *, repos: Sequence[str] = (),
    now: datetime | None = None,
) -> AskAnswer:  # fmt: skip
    """The checked answer to `terms.text` (with its filters); no call when nothing is stored
    that matches. A model that fails is a one-line PRDigestError."""
    store = service.store
    retrieved = await store.aio.read(
        retrieve, store, terms, tz_name, repos=repos, service=service, now=now
    )
    if not retrieved.hits:
        return AskAnswer(terms.text, note=NOTHING)
    sources = await store.aio.read(sources_of, store, retrieved)
    summarizer = await service.summarizer()
    repo = terms.repo or _one_repo(retrieved.hits)
    llm_work.started()  # what a chat command's LLM limits count
    try:
        text = await summarizer.answer(repo, terms.text, sources)
    except Exception as exc:
        if calls := calls_of(exc):
            await store.aio.log_llm_calls(calls)
        if isinstance(exc, SummarizeError):
            raise PRDigestError(f"The model gave no answer: {exc}") from None
        raise
    await store.aio.log_llm_calls(text.calls)
    return checked(terms.text, str(text), retrieved.found)


def _one_repo(hits: Sequence[SearchHit]) -> str:
    repos = {hit.repo for hit in hits}
    return repos.pop() if len(repos) == 1 else ""


def checked(question: str, text: str, sources: Sequence[FoundPR]) -> AskAnswer:
    """The model's answer as the reader may see it (see the module's doc)."""
    given = {pr.number: pr for pr in reversed(sources)}  # the best of a number, if two repos
    days = {pr.day for pr in sources}
    kept: list[str] = []
    cited: dict[int, FoundPR] = {}
    dropped: list[int] = []
    for sentence in _SENTENCE.split(_URL.sub("", text).strip()):
        numbers = [int(n) for n in CITATION.findall(sentence)]
        valid = [n for n in numbers if n in given]
        dropped += [n for n in numbers if n not in given]
        if numbers and not valid:
            continue  # it speaks of PRs it was not given: nothing of it can be checked
        if any(day not in days for day in _ISO_DAY.findall(sentence)):
            continue
        kept.append(_tidy(_without_citations(sentence, set(numbers) - set(valid))))
        cited |= {n: given[n] for n in valid}
    if not cited:
        return AskAnswer(question, sources=tuple(sources), note=UNANSWERED, dropped=tuple(dropped))
    return AskAnswer(
        question, text=" ".join(kept), cited=tuple(cited.values()), sources=tuple(sources),
        dropped=tuple(dropped),
    )  # fmt: skip


def _without_citations(sentence: str, numbers: set[int]) -> str:
    """The sentence without its citations of `numbers`, and the punctuation they leave."""
    if not numbers:
        return sentence
    pattern = "|".join(rf"#{n}\b" for n in sorted(numbers))
    text = re.sub(rf"\s*,?\s*(?:{pattern})", "", sentence)
    text = re.sub(r"\(\s*[,;]?\s*\)", "", text)  # "()" left by "(#9999)"
    return re.sub(r"\(\s*[,;]\s*", "(", text)


def _tidy(sentence: str) -> str:
    """One space between words, none before punctuation (where a link or citation was)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(sentence.split()))
