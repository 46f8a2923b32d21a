"""`/digest search` and `/digest ask` answers: one line a PR in an embed (its number linked to
its reply in this channel's digest thread, else to the PR), and an answer whose citations are
links. PR and model text is shown literally; every link is built here from the store's values."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.discord.limits import MAX_CONTENT, MAX_DESCRIPTION, MAX_GLANCE_TEXT, clip
from adapters.discord.render.markdown import COLOURS, Message, literal, masked_link
from bot.core.models import ChangeType
from bot.core.search import AskAnswer, FoundPR, SearchTerms
from bot.digest.glance import plural

MAX_QUERY_SHOWN = 200
MAX_HEADLINE_SHOWN = 300
COLOUR = COLOURS[ChangeType.SUBSTANTIAL]


def found_line(pr: FoundPR) -> str:
    """`[#35156](link) 2026-02-23 **Title** — headline`."""
    title = literal(clip(pr.title, MAX_GLANCE_TEXT))
    text = f"{masked_link(pr.link, f'#{pr.number}')} {pr.day} **{title}**"
    if pr.headline:
        text += f" — {literal(clip(pr.headline, MAX_HEADLINE_SHOWN))}"
    return text


def search_message(terms: SearchTerms, results: Sequence[FoundPR]) -> Message:
    """The results, best first, or the one line that says nothing matched."""
    query = literal(clip(terms.describe(), MAX_QUERY_SHOWN))
    if not results:
        return Message(content=f"No stored PR matches {query}.")
    verb = "matches" if len(results) == 1 else "match"
    heading = f"{plural(len(results), 'stored PR')} {verb} {query}, best first:"
    embed = {"description": _lines([found_line(pr) for pr in results]), "color": COLOUR}
    return Message(content=clip(heading, MAX_CONTENT), embeds=(embed,))


def answer_message(answer: AskAnswer) -> Message:
    """The checked answer with its citations linked and its sources listed; or why there is
    none, with the PRs that come closest."""
    question = clip(f"*{literal(clip(answer.question, MAX_QUERY_SHOWN))}*", MAX_CONTENT)
    if not answer.answered:
        closest = _lines([found_line(pr) for pr in answer.sources])
        description = literal(answer.note) + (f"\n\n{closest}" if closest else "")
        return Message(content=question, embeds=({"description": description, "color": COLOUR},))
    body = "".join(
        masked_link(pr.link, piece) if pr is not None else _spaced(piece)
        for piece, pr in answer.parts()
    )
    sources = _lines([found_line(pr) for pr in answer.cited])
    description = f"{body}\n\n*From the stored summaries of:*\n{sources}"
    if len(description) > MAX_DESCRIPTION:  # an answer is a few sentences; the list goes first
        description = body[:MAX_DESCRIPTION]
    return Message(content=question, embeds=({"description": description, "color": COLOUR},))


def _spaced(text: str) -> str:
    """Untrusted text shown literally, keeping the spaces around it (next to a link)."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    shown = literal(text)
    return f"{lead}{shown}{trail}" if shown else lead or trail


def _lines(lines: list[str]) -> str:
    """As many whole lines as fit in an embed's description."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > MAX_DESCRIPTION:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)
