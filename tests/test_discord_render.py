"""The Discord renderer: plain asserts on what a Digest becomes, limits and hostile text."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from adapters.discord import render
from bot.core.day_window import day_window
from bot.core.models import (
    ChangedFile,
    ChangeType,
    Digest,
    DigestEntry,
    PRSummary,
    PullRequest,
    SummarySections,
    Usage,
)
from tests.fakes.discord import limit_errors
from tests.surfaces import discord_links, discord_pings, discord_texts

REPO = "vllm-project/vllm"
WINDOW = day_window(date(2026, 2, 23), "America/Los_Angeles")


def pr(number: int, **kw) -> PullRequest:
    defaults = dict(
        repo=REPO,
        number=number,
        title=f"[Core] Change {number}",
        url=f"https://github.com/{REPO}/pull/{number}",
        author="alice",
        state="merged",
        merged_by="bob",
        merged_at=datetime(2026, 2, 23, 18, 0, tzinfo=UTC) + timedelta(minutes=number),
        files=(ChangedFile("vllm/a.py"), ChangedFile("vllm/b.py")),
    )
    return PullRequest(**{**defaults, **kw})


def summary(number: int, text: str = "Short.", **kw) -> PRSummary:
    defaults = dict(
        repo=REPO,
        number=number,
        revision_sha="abc",
        prompt_version="v1",
        model="gpt-4.1-mini",
        change_type=ChangeType.SUBSTANTIAL,
        sections=SummarySections(text, text, text, text),
        files_covered=2,
        files_total=2,
        usage=Usage(1000, 200),
        id=number,
    )
    return PRSummary(**{**defaults, **kw})


def digest(entries: list[DigestEntry], display_name: str = "vllm") -> Digest:
    return Digest(repo=REPO, display_name=display_name, window=WINDOW, entries=tuple(entries))


def all_text(messages: list[render.Message]) -> str:
    parts = []
    for message in messages:
        parts.append(message.content)
        for embed in message.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            parts += [f["value"] for f in embed.get("fields", [])]
    return "\n".join(parts)


def test_a_normal_pr_is_one_message_with_one_embed():
    (message,) = render.entry_messages(DigestEntry(pr(5), summary(5)), index=3, total=52)
    (embed,) = message.embeds
    assert embed["title"] == "#5 [Core] Change 5"
    assert embed["url"] == f"https://github.com/{REPO}/pull/5"
    assert embed["color"] == render.COLOURS[ChangeType.SUBSTANTIAL]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Author"] == "[alice](https://github.com/alice)"
    assert fields["Merged by"].startswith("[bob](https://github.com/bob) · 2026-02-23")
    assert fields["Type"] == "SUBSTANTIAL"
    assert fields["Files"] == (
        f"[2 changed files](https://github.com/{REPO}/pull/5/files)\n`vllm/a.py`\n`vllm/b.py`"
    )
    assert fields["Key insights"] == "Short."
    assert embed["footer"]["text"] == "3 of 52 · Summary covers all 2 changed files · gpt-4.1-mini"
    assert message.content == ""


def test_trivial_failed_and_revised_summaries_look_different():
    trivial = render.entry_messages(DigestEntry(pr(1), summary(1, change_type=ChangeType.TRIVIAL)))[
        0
    ].embeds[0]
    failed = render.entry_messages(DigestEntry(pr(2), error="the model timed out"))[0].embeds[0]
    revised = render.entry_messages(DigestEntry(pr(3), summary(3, revision=2)))[0].embeds[0]
    assert trivial["color"] == render.COLOURS[ChangeType.TRIVIAL]
    assert failed["color"] == render.FAILED_COLOUR
    assert failed["description"] == "Summary unavailable: the model timed out"
    assert {f["name"]: f["value"] for f in failed["fields"]}["Type"] == "UNKNOWN"
    assert "footer" not in failed
    assert revised["description"] == "*Revised after a flag (revision 2).*"


@pytest.mark.parametrize("section_length", [1024, 1025, 5999, 6000, 20000, 70000])
def test_long_summaries_are_split_within_every_limit_and_nothing_is_lost(section_length):
    words = ("alpha " * (section_length // 6 + 1))[:section_length]
    entry = DigestEntry(pr(7, title="T" * 400), summary(7, words))
    messages = render.entry_messages(entry, index=1, total=1)
    for message in messages:
        assert limit_errors({"content": message.content, "embeds": list(message.embeds)}) == []
        assert all(e["url"] == entry.pr.url for e in message.embeds)
    assert all_text(messages).count("alpha") == 4 * words.count("alpha")
    if len(messages) > 1:
        assert [render.part_of(m.embeds[0]) for m in messages] == list(range(1, len(messages) + 1))


def test_text_without_spaces_and_astral_characters_is_cut_safely():
    emoji = "🚀" * 3000  # two UTF-16 units each: 6000 units in 3000 characters
    chunks = render.split_text(emoji, 1024)
    assert all(render.text_length(c) <= 1024 for c in chunks)
    assert "".join(chunks) == emoji
    assert render.clip("🚀" * 200, 256).endswith("…")
    assert render.text_length(render.clip("🚀" * 200, 256)) <= 256


def test_thousands_of_files_are_listed_briefly_with_a_link_to_all():
    files = tuple(ChangedFile(f"vllm/{'deep/' * 20}file_{i}`x.py") for i in range(3000))
    (message,) = render.entry_messages(DigestEntry(pr(8, files=files), summary(8)))
    value = {f["name"]: f["value"] for f in message.embeds[0]["fields"]}["Files"]
    assert value.startswith(f"[3000 changed files](https://github.com/{REPO}/pull/8/files)")
    assert value.endswith("more") and len(value) <= 1024
    # A backtick in a name is shown literally, inside one code span it cannot end early.
    assert value.split("\n")[1] == f"``vllm/{'deep/' * 20}file_0`x.py``"


def test_hostile_text_cannot_mention_or_mask_a_link():
    hostile = "@everyone @HERE <@123> <@!456> <@&789> <#42> [docs](https://evil.example/x)"
    entry = DigestEntry(pr(9, title=hostile, author="<@1>"), summary(9, hostile))
    messages = render.entry_messages(entry)
    text = all_text(messages)
    assert [p for t in discord_texts(messages) for p in discord_pings(t)] == []
    links = {u for t in discord_texts(messages) for u in discord_links(t)}
    assert "https://evil.example/x" not in links  # shown as code, never a link
    assert "@\u200beveryone" in text  # still readable as typed
    assert "[<@" not in text  # an odd login is shown as text, never inside a link


def test_the_parent_message_names_repo_day_zone_counts_and_tokens():
    entries = [DigestEntry(pr(n), summary(n)) for n in range(1, 51)]
    entries += [DigestEntry(pr(51), summary(51, change_type=ChangeType.TRIVIAL))]
    entries += [DigestEntry(pr(52), error="boom")]
    message = render.parent_message(digest(entries), flag_emoji="❌")
    assert message.content.split("\n") == [
        f"**vllm** · pull requests merged into `{REPO}` on 2026-02-23 (PST, America/Los_Angeles)",
        "52 PRs: 50 substantial, 1 trivial, 1 without a summary · 1 contributor · 61,200 tokens",
        "One message per PR in the thread, newest merge first. "
        "React with ❌ on a summary that is wrong.",
    ]
    (glance,) = message.embeds  # the day at a glance
    assert glance["title"] == "The day at a glance"
    assert limit_errors({"content": message.content, "embeds": list(message.embeds)}) == []
    assert render.thread_name(digest(entries)) == "vllm 2026-02-23 · 52 PRs"


def test_a_hostile_display_name_is_clipped_and_defused():
    name = "@everyone " * 500
    day = digest([DigestEntry(pr(1), summary(1))], display_name=name)
    content = render.parent_message(day).content
    assert len(content) <= render.MAX_CONTENT and "@everyone" not in content
    assert len(render.thread_name(day)) <= render.MAX_THREAD_NAME
    assert "@everyone" not in render.thread_name(day)


def test_an_empty_day_is_one_line():
    message = render.empty_message(digest([]))
    assert message.content == (
        f"**vllm** · no pull requests were merged into `{REPO}` on "
        "2026-02-23 (PST, America/Los_Angeles)."
    )


def test_an_open_pr_shows_its_state_instead_of_a_merge():
    entry = DigestEntry(replace(pr(4), state="open", merged_at=None, merged_by=None), summary(4))
    names = [f["name"] for f in render.entry_messages(entry)[0].embeds[0]["fields"]]
    assert names[:3] == ["State", "Author", "Type"]
