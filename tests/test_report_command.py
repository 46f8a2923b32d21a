"""`prdigest report`: a day's merged PRs, fetched, summarized and written as the seed format."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from tests.conftest import REPO, make_pr, pacific
from tests.fakes.github import FakeFile, FakePR
from tests.report_parser import parse_report, prs_from_report

DATA = Path(__file__).parent / "data"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    "excerpt, day",
    [("vllm-2026-02-23-excerpt.md", "2026-02-23"), ("vllm-2026-02-09-excerpt.md", "2026-02-09")],
)
def test_report_round_trip_matches_the_real_report_field_by_field(env, github, excerpt, day):
    real = parse_report((DATA / excerpt).read_text())
    github.add_prs(REPO, prs_from_report(real))
    # Neighbours that must stay out: the seconds either side of the day, another branch, open.
    github.add_prs(
        REPO,
        [
            make_pr(90001, "2026-01-01 12:00:00"),
            FakePR(
                90002,
                "previous day",
                merged_by="m",
                merged_at=pacific(f"{day} 00:00:00") - _second(),
            ),
            FakePR(
                90003, "next day", merged_by="m", merged_at=pacific(f"{day} 23:59:59") + _second()
            ),
            FakePR(
                90004,
                "other branch",
                merged_by="m",
                merged_at=pacific(f"{day} 12:00:00"),
                base_ref="release",
            ),
            FakePR(90005, "still open", state="open"),
        ],
    )
    result = run("report", "--repo", REPO, "--date", day, "--output", "out.md")
    assert result.exit_code == 0, result.output
    ours = parse_report(Path("out.md").read_text())

    assert ours.date_line == real.date_line
    assert ours.total == real.total == len(ours.entries)
    assert [e.number for e in ours.entries] == [e.number for e in real.entries]
    for mine, theirs in zip(ours.entries, real.entries, strict=True):
        assert mine.base_information() == theirs.base_information()
        assert mine.type in ("TRIVIAL", "SUBSTANTIAL")
        for heading in (
            "What changed and why",
            "Technical impact",
            "Potential risks",
            "Key insights",
        ):
            assert f"**{heading}**  \n" in mine.summary


def _second():
    from datetime import timedelta

    return timedelta(seconds=1)


def test_layout_is_byte_for_byte_the_seeds_apart_from_summary_text(env, github):
    github.add_pr(
        REPO,
        FakePR(
            35156,
            "[BUGFIX][Qwen3.5] Hardcode `mlp.gate` as not quantizable",
            author="vadiklyutiy",
            merged_by="vllm-bot",
            merged_at=pacific("2026-02-23 19:42:24"),
            files=[
                FakeFile("vllm/model_executor/models/qwen3_next.py", patch="@@ -1 +1 @@\n-a\n+b")
            ],
        ),
    )
    result = run("report", "--repo", REPO, "--date", "2026-02-23")
    assert result.exit_code == 0
    head, entry = result.stdout.split("## 1. ", 1)
    assert head == (
        "# vllm Merged PR Report\n\n**Report Date:** 2026-02-23 PST\n\n"
        "**Total Merged PRs:** 1\n\n---\n\n"
    )
    assert entry.startswith(
        "[[BUGFIX][Qwen3.5] Hardcode `mlp.gate` as not quantizable]"
        "(https://github.com/vllm-project/vllm/pull/35156)\n\n\n### Base Information\n\n"
        "- **PR Number:** #35156\n"
        "- **Author:** [vadiklyutiy](https://github.com/vadiklyutiy)\n"
        "- **Merged By:** [vllm-bot](https://github.com/vllm-bot)\n"
        "- **Merged time:** 2026-02-23 19:42:24\n"
    )
    assert (
        "- **[Changed Files](https://github.com/vllm-project/vllm/pull/35156/files) (1):**\n"
        "  - `vllm/model_executor/models/qwen3_next.py`\n\n### Summary\n\n**What changed and why**  \n"
        in entry
    )
    assert result.stdout.endswith("\n\n---\n\n")


def test_display_name_comes_from_the_setting(env, github, monkeypatch):
    monkeypatch.setenv("PRDIGEST_DISPLAY_NAME", "vLLM")
    result = run("report", "--date", "2026-02-23")
    assert result.stdout.startswith("# vLLM Merged PR Report\n")


def test_renamed_files_are_listed_under_their_new_path(env, github):
    github.add_pr(
        REPO,
        make_pr(
            1,
            "2026-02-23 10:00:00",
            file_list=[
                FakeFile(
                    "new/place.py", status="renamed", previous_filename="old/place.py", patch=""
                )
            ],
        ),
    )
    result = run("report", "--date", "2026-02-23")
    # The file list names the new path; the risk may say where the module came from.
    assert "  - `new/place.py`\n" in result.stdout and "  - `old/place.py`" not in result.stdout


def test_an_empty_day_says_so(env, github):
    result = run("report", "--date", "2026-02-23", "--output", "empty.md")
    text = Path("empty.md").read_text()
    assert result.exit_code == 0
    assert "**Total Merged PRs:** 0" in text
    assert "No pull requests were merged into vllm-project/vllm on 2026-02-23" in text


def test_the_zone_option_moves_the_day(env, github):
    # 23:30 Pacific on the 22nd is 08:30 on the 23rd in Berlin.
    github.add_pr(REPO, make_pr(7, "2026-02-22 23:30:00"))
    berlin = run("report", "--date", "2026-02-23", "--tz", "Europe/Berlin")
    assert "**Report Date:** 2026-02-23 CET" in berlin.stdout
    assert "- **Merged time:** 2026-02-23 08:30:00" in berlin.stdout
    pacific_day = run("report", "--date", "2026-02-23")
    assert "**Total Merged PRs:** 0" in pacific_day.stdout


def test_json_output_for_machines(env, github):
    import json

    github.add_pr(REPO, make_pr(5, "2026-02-23 10:00:00", files=3))
    result = run("report", "--date", "2026-02-23", "--json")
    data = json.loads(result.stdout)
    assert data["total"] == 1 and data["tz_abbrev"] == "PST"
    entry = data["pull_requests"][0]
    assert entry["number"] == 5 and len(entry["files"]) == 3
    assert entry["summary"]["files_covered"] == 3 and entry["summary"]["model"]
