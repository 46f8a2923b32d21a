"""The hostile corpus end to end: hostile PRs served by the fake GitHub, summarized by a model
that writes hostile sections and headlines, and delivered the way users get them: the report
and `prdigest summary` on the command line, JSON, a Slack digest and a Discord digest.

One PR per attack class carries that class's payloads in its title, description, labels,
file names and author; the model echoes payloads of the same class into its four sections
and its headline. What arrives must hold what `tests/test_untrusted_text.py` checks of the
pure renderers.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.untrusted import clean_line, is_login
from tests.conftest import REPO, make_pr
from tests.fakes.discord import running_bot
from tests.fakes.github import FakeFile
from tests.fakes.openai_api import default_responder, request_text
from tests.fakes.slack import BotUnderTest
from tests.hostile_corpus import ATTACKS
from tests.surfaces import (
    SLACK_PINGS,
    bad_characters,
    discord_links,
    discord_pings,
    discord_texts,
    embed_urls,
    markdown_links,
    markdown_tags,
    slack_objects,
)

DAY = "2026-02-23"
CHANNEL = "C0DIGEST"
GITHUB = "https://github.com"


def hostile_prs():
    prs = []
    for i, (attack, payloads) in enumerate(ATTACKS.items(), start=1):
        pick = [payloads[(i + k) % len(payloads)] for k in range(6)]
        files = [
            FakeFile(f"src/{attack}/{pick[3]}.py", patch="@@ -1 +1 @@\n-a\n+b\n"),
            FakeFile("src/ok.py", patch="@@ -1 +1,2 @@\n a\n+c\n"),
        ]
        prs.append(
            make_pr(
                100 + i,
                f"{DAY} {10 + i}:00:00",
                title=f"[{attack}] {pick[0]}",
                body=f"MARK:{attack}\n{pick[1]}",
                labels=[pick[2]],
                author=pick[4],
                merged_by=pick[5],
                file_list=files,
            )  # fmt: skip
        )
    return prs


def hostile_model(request: dict) -> str:
    """A model that writes the payloads of the attack class its PR is about."""
    answer = json.loads(default_responder(request))
    prompt = request_text({"messages": request["messages"][1:]})
    for attack, payloads in ATTACKS.items():
        if f"MARK:{attack}" in prompt:
            for k, key in enumerate(["what_changed", "technical_impact", "potential_risks"]):
                answer[key] += f" Also {payloads[(k * 5) % len(payloads)]} here ({key})."
            answer["key_insights"] += f" Finally {payloads[-1]}."
            answer["headline"] = f"Fixes {payloads[len(payloads) // 2]} in the scheduler"
    return json.dumps(answer)


def allowed(prs) -> set[str]:
    urls = {f"{GITHUB}/{REPO}"}
    for pr in prs:
        urls |= {f"{GITHUB}/{REPO}/pull/{pr.number}", f"{GITHUB}/{REPO}/pull/{pr.number}/files"}
        for login in (clean_line(pr.author), clean_line(pr.merged_by)):
            if is_login(login):
                urls.add(f"{GITHUB}/{login}")
    return urls


OWN_MESSAGE = re.compile(
    r"^https://fake-team\.slack\.com/archives/C\w+/p\d+(\?thread_ts=[\d.]+&cid=C\w+)?$"
    r"|^https://discord\.com/channels/\d+/\d+/\d+$"
)


def foreign(urls, prs) -> list[str]:
    ok = allowed(prs)
    return [u for u in urls if u not in ok and not OWN_MESSAGE.match(u)]


def test_the_report_the_terminal_and_json_hold_against_hostile_prs_and_model(env, github, llm):
    prs = hostile_prs()
    github.add_prs(REPO, prs)
    llm.responder = hostile_model
    runner = CliRunner()
    result = runner.invoke(cli, ["report", "--date", DAY, "--overview", "-o", "day.md"])
    assert result.exit_code == 0, result.output
    report = open("day.md", encoding="utf-8").read()
    assert report.count("**What changed and why**") == len(prs)  # every PR summarized
    tags = markdown_tags(report)
    # The title, the glance and one heading per PR; a rule after the header, the glance and
    # each PR; nothing else that changes the layout.
    assert (tags.count("h1"), tags.count("h2"), tags.count("hr")) == (1, len(prs) + 1, len(prs) + 2)
    assert not {"table", "blockquote", "pre", "img", "div", "script", "h4"} & set(tags)
    assert foreign(markdown_links(report), prs) == []
    assert bad_characters(report) == []

    for pr in prs:  # what `prdigest summary` prints on a terminal
        shown = runner.invoke(cli, ["summary", str(pr.number)])
        assert shown.exit_code == 0, shown.output
        assert bad_characters(shown.output) == [] and "\x1b" not in shown.output

    as_json = runner.invoke(cli, ["report", "--date", DAY, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert bad_characters(json.dumps(json.loads(as_json.stdout), ensure_ascii=False)) == []


async def test_a_slack_digest_holds_against_hostile_prs_and_model(env, slack, github, llm):
    prs = hostile_prs()
    github.add_prs(REPO, prs)
    llm.responder = hostile_model
    bot = BotUnderTest(env, slack)
    try:
        await bot.command("/digest", DAY)
    finally:
        await bot.aclose()
    posted = slack.posted(CHANNEL)
    assert len(posted) == 1 + len(prs)
    problems = []
    for message in posted:
        for obj in slack_objects(message):
            text = obj.get("text") or ""
            problems += bad_characters(text)
            problems += SLACK_PINGS.findall(text)
            links = re.findall(r"<([a-z][a-z0-9+.-]*:[^|>]*)(?:\|[^>]*)?>", text, re.I)
            problems += foreign([u.replace("&amp;", "&") for u in links], prs)
            if obj.get("type") == "mrkdwn" and not obj.get("verbatim"):
                problems.append("mrkdwn that Slack would auto-link")
    assert problems == []
    assert "Summary unavailable" not in json.dumps([m.blocks for m in posted])


async def test_a_discord_digest_holds_against_hostile_prs_and_model(fake, settings, github, llm):
    prs = hostile_prs()
    github.add_prs(REPO, prs)
    llm.responder = hostile_model
    async with running_bot(fake, settings):
        interaction = fake.slash("digest", {"day": DAY})
        await fake.wait_for(lambda: interaction.finished, timeout=60, what="/digest")
    (parent,) = [m for m in fake.channel_messages(fake.channel_id) if m.get("thread")]
    replies = fake.channel_messages(parent["thread"]["id"])
    assert len(replies) == len(prs)
    texts = discord_texts([parent, *replies])
    assert [c for t in texts for c in bad_characters(t)] == []
    assert [p for t in texts for p in discord_pings(t)] == []
    links = [u for t in texts for u in discord_links(t)] + embed_urls([parent, *replies])
    assert foreign(links, prs) == []
    posts = fake.requests(r"^/channels/\d+/messages$", "POST")
    assert all(c.json["allowed_mentions"] == {"parse": []} for c in posts)
