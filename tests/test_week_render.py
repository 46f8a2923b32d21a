"""The weekly rollup and filtered digests on Slack, Discord and in Markdown.

A rollup's parent shows the week and its zone, the counts, the PRs of each day (linked to
that day's thread where one was posted), of each area (linked to the area's reply once it
exists), the week's highlights and the reverts within the week, within every platform's
limits even for a 250-PR week; its thread holds one grouped reply per area, titled with the
area's name. A filtered digest says what it kept ("7 of 52 PRs merged on 2026-02-23 touch
`…`"). A channel can hold a day's whole digest, a filtered one and weekly rollups: crash
recovery tells their parents (and a rollup's area replies) apart.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from adapters.discord import render as discord_render
from adapters.slack import render as slack_render
from adapters.slack.transport import SlackTransport, make_client
from bot.chat.posting import groups
from bot.core.day_window import day_window
from bot.core.models import (
    AreaGroup,
    ChangeType,
    DayOverview,
    DayWindow,
    Digest,
    DigestEntry,
    RelatedPR,
    RelationKind,
    WeekDay,
    WeekInfo,
)
from bot.core.scope import DigestScope
from bot.digest.glance import glance, scope_note, week_days
from bot.digest.render_markdown import render_week_report
from tests.fakes.discord import running_bot
from tests.fakes.slack import FakeSlack
from tests.test_glance_render import (
    DISCORD_LINK,
    HOSTILE,
    REPO,
    SLACK_LINK,
    assert_discord_limits,
    assert_discord_safe,
    assert_slack_limits,
    assert_slack_safe,
    discord_all_text,
    make_entry,
    pr_url,
    slack_all_text,
    small_day,
)

TZ = "America/Los_Angeles"
FIRST = date(2026, 2, 23)  # a Monday
DAYS = tuple(FIRST + timedelta(days=i) for i in range(7))
PER_DAY = (60, 45, 40, 35, 30, 25, 15)  # 250 PRs
CLAUSE = "touch `vllm/v1/attention/**`"
CHANNEL = "C0WEEKLY"


def week_window(tz_name: str = TZ) -> DayWindow:
    """A rollup's window, as `DigestService.week` builds it: the first day, to the last's end."""
    first, last = day_window(DAYS[0], tz_name), day_window(DAYS[-1], tz_name)
    return DayWindow(day=DAYS[0], tz_name=tz_name, start=first.start, end=last.end)


def merged_on(entry: DigestEntry, day: date, minute: int) -> DigestEntry:
    """`entry`, merged at 09:00 Pacific (17:00 UTC) on `day`, plus `minute`."""
    moment = datetime(day.year, day.month, day.day, 17, tzinfo=UTC) + timedelta(minutes=minute)
    return replace(entry, pr=replace(entry.pr, merged_at=moment))


def reverted_in_week(by: int, day: date) -> RelatedPR:
    """This PR was reverted by #by, also in this rollup (merged on `day`)."""
    return RelatedPR(RelationKind.REVERTED_BY, by, f"Change {by}", pr_url(by), day.isoformat(),
                     same_day=True)  # fmt: skip


def reverts_in_week(number: int, day: date) -> RelatedPR:
    """This PR reverts #number, also in this rollup (merged on `day`)."""
    return RelatedPR(RelationKind.REVERTS, number, f"Change {number}", pr_url(number),
                     day.isoformat(), same_day=True)  # fmt: skip


def rollup(
    entries: list[DigestEntry],
    areas: tuple[AreaGroup, ...],
    highlights: tuple[int, ...],
    *,
    name: str = "vllm",
    week_counts: tuple[int, ...] | None = None,
    scope: str = "week",  # the rollup's key words after its first day, read as a key is
) -> Digest:
    entries = sorted(entries, key=lambda e: e.pr.merged_at, reverse=True)  # newest merge first
    by_day = {d: 0 for d in DAYS}
    for e in entries:
        by_day[e.pr.merged_at.astimezone(week_window().start.tzinfo).date()] += 1
    counts = week_counts or tuple(by_day.values())
    return Digest(
        REPO, name, week_window(), tuple(entries),
        overview=DayOverview(highlights, areas, "model"),
        scope=scope_of(scope), week=WeekInfo(tuple(WeekDay(d, n) for d, n in zip(DAYS, counts, strict=True))),
    )  # fmt: skip


def scope_of(words: str) -> DigestScope:
    """A scope as a posts-table key writes it after the first day ("week paths:docs/**")."""
    return DigestScope.from_post_key(REPO, f"{FIRST.isoformat()} {words}", TZ)


def big_week() -> Digest:
    """250 PRs over 7 days (60 on Monday ... 15 on Sunday), long hostile titles, headlines and
    area names (one all markup, five times its length once escaped), 14 areas and "Other",
    10 revert pairs within the week (four of them highlighted), failures and trivial PRs,
    10 highlights."""
    pairs = {n: n + 40 for n in range(3, 250, 21)}  # #3 reverted by #43 (a later day), ...
    undone = {b: a for a, b in pairs.items()}
    entries, number = [], 0
    day_of: dict[int, date] = {}
    for day, count in zip(DAYS, PER_DAY, strict=True):
        for _ in range(count):
            number += 1
            day_of[number] = day
    for n in range(1, 251):
        related: tuple[RelatedPR, ...] = ()
        if n in pairs and pairs[n] <= 250:
            related = (reverted_in_week(pairs[n], day_of[pairs[n]]),)
        elif n in undone:
            related = (reverts_in_week(undone[n], day_of[undone[n]]),)
        entry = make_entry(
            n,
            title=f"{HOSTILE} change {n} " + "t" * 200,
            headline=HOSTILE + "&<>" * 150,
            change_type=ChangeType.TRIVIAL if n % 3 == 0 else ChangeType.SUBSTANTIAL,
            author=f"dev{n % 41}",
            summary=n % 17 != 0,
            related=related,
        )
        entries.append(merged_on(entry, day_of[n], n))
    newest_first = sorted(range(1, 251), reverse=True)
    names = [f"{HOSTILE} area {i} " + "&" * 40 for i in range(13)] + ["&<>" * 100]
    areas = tuple(
        AreaGroup(name, tuple(newest_first[16 * i : 16 * i + 16])) for i, name in enumerate(names)
    ) + (AreaGroup("Other", tuple(newest_first[14 * 16 :])),)
    highlights = (3, 250, 24, 200, 150, 100, 50, 10, 45, 12)  # #3, #24, #45, #150 reverted
    return rollup(entries, areas, highlights, name="@everyone " * 20)


def small_week() -> Digest:
    """Seven PRs over a week: a revert on Thursday of Monday's PR, three areas, a quiet
    Saturday."""
    spec = [  # number, day index, area, title, headline
        (1, 0, "Kernels", "Fuse the MoE kernels", "Makes MoE decoding faster on H100."),
        (2, 0, "Frontend", "Add the /v1/score API", "Adds a scoring endpoint."),
        (3, 1, "Frontend", "Fix the score API", "Fixes a crash in scoring."),
        (4, 2, "Docs", "Fix a typo", "Fixes a typo in the docs."),
        (5, 3, "Kernels", 'Revert "Fuse the MoE kernels"', "Undoes the MoE kernel fusion."),
        (6, 4, "Kernels", "Tune the attention kernel", "Speeds up attention on A100."),
        (7, 6, "Frontend", "Stream tool calls", "Streams tool calls as they are made."),
    ]
    entries = []
    for number, day, area, title, headline in spec:
        related: tuple[RelatedPR, ...] = ()
        if number == 1:
            related = (reverted_in_week(5, DAYS[3]),)
        if number == 5:
            related = (reverts_in_week(1, DAYS[0]),)
        entry = make_entry(
            number, title=title, headline=headline, area=area, related=related,
            change_type=ChangeType.TRIVIAL if number == 4 else ChangeType.SUBSTANTIAL,
        )  # fmt: skip
        entries.append(merged_on(entry, DAYS[day], number))
    areas = (
        AreaGroup("Frontend", (7, 3, 2)),
        AreaGroup("Kernels", (6, 5, 1)),
        AreaGroup("Docs", (4,)),
    )
    return rollup(entries, areas, (6, 7, 2, 3, 4))


def posted_links(week: Digest, template: str) -> Digest:
    """`week` as its parent is edited: each PR linked to its area's reply, some days to their
    threads (Wednesday's digest was never posted in this channel)."""
    links = {}
    for i, area in enumerate(glance(week).areas):
        links |= {n: template.format(n=900 + i) for n in area.numbers}
    day_links = {d.isoformat(): template.format(n=100 + i) for i, d in enumerate(DAYS) if i != 2}
    return replace(week.with_links(links), day_links=day_links)


# -- within every limit --------------------------------------------------------------------------


def test_a_250_pr_week_fits_every_slack_limit_before_and_after_the_edit():
    week = big_week()
    assert len(week.entries) == 250
    for shown in (week, posted_links(week, SLACK_LINK)):
        allowed = set(shown.links.values()) | set(shown.day_links.values())
        parent = slack_render.parent_message(shown, flag_emoji="x")
        assert_slack_limits(parent)
        assert_slack_safe(parent, allowed)
        text = slack_all_text(parent)
        for heading in ("*By day*", "*By area*", "*Highlights*", "*Reverted within the week*"):
            assert heading in text
        assert parent.blocks[0]["text"]["text"].endswith("weekly rollup · 2026-02-23 to 2026-03-01")
        replies = groups(shown)
        assert len(replies) == 15  # one per area
        for reply in replies:
            for message in slack_render.group_messages(reply, flag_emoji="x"):
                assert_slack_limits(message)
                assert_slack_safe(message, allowed)


def test_a_250_pr_week_fits_every_discord_limit_before_and_after_the_edit():
    week = big_week()
    for shown in (week, posted_links(week, DISCORD_LINK)):
        allowed = set(shown.links.values()) | set(shown.day_links.values())
        parent = discord_render.parent_message(shown, "❌")
        assert_discord_limits(parent)
        assert_discord_safe(parent, allowed)
        text = discord_all_text(parent)
        for heading in ("**By day**", "**By area**", "**Highlights**", "**Reverted within"):
            assert heading in text
        assert parent.content.split("\n")[0] == discord_render.parent_first_line(shown)[:600]
        for reply in groups(shown):
            for message in discord_render.group_messages(reply, "❌"):
                assert_discord_limits(message)
                assert_discord_safe(message, allowed)


# -- what the rollup's parent shows ------------------------------------------------------------


def test_counts_by_day_come_from_the_entries():
    # The week's own per-day counts are wrong on purpose: what is shown is counted here.
    week = replace(small_week(), week=WeekInfo(tuple(WeekDay(d, 99) for d in DAYS)))
    assert [(d.label, d.count) for d in week_days(week)] == [
        ("Mon 02-23", 2), ("Tue 02-24", 1), ("Wed 02-25", 1), ("Thu 02-26", 1),
        ("Fri 02-27", 1), ("Sat 02-28", 0), ("Sun 03-01", 1),
    ]  # fmt: skip
    line = (
        "Mon 02-23: 2 · Tue 02-24: 1 · Wed 02-25: 1 · Thu 02-26: 1 · Fri 02-27: 1 · "
        "Sat 02-28: 0 · Sun 03-01: 1"
    )
    assert f"*By day*\n{line}" in slack_all_text(slack_render.parent_message(week))
    assert f"**By day**\n{line}" in discord_all_text(discord_render.parent_message(week))
    assert "99" not in slack_all_text(slack_render.parent_message(week))
    # A PR merged at 23:30 Pacific on Monday is Monday's, though it is Tuesday in UTC.
    late = merged_on(make_entry(8), DAYS[0], 0)
    late = replace(late, pr=replace(late.pr, merged_at=datetime(2026, 2, 24, 7, 30, tzinfo=UTC)))
    assert week_days(replace(week, entries=(late,)))[0].count == 1
    big = big_week()
    assert [d.count for d in week_days(big)] == list(PER_DAY)
    assert week_days(small_day()) == ()  # a day is not a rollup


def test_counts_and_areas_of_the_week():
    week = small_week()
    slack = slack_all_text(slack_render.parent_message(week))
    assert "*6* merged · *6* substantial · *1* trivial" not in slack
    assert "*7* merged · *6* substantial · *1* trivial · *3* contributors" in slack
    assert "2026-02-23 to 2026-03-01 (America/Los_Angeles)" in slack
    assert "*By area*\n• *Frontend* (3)\n• *Kernels* (3)\n• *Docs* (1)" in slack
    content = discord_render.parent_message(week).content
    assert "7 PRs: 6 substantial, 1 trivial · 3 contributors" in content
    discord = discord_all_text(discord_render.parent_message(week))
    assert "**By area**\n• **Frontend** (3)\n• **Kernels** (3)\n• **Docs** (1)" in discord
    # Each area of a 250-PR week counts its own PRs, every PR in one area.
    big = big_week()
    areas = glance(big).areas
    assert sum(a.count for a in areas) == 250
    for text in (
        slack_all_text(slack_render.parent_message(big)),
        discord_all_text(discord_render.parent_message(big)),
    ):
        by_area = text[text.index("By area") : text.index("Highlights")]
        shown = [int(n) for n in re.findall(r"\((\d+)\)\n", by_area)]
        assert len(shown) >= 5 and shown == [a.count for a in areas][: len(shown)]


def test_days_link_to_their_threads_and_areas_to_their_replies():
    week = small_week()
    slack_week = posted_links(week, "https://team.slack.com/archives/C1/p{n}?thread_ts=1.0&cid=C1")
    text = slack_all_text(slack_render.parent_message(slack_week))
    day = "https://team.slack.com/archives/C1/p{n}?thread_ts=1.0&amp;cid=C1"
    assert f"<{day.format(n=100)}|Mon 02-23>: 2 · <{day.format(n=101)}|Tue 02-24>: 1" in text
    assert " · Wed 02-25: 1 · " in text  # no thread that day: not linked
    assert f"• <{day.format(n=900)}|Frontend> (3)" in text
    assert f"• <{day.format(n=901)}|Kernels> (3)" in text
    # A highlight links to its area's reply.
    assert f"• <{day.format(n=901)}|#6> Speeds up attention on A100." in text

    discord_week = posted_links(week, "https://discord.com/channels/1/2/{n}")
    text = discord_all_text(discord_render.parent_message(discord_week))
    assert "[Mon 02-23](https://discord.com/channels/1/2/100): 2 · " in text
    assert " · Wed 02-25: 1 · " in text
    assert "• [Frontend](https://discord.com/channels/1/2/900) (3)" in text
    assert "• [#6](https://discord.com/channels/1/2/901) Speeds up attention on A100." in text

    # Before the replies and without day threads: no link but the PRs' pages.
    plain = slack_all_text(slack_render.parent_message(week))
    assert "<https://team" not in plain and f"• <{pr_url(6)}|#6> Speeds up" in plain


def test_highlights_and_the_reverts_within_the_week():
    week = small_week()
    slack = slack_all_text(slack_render.parent_message(week))
    highlights = slack[slack.index("*Highlights*") : slack.index("*Reverted within the week*")]
    assert [int(n) for n in re.findall(r"\|#(\d+)>", highlights)] == [6, 7, 2, 3, 4]
    assert f"• <{pr_url(2)}|#2> Adds a scoring endpoint." in highlights
    reverts = slack[slack.index("*Reverted within the week*") :]
    assert (
        f"• <{pr_url(1)}|#1> Fuse the MoE kernels — merged, then reverted by <{pr_url(5)}|#5>"
        in reverts
    )
    discord = discord_all_text(discord_render.parent_message(week))
    assert (
        f"**Reverted within the week**\n• [#1]({pr_url(1)}) Fuse the MoE kernels — merged, then"
        f" reverted by [#5]({pr_url(5)})" in discord
    )
    # A highlighted revert pair is one highlight, not listed again.
    paired = replace(week, overview=replace(week.overview, highlights=(5, 6, 7, 2, 3)))
    for text in (
        slack_all_text(slack_render.parent_message(paired)),
        discord_all_text(discord_render.parent_message(paired)),
    ):
        assert text.count("merged, then reverted by") == 1
        assert "Reverted within the week" not in text
    # The 250-PR week: its ten highlights (four are revert pairs) and the other six pairs.
    view = glance(big_week())
    assert len(view.highlights) == 10 and len(view.reverts) == 6
    assert sum(i.reverted_by is not None for i in view.highlights) == 4


def test_the_rollup_parent_is_edited_like_a_day_parent():
    week = small_week()
    linked = posted_links(week, "https://team.slack.com/archives/C1/p{n}")
    before, after = slack_render.parent_message(week), slack_render.parent_message(linked)
    assert before.metadata == after.metadata  # crash recovery still finds it
    assert before.metadata["event_payload"]["scope"] == "week"
    assert before.blocks[0] == after.blocks[0] and before.blocks != after.blocks
    first = discord_render.parent_message(week).content.split("\n")[0]
    assert discord_render.parent_message(linked).content.split("\n")[0] == first
    assert discord_render.thread_name(week) == "vllm week of 2026-02-23 · 7 PRs"


# -- filtered digests ----------------------------------------------------------------------------


def filtered_day(kept: int = 7, total: int = 52, clause: str = CLAUSE) -> Digest:
    day = small_day()
    entries = tuple(make_entry(n, headline=f"Headline {n}.") for n in range(kept, 0, -1))
    return replace(day, entries=entries, overview=None, scope=replace(scope_of("paths:vllm/v1/attention/**"), first=day.window.day),
                   scope_total=total, scope_clause=clause)  # fmt: skip


def test_a_filtered_parent_says_how_many_of_the_days_prs_it_kept():
    day = filtered_day()
    note = "7 of 52 PRs merged on 2026-02-23 touch `vllm/v1/attention/**`"
    assert scope_note(day) == note
    assert note in slack_all_text(slack_render.parent_message(day))
    assert note in discord_render.parent_message(day).content.split("\n")
    # Unfiltered: no note, and the same parent as before filters existed.
    whole = small_day()
    assert scope_note(whole) == ""
    assert " of " not in slack_render.parent_message(whole).blocks[1]["text"]["text"]
    assert len(discord_render.parent_message(whole).content.split("\n")) == 4
    # A weekly rollup's filter counts the week.
    week = replace(small_week(), scope=scope_of("week paths:vllm/v1/attention/**"), scope_total=250,
                   scope_clause=CLAUSE)  # fmt: skip
    week_note = "7 of 250 PRs merged from 2026-02-23 to 2026-03-01 touch `vllm/v1/attention/**`"
    assert week_note in slack_all_text(slack_render.parent_message(week))
    assert week_note in discord_render.parent_message(week).content


def test_a_hostile_filter_clause_is_escaped_and_keeps_its_code_spans():
    day = filtered_day(clause="are labeled `<!channel> @everyone <@123>`")
    text = slack_render.parent_message(day).blocks[1]["text"]["text"]
    assert "are labeled `&lt;!channel&gt; @\u200deveryone &lt;@123&gt;`" in text
    content = discord_render.parent_message(day).content
    assert "are labeled `<!channel> @\u200beveryone <@\u200b123>`" in content


def test_the_empty_message_of_a_filtered_digest_says_none_of_the_days_prs_matched():
    day = filtered_day(kept=0)
    sentence = "None of the 52 PRs merged into o/r on 2026-02-23 touch `vllm/v1/attention/**`."
    slack = slack_render.empty_message(day)
    assert slack.blocks[0]["text"]["text"] == sentence
    assert slack.metadata["event_payload"]["kind"] == "empty"
    assert slack.metadata["event_payload"]["scope"] == "paths:vllm/v1/attention/**"
    content = discord_render.empty_message(day).content
    assert content.split("\n")[1] == sentence
    assert content.split("\n")[0] == discord_render.parent_first_line(day)
    # Unfiltered, the message is what it always was.
    empty = replace(small_day(), entries=(), overview=None)
    assert slack_render.empty_message(empty).blocks[0]["text"]["text"] == (
        "No pull requests were merged into o/r on 2026-02-23 (America/Los_Angeles)."
    )
    assert discord_render.empty_message(empty).content == (
        "**r** · no pull requests were merged into `o/r` on 2026-02-23 (PST, America/Los_Angeles)."
    )
    # An empty week.
    week = replace(small_week(), entries=())
    assert slack_render.empty_message(week).blocks[0]["text"]["text"] == (
        "No pull requests were merged into o/r from 2026-02-23 to 2026-03-01 (America/Los_Angeles)."
    )


# -- telling parents and area replies apart -------------------------------------------------------


def scopes() -> dict[str, Digest]:
    """One day's whole digest, a filtered one, and two rollups starting that day, each with PRs
    and empty."""
    day, filtered, week = small_day(), filtered_day(), small_week()
    filtered_week = replace(week, scope=scope_of("week paths:vllm/v1/attention/**"), scope_total=9,
                            scope_clause=CLAUSE)  # fmt: skip
    shown = {"day": day, "filtered": filtered, "week": week, "filtered week": filtered_week}
    shown |= {f"empty {k}": replace(v, entries=()) for k, v in shown.items()}
    return shown


def test_each_scope_has_its_own_parent_metadata_and_first_line():
    digests = scopes()
    payloads = [slack_render.parent_message(d).metadata["event_payload"] for d in digests.values()]
    assert {p.get("scope", "") for p in payloads} == {
        "", "paths:vllm/v1/attention/**", "week", "week paths:vllm/v1/attention/**",
    }  # fmt: skip
    first_lines = {
        key: discord_render.parent_first_line(d).split("\n")[0] for key, d in digests.items()
    }
    assert len(set(first_lines.values())) == len(digests)
    # The whole day's first line is what it always was.
    assert first_lines["day"] == (
        "**r** · pull requests merged into `o/r` on 2026-02-23 (PST, America/Los_Angeles)"
    )
    assert first_lines["filtered"] == first_lines["day"] + " · `paths:vllm/v1/attention/**`"
    assert first_lines["week"] == (
        "**vllm** · weekly rollup of pull requests merged into `o/r` from 2026-02-23 to "
        "2026-03-01 (America/Los_Angeles)"
    )


async def test_slack_finds_the_parent_of_its_own_scope():
    digests = scopes()
    with FakeSlack() as slack:
        transport = SlackTransport(make_client(slack.bot_token, slack.api_url), pace=0)
        # The whole day's parent has no scope in its metadata, as before scopes existed.
        day = await transport.send_parent(CHANNEL, digests["day"])
        assert "scope" not in slack.message(CHANNEL, day.message_id).metadata["event_payload"]
        assert await transport.find_parent(CHANNEL, digests["day"]) == day
        for key in ("filtered", "week", "filtered week"):
            assert await transport.find_parent(CHANNEL, digests[key]) is None
        sent = {"day": day}
        for key in ("filtered", "week", "filtered week"):
            sent[key] = await transport.send_parent(CHANNEL, digests[key])
        for key, posted in sent.items():
            assert await transport.find_parent(CHANNEL, digests[key]) == posted, key
        # A filtered day with no PR, in a channel that also has the whole day's empty message.
        empty = await transport.send_empty("C0OTHER", digests["empty filtered"])
        assert await transport.find_parent("C0OTHER", digests["empty day"]) is None
        whole = await transport.send_empty("C0OTHER", digests["empty day"])
        assert empty.thread_id is None and empty != whole
        assert await transport.find_parent("C0OTHER", digests["empty filtered"]) == empty
        assert await transport.find_parent("C0OTHER", digests["empty day"]) == whole


async def test_discord_finds_the_parent_of_its_own_scope(fake, settings):
    digests = scopes()
    async with running_bot(fake, settings) as bot:
        transport = bot.transport
        channel = fake.channel_id
        sent = {key: await transport.send_parent(channel, digests[key])
                for key in ("day", "filtered", "week")}  # fmt: skip
        sent["empty filtered"] = await transport.send_empty(channel, digests["empty filtered"])
        for key, posted in sent.items():
            assert await transport.find_parent(channel, digests[key]) == posted, key
        assert await transport.find_parent(channel, digests["filtered week"]) is None
        # The week's thread is named for the week; the rollup's parent is edited in place.
        linked = posted_links(digests["week"], "https://discord.com/channels/1/2/{n}")
        await transport.edit_parent(channel, sent["week"], linked)
        assert await transport.find_parent(channel, digests["week"]) == sent["week"]


def test_area_replies_are_titled_with_their_area():
    week = small_week()
    frontend, kernels, docs = groups(week)
    (message,) = slack_render.group_messages(kernels, flag_emoji="x")
    assert message.blocks[0]["text"]["text"] == "*Kernels* · 3 PRs"
    assert message.metadata["event_payload"] == {
        "repo": REPO, "day": "2026-02-23", "part": 1, "title": "Kernels",
    }  # fmt: skip
    lines = slack_all_text(message)
    assert f"• <{pr_url(6)}|#6 Tune the attention kernel> — Speeds up attention on A100." in lines
    (message,) = discord_render.group_messages(kernels, "❌")
    assert message.content == "**Kernels** · 3 PRs"
    assert discord_render.group_part_of(message.content, "Kernels") == 1
    assert discord_render.group_part_of(message.content, "Frontend") is None
    assert discord_render.group_part_of(message.content) is None  # not the day's small changes
    assert discord_render.group_part_of("**Small changes** · 3 PRs") == 1
    # A long area is split into parts like any grouped reply, each titled.
    big = groups(big_week())[0]
    parts = discord_render.group_messages(big, "❌")
    assert len(parts) > 1
    title = big.group_title
    for part, message in enumerate(parts, start=1):
        assert discord_render.group_part_of(message.content, title) == part
    for message in slack_render.group_messages(big):
        assert message.metadata["event_payload"]["title"] == title
        assert message.blocks[0]["text"]["text"].startswith("*&lt;!channel&gt; ")
    # The day's grouped reply has no title in its metadata, as before.
    day = small_day().styled(trivial_style="grouped")
    assert "title" not in slack_render.group_messages(day)[0].metadata["event_payload"]


async def test_slack_finds_each_area_reply_by_its_title():
    with FakeSlack() as slack:
        transport = SlackTransport(make_client(slack.bot_token, slack.api_url), pace=0)
        await finds_each_area_reply_by_its_title(transport, CHANNEL)


async def test_discord_finds_each_area_reply_by_its_title(fake, settings):
    async with running_bot(fake, settings) as bot:
        await finds_each_area_reply_by_its_title(bot.transport, fake.channel_id)


async def finds_each_area_reply_by_its_title(transport, channel: str) -> None:
    """Two of three area replies sent: each is found by its title, the third is not."""
    week = small_week()
    frontend, kernels, docs = groups(week)
    parent = await transport.send_parent(channel, week)
    sent = {}
    for group in (frontend, kernels):
        sent[group.group_title] = await transport.send_group(channel, parent.thread_id, group)
    assert await transport.find_group(channel, parent.thread_id, frontend) == sent["Frontend"]
    assert await transport.find_group(channel, parent.thread_id, kernels) == sent["Kernels"]
    assert await transport.find_group(channel, parent.thread_id, docs) is None


# -- the Markdown week report ----------------------------------------------------------------------


def test_the_markdown_week_report():
    week = small_week()
    report = render_week_report(posted_links(week, "https://team.slack.com/archives/C1/p{n}"))
    headings = [line for line in report.split("\n") if line.startswith("#")]
    assert headings == [
        "# vllm Weekly Merged PR Report",
        "## By day", "## By area", "## Highlights", "## Reverted within the week",
        "## Frontend", "## Kernels", "## Docs",
    ]  # fmt: skip
    assert "**Week:** 2026-02-23 to 2026-03-01 (America/Los_Angeles)\n" in report
    assert "**Total Merged PRs:** 7\n" in report
    assert "**Substantial:** 6 · **Trivial:** 1 · **Contributors:** 3\n" in report
    assert (
        "| Day | PRs |\n| --- | ---: |\n"
        "| [Mon 02-23](https://team.slack.com/archives/C1/p100) | 2 |\n"
    ) in report
    assert "| Wed 02-25 | 1 |\n" in report  # no thread that day
    assert "| [Sat 02-28](https://team.slack.com/archives/C1/p105) | 0 |\n" in report
    assert "- **Frontend** (3 PRs)\n- **Kernels** (3 PRs)\n- **Docs** (1 PR)\n" in report
    assert f"- [#6]({pr_url(6)}) Speeds up attention on A100.\n" in report
    assert (
        f"- [#1]({pr_url(1)}) Fuse the MoE kernels — merged, then reverted by [#5]({pr_url(5)})"
        in report
    )
    kernels = report[report.index("## Kernels") : report.index("## Docs")]
    assert kernels.strip().split("\n")[2:] == [
        f"- #6 [Tune the attention kernel]({pr_url(6)}) — Speeds up attention on A100.",
        f'- #5 [Revert "Fuse the MoE kernels"]({pr_url(5)}) — Undoes the MoE kernel fusion.',
        f"- #1 [Fuse the MoE kernels]({pr_url(1)}) — Makes MoE decoding faster on H100.",
        "",
        "---",
    ]
    assert "### Summary" not in report and "Section text" not in report  # no full summaries


def test_the_markdown_week_report_of_a_big_hostile_filtered_week():
    week = replace(big_week(), scope=scope_of("week authors:dev1"), scope_total=900,
                   scope_clause="are by `dev1`")  # fmt: skip
    report = render_week_report(week)
    assert "**Filter:** 250 of 900 PRs merged from 2026-02-23 to 2026-03-01 are by `dev1`" in report
    assert report.count("\n- #") == 250  # every PR once, one line each
    assert "<!channel>" not in report and r"\<!channel\>" in report  # shown as written
    assert "[click](https" not in report.replace("`[click](https", "")  # shown as code
    failed = [e.pr.number for e in week.entries if not e.ok]
    assert all(f"- #{n} [" in report for n in failed)
    assert report.count("— *summary unavailable*") == len(failed)
