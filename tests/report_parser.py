"""Reads a Merged PR Report back into fields, so tests can compare reports field by field."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ENTRY = re.compile(
    r"^## (?P<index>\d+)\. \[(?P<title>[^\n]*)\]\((?P<url>[^)]*)\)\n\n\n### Base Information\n\n"
    r"- \*\*PR Number:\*\* #(?P<number>\d+)\n"
    r"- \*\*Author:\*\* \[(?P<author>[^\]]*)\]\((?P<author_url>[^)]*)\)\n"
    r"- \*\*Merged By:\*\* \[(?P<merged_by>[^\]]*)\]\((?P<merged_by_url>[^)]*)\)\n"
    r"- \*\*Merged time:\*\* (?P<merged>[\d\- :]+)\n"
    r"- \*\*Type:\*\* `(?P<type>[A-Z]+)`\n"
    r"- \*\*\[Changed Files\]\((?P<files_url>[^)]*)\) \((?P<count>\d+)\):\*\*\n"
    r"(?P<files>(?:  - `[^\n]*`\n)*)"
    r"\n### Summary\n\n(?P<summary>.*?)\n---\n",
    re.MULTILINE | re.DOTALL,
)


@dataclass
class ReportEntry:
    index: int
    title: str
    url: str
    number: int
    author: str
    author_url: str
    merged_by: str
    merged_by_url: str
    merged: str
    type: str
    files_url: str
    count: int
    files: list[str] = field(default_factory=list)
    summary: str = ""

    def base_information(self) -> dict:
        """Every field but the summary text and the type."""
        fields = dict(vars(self))
        fields.pop("summary")
        fields.pop("type")
        return fields


@dataclass
class Report:
    title: str
    date_line: str
    total: int
    entries: list[ReportEntry]


def parse_report(text: str) -> Report:
    title = re.search(r"^# (.*) Merged PR Report$", text, re.MULTILINE)
    date_line = re.search(r"^\*\*Report Date:\*\* (.*)$", text, re.MULTILINE)
    total = re.search(r"^\*\*Total Merged PRs:\*\* (\d+)$", text, re.MULTILINE)
    assert title and date_line and total, "not a Merged PR Report"
    entries = [
        ReportEntry(
            index=int(m["index"]),
            title=m["title"],
            url=m["url"],
            number=int(m["number"]),
            author=m["author"],
            author_url=m["author_url"],
            merged_by=m["merged_by"],
            merged_by_url=m["merged_by_url"],
            merged=m["merged"],
            type=m["type"],
            files_url=m["files_url"],
            count=int(m["count"]),
            files=re.findall(r"^  - `(.*)`$", m["files"], re.MULTILINE),
            summary=m["summary"],
        )
        for m in _ENTRY.finditer(text)
    ]
    return Report(title[1], date_line[1], int(total[1]), entries)


def prs_from_report(report: Report):
    """The PRs a report describes, as the fake GitHub serves them (diffs made up)."""
    from tests.conftest import pacific
    from tests.fakes.github import FakeFile, FakePR

    return [
        FakePR(
            number=e.number,
            title=e.title,
            author=e.author,
            merged_by=e.merged_by,
            merged_at=pacific(e.merged),
            body=f"Purpose of #{e.number}.",
            files=[
                FakeFile(path, patch=f"@@ -1,3 +1,4 @@\n context\n+added line in {path}\n")
                for path in e.files
            ],
        )
        for e in report.entries
    ]
