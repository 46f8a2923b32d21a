"""Titles in the Markdown report are kept as written, as the seed reports show them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.models import DigestEntry, PullRequest
from bot.digest.render_markdown import markdown_text, render_entry
from tests.surfaces import github_html


def entry(title: str) -> DigestEntry:
    pr = PullRequest(
        repo="vllm-project/vllm",
        number=35000,
        title=title,
        url="https://github.com/vllm-project/vllm/pull/35000",
        author="someone",
        state="merged",
        merged_by="maintainer",
        merged_at=datetime(2026, 2, 23, 18, 0, tzinfo=UTC),
    )
    return DigestEntry(pr, error="not summarized in this test")


@pytest.mark.parametrize(
    "title",
    [
        "Fix typo: implictly -> implicitly",
        "[Bugfix] Keep a < b and b > c in the scheduler",
        "[Perf] Scale the block size by 2 * num_heads",
        "Use <= and >= in the bounds check",
    ],
)
def test_arrows_comparisons_and_stars_survive_as_written(title):
    heading = render_entry(entry(title), UTC, index=1).splitlines()[0]
    assert heading == f"## 1. [{title}](https://github.com/vllm-project/vllm/pull/35000)"


def test_only_what_would_become_markup_is_escaped():
    assert markdown_text("Fix *bold* and <b>tag</b>") == r"Fix \*bold\* and \<b\>tag\</b\>"
    assert markdown_text("a -> b, 1 < 2 > 0, 2 * 3") == "a -> b, 1 < 2 > 0, 2 * 3"


def test_code_spans_in_a_title_render_exactly_as_github_shows_the_title():
    # PR 35068: underscores inside a code span are code, not emphasis: no backslash added.
    title = "[Refactor] Remove dead private func `_fp8_perm` and `_extract_mask_for_item`"
    heading = render_entry(entry(title), UTC, index=30).splitlines()[0]
    assert heading == f"## 30. [{title}](https://github.com/vllm-project/vllm/pull/35000)"
    html = github_html(heading)
    assert "<code>_fp8_perm</code>" in html and "<code>_extract_mask_for_item</code>" in html
    assert "\\" not in html
