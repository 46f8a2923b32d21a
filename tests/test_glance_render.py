"""The day at a glance on Slack, Discord, Markdown and JSON: the parent message holds the
counts, the highlights, same-day reverts and the areas, within every platform's limits; each
reply shows its headline first and its related PRs; trivial and bot PRs can share one grouped
reply."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

import discord
import pytest
from slack_sdk.errors import SlackApiError

from adapters.discord import render as discord_render
from adapters.slack import render as slack_render
from adapters.slack.limits import (
    MAX_BLOCKS,
    MAX_HEADER_TEXT,
    MAX_MESSAGE_TEXT,
    MAX_SECTION_TEXT,
    block_text_length,
)
from adapters.slack.transport import SlackTransport, make_client
from bot.core.day_window import day_window
from bot.core.models import (
    AreaGroup,
    ChangedFile,
    ChangeType,
    DayOverview,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    RelatedPR,
    RelationKind,
    SummarySections,
    Usage,
)
from bot.digest.glance import glance, number_list
from bot.digest.render_json import digest_json
from bot.digest.render_markdown import render_report
from bot.ports.chat import Posted
from tests.fakes.discord import limit_errors, running_bot
from tests.fakes.slack import FakeSlack
from tests.report_parser import parse_report
from tests.surfaces import discord_links, discord_pings, discord_texts

REPO = "o/r"
WINDOW = day_window(date(2026, 2, 23), "America/Los_Angeles")


def pr_url(number: int) -> str:
    return f"https://github.com/{REPO}/pull/{number}"


def make_entry(
    number: int,
    *,
    title: str | None = None,
    headline: str = "",
    change_type: ChangeType = ChangeType.SUBSTANTIAL,
    author: str | None = None,
    area: str = "Other",
    related: tuple[RelatedPR, ...] = (),
    summary: bool = True,
    revision: int = 1,
    unverified: tuple[str, ...] = (),
    files: int = 2,
) -> DigestEntry:
    pr = PullRequest(
        repo=REPO, number=number, title=title or f"Change {number}", url=pr_url(number),
        author=author or f"dev{number % 3}", state="merged", merged_by="lead",
        merged_at=datetime(2026, 2, 24, 2, tzinfo=UTC) + timedelta(minutes=number),
        files=tuple(
            ChangedFile(f"src/m{number}_{i}.py", additions=number, deletions=i)
            for i in range(files)
        ),
    )  # fmt: skip
    if not summary:
        return DigestEntry(pr, error="the model timed out", area=area, related=related)
    text = f"Section text of #{number}."
    return DigestEntry(
        pr,
        PRSummary(
            repo=REPO, number=number, revision_sha="sha", prompt_version="v1", model="gpt-test",
            change_type=change_type, files_covered=files, files_total=files,
            sections=SummarySections(text, text, text, text, headline=headline),
            usage=Usage(100, 20), id=number * 10, revision=revision, unverified=unverified,
        ),
        area=area,
        related=related,
    )  # fmt: skip


def reverted_by(by: int) -> RelatedPR:
    """This PR was reverted, the same day, by #by."""
    return RelatedPR(RelationKind.REVERTED_BY, by, f"Change {by}", pr_url(by), "2026-02-23", True)


def reverts(number: int, *, title: str = "", day: str = "2026-02-23", same: bool = True):
    """This PR reverts #number."""
    return RelatedPR(RelationKind.REVERTS, number, title or f"Change {number}", pr_url(number),
                     day, same_day=same)  # fmt: skip


def small_day() -> Digest:
    """Six PRs of one day: a same-day revert pair, a follow-up, a failure, a revision."""
    entries = (
        make_entry(
            6,
            title='Revert "Fuse the MoE kernels"',
            headline="Undoes the MoE kernel fusion.",
            area="Kernels",
            related=(reverts(3),),
        ),
        make_entry(
            5,
            title="Fix *typo* in <docs>",
            change_type=ChangeType.TRIVIAL,
            headline="Fixes a typo in the docs.",
            area="Docs",
            author="dependabot[bot]",
        ),
        make_entry(4, summary=False, area="Frontend"),
        make_entry(
            3,
            title="Fuse the MoE kernels",
            headline="Makes MoE decoding faster on H100.",
            area="Kernels",
            related=(reverted_by(6),),
            files=5,
        ),
        make_entry(
            2,
            title="Add the /v1/score API",
            headline="Adds a scoring endpoint.",
            area="Frontend",
            revision=2,
            unverified=("score_fn",),
            related=(
                RelatedPR(
                    RelationKind.FOLLOWED_UP_BY,
                    1,
                    "Fix the score API",
                    pr_url(1),
                    "2026-02-23",
                    same_day=True,
                ),
            ),  # fmt: skip
        ),
        make_entry(
            1,
            title="Fix the score API",
            headline="Fixes a crash in scoring.",
            area="Frontend",
            related=(
                RelatedPR(
                    RelationKind.FOLLOWS_UP,
                    2,
                    "Add the /v1/score API",
                    pr_url(2),
                    "2026-02-23",
                    same_day=True,
                ),
            ),  # fmt: skip
        ),
    )
    overview = DayOverview(
        highlights=(2, 3, 1),
        areas=(
            AreaGroup("Frontend", (4, 2, 1)),
            AreaGroup("Kernels", (6, 3)),
            AreaGroup("Docs", (5,)),
        ),
        picked_by="model",
    )
    return Digest(REPO, "r", WINDOW, entries, recent_flags=1, overview=overview)


# -- the Markdown report ---------------------------------------------------------------------


# Pinned before the glance existed: without overview=True the report is what it always was.
PINNED_REPORT = (
    "# r Merged PR Report\n"
    "\n"
    "**Report Date:** 2026-02-23 PST\n"
    "\n"
    "**Total Merged PRs:** 6\n"
    "\n"
    "---\n"
    "\n"
    '## 1. [Revert "Fuse the MoE kernels"](https://github.com/o/r/pull/6)\n'
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #6\n"
    "- **Author:** [dev0](https://github.com/dev0)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:06:00\n"
    "- **Type:** `SUBSTANTIAL`\n"
    "- **[Changed Files](https://github.com/o/r/pull/6/files) (2):**\n"
    "  - `src/m6_0.py`\n"
    "  - `src/m6_1.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "**What changed and why**  \n"
    "Section text of #6.\n"
    "\n"
    "**Technical impact**  \n"
    "Section text of #6.\n"
    "\n"
    "**Potential risks**  \n"
    "Section text of #6.\n"
    "\n"
    "**Key insights**  \n"
    "Section text of #6.\n"
    "\n"
    "---\n"
    "\n"
    "## 2. [Fix \\*typo\\* in \\<docs\\>](https://github.com/o/r/pull/5)\n"
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #5\n"
    "- **Author:** [dependabot[bot]](https://github.com/apps/dependabot)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:05:00\n"
    "- **Type:** `TRIVIAL`\n"
    "- **[Changed Files](https://github.com/o/r/pull/5/files) (2):**\n"
    "  - `src/m5_0.py`\n"
    "  - `src/m5_1.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "**What changed and why**  \n"
    "Section text of #5.\n"
    "\n"
    "**Technical impact**  \n"
    "Section text of #5.\n"
    "\n"
    "**Potential risks**  \n"
    "Section text of #5.\n"
    "\n"
    "**Key insights**  \n"
    "Section text of #5.\n"
    "\n"
    "---\n"
    "\n"
    "## 3. [Change 4](https://github.com/o/r/pull/4)\n"
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #4\n"
    "- **Author:** [dev1](https://github.com/dev1)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:04:00\n"
    "- **Type:** `UNKNOWN`\n"
    "- **[Changed Files](https://github.com/o/r/pull/4/files) (2):**\n"
    "  - `src/m4_0.py`\n"
    "  - `src/m4_1.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "Summary unavailable: the model timed out\n"
    "\n"
    "---\n"
    "\n"
    "## 4. [Fuse the MoE kernels](https://github.com/o/r/pull/3)\n"
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #3\n"
    "- **Author:** [dev0](https://github.com/dev0)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:03:00\n"
    "- **Type:** `SUBSTANTIAL`\n"
    "- **[Changed Files](https://github.com/o/r/pull/3/files) (5):**\n"
    "  - `src/m3_0.py`\n"
    "  - `src/m3_1.py`\n"
    "  - `src/m3_2.py`\n"
    "  - `src/m3_3.py`\n"
    "  - `src/m3_4.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "**What changed and why**  \n"
    "Section text of #3.\n"
    "\n"
    "**Technical impact**  \n"
    "Section text of #3.\n"
    "\n"
    "**Potential risks**  \n"
    "Section text of #3.\n"
    "\n"
    "**Key insights**  \n"
    "Section text of #3.\n"
    "\n"
    "---\n"
    "\n"
    "## 5. [Add the /v1/score API](https://github.com/o/r/pull/2)\n"
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #2\n"
    "- **Author:** [dev2](https://github.com/dev2)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:02:00\n"
    "- **Type:** `SUBSTANTIAL`\n"
    "- **[Changed Files](https://github.com/o/r/pull/2/files) (2):**\n"
    "  - `src/m2_0.py`\n"
    "  - `src/m2_1.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "*Revised after a flag (revision 2).*\n"
    "\n"
    "**What changed and why**  \n"
    "Section text of #2.\n"
    "\n"
    "**Technical impact**  \n"
    "Section text of #2.\n"
    "\n"
    "**Potential risks**  \n"
    "Section text of #2.\n"
    "\n"
    "**Key insights**  \n"
    "Section text of #2.\n"
    "\n"
    "*Unverified: `score_fn` (not found in the PR's diff, files or text).*\n"
    "\n"
    "---\n"
    "\n"
    "## 6. [Fix the score API](https://github.com/o/r/pull/1)\n"
    "\n"
    "\n"
    "### Base Information\n"
    "\n"
    "- **PR Number:** #1\n"
    "- **Author:** [dev1](https://github.com/dev1)\n"
    "- **Merged By:** [lead](https://github.com/lead)\n"
    "- **Merged time:** 2026-02-23 18:01:00\n"
    "- **Type:** `SUBSTANTIAL`\n"
    "- **[Changed Files](https://github.com/o/r/pull/1/files) (2):**\n"
    "  - `src/m1_0.py`\n"
    "  - `src/m1_1.py`\n"
    "\n"
    "### Summary\n"
    "\n"
    "**What changed and why**  \n"
    "Section text of #1.\n"
    "\n"
    "**Technical impact**  \n"
    "Section text of #1.\n"
    "\n"
    "**Potential risks**  \n"
    "Section text of #1.\n"
    "\n"
    "**Key insights**  \n"
    "Section text of #1.\n"
    "\n"
    "---\n"
    "\n"
)
PINNED_EMPTY = "# r Merged PR Report\n\n**Report Date:** 2026-02-23 PST\n\n**Total Merged PRs:** 0\n\n---\n\nNo pull requests were merged into o/r on 2026-02-23 (America/Los_Angeles).\n"


def test_the_report_without_overview_is_byte_for_byte_what_it_was():
    assert render_report(small_day()) == "".join(PINNED_REPORT)
    assert render_report(replace(small_day(), overview=None)) == "".join(PINNED_REPORT)
    assert render_report(Digest(REPO, "r", WINDOW, ())) == PINNED_EMPTY


def test_with_overview_the_report_puts_the_glance_between_its_header_and_the_first_pr():
    day = small_day()
    report = render_report(day, overview=True)
    plain = "".join(PINNED_REPORT)
    header_end = plain.index("## 1. ")
    glance_text = report[header_end : report.index("## 1. ")]
    assert report[:header_end] == plain[:header_end]
    assert report[header_end:].replace(glance_text, "", 1) == plain[header_end:]
    assert glance_text.startswith("## The day at a glance\n\n")
    assert (
        "**Merged:** 6 · **Substantial:** 4 · **Trivial:** 1 · **Without a summary:** 1"
        " · **Contributors:** 4" in glance_text
    )
    assert "- [#2](https://github.com/o/r/pull/2) Adds a scoring endpoint.\n" in glance_text
    assert (
        "- [#3](https://github.com/o/r/pull/3) Fuse the MoE kernels — merged, then reverted by"
        " [#6](https://github.com/o/r/pull/6)\n" in glance_text
    )
    assert "- **Frontend** (3 PRs): #4, #2, #1\n" in glance_text
    assert "- **Docs** (1 PR): #5\n" in glance_text
    assert glance_text.endswith("---\n\n")
    assert (
        parse_report(report).entries == parse_report(plain).entries
    )  # the PRs still read back as the seed format
    hostile = replace(day, entries=(make_entry(9, headline="**bold** <b>x</b> [a](https://e.x)"),),
                      overview=DayOverview((9,), (AreaGroup("<i>Area</i>", (9,)),)))  # fmt: skip
    text = render_report(hostile, overview=True)
    assert r"\*\*bold\*\* \<b\>x\</b\>" in text and r"**\<i\>Area\</i\>**" in text
    assert "[a](https" not in text.replace("`[a](https://e.x)`", "")  # a link is shown as code


# -- a 120-PR day ------------------------------------------------------------------------------

HOSTILE = (
    "<!channel> <!here> @everyone <!subteam^S0ADMIN|@admins> <@U0BOSS> <#C0SECRET> "
    "[click](https://evil.example/x) <https://evil.example|https://github.com/o/r> & > "
)
PAIRS = {10 * k + 5: 10 * k + 6 for k in range(8)}  # #5 is reverted by #6 the same day, ...
SLACK_LINK = (
    "https://a-workspace-with-a-rather-long-name.slack.com/archives/C0123456789/"
    "p1771900{n:09d}?thread_ts=1771900000.000100&cid=C0123456789"
)
DISCORD_LINK = (
    "https://discord.com/channels/1200000000000000001/1574520462896005129/15745204{n:011d}"
)


def big_day() -> Digest:
    """120 PRs with long hostile titles and headlines, 40 areas with hostile names, 8 same-day
    revert pairs, follow-ups, failures, bots, in the grouped style."""
    reverters = {b: a for a, b in PAIRS.items()}
    entries = []
    for n in range(120, 0, -1):
        related: tuple[RelatedPR, ...] = ()
        if n in PAIRS:
            related = (reverted_by(PAIRS[n]),)
        elif n in reverters:
            related = (reverts(reverters[n], title=HOSTILE * 3),)
        elif n % 10 == 7:
            related = tuple(
                RelatedPR(RelationKind.FOLLOWS_UP, n - i, HOSTILE * 3, pr_url(n - i), "2026-02-20")
                for i in (1, 2, 3)
            )
        entries.append(
            make_entry(
                n,
                title=f"{HOSTILE} change {n} " + "t" * 200,
                headline=HOSTILE + "&<>" * 150,
                change_type=ChangeType.TRIVIAL if n % 3 == 0 else ChangeType.SUBSTANTIAL,
                author="dependabot[bot]" if n % 11 == 0 else f"dev{n % 37}",
                summary=n % 17 != 0,
                related=related,
                files=n % 5 + 1,
            )
        )
    numbers = [e.pr.number for e in entries]
    areas = tuple(
        AreaGroup(f"{HOSTILE} area {i} " + "&" * 40, tuple(numbers[3 * i : 3 * i + 3]))
        for i in range(40)
    )
    overview = DayOverview(highlights=(6, 120, 5, 119, 118), areas=areas, picked_by="model")
    day = Digest(REPO, "@everyone " * 30, WINDOW, tuple(entries), recent_flags=3, overview=overview)
    return day.styled(trivial_style="grouped")


def links_for(day: Digest, template: str) -> dict[int, str]:
    """Every PR's message: its reply, or (grouped) the grouped reply, as posting records them."""
    links = {e.pr.number: template.format(n=e.pr.number) for e in day.thread_entries}
    links |= {e.pr.number: template.format(n=999) for e in day.grouped_entries}
    return links


def assert_slack_limits(message: slack_render.SlackMessage) -> None:
    assert message.text and len(message.text) <= 4000
    assert 0 < len(message.blocks) <= MAX_BLOCKS
    assert sum(block_text_length(b) for b in message.blocks) <= MAX_MESSAGE_TEXT
    for block in message.blocks:
        if block["type"] == "header":
            assert 0 < len(block["text"]["text"]) <= MAX_HEADER_TEXT
        if block["type"] == "section":
            assert 0 < len(block["text"]["text"]) <= MAX_SECTION_TEXT
        if block["type"] == "context":
            assert 0 < len(block["elements"]) <= 10
            assert all(0 < len(e["text"]) <= MAX_SECTION_TEXT for e in block["elements"])


def assert_discord_limits(message: discord_render.Message) -> None:
    body = {"content": message.content, "embeds": list(message.embeds)}
    assert limit_errors(body) == []  # as the fake API (so Discord) checks them
    assert discord_render.text_length(message.content) <= discord_render.MAX_CONTENT
    assert len(message.embeds) <= discord_render.MAX_EMBEDS
    total = sum(discord_render.embed_size(e) for e in message.embeds)
    assert total <= discord_render.MAX_MESSAGE_EMBEDS_TOTAL
    for embed in message.embeds:
        description = embed.get("description") or ""
        assert discord_render.text_length(description) <= discord_render.MAX_DESCRIPTION


def slack_all_text(message: slack_render.SlackMessage) -> str:
    parts = [message.text]
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            parts.append(block["text"]["text"])
        parts.extend(e["text"] for e in block.get("elements", []))
    return "\n".join(parts)


def discord_all_text(message: discord_render.Message) -> str:
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields") or []]
        parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(parts)


SLACK_LINK_MARKUP = re.compile(r"<(https://[^<>|\s]+)\|[^<>]*>")


def assert_slack_safe(message: slack_render.SlackMessage, allowed: set[str]) -> None:
    """No markup but the links we built, to PR pages and our own messages; no broadcast."""
    # A header is plain_text, which Slack never reads as markup (its broadcasts are defused).
    text = slack_all_text(
        replace(message, blocks=[b for b in message.blocks if b["type"] != "header"])
    )
    urls = [u.replace("&amp;", "&") for u in SLACK_LINK_MARKUP.findall(text)]
    assert [u for u in urls if u not in allowed and not u.startswith(GITHUB)] == []
    leftover = SLACK_LINK_MARKUP.sub("", text)
    assert "<" not in leftover and ">" not in leftover, leftover[:300]
    assert not re.search(r"@(channel|here|everyone)", slack_all_text(message))


def assert_discord_safe(message: discord_render.Message, allowed: set[str]) -> None:
    texts = discord_texts([message])
    assert [p for t in texts for p in discord_pings(t)] == []
    assert not re.search(r"(?<!\\)<#\d", "".join(texts))
    urls = [u for t in texts for u in discord_links(t)]
    assert [u for u in urls if u not in allowed and not github_page(u)] == []


def github_page(url: str) -> bool:
    """A PR's page or files, or a profile, on github.com: parsed, never matched by prefix."""
    parts = urlsplit(url)
    return (
        parts.scheme == "https" and parts.netloc == "github.com" and not parts.query
        and bool(re.fullmatch(r"/o/r/pull/\d+(/files)?|/(apps/)?[A-Za-z0-9-]+|/o/r", parts.path))
    )  # fmt: skip


GITHUB = "https://github.com/"  # PR pages and profiles


def test_a_120_pr_day_fits_every_slack_limit_before_and_after_the_edit():
    day = big_day()
    for shown in (day, day.with_links(links_for(day, SLACK_LINK))):
        allowed = set(shown.links.values())
        parent = slack_render.parent_message(shown, flag_emoji="x")
        assert_slack_limits(parent)
        assert_slack_safe(parent, allowed)
        text = slack_all_text(parent)
        assert "*Highlights*" in text and "*Areas*" in text
        assert re.search(r"_…and \d+ more areas \(\d+ PRs\)_", text)  # 40 areas do not all fit
        for index, entry in enumerate(shown.thread_entries, start=1):
            for message in slack_render.reply_messages(shown, entry, index):
                assert_slack_limits(message)
                assert_slack_safe(message, allowed)
        group = slack_render.group_messages(shown)
        assert len(group) > 1
        for message in group:
            assert_slack_limits(message)
            assert_slack_safe(message, allowed)


def test_a_120_pr_day_fits_every_discord_limit_before_and_after_the_edit():
    day = big_day()
    for shown in (day, day.with_links(links_for(day, DISCORD_LINK))):
        allowed = set(shown.links.values())
        parent = discord_render.parent_message(shown, "❌")
        assert_discord_limits(parent)
        assert_discord_safe(parent, allowed)
        assert parent.content.split("\n")[0] == discord_render.parent_first_line(shown)[:600]
        (embed,) = parent.embeds
        assert "**Highlights**" in embed["description"] and "**Areas**" in embed["description"]
        for index, entry in enumerate(shown.thread_entries, start=1):
            parts = discord_render.entry_messages(
                entry, UTC, index=index, total=len(shown.thread_entries), links=shown.links
            )
            for message in parts:
                assert_discord_limits(message)
                assert_discord_safe(message, allowed)
        group = discord_render.group_messages(shown, "❌")
        assert len(group) > 1
        for message in group:
            assert_discord_limits(message)
            assert_discord_safe(message, allowed)


def realistic_day() -> Digest:
    """120 PRs as a busy real day has them: titles and headlines of ordinary length, 14 areas,
    two same-day revert pairs, none of them highlighted."""
    words = "Fix the scheduler's preemption path for long prompts under heavy load"
    entries = tuple(
        make_entry(
            n,
            title=f"[Core] {words} ({n})",
            headline=f"Long prompts no longer stall when the server is busy, in case {n}.",
            area=f"Area number {n % 14}",
            related=(
                (reverted_by(n + 1),)
                if n in (40, 80)
                else (reverts(n - 1),)
                if n in (41, 81)
                else ()
            ),
            author=f"dev{n % 50}",
        )
        for n in range(120, 0, -1)
    )
    return Digest(REPO, "vllm", WINDOW, entries, recent_flags=2).styled(trivial_style="grouped")


def test_a_busy_real_day_shows_every_highlight_pair_and_area_after_the_edit():
    day = realistic_day()
    slack_day = day.with_links(links_for(day, SLACK_LINK))
    text = slack_all_text(slack_render.parent_message(slack_day))
    discord_day = day.with_links(links_for(day, DISCORD_LINK))
    (embed,) = discord_render.parent_message(discord_day).embeds
    for shown in (text, embed["description"]):
        assert "more" not in shown  # nothing left out
        assert shown.count("merged, then reverted by") == 2
        assert len(re.findall(r"Area number \d+", shown)) == 14
        assert len(re.findall(r"Long prompts no longer stall", shown)) == 5


# -- what the parent shows -----------------------------------------------------------------------


def test_highlights_and_areas_link_to_the_replies_once_they_exist_and_to_the_prs_before():
    day = small_day()
    before = glance(day)
    assert [(i.number, i.link) for i in before.highlights] == [
        (2, pr_url(2)), (3, pr_url(3)), (1, pr_url(1)),
    ]  # fmt: skip
    assert [a.link for a in before.areas] == [None, None, None]
    links = {n: f"https://team.slack.com/archives/C1/p{n}?thread_ts=1.0&cid=C1" for n in (3, 1)}
    after = glance(day.with_links(links))
    assert [i.link for i in after.highlights] == [pr_url(2), links[3], links[1]]
    assert after.highlights[1].reverted_by.link == pr_url(6)  # no link for #6: its page
    # An area links to the first of its PRs that has a reply: Frontend is #4, #2, #1.
    assert [(a.name, a.link) for a in after.areas] == [
        ("Frontend", links[1]), ("Kernels", links[3]), ("Docs", None),
    ]  # fmt: skip

    slack_before = slack_all_text(slack_render.parent_message(day))
    assert f"• <{pr_url(2)}|#2> Adds a scoring endpoint." in slack_before
    assert "• *Frontend* (3): #4, #2, #1" in slack_before
    slack_after = slack_all_text(slack_render.parent_message(day.with_links(links)))
    assert f"• <{links[3].replace('&', '&amp;')}|#3> Fuse the MoE kernels" in slack_after
    assert f"• <{links[1].replace('&', '&amp;')}|Frontend> (3)" in slack_after
    assert "• *Docs* (1): #5" in slack_after

    discord_links = {n: f"https://discord.com/channels/1/2/{n}00" for n in (3, 1)}
    (embed,) = discord_render.parent_message(day).embeds
    assert f"• [#2]({pr_url(2)}) Adds a scoring endpoint." in embed["description"]
    assert "• **Frontend** (3): #4, #2, #1" in embed["description"]
    (embed,) = discord_render.parent_message(day.with_links(discord_links)).embeds
    assert f"• [#1]({discord_links[1]}) Fixes a crash in scoring." in embed["description"]
    assert f"• [Frontend]({discord_links[1]}) (3)" in embed["description"]


def test_a_same_day_revert_pair_is_one_item_and_is_shown_even_when_not_highlighted():
    day = small_day()
    pair = "Fuse the MoE kernels — merged, then reverted by"
    # Highlighted as #3 (the reverted PR): one item, where #3 ranks.
    items = glance(day).items
    assert [(i.number, i.reverted_by and i.reverted_by.number) for i in items] == [
        (2, None), (3, 6), (1, None),
    ]  # fmt: skip
    # Highlighted as #6 (the revert), and #3 too: still one item.
    both = replace(day, overview=replace(day.overview, highlights=(6, 2, 3)))
    assert [(i.number, i.reverted_by and i.reverted_by.number) for i in glance(both).items] == [
        (3, 6), (2, None),
    ]  # fmt: skip
    # Not highlighted at all: listed after the highlights.
    neither = replace(day, overview=replace(day.overview, highlights=(2, 1, 4)))
    view = glance(neither)
    assert [i.number for i in view.highlights] == [2, 1, 4]
    assert [(i.number, i.reverted_by.number) for i in view.reverts] == [(3, 6)]
    for text in (
        slack_all_text(slack_render.parent_message(neither)),
        discord_all_text(discord_render.parent_message(neither)),
        render_report(neither, overview=True),
    ):
        assert text.count(pair) == 1
        assert text.index("Fixes a crash in scoring") < text.index(pair)


def test_every_pr_is_counted_in_exactly_one_area():
    day = big_day()
    areas = glance(day).areas
    numbers = [n for a in areas for n in a.numbers]
    assert sorted(numbers) == sorted(e.pr.number for e in day.entries)
    assert all(a.count == len(a.numbers) for a in areas)
    # An overview that names a PR twice, names one of another day, and leaves one out.
    small = small_day()
    sloppy = DayOverview(
        (2,), (AreaGroup("Frontend", (4, 2, 2, 999)), AreaGroup("Kernels", (2, 6, 3)))
    )
    view = glance(replace(small, overview=sloppy))
    assert [(a.name, a.numbers) for a in view.areas] == [
        ("Frontend", (4, 2)), ("Kernels", (6, 3)), ("Other", (5, 1)),
    ]  # fmt: skip
    # Without an overview: the entries' own areas, biggest first, "Other" last.
    plain = replace(small, overview=None, entries=small.entries + (make_entry(9, area="Other"),
                    make_entry(8, area="Other"), make_entry(7, area="Other")))  # fmt: skip
    assert [(a.name, a.numbers) for a in glance(plain).areas] == [
        ("Frontend", (4, 2, 1)), ("Kernels", (6, 3)), ("Docs", (5,)), ("Other", (9, 8, 7)),
    ]  # fmt: skip


def test_counts_come_from_the_entries_and_highlights_only_from_the_day():
    day = small_day()
    # The overview proposes a PR of another day and repeats one: code shows only the day's.
    odd = replace(day, overview=replace(day.overview, highlights=(424242, 2, 2, 1)))
    view = glance(odd)
    c = view.counts
    assert (c.merged, c.substantial, c.trivial, c.unsummarized, c.contributors, c.tokens) == (
        6, 4, 1, 1, 4, 600,
    )  # fmt: skip
    assert [i.number for i in view.highlights] == [2, 1]
    slack_text = slack_all_text(slack_render.parent_message(odd))
    assert "*6* merged · *4* substantial · *1* trivial · *1* without a summary" in slack_text
    assert "*4* contributors · 600 tokens" in slack_text
    assert "424242" not in slack_text
    content = discord_render.parent_message(odd).content
    assert "6 PRs: 4 substantial, 1 trivial, 1 without a summary · 4 contributors" in content
    # No overview: the rule picks (substantial first, then the biggest change).
    assert [i.number for i in glance(replace(day, overview=None)).highlights][:1] == [3]


def test_an_area_with_many_prs_shows_its_count_and_the_first_numbers():
    assert number_list(list(range(1, 4)), 100) == "#1, #2, #3"
    listed = number_list(list(range(1000, 1200)), 60)
    assert len(listed) <= 60 and listed.startswith("#1000, #1001") and listed.endswith(", …")
    entries = tuple(make_entry(n, area="Kernels") for n in range(1200, 1000, -1))
    text = slack_all_text(slack_render.parent_message(Digest(REPO, "r", WINDOW, entries)))
    assert re.search(r"• \*Kernels\* \(200\): #1200, #1199, [#\d, ]+, …", text)


def test_hostile_headlines_titles_and_area_names_cannot_ping_or_link():
    entry = make_entry(
        7, title=HOSTILE, headline=HOSTILE, area=HOSTILE,
        related=(reverts(8, title=HOSTILE, same=False), reverted_by(9)),
    )  # fmt: skip
    revert = make_entry(9, related=(reverts(7),))
    trivial = make_entry(8, title=HOSTILE, headline=HOSTILE, change_type=ChangeType.TRIVIAL)
    day = Digest(REPO, HOSTILE, WINDOW, (revert, entry, trivial)).styled(trivial_style="grouped")
    ours = {7: "https://x.slack.com/archives/C1/p7", 8: "https://x.slack.com/archives/C1/p8"}
    for shown in (day, day.with_links(ours)):
        allowed = set(shown.links.values())
        for message in [
            slack_render.parent_message(shown),
            *slack_render.reply_messages(shown, entry, 2),
            *slack_render.summary_messages(entry, UTC),
            *slack_render.group_messages(shown),
        ]:
            assert_slack_safe(message, allowed)
        for message in [
            discord_render.parent_message(shown),
            *discord_render.entry_messages(entry, UTC, links=shown.links),
            *discord_render.group_messages(shown),
        ]:
            assert_discord_safe(message, allowed)
        # In the glance and the grouped reply, a URL in PR or model text is not even a link.
        glance_embed = discord_render.parent_message(shown).embeds[0]
        group = [discord_all_text(m) for m in discord_render.group_messages(shown)]
        for text in [glance_embed["description"], *group]:
            rest = re.sub(r"\]\(https?://[^)\s]+\)", "]", text)
            assert "evil.example" in rest and not re.search(r"https?://", rest)
    (embed,) = discord_render.parent_message(day.with_links({7: "https://d.test/7"})).embeds
    (area,) = [line for line in embed["description"].split("\n") if "https://d.test/7) (1)" in line]
    assert area.startswith("• [\\<!channel\\> \\<!here\\> @\u200beveryone ")  # never pinging
    assert "\\[click\\]" in area  # the name's brackets cannot close our link early


# -- the replies ---------------------------------------------------------------------------------


def test_the_headline_comes_first_in_replies_and_in_prsummary_answers():
    day = small_day()
    entry = day.entry(3)
    (reply,) = slack_render.reply_messages(day, entry, 4)
    assert reply.blocks[0]["text"]["text"].startswith("*4/6* · *<https://github.com/o/r/pull/3|")
    assert reply.blocks[1] == slack_render.section("Makes MoE decoding faster on H100.")
    (answer,) = slack_render.summary_messages(entry, UTC)
    assert answer.blocks[1]["text"]["text"] == "Makes MoE decoding faster on H100."
    text = slack_all_text(reply)
    assert text.index("Makes MoE decoding") < text.index("*What changed and why*")

    (message,) = discord_render.entry_messages(entry, UTC, index=4, total=6)
    assert message.embeds[0]["description"] == "Makes MoE decoding faster on H100."
    revised = discord_render.entry_messages(day.entry(2), UTC)[0].embeds[0]
    assert (
        revised["description"] == "Adds a scoring endpoint.\n*Revised after a flag (revision 2).*"
    )
    # No headline (a summary made before headlines existed, or none at all): nothing shown.
    old = make_entry(11)
    assert slack_render.entry_blocks(old, UTC)[1]["type"] == "context"
    assert "description" not in discord_render.entry_messages(old, UTC)[0].embeds[0]
    failed = discord_render.entry_messages(day.entry(4), UTC)[0].embeds[0]
    assert failed["description"] == "Summary unavailable: the model timed out"


def test_a_hostile_headline_is_escaped_in_the_reply():
    entry = make_entry(5, headline="<!channel> ping <@U0BOSS> <@123> & [x](https://evil.example)")
    blocks = slack_render.entry_blocks(entry, UTC)
    assert blocks[1]["text"]["text"] == (
        "&lt;!channel&gt; ping &lt;@U0BOSS&gt; &lt;@123&gt; &amp; [x](https://evil.example)"
    )
    description = discord_render.entry_messages(entry, UTC)[0].embeds[0]["description"]
    assert discord_pings(description) == [] and discord_links(description) == []


def test_related_prs_are_listed_in_replies_linked_to_their_message_when_known():
    day = small_day()
    lines = {
        3: "Merged, then reverted by {n6} (same day)",
        6: "Reverts {n3} Change 3 (merged the same day)",
        2: "Followed up by {n1}",
        1: "Follow-up to {n2} Add the /v1/score API",
    }
    links = {6: "https://team.slack.com/archives/C1/p6?thread_ts=1.0&cid=C1"}
    for shown in (day, day.with_links(links)):
        for number, line in lines.items():
            entry = shown.entry(number)
            slack = slack_all_text(slack_render.reply_messages(shown, entry, 1)[0])
            discord = discord_all_text(
                discord_render.entry_messages(entry, UTC, links=shown.links)[0]
            )
            targets = {n: shown.links.get(n) or pr_url(n) for n in (1, 2, 3, 6)}
            slack_refs = {n: f"<{u.replace('&', '&amp;')}|#{n}>" for n, u in targets.items()}
            assert line.format(**{f"n{n}": r for n, r in slack_refs.items()}) in slack
            discord_refs = {n: f"[#{n}]({u})" for n, u in targets.items()}
            assert line.format(**{f"n{n}": r for n, r in discord_refs.items()}) in discord
    other_day = make_entry(20, related=(reverts(12, day="2026-02-19", same=False),))
    assert "Reverts <https://github.com/o/r/pull/12|#12> Change 12 (merged 2026-02-19)" in (
        slack_all_text(slack_render.summary_messages(other_day, UTC)[0])
    )
    field = next(
        f for f in discord_render.entry_messages(other_day, UTC)[0].embeds[0]["fields"]
        if f["name"] == "Related"
    )  # fmt: skip
    assert field["value"] == f"Reverts [#12]({pr_url(12)}) Change 12 (merged 2026-02-19)"


# -- the grouped reply ---------------------------------------------------------------------------


def test_the_grouped_reply_lists_trivial_and_bot_prs_and_ends_with_how_to_flag():
    day = small_day().styled(trivial_style="grouped", bots=frozenset({"dev1"}))
    assert [e.pr.number for e in day.grouped_entries] == [5, 4, 1]  # trivial, bots
    (message,) = slack_render.group_messages(day, flag_emoji="white_check_mark")
    text = slack_all_text(message)
    assert message.blocks[0]["text"]["text"] == "*Small changes* · 3 PRs"
    assert f"• <{pr_url(5)}|#5 Fix *typo* in &lt;docs&gt;> — Fixes a typo in the docs." in text
    assert f"• <{pr_url(4)}|#4 Change 4> — _summary unavailable_" in text
    assert message.blocks[-1]["elements"][0]["text"] == (
        "_To flag one of these summaries, run /prsummary &lt;number&gt; and react to the answer"
        " with :white_check_mark:._"
    )
    assert message.metadata == {
        "event_type": "prdigest_group",
        "event_payload": {"repo": REPO, "day": "2026-02-23", "part": 1},
    }
    (message,) = discord_render.group_messages(day, "❌")
    assert message.content == "**Small changes** · 3 PRs"
    (embed,) = message.embeds
    assert (
        f"• [#5 Fix \\*typo\\* in \\<docs\\>]({pr_url(5)}) — Fixes a typo in the docs."
        in (embed["description"])
    )
    assert embed["description"].endswith(
        "*To flag one of these summaries, run /prsummary <number> and react to the answer with ❌.*"
    )
    # The other PRs' replies count only the replies of their own.
    assert [e.pr.number for e in day.thread_entries] == [6, 3, 2]
    reply = slack_render.reply_messages(day, day.entry(2), 3)[0]
    assert reply.blocks[0]["text"]["text"].startswith("*3/3* · ")


def test_a_long_grouped_reply_is_split_into_numbered_parts():
    day = big_day()
    grouped = [e.pr.number for e in day.grouped_entries]
    assert len(grouped) > 40
    slack = slack_render.group_messages(day)
    assert len(slack) > 1
    for part, message in enumerate(slack, start=1):
        assert message.metadata["event_payload"]["part"] == part
        assert message.blocks[0]["text"]["text"] == (
            f"*Small changes* · {len(grouped)} PRs (part {part} of {len(slack)})"
        )
        assert ("To flag one of these" in slack_all_text(message)) == (part == len(slack))
    shown = re.findall(r"\|#(\d+) ", "\n".join(slack_all_text(m) for m in slack))
    assert [int(n) for n in shown] == grouped  # each once, in order
    discord = discord_render.group_messages(day)
    assert len(discord) > 1
    for part, message in enumerate(discord, start=1):
        assert (
            message.content
            == f"**Small changes** · {len(grouped)} PRs (part {part} of {len(discord)})"
        )
        assert discord_render.group_part_of(message.content) == part
    shown = re.findall(r"\[#(\d+) ", "\n".join(discord_all_text(m) for m in discord))
    assert [int(n) for n in shown] == grouped
    assert discord_render.group_part_of("**Small changes** · 1 PR") == 1
    assert discord_render.group_part_of("**vllm** · pull requests merged") is None


# -- JSON ----------------------------------------------------------------------------------------


def test_json_has_headlines_areas_related_prs_and_the_overview():
    data = digest_json(small_day())
    by_number = {p["number"]: p for p in data["pull_requests"]}
    assert by_number[3]["summary"]["headline"] == "Makes MoE decoding faster on H100."
    assert by_number[3]["area"] == "Kernels"
    assert by_number[3]["related"] == [
        {"kind": "reverted_by", "number": 6, "title": "Change 6", "url": pr_url(6),
         "merged_day": "2026-02-23", "same_day": True},
    ]  # fmt: skip
    assert by_number[4]["summary"] is None and by_number[4]["related"] == []
    overview = data["overview"]
    assert overview["counts"] == {
        "merged": 6, "substantial": 4, "trivial": 1, "without_summary": 1, "contributors": 4,
    }  # fmt: skip
    assert overview["picked_by"] == "model"
    assert [(h["number"], h["reverted_by"]) for h in overview["highlights"]] == [
        (2, None), (3, 6), (1, None),
    ]  # fmt: skip
    assert overview["highlights"][0] == {
        "number": 2, "headline": "Adds a scoring endpoint.", "title": "Add the /v1/score API",
        "url": pr_url(2), "reverted_by": None,
    }  # fmt: skip
    assert overview["areas"] == [
        {"name": "Frontend", "count": 3, "numbers": [4, 2, 1]},
        {"name": "Kernels", "count": 2, "numbers": [6, 3]},
        {"name": "Docs", "count": 1, "numbers": [5]},
    ]
    assert "overview" not in digest_json(replace(small_day(), overview=None))


# -- the transports ------------------------------------------------------------------------------

CHANNEL = "C0DIGEST"


def group_day() -> Digest:
    """A day whose grouped reply takes several messages on both platforms."""
    entries = tuple(
        make_entry(n, title="A title of some length " * 8, headline="A headline " * 15,
                   change_type=ChangeType.TRIVIAL)
        for n in range(90, 0, -1)
    ) + (make_entry(100),)  # fmt: skip
    return Digest(REPO, "r", WINDOW, entries).styled(trivial_style="grouped")


async def test_slack_transport_sends_finds_and_edits_the_glance_and_the_grouped_reply():
    with FakeSlack() as slack:
        transport = SlackTransport(make_client(slack.bot_token, slack.api_url), pace=0)
        day = group_day()
        parent = await transport.send_parent(CHANNEL, day)
        reply = await transport.send_reply(CHANNEL, parent.thread_id, day, day.entry(100), 1)
        parts = len(slack_render.group_messages(day))
        assert parts > 1
        # Part 2 of the grouped reply never gets there (a crash between the parts).
        slack.fail_post(2)
        with pytest.raises(SlackApiError):
            await transport.send_group(CHANNEL, parent.thread_id, day)
        assert len(slack.thread(CHANNEL, parent.message_id)) == 2  # the reply and part 1
        found = await transport.find_group(CHANNEL, parent.thread_id, day)
        thread = slack.thread(CHANNEL, parent.message_id)
        assert found == Posted(thread[1].ts, parent.message_id)
        payloads = [m.metadata["event_payload"] for m in thread[1:]]
        assert [p["part"] for p in payloads] == list(range(1, parts + 1))  # each part once
        assert await transport.find_group(CHANNEL, parent.thread_id, day) == found
        assert (
            await transport.find_group(CHANNEL, parent.thread_id, replace(day, repo="o/x")) is None
        )

        # Links: the parent's opens the channel, a reply's opens its thread.
        team = slack.team_url.rstrip("/")
        ts = parent.message_id.replace(".", "")
        assert transport.link(CHANNEL, parent) == f"{team}/archives/{CHANNEL}/p{ts}"
        reply_link = transport.link(CHANNEL, reply)
        assert reply_link == (
            f"{team}/archives/{CHANNEL}/p{reply.message_id.replace('.', '')}"
            f"?thread_ts={parent.message_id}&cid={CHANNEL}"
        )
        # The edit: the same parent, now linking to the replies, its metadata kept.
        group_link = transport.link(CHANNEL, found)
        linked = day.with_links({100: reply_link} | {n: group_link for n in range(1, 91)})
        await transport.edit_parent(CHANNEL, parent, linked)
        await transport.edit_parent(CHANNEL, parent, linked)
        (first, second) = slack.updated(CHANNEL, parent.message_id)
        assert first.blocks == second.blocks
        edited = slack.message(CHANNEL, parent.message_id)
        assert edited.metadata == slack_render.parent_message(day).metadata
        text = slack_all_text(slack_render.SlackMessage(edited.text, edited.blocks))
        assert f"<{reply_link.replace('&', '&amp;')}|#100>" in text  # the highlight
        assert edited.blocks == slack_render.parent_message(linked).blocks
        assert await transport.find_parent(CHANNEL, day) == parent


async def test_discord_transport_sends_finds_and_edits_the_glance_and_the_grouped_reply(
    fake, settings
):
    day = group_day()
    async with running_bot(fake, settings) as bot:
        transport = bot.transport
        channel = fake.channel_id
        parent = await transport.send_parent(channel, day)
        reply = await transport.send_reply(channel, parent.thread_id, day, day.entry(100), 1)
        parts = discord_render.group_messages(day, transport.flag_hint)
        assert len(parts) > 1
        # Part 2 of the grouped reply is refused (Discord failed between the parts).
        fake.inject(rf"^/channels/{parent.thread_id}/messages$", 403, skip=1, method="POST")
        with pytest.raises(discord.HTTPException):
            await transport.send_group(channel, parent.thread_id, day)
        found = await transport.find_group(channel, parent.thread_id, day)
        thread = fake.channel_messages(parent.thread_id)
        groups = [m for m in thread if discord_render.group_part_of(m["content"])]
        assert [discord_render.group_part_of(m["content"]) for m in groups] == list(
            range(1, len(parts) + 1)
        )
        assert found == Posted(groups[0]["id"], parent.thread_id)

        guild = fake.guild_id
        assert transport.link(channel, parent) == (
            f"https://discord.com/channels/{guild}/{channel}/{parent.message_id}"
        )
        reply_link = transport.link(channel, reply)
        assert reply_link == (
            f"https://discord.com/channels/{guild}/{parent.thread_id}/{reply.message_id}"
        )
        linked = day.with_links({100: reply_link})
        await transport.edit_parent(channel, parent, linked)
        (edit,) = fake.edits(channel, parent.message_id)
        (message,) = [m for m in fake.channel_messages(channel) if m["id"] == parent.message_id]
        expected = discord_render.parent_message(linked, transport.flag_hint)
        assert message["content"] == expected.content
        assert message["content"].split("\n")[0] == discord_render.parent_first_line(day)
        assert f"[#100]({reply_link})" in message["embeds"][0]["description"]
        assert await transport.find_parent(channel, day) == parent
