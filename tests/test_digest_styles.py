"""A subscription's options: its own title, and trivial PRs in brief ("compact")."""

from __future__ import annotations

from datetime import UTC, date, datetime

from adapters.discord import render as discord_render
from adapters.slack import render as slack_render
from bot.core.day_window import day_window
from bot.core.models import ChangeType, Digest, DigestEntry, PRSummary, PullRequest, SummarySections
from bot.digest.render_markdown import render_report


def entry(number: int, change_type: ChangeType) -> DigestEntry:
    pr = PullRequest(
        repo="o/r", number=number, title=f"PR {number}", url=f"https://github.com/o/r/pull/{number}",
        author="a", state="merged", merged_by="m", merged_at=datetime(2026, 2, 23, 20, tzinfo=UTC),
    )  # fmt: skip
    summary = PRSummary(
        repo="o/r", number=number, revision_sha="s", prompt_version="1", model="m",
        change_type=change_type, files_covered=0, files_total=0,
        sections=SummarySections("Fixes a typo.", "None at all.", "No risk here.", "Read it."),
    )  # fmt: skip
    return DigestEntry(pr, summary)


DIGEST = Digest(
    "o/r", "r", day_window(date(2026, 2, 23), "America/Los_Angeles"),
    (entry(2, ChangeType.TRIVIAL), entry(1, ChangeType.SUBSTANTIAL)),
)  # fmt: skip


def test_compact_shows_trivial_prs_in_one_section_and_substantial_ones_whole():
    styled = DIGEST.styled("Widgets", "compact")
    trivial, substantial = styled.entries
    assert styled.display_name == "Widgets"
    assert [h for h, _ in trivial.shown_sections()] == ["What changed and why"]
    assert len(substantial.shown_sections()) == 4
    assert DIGEST.styled(None, "full") == DIGEST


def test_every_renderer_honours_it():
    trivial = DIGEST.styled(None, "compact").entries[0]
    slack_text = str(slack_render.entry_blocks(trivial, UTC))
    discord_text = str(discord_render.entry_messages(trivial, UTC)[0].embeds)
    for text in (slack_text, discord_text):
        assert "Fixes a typo." in text and "No risk here." not in text
    report = render_report(DIGEST.styled(None, "compact"))
    assert report.count("**Potential risks**") == 1
