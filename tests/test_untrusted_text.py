"""Untrusted text cannot hurt a reader, on any surface.

Every payload of the hostile corpus (`tests/hostile_corpus.py`: pings, links in every
disguise, layout breakers, control and escape sequences, bidirectional and invisible
characters) is put into every source a PR author or a model controls, and the digest is
rendered on every surface: the Markdown report (read by GitHub's own renderer), the terminal
(`prdigest summary`), JSON, Slack and Discord. On each:

- no control, escape or bidirectional character reaches the reader;
- nothing pings anyone;
- the only links are the ones prdigest built (the PR's pages, valid logins' profiles, our
  own messages), judged by how each client reads the text, never by a prefix;
- the layout is what it is for a harmless PR: one heading, its sections and one rule per PR
  in the report, the same blocks on Slack and the same embed fields on Discord.

Then the same properties for random text (Hypothesis), and the trust boundary itself.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.discord import render as discord_render
from adapters.slack import render as slack_render
from bot.core.day_window import day_window
from bot.core.models import (
    AreaGroup,
    ChangedFile,
    ChangeType,
    DayOverview,
    Digest,
    DigestEntry,
    Flag,
    PRSummary,
    PullRequest,
    RevisionOutcome,
    RevisionStatus,
    SummarySections,
)
from bot.core.untrusted import clean, clean_line, is_login, same_page, web_origin
from bot.digest.render_json import digest_json, entry_json
from bot.digest.render_markdown import render_entry, render_report
from tests.hostile_corpus import ATTACKS, KEEP, SOURCES, corpus
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

REPO = "o/r"
GITHUB = "https://github.com"
WINDOW = day_window(datetime(2026, 2, 23).date(), "America/Los_Angeles")
DISCORD_USER = "123456789"
OWN = {1: "https://team.slack.com/archives/C1/p1", 2: "https://discord.com/channels/1/2/3"}


def pr_url(number: int) -> str:
    return f"{GITHUB}/{REPO}/pull/{number}"


def allowed_links(payload: str = "") -> set[str]:
    """The PRs' pages, our own messages, and the profiles of valid logins (a hostile login
    that is one once cleaned, "nul\\x00byte" say, is linked as the login it is)."""
    urls = {f"{GITHUB}/{REPO}", *OWN.values()}
    for n in (1, 2, 3):
        urls |= {pr_url(n), pr_url(n) + "/files"}
    logins = {"dev1", "lead", clean_line(payload)}
    return urls | {f"{GITHUB}/{login}" for login in logins if is_login(login)}


# -- a day with one hostile PR (and its harmless neighbour after it) ----------------------------


def hostile_entry(source: str, payload: str, number: int = 1) -> DigestEntry:
    def put(name: str, harmless: str) -> str:
        return payload if source == name else harmless

    pr = PullRequest(
        repo=REPO, number=number, url=pr_url(number), state="merged",
        title=put("title", f"Fix the scheduler {number}"),
        body=put("description", "Fixes the scheduler."),
        labels=(put("labels", "bug"),),
        author=put("logins", "dev1"), merged_by=put("logins", "lead"),
        merged_at=datetime(2026, 2, 24, 2, tzinfo=UTC) + timedelta(minutes=number),
        files=(ChangedFile(put("file names", "src/a.py"), additions=3), ChangedFile("src/b.py")),
    )  # fmt: skip
    text = put("model sections", "The scheduler now keeps `max_tokens` within the limit.")
    sections = SummarySections(
        what_changed=text, technical_impact=text, potential_risks=text, key_insights=text,
        headline=put("headlines", put("highlights", "Long prompts no longer stall.")),
    )  # fmt: skip
    summary = PRSummary(
        repo=REPO, number=number, revision_sha="abc", prompt_version="2", model="gpt-test",
        change_type=ChangeType.SUBSTANTIAL, sections=sections, files_covered=2, files_total=2,
        revision=2, change_note=put("change notes", "The risk section now names `max_tokens`."),
        unverified=(put("model sections", "max_tokens"),),
    )  # fmt: skip
    area = put("title", "Scheduler")  # an area name is read from the title's tags
    return DigestEntry(pr, summary, area=area)


def hostile_day(source: str, payload: str) -> Digest:
    hostile = hostile_entry(source, payload)
    neighbour = hostile_entry("", "", number=2)
    failed = DigestEntry(
        replace(neighbour.pr, number=3, url=pr_url(3)),
        error=payload if source == "description" else "the model timed out",
    )
    overview = DayOverview((1, 2), (AreaGroup(hostile.area, (1,)), AreaGroup("Other", (2, 3))))
    return Digest(REPO, "vllm", WINDOW, (neighbour, hostile, failed), overview=overview)


def note(source: str, payload: str) -> str:
    """A re-check's note, as the flag code hands it to the renderers."""
    text = payload if source == "revision notes" else "Nothing to correct."
    flag = Flag("slack", "C1", "1.0", "U0FLAGGER", REPO, 1, 1, "x")
    return RevisionOutcome(RevisionStatus.UNCHANGED, flag, note=text).note


# -- what each surface shows --------------------------------------------------------------------


def markdown_problems(day: Digest, payload: str = "") -> list[str]:
    report = render_report(day, overview=True)
    problems = [f"character {c}" for c in bad_characters(report)]
    problems += [f"link {u}" for u in markdown_links(report) if u not in allowed_links(payload)]
    tags = markdown_tags(report)
    # The header, the glance and 3 PRs: one title, four h2, a rule after each of the five.
    expected = {"h1": 1, "h2": 4, "hr": 5, "h3": 2 + 2 * 3}
    problems += [f"{t}: {tags.count(t)}" for t, n in expected.items() if tags.count(t) != n]
    unexpected = {"table", "blockquote", "pre", "img", "h4", "h5", "h6", "div", "a"} - {"a"}
    problems += [f"<{t}>" for t in tags if t in unexpected or t not in KNOWN_TAGS]
    for line in report.splitlines():
        if line.startswith("#") and not re.match(
            r"(# vllm Merged|## (The day|[1-3]\. \[)|### )", line
        ):
            problems.append(f"heading line {line!r}")
    return problems


KNOWN_TAGS = {"h1", "h2", "h3", "p", "strong", "em", "code", "a", "ul", "li", "hr", "br", "del"}


def terminal_problems(day: Digest) -> list[str]:
    text = "\n".join(render_entry(e, UTC) for e in day.entries)
    return [f"character {c}" for c in bad_characters(text)]


def json_problems(day: Digest, payload: str = "") -> list[str]:
    data = json.loads(json.dumps([digest_json(day), entry_json(day.entries[1], UTC)]))
    problems = []
    for value in _strings(data):
        problems += [f"character {c}" for c in bad_characters(value)]
    urls = [v for k, v in _pairs(data) if k == "url" and v]
    return problems + [f"link {u}" for u in urls if u not in allowed_links(payload)]


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _pairs(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _pairs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _pairs(v)


def slack_messages(day: Digest, source: str, payload: str) -> list:
    grouped = day.styled(trivial_style="grouped")
    hostile = day.entries[1]
    return [
        slack_render.parent_message(day.with_links({1: OWN[1]})),
        *slack_render.reply_messages(day, hostile, 2),
        *slack_render.reply_messages(day, day.entries[2], 3),
        *slack_render.summary_messages(hostile, UTC),
        *slack_render.group_messages(grouped),
        # The flagger's display name is profile text anyone can set: the payload too.
        *slack_render.revision_messages(
            hostile, UTC, who=payload, note=hostile.summary.change_note
        ),
        slack_render.SlackMessage(slack_render.recheck_text(payload, note(source, payload)), []),
    ]


def slack_problems(day: Digest, source: str, payload: str) -> list[str]:
    problems = []
    for message in slack_messages(day, source, payload):
        for obj in slack_objects(message):
            text = obj.get("text") or ""
            problems += [f"character {c}" for c in bad_characters(text)]
            problems += [f"ping {p}" for p in SLACK_PINGS.findall(text)]  # flaggers by name
            for url in re.findall(r"<([a-z][a-z0-9+.-]*:[^|>]*)(?:\|[^>]*)?>", text, re.I):
                if url.replace("&amp;", "&") not in allowed_links(payload):
                    problems.append(f"link {url}")
            if obj.get("type") == "mrkdwn" and not obj.get("verbatim"):
                problems.append("mrkdwn without verbatim: Slack would auto-link its URLs")
    return problems


def discord_messages(day: Digest, source: str, payload: str) -> list:
    hostile = day.entries[1]
    return [
        discord_render.parent_message(day.with_links({1: OWN[2]}), "❌"),
        *discord_render.entry_messages(hostile, UTC, index=2, total=3),
        *discord_render.entry_messages(day.entries[2], UTC, index=3, total=3),
        *discord_render.group_messages(day.styled(trivial_style="grouped"), "❌"),
        *discord_render.revision_messages(
            hostile, UTC, user_id=DISCORD_USER, note=hostile.summary.change_note
        ),
        discord_render.Message(
            content=discord_render.recheck_text(DISCORD_USER, note(source, payload))
        ),
    ]


def discord_problems(day: Digest, source: str, payload: str) -> list[str]:
    messages = discord_messages(day, source, payload)
    problems = []
    for text in discord_texts(messages):
        problems += [f"character {c}" for c in bad_characters(text)]
        problems += [f"ping {p}" for p in discord_pings(text) if p != f"<@{DISCORD_USER}>"]
        problems += [f"link {u}" for u in discord_links(text) if u not in allowed_links(payload)]
        problems += [f"block {line!r}" for line in text.split("\n") if _DISCORD_BLOCK.match(line)]
    problems += [f"link {u}" for u in embed_urls(messages) if u not in allowed_links(payload)]
    return problems


_DISCORD_BLOCK = re.compile(r"\s*(#{1,3} |-# |>|```|~~~)")


def discord_layout(day: Digest) -> list[list[str]]:
    return [
        [f["name"] for f in embed.get("fields", [])]
        for m in discord_render.entry_messages(day.entries[1], UTC)
        for embed in m.embeds
    ]


def slack_layout(day: Digest) -> list[str]:
    blocks = slack_render.reply_messages(day, day.entries[1], 2)[0].blocks
    return [b["type"] for b in blocks]


# -- the matrix ---------------------------------------------------------------------------------

CASES = [(source, attack) for source in SOURCES for attack in ATTACKS]


@pytest.mark.parametrize(("source", "attack"), CASES, ids=[f"{s}-{a}" for s, a in CASES])
def test_every_payload_of_the_corpus_is_harmless_on_every_surface(source, attack):
    harmless = hostile_day("", "")
    layouts = (slack_layout(harmless), discord_layout(harmless))
    failures = []
    for kind, payload in corpus():
        if kind != attack:
            continue
        day = hostile_day(source, payload)
        found = {
            "markdown": markdown_problems(day, payload),
            "terminal": terminal_problems(day),
            "json": json_problems(day, payload),
            "slack": slack_problems(day, source, payload),
            "discord": discord_problems(day, source, payload),
        }
        empty = not clean_line(payload).strip()  # a headline of nothing but escapes is none
        changed = (slack_layout(day), discord_layout(day)) != layouts
        if changed and source != "model sections" and not empty:
            found["layout"] = ["the blocks or fields differ from a harmless PR's"]
        failures += [(surface, payload, p) for surface, ps in found.items() for p in ps]
    assert failures == []


def test_the_corpus_covers_every_source_attack_and_surface():
    assert len(SOURCES) == 10 and len(ATTACKS) == 5
    assert len(corpus()) >= 200
    assert len(CASES) == 50


@pytest.mark.parametrize("text", KEEP)
def test_emoji_cjk_accents_and_right_to_left_scripts_stay(text):
    day = hostile_day("title", text)
    assert clean(text) == text
    assert text in render_report(day)
    assert text in json.dumps(digest_json(day), ensure_ascii=False)
    assert any(text in t for t in discord_texts(discord_messages(day, "title", text)))


# -- random text (Hypothesis) -------------------------------------------------------------------

FRAGMENTS = [p for payloads in ATTACKS.values() for p in payloads] + KEEP + [
    "`", "``", "[", "]", "(", ")", "<", ">", "*", "_", "~", "|", "#", "\n", "\n\n", " ", "\\",
    "http", "://", "www.", "@", ":", "!", "&", ";", "-", "=", "1.", "\u200d", "\x1b", "evil.example",
]  # fmt: skip
hostile_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=12
).map("".join)


@settings(
    max_examples=int(os.environ.get("PRDIGEST_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(source=st.sampled_from(SOURCES), text=hostile_text)
def test_random_text_in_any_source_is_harmless_on_every_surface(source, text):
    day = hostile_day(source, text)
    problems = (
        markdown_problems(day, text)
        + terminal_problems(day)
        + json_problems(day, text)
        + slack_problems(day, source, text)
        + discord_problems(day, source, text)
    )
    assert problems == []


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_the_boundary_leaves_no_control_or_bidi_character_and_is_idempotent(text):
    for value in (clean(text), clean_line(text)):
        assert bad_characters(value) == [] or set(bad_characters(value)) <= {"U+000A", "U+0009"}
        assert "\x1b" not in value
    assert "\n" not in clean_line(text) and "\t" not in clean_line(text)
    assert clean(clean(text)) == clean(text)
    assert clean_line(clean_line(text)) == clean_line(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp"))))
def test_the_boundary_leaves_ordinary_text_alone(text):
    assert clean(text) == text


# -- the boundary and the links prdigest builds -------------------------------------------------


def test_escape_sequences_are_removed_whole_not_left_as_text():
    assert clean("\x1b[31mred\x1b[0m") == "red"
    assert clean("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07") == "click"
    assert clean("\x9b31mred") == "red"
    assert clean_line("a\nb\tc\r\nd") == "a b c d"
    assert clean("a\r\nb\u2028c") == "a\nb\nc"
    assert clean("invoice\u202egpj.exe") == "invoicegpj.exe"
    assert clean("@\u200beveryone") == "@everyone"  # then each renderer defuses the ping
    assert clean("👩\u200d💻") == "👩\u200d💻"  # a joiner inside an emoji sequence stays


@pytest.mark.parametrize(
    ("login", "valid"),
    [
        ("octocat", True), ("a", True), ("dependabot[bot]", True), ("x" * 39, True),
        ("a-b", True), ("-a", False), ("a-", False), ("a--b", False), ("x" * 40, False),
        ("<@U1>", False), ("a b", False), ("a/b", False), ("a.b", False), ("", False),
        ("evil.example", False), ("a@b", False), ("ü", False),
    ],
)  # fmt: skip
def test_only_logins_github_could_give_out_are_linked(login, valid):
    assert is_login(login) is valid
    pr = hostile_entry("", "").pr
    assert (pr.profile_url(login) is not None) is valid
    if login == "dependabot[bot]":
        assert pr.profile_url(login) == "https://github.com/apps/dependabot"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/o/r/pull/1.evil.example",
        "https://github.com/o/r/pull/1@evil.example",
        "https://github.com@evil.example/o/r/pull/1",
        "https://github.com/o/r/pull/1/../../../evil",
        "https://github.com.evil.example/o/r/pull/1",
        "https://evil.example/o/r/pull/1",
        "javascript:alert(1)//github.com/o/r/pull/1",
        "https://github.com/o/r/pull/1?next=https://evil.example",
        "https://github.com/o/r/pull/1#https://evil.example",
        "https:\\\\github.com/o/r/pull/1",
        "//github.com/o/r/pull/1",
        "https://user:pw@github.com/o/r/pull/1",
    ],
)
def test_a_url_that_starts_like_the_pr_page_is_not_the_pr_page(url):
    assert not same_page(url, pr_url(1))
    assert same_page(pr_url(1), pr_url(1)) and same_page(pr_url(1) + "/", pr_url(1))


def test_a_pr_whose_address_is_not_its_page_links_to_its_page():
    pr = replace(hostile_entry("", "").pr, url="https://evil.example/o/r/pull/1")
    assert pr.url == pr_url(1)
    enterprise = replace(pr, html_base="https://ghe.example.com", url="javascript:alert(1)")
    assert enterprise.url == "https://ghe.example.com/o/r/pull/1"
    assert web_origin("https://user@ghe.example.com") is None
