"""`prdigest ask`: a question about the merged history, answered in a few sentences from the
stored summaries (one LLM call; none when nothing stored matches)."""

from __future__ import annotations

import json

import click

from bot.app.commands.search import EMPTY_STORE, filter_options, search_terms
from bot.app.commands.shared import json_option, load_settings, run_command, tz_option
from bot.app.compose import build_service
from bot.core.search import AskAnswer
from bot.digest.ask import NOTHING, answer_question
from bot.digest.search import format_line


@click.command("ask")
@click.argument("question", nargs=-1, required=True)
@filter_options
@tz_option
@json_option
@click.pass_context
@run_command
async def command(
    ctx: click.Context, question: tuple[str, ...], repo_text: str | None, since: str | None,
    until: str | None, area: str | None, author: str | None, type_text: str | None,
    tz_name: str | None, as_json: bool,
) -> int:  # fmt: skip
    """Answer a question about the merged history from the stored summaries.

    The stored PRs that best match the question (its words, and days such as yesterday,
    last week or 2026-02-23) go to the LLM in one call; the answer cites them as #N, and
    only PRs it was given can be cited. Nothing stored that matches: it says so and makes
    no call. The filters narrow the PRs as they do for prdigest search.

    \b
    prdigest ask what changed in LoRA last week?
    prdigest ask "which PRs touched the scheduler?" --since 2026-02-01 --json
    """
    settings = load_settings(ctx.obj["verbose"])
    tz = tz_name or settings.timezone
    terms = search_terms(tz, question, repo_text, since, until, area, author, type_text)
    if not terms.text:
        raise click.UsageError("Ask a question, e.g. prdigest ask what changed in LoRA?")
    service = build_service(settings)
    try:
        answer = await answer_question(service, terms, tz)
    finally:
        await service.aclose()
    if as_json:
        click.echo(json.dumps(answer.as_json(), indent=2))
    else:
        click.echo(answer_text(answer))
    if answer.note == NOTHING and service.store.indexed_count() == 0:
        click.echo(EMPTY_STORE, err=True)
    return 0


def answer_text(answer: AskAnswer) -> str:
    """The answer, then the PRs it cites, one a line; or why there is none, and the PRs
    that come closest."""
    if not answer.answered:
        lines = [answer.note, *(format_line(pr) for pr in answer.sources)]
        return "\n".join(lines)
    sources = "\n".join(format_line(pr) for pr in answer.cited)
    return f"{answer.text}\n\nFrom the stored summaries of:\n{sources}"
