"""The Markdown report, in exactly the layout of the "Merged PR Report" users already read,
and a rollup's report (`render_week_report`): a week's, any range's, a tag range's.

Pure functions: a Digest in, a string out.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from bot.core.models import Digest, DigestEntry, PullRequest
from bot.core.scope import DigestScope, Span
from bot.core.untrusted import clean, clean_line
from bot.digest.glance import (
    GlanceCounts,
    GlancePR,
    GlanceUndo,
    earlier_reverts,
    empty_note,
    glance,
    plural,
    rollup_span,
    scope_note,
    span_text,
    week_days,
)
from bot.digest.text import code_span, inline_parts, merged_time

UNKNOWN_TYPE = "UNKNOWN"


def render_report(digest: Digest, *, overview: bool = False) -> str:
    """The report; with `overview`, the day at a glance goes between its header and the
    first PR (without it, the report is exactly the seed format)."""
    window = digest.window
    parts = [
        f"# {digest.display_name} Merged PR Report\n\n"
        f"**Report Date:** {window.day.isoformat()} {window.tz_abbrev}\n\n"
        f"**Total Merged PRs:** {len(digest.entries)}\n\n---\n\n"
    ]
    if overview and digest.entries:
        parts.append(render_glance(digest))
    if not digest.entries:
        parts.append(
            f"No pull requests were merged into {digest.repo} on {window.day.isoformat()} "
            f"({window.tz_name}).\n"
        )
    for index, entry in enumerate(digest.entries, start=1):
        parts.append(render_entry(entry, window.start.tzinfo, index=index))
    return "".join(parts)


def render_glance(digest: Digest) -> str:
    """The day at a glance as a Markdown section: counts, highlights (each with its headline
    and a link to the PR), same-day reverts, and every PR's area with its numbers."""
    view = glance(digest)
    c = view.counts
    lines = ["## The day at a glance", "", _counts(c, merged=True), ""]
    lines += _section("### Highlights", [_highlight_line(item) for item in view.items])
    lines += _section(
        "### Areas",
        [
            f"- **{markdown_text(area.name)}** ({plural(area.count, 'PR')}): "
            + ", ".join(f"#{n}" for n in area.numbers)
            for area in view.areas
        ],
    )
    lines += ["---", "", ""]
    return "\n".join(lines)


def _counts(c: GlanceCounts, *, merged: bool) -> str:
    counts = [f"**Merged:** {c.merged}"] if merged else []
    counts += [f"**Substantial:** {c.substantial}", f"**Trivial:** {c.trivial}"]
    if c.unsummarized:
        counts.append(f"**Without a summary:** {c.unsummarized}")
    counts.append(f"**Contributors:** {c.contributors}")
    return " · ".join(counts)


def _section(heading: str, items: list[str]) -> list[str]:
    """A heading and its list, then a blank line; nothing for an empty list."""
    return [heading, "", *items, ""] if items else []


def _highlight_line(item: GlancePR) -> str:
    number = f"[#{item.number}]({item.url})"
    if item.reverted_by is None:
        return f"- {number} {markdown_text(item.headline)}"
    by = item.reverted_by
    return (
        f"- {number} {markdown_text(item.title)} — merged, then reverted by "
        f"[#{by.number}]({by.url})"
    )


def render_week_report(digest: Digest) -> str:
    """A rollup as Markdown (a week's, a range's, a tag range's): its days and zone, the total
    (and what a filter kept), the counts, the PRs of each day (a table, each day linked to its
    thread when it has one), of each area, the highlights, the reverts within it and those of
    earlier PRs with what they undid; then one section per area listing its PRs one line each
    (number, title linked to the PR, headline), no summaries."""
    view = glance(digest)
    c = view.counts
    lines = [*_rollup_head(digest), f"**Total Merged PRs:** {c.merged}", ""]
    note = scope_note(digest)
    if note:
        lines += [f"**Filter:** {note}", ""]
    lines += [_counts(c, merged=False), "", "---", ""]
    days = week_days(digest)
    if days:
        lines += ["## By day", "", "| Day | PRs |", "| --- | ---: |"]
        for day in days:
            label = f"[{day.label}]({day.link})" if day.link else day.label
            lines.append(f"| {label} | {day.count} |")
        lines.append("")
    lines += _section(
        "## By area",
        [f"- **{markdown_text(area.name)}** ({plural(area.count, 'PR')})" for area in view.areas],
    )
    lines += _section("## Highlights", [_highlight_line(item) for item in view.highlights])
    within = markdown_text(rollup_span(digest))
    lines += _section(f"## Reverted within {within}", [_highlight_line(i) for i in view.reverts])
    lines += _section(
        "## Reverts of earlier PRs", [_undo_line(undo) for undo in earlier_reverts(digest)]
    )
    if not digest.entries:
        lines += [empty_note(digest), ""]
    for area in view.areas:
        lines += ["---", "", f"## {markdown_text(area.name)}", ""]
        for number in area.numbers:
            entry = digest.entry(number)
            if entry is not None:
                lines.append(_week_line(entry))
        lines.append("")
    return "\n".join(lines)


def _rollup_head(digest: Digest) -> list[str]:
    """A rollup's title and the line that says its days: a week's as it always was."""
    name, zone = markdown_text(digest.display_name), digest.window.tz_name
    scope = DigestScope.of_digest(digest)
    if scope.span != Span.RANGE:
        return [f"# {name} Weekly Merged PR Report", "", f"**Week:** {span_text(digest, 'to')} ({zone})", ""]  # fmt: skip
    days = f"{span_text(digest, 'to')} ({zone})"
    if scope.tags:
        tags = markdown_text(scope.tags)
        days = f"{tags}: the PRs merged between the two tags, {days}"
    return [f"# {name} Merged PR Rollup", "", f"**{'Tags' if scope.tags else 'Range'}:** {days}", ""]  # fmt: skip


def _undo_line(undo: GlanceUndo) -> str:
    revert, undone = undo.revert, undo.undone
    merged = f" (merged {undone.merged_day})" if undone.merged_day else ""
    return (
        f"- [#{revert.number}]({revert.url}) {markdown_text(revert.title)} — undoes "
        f"[#{undone.number}]({undone.url}) {markdown_text(undone.title)}{merged}"
    )


def _week_line(entry: DigestEntry) -> str:
    pr = entry.pr
    line = f"- #{pr.number} [{markdown_text(pr.title, in_link=True)}]({pr.url})"
    if entry.summary is None:
        return f"{line} — *summary unavailable*"
    headline = entry.summary.sections.headline
    return f"{line} — {markdown_text(headline)}" if headline.strip() else line


def render_entry(entry: DigestEntry, tz: tzinfo | None, *, index: int | None = None) -> str:
    """One PR's section: heading, Base Information, Summary, and the closing rule."""
    pr = entry.pr
    number = f"{index}. " if index is not None else ""
    lines = [
        f"## {number}[{markdown_text(pr.title, in_link=True)}]({pr.url})",
        "",
        "",
        "### Base Information",
        "",
        f"- **PR Number:** #{pr.number}",
    ]
    if not pr.is_merged:
        lines.append(f"- **State:** `{pr.state.upper()}`")
    lines.append(f"- **Author:** {_profile(pr, pr.author)}")
    if pr.is_merged:
        lines.append(f"- **Merged By:** {_profile(pr, pr.merged_by)}")
        lines.append(f"- **Merged time:** {merged_time(pr, tz)}")
    change_type = entry.summary.change_type.value if entry.summary else UNKNOWN_TYPE
    lines.append(f"- **Type:** `{change_type}`")
    lines.append(f"- **[Changed Files]({pr.files_url}) ({pr.files_count}):**")
    lines.extend(f"  - {code_span(f.filename)}" for f in pr.files)
    if pr.files_count > len(pr.files):
        lines.append(f"  - … and {pr.files_count - len(pr.files)} more that GitHub does not list")
    lines += ["", "### Summary", ""]
    if entry.summary is None:
        lines += [f"Summary unavailable: {markdown_text(entry.error or 'unknown error')}", ""]
    else:
        if entry.summary.revision > 1:
            lines += [f"*Revised after a flag (revision {entry.summary.revision}).*", ""]
        for heading, text in entry.shown_sections():
            lines += [f"**{heading}**  ", markdown_block(text), ""]
        if entry.summary.unverified:
            names = ", ".join(code_span(name) for name in entry.summary.unverified)
            lines += [f"*Unverified: {names} (not found in the PR's diff, files or text).*", ""]
    lines += ["---", "", ""]
    return "\n".join(lines)


# Untrusted text (a title, a headline, a model's section) is shown as written; only what
# Markdown would read as markup is escaped, so "implictly -> implicitly", "a < b" or "2 * x"
# stay as they are. Code spans are kept as written (titles and summaries use them for code),
# a URL-like token is shown as code, never as a link, and in the rest a backslash, an `&`, an
# unmatched backtick, `*` and `~` that touch a non-space character, an `_` not between
# letters or digits, and a `<` that starts a tag, comment or autolink (and its `>`) are
# escaped. Brackets are escaped in sections always, and in a title (which sits inside our
# link's label) when they could end the label early or build a link of their own.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
# What starts a block at the beginning of a line: a heading, quote, list, rule, table row,
# setext underline, fence or HTML; its first character is escaped.
_BLOCK_START = re.compile(r"[#>+\-=*_~|:]|\d{1,9}[.)]")


def _escape_markup(value: str) -> str:
    out: list[str] = []
    in_tag = False
    for i, char in enumerate(value):
        before = value[i - 1] if i else " "
        after = value[i + 1] if i + 1 < len(value) else " "
        if char in "\\&`":
            escape = True
        elif char in "*~":
            escape = not (before.isspace() and after.isspace())
        elif char == "_":
            escape = not (before.isalnum() and after.isalnum())
        elif char == "<":
            escape = in_tag = bool(_TAG_START.match(value, i))
        elif char == ">":
            escape, in_tag = in_tag, False
        else:
            escape = False
        out.append("\\" + char if escape else char)
    return "".join(out)


def _inline(value: str, *, brackets: bool, in_link: bool = False) -> str:
    """Untrusted inline text as Markdown: code as written, URL-like tokens as code (inside
    our own link's label nothing can become a link, so there they stay words), the rest
    escaped (brackets too when `brackets`)."""
    out = []
    for kind, piece in inline_parts(value):
        if kind == "code":
            out.append(piece)
        elif kind == "link" and not in_link:
            out.append(code_span(piece))
        else:
            text = _escape_markup(piece)
            out.append(text.replace("[", "\\[").replace("]", "\\]") if brackets else text)
        if len(out) > 1 and out[-2].endswith("`") and out[-1].startswith("`"):
            out[-1] = " " + out[-1]  # two code spans that touch would read as one fence
    return "".join(out)


def markdown_text(text: str, *, in_link: bool = False) -> str:
    """PR or model text (a title, a headline) shown as written on one line, `in_link` when
    it is the label of a link we built: markup escaped (see above), and brackets too when
    they would end the label early (unbalanced, or "](") or make a link of their own."""
    value = clean_line(text)  # a line break would end the heading
    words = "".join(piece for kind, piece in inline_parts(value) if kind != "code")
    depth, balanced = 0, True
    for char in words:
        depth += {"[": 1, "]": -1}.get(char, 0)
        balanced = balanced and depth >= 0
    brackets = not in_link or "](" in words or bool(depth) or not balanced
    return _inline(value, brackets=brackets, in_link=in_link)


def markdown_block(text: str) -> str:
    """Untrusted text of several sentences (a model's section) as Markdown paragraphs that
    stay paragraphs: each paragraph on one line, brackets escaped (no link, reference or
    footnote can form), and its first character escaped when it could start a block."""
    paragraphs = []
    for paragraph in re.split(r"\n[ \t]*\n", clean(text).strip()):
        line = _inline(" ".join(paragraph.split()), brackets=True)
        if _BLOCK_START.match(line):
            at = _BLOCK_START.match(line).end() - 1
            line = line[:at] + "\\" + line[at:]
        if line:
            paragraphs.append(line)
    return "\n\n".join(paragraphs)


def _profile(pr: PullRequest, login: str | None) -> str:
    if not login:
        return "unknown"
    url = pr.profile_url(login)
    return f"[{login}]({url})" if url else markdown_text(login)
