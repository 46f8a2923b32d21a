"""Search over the stored PRs: what `prdigest search`, `/digest search` and ask retrieve.

The words typed become an FTS5 query built by code, never the user's text as FTS syntax:
each word is cut into the tokens SQLite's tokenizer would make (letters and digits; `_`, `.`,
`/`, `-`, quotes, `*`, emoji all separate), and quoted as a phrase. So `fused_moe_lora` is
the phrase "fused moe lora" (which a path `fused_moe_lora_op.py` holds), `NEAR`, `OR` and
`*` are plain words, and text with nothing searchable finds nothing instead of an error.

The ranking is SQLite's bm25 with the index's column weights (`bot.store.search_index`); the
area is decided by the digest's own rules (`bot.digest.areas.area_of`) over the PRs SQL found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.core.day_window import day_window, zone
from bot.core.models import PullRequest
from bot.core.search import FoundPR, SearchTerms
from bot.digest.areas import AreaMap, area_of, normalize_tag
from bot.store.search_index import SearchHit, SearchWhere
from bot.store.store import Store

# What FTS5's unicode61 tokenizer keeps as a token: runs of letters and digits.
_TOKEN = re.compile(r"[^\W_]+")
_PHRASE = re.compile(r'"([^"]*)"?|(\S+)')
# Rows read at a time when code decides the area, and at most this many in all.
_AREA_BATCH = 200
_AREA_SCAN = 20_000


def phrases(text: str) -> list[str]:
    """The text's searchable phrases, each its tokens joined by a space: a word, or a quoted
    run of words. `fused_moe_lora` → "fused moe lora"; `"tensor parallel"` one phrase."""
    found = []
    for quoted, word in _PHRASE.findall(text):
        tokens = _TOKEN.findall(quoted if quoted else word)
        if tokens:
            found.append(" ".join(t.lower() for t in tokens))
    return list(dict.fromkeys(found))


def fts_query(words: Iterable[str], *, any_word: bool = False) -> str | None:
    """An FTS5 query of phrases, every one required (or, with `any_word`, any one); None when
    there is nothing to search for. Each phrase is quoted, and holds only letters, digits and
    spaces: nothing of it can be FTS5 syntax."""
    quoted = [f'"{phrase}"' for phrase in words if _TOKEN.fullmatch(phrase.replace(" ", ""))]
    if not quoted:
        return None
    return (" OR " if any_word else " ").join(quoted)


def area_key(name: str) -> str:
    """What two spellings of an area share: `lora`, `LoRA` and `[LoRA]` are one; `bug` and
    `Bugfix` too (a known tag's canonical name)."""
    name = name.strip().strip("[]")
    return re.sub(r"[\W_]+", "", (normalize_tag(name) or name).casefold())


@dataclass(frozen=True)
class Retrieval:
    """One search as the store runs it: the FTS query, the SQL filters, the area and zone."""

    match: str | None
    where: SearchWhere
    area: str | None
    tz_name: str
    area_map: AreaMap | None = None

    @classmethod
    def of(
        cls, terms: SearchTerms, tz_name: str, *, repos: Sequence[str] = (),
        area_map: AreaMap | None = None, any_word: bool = False, summarized: bool = False,
    ) -> Retrieval:  # fmt: skip
        """The retrieval of `terms`; `repos` are those a chat may search when the terms name
        none (empty: every stored repository)."""
        start = day_window(terms.since, tz_name).start if terms.since else None
        end = day_window(terms.until, tz_name).end if terms.until else None
        where = SearchWhere(
            repos=(terms.repo,) if terms.repo else tuple(repos),
            merged_from=start,
            merged_before=end,
            author=terms.author,
            change_type=terms.change_type.value if terms.change_type else None,
            summarized=summarized,
        )
        match = fts_query(phrases(terms.text), any_word=any_word)
        return cls(match, where, terms.area, tz_name, area_map)

    def run(self, store: Store, limit: int) -> list[SearchHit]:
        """The best `limit` hits (a read: call it through `store.aio.read`)."""
        if self.area is None:
            return store.search_prs(self.match, self.where, limit=limit)
        wanted, kept, offset = area_key(self.area), [], 0
        while len(kept) < limit and offset < _AREA_SCAN:
            batch = store.search_prs(self.match, self.where, limit=_AREA_BATCH, offset=offset)
            areas = self.areas_of(store, batch)
            kept += [hit for hit in batch if area_key(areas[(hit.repo, hit.number)]) == wanted]
            if len(batch) < _AREA_BATCH:
                break
            offset += _AREA_BATCH
        return kept[:limit]

    def areas_of(self, store: Store, hits: Sequence[SearchHit]) -> dict[tuple[str, int], str]:
        """Each hit's area, as a digest files it (its title's tags, else its changed files)."""
        files = store.changed_files_of((hit.repo, hit.number) for hit in hits)
        return {
            (hit.repo, hit.number): area_of(
                PullRequest(
                    repo=hit.repo, number=hit.number, title=hit.title, url=hit.url,
                    author=hit.author, state="merged", files=files.get((hit.repo, hit.number), ()),
                ),  # fmt: skip
                self.area_map,
            )
            for hit in hits
        }


def found(hit: SearchHit, tz_name: str) -> FoundPR:
    """A hit as the reader sees it, its day in the search's zone."""
    return FoundPR(
        repo=hit.repo,
        number=hit.number,
        day=hit.merged_at.astimezone(zone(tz_name)).date().isoformat(),
        title=hit.title,
        headline=hit.headline,
        url=hit.url,
        author=hit.author,
        change_type=hit.change_type,
    )


def search(
    store: Store, terms: SearchTerms, tz_name: str, *, repos: Sequence[str] = (),
    area_map: AreaMap | None = None,
) -> list[FoundPR]:  # fmt: skip
    """The stored PRs that match `terms`, best first (a read: through `store.aio.read` from
    async code). Words with nothing searchable in them find nothing."""
    retrieval = Retrieval.of(terms, tz_name, repos=repos, area_map=area_map)
    if retrieval.match is None and (terms.text.strip() or not terms.has_filter):
        return []
    return [found(hit, tz_name) for hit in retrieval.run(store, terms.limit)]


def format_line(pr: FoundPR) -> str:
    """One result as the CLI prints it: `#35156  2026-02-23  Title — headline  <url>`."""
    headline = f" — {pr.headline}" if pr.headline else ""
    return f"#{pr.number}  {pr.day}  {pr.title}{headline}  <{pr.link}>"
