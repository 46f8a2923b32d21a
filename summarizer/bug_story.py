"""What was broken, where the PR's own new test says it.

A reader's commonest note on our summaries is "never says what was broken": PR descriptions
on a busy project are sign-offs, and the cause is usually in code the diff does not show. But
a fix often comes with a regression test whose docstring tells the bug in the author's words.
vLLM #35429's new test says: "The bug: multiproc_executor used `parallel_config.master_addr`
as `connect_ip` for every DP group's MessageQueue. For DP groups whose leader is NOT on the
master node, binding to master_addr fails with "Cannot assign requested address"." Quoted
with the file it stands in, that is the what-was-broken, true by construction.

Only prose the PR adds to its test files is read, and only from a sentence that names a bug
or a regression on; a sentence with a link, an issue number or a handle is left out, since
text from a PR must never become a link or a ping that prdigest did not build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from bot.core.models import PullRequest
from summarizer.file_kinds import is_test_file
from summarizer.hunks import Hunk, parse_hunks
from summarizer.prose import prose_lines
from summarizer.rationale import SENTENCE_END
from summarizer.wording import quotable, quoted

QUOTE_CHARS = 300
_MIN_WORDS = 8
# Where the bug is told: "The bug: …", "Regression test for …: …", "Previously, …".
_STORY = re.compile(
    r"^(?:the bug\b|bug:|regression test for\b[^:]*:|previously\b|before (?:this|the) fix\b)",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"^(?:regression test for\b[^:]*:|(?:the )?bug:)\s*", re.IGNORECASE)
_REGRESSION = re.compile(r"^regression test for\b", re.IGNORECASE)
_QUOTES = re.compile(r'^[rRbBuUfF]{0,2}(?:"""|\'\'\')|(?:"""|\'\'\')$')


@dataclass(frozen=True)
class BugStory:
    file: str
    text: str
    regression: bool = False  # what must hold, as a regression test states it


def told_bug(pr: PullRequest) -> BugStory | None:
    """The first bug told by prose the PR adds to a Python test file, in diff order."""
    for f in pr.files:
        if not is_test_file(f.filename) or PurePosixPath(f.filename).suffix != ".py":
            continue
        for hunk in parse_hunks(f.patch or ""):
            for text in _added_prose(hunk):
                if story := _story_in(text):
                    return BugStory(f.filename, *story)
    return None


def story_sentence(pr: PullRequest, said: str = "") -> str:
    """'The PR's new test in `f` says what was broken: "…"', unless `said` quotes it."""
    story = told_bug(pr)
    if story is None or " ".join(story.text.split())[:40] in " ".join(said.split()):
        return ""
    if story.regression:
        return f"The PR's new regression test in `{story.file}` says: {quoted(story.text)}"
    return f"The PR's new test in `{story.file}` says what was broken: {quoted(story.text)}"


def _added_prose(hunk: Hunk) -> list[str]:
    """Each run of added lines of docstrings and comments, as one text."""
    lines = hunk.new.lines
    prose = prose_lines(lines, python=True)
    texts, run = [], []
    for row, line in enumerate([*lines, ""]):
        if row < len(lines) and prose[row] and row in hunk.new.changed and line.strip():
            run.append(_QUOTES.sub("", line.strip().lstrip("#").strip()).strip())
        elif run:
            texts.append(" ".join(" ".join(run).split()))
            run = []
    return texts


def _story_in(text: str) -> tuple[str, bool] | None:
    """The quote from the first sentence that tells a bug, whole sentences up to
    QUOTE_CHARS, and whether a regression test states it; None where none does, or the
    first is unsafe to show."""
    sentences = SENTENCE_END.split(text)
    for i, sentence in enumerate(sentences):
        if not _STORY.match(sentence):
            continue
        quote = ""
        for j, s in enumerate(sentences[i:]):
            if not quotable(s) or (quote and len(quote) + len(s) + 1 > QUOTE_CHARS):
                break
            quote = f"{quote} {_PREFIX.sub('', s) if j == 0 else s}".strip()
        words = len(re.findall(r"[A-Za-z]{2,}", quote))
        if words >= _MIN_WORDS and len(quote) <= QUOTE_CHARS and quotable(quote):
            return quote, bool(_REGRESSION.match(sentence))
    return None
