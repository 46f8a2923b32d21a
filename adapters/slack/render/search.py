"""`/digest search` and `/digest ask` answers: one line a PR (its number linked to its reply
in this channel's digest thread, else to the PR), and an answer whose citations are links.
PR and model text is escaped; every link is built here from the store's values."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_FALLBACK_TEXT,
    MAX_GROUP_HEADLINE,
    MAX_SECTION_TEXT,
    MAX_TITLE,
)
from adapters.slack.render.mrkdwn import SlackMessage, context, escape, link, one_line, section
from bot.core.search import AskAnswer, FoundPR, SearchTerms
from bot.digest.glance import plural
from bot.digest.text import split_text

MAX_QUERY_SHOWN = 200


def found_line(pr: FoundPR) -> str:
    """`<link|#35156>  2026-02-23  Title — headline` (a title is not made bold: a `*` in it
    would end the bold)."""
    text = f"{link(pr.link, f'#{pr.number}')}  {pr.day}  {escape(one_line(pr.title, MAX_TITLE))}"
    if pr.headline:
        text += f" — {escape(one_line(pr.headline, MAX_GROUP_HEADLINE))}"
    return text


def search_message(terms: SearchTerms, results: Sequence[FoundPR]) -> SlackMessage:
    """The results, best first, or the one line that says nothing matched."""
    query = escape(one_line(terms.describe(), MAX_QUERY_SHOWN))
    if not results:
        text = f"No stored PR matches {query}."
        return SlackMessage(text, [section(text)])
    verb = "matches" if len(results) == 1 else "match"
    heading = f"{plural(len(results), 'stored PR')} {verb} {query}, best first:"
    pieces = _packed([found_line(pr) for pr in results])
    blocks = [section(heading), *(section(piece) for piece in pieces)][:MAX_BLOCKS]
    return SlackMessage(one_line(heading, MAX_FALLBACK_TEXT), blocks)


def answer_message(answer: AskAnswer) -> SlackMessage:
    """The checked answer with its citations linked and its sources listed; or why there is
    none, with the PRs that come closest."""
    question = f"_{escape(one_line(answer.question, MAX_QUERY_SHOWN))}_"
    if not answer.answered:
        text = escape(answer.note)
        blocks = [section(f"{question}\n{text}")]
        if answer.sources:
            blocks += [section(piece) for piece in _packed([found_line(p) for p in answer.sources])]
        return SlackMessage(escape(one_line(answer.note, MAX_FALLBACK_TEXT)), blocks[:MAX_BLOCKS])
    body = "".join(
        link(pr.link, piece) if pr is not None else escape(piece) for piece, pr in answer.parts()
    )
    sources = _packed([found_line(pr) for pr in answer.cited])
    blocks = [
        section(f"{question}\n{split_text(body, MAX_SECTION_TEXT - len(question) - 1)[0]}"),
        context("From the stored summaries of:"),
        *(section(piece) for piece in sources),
    ]
    return SlackMessage(escape(one_line(answer.text, MAX_FALLBACK_TEXT)), blocks[:MAX_BLOCKS])


def _packed(lines: list[str]) -> list[str]:
    """Lines joined into as few sections as fit."""
    pieces: list[str] = []
    for line in lines:
        line = split_text(line, MAX_SECTION_TEXT)[0]
        if pieces and len(pieces[-1]) + 1 + len(line) <= MAX_SECTION_TEXT:
            pieces[-1] += "\n" + line
        else:
            pieces.append(line)
    return pieces
