"""What a reader meets before the first reply: a real day's parent message before and after
the day at a glance.

    python bench/glance.py --data days.jsonl --day 2026-02-26 --seed report-of-that-day.txt

The day's PRs (`--data`, as bench/quality.py reads it) are served by the project's fake GitHub
and summarized through the real pipeline (`bot.app.compose.build_service`) against the fake
LLM, whose answers are the real report's (`--seed`): each PR's four sections and type as the
report has them, and a headline that is the first sentence of its "What changed and why" cut
to at most 20 words at a word boundary. The headlines are derived from the report's text, not
written by a model. The highlights call gets the fake's default answer (the first candidates
listed, which is what prdigest's own rule would pick).

The day is built at a glance (`service.digest(..., glance=True)`) and its parent rendered on
Slack and Discord three ways: by the renderers of commit b252ad3, before the day at a glance
(taken from git and imported from a temporary directory), and by the current ones as first
posted (no reply links) and as edited once the replies exist (every PR linked to its reply).

Printed for each platform: each parent as a reader sees it (links shown by their label) with
its word count, how many of the day's PRs it names or places, and its size against the
platform's limits; then the words of the whole thread (the four sections of every reply) and
of the highlights. Words are whitespace-separated tokens holding a letter or a digit.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.discord import render as discord_render  # noqa: E402
from adapters.slack import render as slack_render  # noqa: E402
from bench.digest import settings_for  # noqa: E402
from bench.quality import fake_pr, load_days  # noqa: E402
from bot.app.compose import build_service  # noqa: E402
from bot.core.day_window import day_window  # noqa: E402
from bot.core.models import Digest  # noqa: E402
from bot.core.settings import Settings  # noqa: E402
from bot.digest.glance import glance  # noqa: E402
from bot.store.store import Store  # noqa: E402
from summarizer.repetition import sentences  # noqa: E402
from summarizer.schema import HEADLINE_WORDS  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.openai_api import FakeOpenAI, request_text  # noqa: E402
from tests.report_parser import parse_report  # noqa: E402

REPO = "vllm-project/vllm"
DISPLAY_NAME = "vLLM"  # as the real reports title it
TZ = "America/Los_Angeles"  # the seed reports' zone (PST)
OLD_COMMIT = "b252ad3"  # the last commit before the day at a glance
SLACK_FLAG = "x"  # the default PRDIGEST_FLAG_EMOJI, as Slack's parent names it
DISCORD_FLAG = "❌"  # the same emoji as the Discord parent shows it (flag_display)
HEADINGS = {
    "What changed and why": "what_changed",
    "Technical impact": "technical_impact",
    "Potential risks": "potential_risks",
    "Key insights": "key_insights",
}
_HEADING = re.compile(r"^\*\*(?P<heading>[^*\n]+)\*\*[ \t]*$", re.MULTILINE)
_PR_LINE = re.compile(r"^PR: #(?P<number>\d+)\s*$", re.MULTILINE)
_WORD = re.compile(r"\S*[A-Za-z0-9]\S*")
_NUMBER = re.compile(r"#(\d+)\b")
_SLACK_LINK = re.compile(r"<([^<>|]+)\|([^<>]*)>")
_DISCORD_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((https?://[^)\s]+)\)")
_DISCORD_ESCAPE = re.compile(r"\\([\\*_~|`\[\]])")
_MORE_AREAS = re.compile(r"and \d+ more areas? \((\d+) PRs?\)")


# -- the seed report as the fake LLM's answers ------------------------------------------------


@dataclass(frozen=True)
class SeedAnswer:
    number: int
    change_type: str
    sections: dict[str, str]
    headline: str
    cut: bool  # the first sentence had more than HEADLINE_WORDS words


def seed_sections(summary: str) -> dict[str, str]:
    """The four sections of one entry of a Merged PR Report, by their JSON keys."""
    marks = list(_HEADING.finditer(summary))
    sections: dict[str, str] = {}
    for i, mark in enumerate(marks):
        key = HEADINGS.get(mark["heading"].strip())
        if key is None:
            continue
        end = marks[i + 1].start() if i + 1 < len(marks) else len(summary)
        sections[key] = " ".join(summary[mark.end() : end].split())
    missing = [k for k in HEADINGS.values() if not sections.get(k)]
    if missing:
        raise ValueError(f"no {', '.join(missing)}")
    return sections


def seed_headline(what_changed: str) -> tuple[str, bool]:
    """The first sentence of `what_changed`, cut to HEADLINE_WORDS words at a word boundary
    (an ellipsis on the last word when cut)."""
    first = (sentences(what_changed) or [what_changed])[0]
    words = first.split()
    if len(words) <= HEADLINE_WORDS:
        return first, False
    return " ".join(words[:HEADLINE_WORDS]).rstrip(",;:") + "…", True


def seed_answers(path: Path) -> dict[int, SeedAnswer]:
    report = parse_report(path.read_text())
    answers = {}
    for entry in report.entries:
        sections = seed_sections(entry.summary)
        headline, cut = seed_headline(sections["what_changed"])
        answers[entry.number] = SeedAnswer(entry.number, entry.type, sections, headline, cut)
    if len(answers) != report.total:
        raise SystemExit(f"{path}: {len(answers)} entries parsed of {report.total}")
    return answers


def seed_responder(answers: dict[int, SeedAnswer]) -> Callable[[dict[str, Any]], str]:
    """The fake LLM's summary answers: the seed's sections, type and derived headline for the
    PR the prompt names (`PR: #N`)."""

    def respond(request: dict[str, Any]) -> str:
        match = _PR_LINE.search(request_text(request))
        if match is None or int(match["number"]) not in answers:
            raise ValueError("a summary request for a PR the seed report does not have")
        answer = answers[int(match["number"])]
        return json.dumps(
            {"headline": answer.headline, **answer.sections, "type": answer.change_type}
        )

    return respond


# -- the old renderers, from git -------------------------------------------------------------


def old_module(path: str, name: str, into: Path) -> ModuleType:
    """`path` as of OLD_COMMIT, imported as a module of its own (`name`)."""
    source = subprocess.run(
        ["git", "show", f"{OLD_COMMIT}:{path}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    file = into / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


# -- what a reader sees ------------------------------------------------------------------------


def words(text: str) -> int:
    return len(_WORD.findall(text))


def slack_text(message: Any) -> str:
    """The blocks' text (the header's plain text, each section's and context's mrkdwn), in
    order, as a reader sees it: links by their label, entities unescaped."""
    parts = []
    for block in message.blocks:
        texts = []
        if isinstance(block.get("text"), dict):
            texts.append(block["text"].get("text", ""))
        texts += [e.get("text", "") for e in block.get("elements") or () if isinstance(e, dict)]
        texts += [f.get("text", "") for f in block.get("fields") or ()]
        parts.append("\n".join(t for t in texts if t.strip()))
    text = _SLACK_LINK.sub(lambda m: m.group(2), "\n".join(parts))
    return html.unescape(text.replace("\u200d", ""))


def slack_sizes(message: Any) -> str:
    blocks = message.blocks
    chars = sum(slack_render.block_text_length(b) for b in blocks)
    largest = max((slack_render.block_text_length(b) for b in blocks), default=0)
    header = next((len(b["text"]["text"]) for b in blocks if b["type"] == "header"), 0)
    return (
        f"{len(blocks)} blocks of {slack_render.MAX_BLOCKS}; {chars:,} characters of "
        f"{slack_render.MAX_MESSAGE_TEXT:,} (prdigest's margin under Slack's ~12,000); "
        f"largest block {largest:,} of {slack_render.MAX_SECTION_TEXT:,}; header {header} of "
        f"{slack_render.MAX_HEADER_TEXT}"
    )


def discord_text(message: Any) -> str:
    """The content, then each embed's title, description and fields, as a reader sees them:
    links by their label, Markdown escapes and zero-width spaces removed."""
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        for f in embed.get("fields") or ():
            parts += [f["name"], f["value"]]
    text = "\n".join(p for p in parts if p)
    text = _DISCORD_LINK.sub(lambda m: m.group(1), text)
    return _DISCORD_ESCAPE.sub(r"\1", text).replace("\u200b", "")


def discord_sizes(message: Any) -> str:
    r = discord_render
    content = r.text_length(message.content)
    line = f"content {content:,} of {r.MAX_CONTENT:,}; {len(message.embeds)} embeds"
    if message.embeds:
        description = max(r.text_length(e.get("description") or "") for e in message.embeds)
        total = sum(r.embed_size(e) for e in message.embeds)
        line += (
            f" of {r.MAX_EMBEDS}, description {description:,} of {r.MAX_DESCRIPTION:,}, "
            f"embeds {total:,} of {r.MAX_MESSAGE_EMBEDS_TOTAL:,}"
        )
    return line


def reach(text: str, digest: Digest) -> tuple[int, int, str]:
    """How many of the day's PRs `text` names by number, places in an area line, or neither
    (only in the day's total)."""
    day = {e.pr.number for e in digest.entries}
    named = {int(n) for n in _NUMBER.findall(text)} & day
    plain = text.replace("*", "")
    placed: set[int] = set()
    for area in glance(digest).areas:
        if f"• {area.name} ({area.count})" in plain:
            placed.update(area.numbers)
    summed = sum(int(n) for n in _MORE_AREAS.findall(plain))
    reached = len(named | placed) + summed
    line = f"names {len(named)} of {len(day)} PRs by number"
    line += f"; {len(placed) + summed} are counted under an area"
    line += f"; named or counted: {reached} of {len(day)}"
    if reached < len(day):
        line += f" (the other {len(day) - reached} only in the day's total)"
    return len(named), reached, line


def show(label: str, text: str, sizes: str, digest: Digest) -> tuple[int, int, int]:
    """Print one parent; its words, the PRs it names by number and those it names or counts."""
    count = words(text)
    named, reached, line = reach(text, digest)
    print(f"--- {label}: {count} words")
    print(text)
    print(f"    reach: {line}")
    print(f"    size:  {sizes}")
    print()
    return count, named, reached


# -- the day -------------------------------------------------------------------------------------


async def build_day(settings: Settings, store: Store, day: date) -> Digest:
    service = build_service(settings, store)
    try:
        return await service.digest(REPO, day_window(day, TZ), glance=True)
    finally:
        await service.aclose()


def render(
    name: str, make: Callable[[], Any], text: Callable[[Any], str], sizes: Callable[[Any], str]
) -> tuple[str, str] | None:
    try:
        message = make()
    except Exception as exc:  # noqa: BLE001 - an old renderer failing on new data is a finding
        print(f"--- {name}: FAILED with {type(exc).__name__}: {exc}")
        print()
        return None
    return text(message), sizes(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the PRs, one JSON a line")
    parser.add_argument("--day", required=True, help="the report day, YYYY-MM-DD")
    parser.add_argument("--seed", type=Path, required=True, help="the real report of that day")
    args = parser.parse_args()

    rows = load_days(args.data, [args.day])[args.day]
    answers = seed_answers(args.seed)
    if set(answers) != {row["number"] for row in rows}:
        raise SystemExit(f"{args.seed} does not list the PRs of {args.day} in {args.data}")

    with tempfile.TemporaryDirectory(prefix="prdigest-glance-") as tmp:
        tmp_dir = Path(tmp)
        old_slack = old_module("adapters/slack/render.py", "old_slack_render", tmp_dir)
        old_discord = old_module("adapters/discord/render.py", "old_discord_render", tmp_dir)
        with FakeGitHub() as github, FakeOpenAI(responder=seed_responder(answers)) as llm:
            github.add_repo(REPO)
            github.add_prs(REPO, [fake_pr(row) for row in rows])
            db = tmp_dir / "glance.db"
            store = Store(db)
            digest = asyncio.run(
                build_day(
                    settings_for(github, llm, db, PRDIGEST_DISPLAY_NAME=DISPLAY_NAME),
                    store,
                    date.fromisoformat(args.day),
                )
            )
            calls = Counter(row["purpose"] for row in store.db["llm_calls"].rows)
        report(digest, answers, args, calls, old_slack, old_discord)


def report(
    digest: Digest,
    answers: dict[int, SeedAnswer],
    args: argparse.Namespace,
    calls: Counter[str],
    old_slack: ModuleType,
    old_discord: ModuleType,
) -> None:
    entries = digest.entries
    summarized = [e for e in entries if e.summary]
    overview = digest.overview
    assert overview is not None
    view = glance(digest)
    cut = sum(1 for a in answers.values() if a.cut)
    print(f"== {digest.repo} {args.day} ({TZ}): {len(entries)} PRs from {args.data}")
    print(f"seed report: {args.seed}")
    print(
        "answers: the fake LLM returned the seed report's own four sections and type for each "
        "PR. The headlines are derived from the real report's text, not written by a model: "
        f"the first sentence of its 'What changed and why', cut at a word boundary to at most "
        f"{HEADLINE_WORDS} words ({cut} of {len(answers)} were cut, marked …)."
    )
    print(
        f"summarized: {len(summarized)} of {len(entries)}; LLM calls: {sum(calls.values())} "
        f"({', '.join(f'{n} {purpose}' for purpose, n in calls.most_common())}); "
        f"{sum(1 for e in summarized if e.summary.unverified)} summaries keep names the claim "
        "check did not find in the PR; token counts are the fake's estimates"
    )
    for e in entries:
        if not e.ok:
            print(f"  #{e.pr.number} not summarized: {e.error}")
    print(
        f"overview: picked_by {overview.picked_by} (the highlights call answered with the "
        f"fake's default: the first candidates listed); highlights "
        f"{', '.join(f'#{n}' for n in overview.highlights)}; {len(view.areas)} areas; "
        f"{len(view.reverts) + sum(1 for i in view.highlights if i.reverted_by)} same-day "
        f"revert pairs"
    )
    print()

    slack_links = {
        e.pr.number: f"https://example.slack.com/archives/C0/p{e.pr.number}?thread_ts=1&cid=C0"
        for e in digest.thread_entries
    }
    discord_links = {
        e.pr.number: f"https://discord.com/channels/1/2/{e.pr.number}"
        for e in digest.thread_entries
    }
    platforms = [
        (
            "Slack",
            old_slack,
            lambda d, m: m.parent_message(d, flag_emoji=SLACK_FLAG),
            slack_render,
            digest.with_links(slack_links),
            slack_text,
            slack_sizes,
        ),
        (
            "Discord",
            old_discord,
            lambda d, m: m.parent_message(d, DISCORD_FLAG),
            discord_render,
            digest.with_links(discord_links),
            discord_text,
            discord_sizes,
        ),
    ]
    print(
        "Each parent is shown as a reader sees it: the header and every block's mrkdwn on Slack, "
        "the content and the embed's title and description on Discord; links shown by their "
        "label, escapes removed. Words are tokens holding a letter or a digit."
    )
    print()
    figures: dict[str, list[tuple[str, int, int, int] | None]] = {}
    for name, old, call, new, edited, text, sizes in platforms:
        print(f"===== {name}: the parent message")
        print()
        versions = [
            ("before", f"before this change ({OLD_COMMIT}'s renderer)", old, digest),
            ("posted", "after, as first posted (no reply links yet)", new, digest),
            ("edited", "after, edited once the replies exist (linked)", new, edited),
        ]
        figures[name] = []
        for short, label, module, d in versions:
            shown = render(label, lambda m=module, d=d, c=call: c(d, m), text, sizes)
            if shown and module is old:
                note = f"{OLD_COMMIT}'s parent_message ran on the new digest without an error"
                shown = (shown[0], f"{shown[1]}\n    note:  {note}")
            figures[name].append((short, *show(label, *shown, digest)) if shown else None)

    thread = sum(words(t) for e in summarized for _, t in e.summary.sections.items())
    highlight_words = [words(i.title if i.reverted_by else i.headline) for i in view.highlights]
    print("===== the thread and the highlights")
    print(
        f"the whole thread before: {thread:,} words (the four sections of all "
        f"{len(summarized)} replies, as the old replies had them)"
    )
    print(
        f"the highlights: {sum(highlight_words)} words in {len(highlight_words)} headlines "
        f"({', '.join(map(str, highlight_words))}); "
        f"{sum(1 for i in view.highlights if answers[i.number].cut)} of them cut at "
        f"{HEADLINE_WORDS} words"
    )
    print()
    print("===== in short: words before the first reply (PRs named by number / named or counted)")
    for name, rows in figures.items():
        cells = [f"{r[0]} {r[1]} ({r[2]}/{r[3]})" if r else "failed" for r in rows]
        print(f"{name + ':':9} {' · '.join(cells)} of {len(entries)} PRs; thread {thread:,} words")


if __name__ == "__main__":
    main()
