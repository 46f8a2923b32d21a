"""The author's reason for a change, where the diff states it: a comment the PR adds to the
code that runs.

Most PR descriptions on a busy project are sign-offs only, and a small model asked "why"
guesses, and its guesses are wrong more often than right. But the author of a fix often says
why in a comment beside it: "Store the block hasher without binding self to avoid creating a
reference cycle (Request -> partial -> Request)". Quoted with the definition it sits in, such
a comment is the why in the author's own words, and true by construction.

Only comments that give a reason are quoted: a section banner, a license header, code
commented out, a TODO or a link says nothing of why. A comment the PR only moves is not new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.facts import line_owner
from summarizer.file_kinds import is_support_file
from summarizer.hunks import Hunk, parse_hunks
from summarizer.prose import COMMENT_LINE

QUOTE_CHARS = 300  # a longer comment is quoted by its first sentences, up to this

# Words that give a cause, a purpose or a constraint: the comment says why, not only what.
_REASON = re.compile(
    r"\b(?:because|since|so that|so|otherwise|to avoid|avoids?|avoiding|prevents?|"
    r"ensures?|must|needs? to|need|required|requires|instead|workaround|can't|cannot|"
    r"can not|won't|fallback|unless)\b",
    re.IGNORECASE,
)
# Words that hint at one, but as often only qualify a "what" ("only check non-mxfp4"):
# two of them count as one reason.
_HINT = re.compile(r"\b(?:only|without|would|safe)\b", re.IGNORECASE)
_NOT_A_REASON = re.compile(
    r"\b(?:TODO|FIXME|XXX|SPDX|Copyright|noqa|type: ?ignore|pragma|fmt: ?(?:on|off|skip))\b"
    r"|://|@\w",
    re.IGNORECASE,
)
_MARKER = re.compile(r"^\s*(?:#+|//+|/\*+|\*+/?)\s?|\s*\*+/\s*$")
_WORD = re.compile(r"[A-Za-z]{2,}")
_CODE_CHAR = re.compile(r"[=(){}\[\];<>]")
# Code commented out: a statement, an assignment or a call at its start.
_STATEMENT = re.compile(
    r"^(?:[\w.\[\]]+\s*(?:[-+*/|&]?=(?!=)|\()|(?:if|for|while|return|def|class|import|from)"
    r"\b.*[:)]$)"
)
_MIN_WORDS = 5
# Where a sentence of prose ends: not after "e.g." or "i.e.", and only before what can
# start one (a capital, a bracket, a code span).
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+(?=[A-Z(`])")
# In C, C++ and CUDA a `#` line is the preprocessor (`#ifdef`), not a comment.
_C_FAMILY = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".cxx")


@dataclass(frozen=True)
class AuthorComment:
    """A comment the PR adds, as one text, with where it stands."""

    file: str
    text: str
    enclosing: str | None  # the definition it sits in, when known

    @property
    def reasons(self) -> int:
        strong = {m.group(0).lower() for m in _REASON.finditer(self.text)}
        return len(strong) + len({m.group(0).lower() for m in _HINT.finditer(self.text)}) // 2


def reason_sentence(pr: PullRequest, said: str = "") -> str:
    """'The PR's new comment in `Request.__init__` explains: "…"' for the added comment
    that gives the most reasons, unless `said` quotes it already; "" when none gives one."""
    comments = [c for c in added_comments(pr) if c.reasons]
    if not comments:
        return ""
    best = max(comments, key=lambda c: c.reasons)  # the first of the best, in diff order
    quote = _quoted(best.text)
    if " ".join(quote.split())[:40] in " ".join(said.split()):
        return ""
    where = best.enclosing or best.file
    return f'The PR\'s new comment in `{where}` explains: "{quote}"'


def added_comments(pr: PullRequest) -> list[AuthorComment]:
    """The comments the PR adds to the code that runs (not to tests, docs or CI), each run
    of comment lines as one text; those that say nothing of why, or only move, left out."""
    hunks = {f.filename: parse_hunks(f.patch) for f in pr.files if f.patch}
    removed = " ".join(_removed_comment_words(hunks.values()))
    found: list[AuthorComment] = []
    for f in pr.files:
        if is_support_file(f.filename) or f.filename not in hunks:
            continue
        for hunk in hunks[f.filename]:
            for rows in _comment_runs(hunk, f.filename.endswith(_C_FAMILY)):
                text = _joined([_MARKER.sub("", hunk.new.lines[r]).strip() for r in rows])
                if _says_something(text) and text not in removed:
                    found.append(AuthorComment(f.filename, text, _where(f.filename, hunk, rows)))
    return found


def _joined(lines: list[str]) -> str:
    """A comment's lines as one text. A line that ends a sentence without a full stop
    ("… in the current step" / "To put it …") gets one, or the quote runs two together."""
    text = ""
    for line in filter(None, lines):
        stop = text[-1:].isalnum() and re.match(r"[A-Z][a-z]", line)
        text = f"{text}{'.' if stop else ''} {line}".strip()
    return " ".join(text.split())


def _where(path: str, hunk: Hunk, rows: list[int]) -> str | None:
    line = hunk.new.lines[rows[0]]
    if path.endswith(".py") and not line[:1].isspace():
        return None  # a module-level comment: the hunk's header would name the wrong def
    return line_owner(path, hunk, True, rows[0])


def _comment_runs(hunk: Hunk, c_family: bool) -> list[list[int]]:
    """Whole comments the PR adds: runs of added whole-line comments, with no comment line
    just before or after (lines added to a comment that was there are a fragment of it)."""
    lines = hunk.new.lines

    def comment(row: int) -> bool:
        line = lines[row] if 0 <= row < len(lines) else ""
        return bool(COMMENT_LINE.match(line)) and not (c_family and line.lstrip()[:1] == "#")

    runs: list[list[int]] = []
    for row in range(len(lines)):
        if not comment(row):
            continue
        if runs and runs[-1][-1] == row - 1:
            runs[-1].append(row)
        else:
            runs.append([row])
    return [
        run for run in runs
        if run[0] > 0 and all(r in hunk.new.changed for r in run)
    ]  # fmt: skip


def _says_something(text: str) -> bool:
    """Prose of a few words: not a banner, a header, a link or code commented out."""
    words = _WORD.findall(text)
    # One that opens on a quote or a symbol is a list item or code, not a sentence.
    if not text[:1].isalnum() or len(words) < _MIN_WORDS or _STATEMENT.match(text) or _NOT_A_REASON.search(text):
        return False
    return len(_CODE_CHAR.findall(text)) * 2 <= len(words)


def _removed_comment_words(files: Iterable[list[Hunk]]) -> list[str]:
    """The comments the PR removes, as text: a comment it adds among these is only moved."""
    texts = []
    for hunks in files:
        for hunk in hunks:
            lines = hunk.old.lines
            rows = (r for r in sorted(hunk.old.changed) if COMMENT_LINE.match(lines[r]))
            texts.append(" ".join(_MARKER.sub("", lines[r]).strip() for r in rows))
    return [" ".join(t.split()) for t in texts if t]


def _quoted(text: str) -> str:
    """The comment as quoted: whole sentences up to QUOTE_CHARS (the first cut at a word when
    it alone is longer), with unpaired backticks dropped so no code span runs on."""
    if text.count("`") % 2:
        text = text.replace("`", "")
    if len(text) <= QUOTE_CHARS:
        return text
    quote = ""
    for sentence in SENTENCE_END.split(text):
        if len(quote) + len(sentence) + 1 > QUOTE_CHARS:
            break
        quote = f"{quote} {sentence}".strip()
    return quote or text[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
