"""What a PR that changes only tests or CI puts at risk: the coverage it skips, the
tolerance it moves, the packages CI no longer installs.

"Only these files change here: tests, docs, CI or comments" is true of such a PR and tells a
maintainer nothing; readers scored it as boilerplate. Each of these three is a fact of the
diff with a consequence a reviewer names at once: vLLM #34990 marks
`test_mcp_code_interpreter_streaming` skipped, so CI stops covering MCP streaming; #35135
tightens `atol=1e-1` to `atol=1e-2`, which fails on hardware that differs by more; #35032
stops installing four OpenTelemetry packages before `pytest -v -s v1/tracing`, which then
passes only where the image has them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.core.models import PullRequest
from summarizer.code_hunks import file_hunks
from summarizer.facts import line_owner
from summarizer.file_kinds import is_test_file
from summarizer.line_edits import hunk_edits
from summarizer.wording import code, listed, quotable, quoted

_SKIP = re.compile(r"^\s*@?pytest\.(?:mark\.)?(skip|skipif|xfail)\b(?:\((?P<args>.*))?$")
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")
_TOLERANCE = re.compile(r"\b([ar]tol)\s*=\s*([0-9.eE+-]+)")
_INSTALL = re.compile(r"\bpip3?\s+install\b")
_PACKAGE = re.compile(r"['\"]?([A-Za-z][\w.-]*(?:\[[\w,]+\])?(?:[<>=!~]=?[\w.*]+)?)['\"]?")
_REASON_CHARS = 200
_HOW = {"skip": "skipped", "skipif": "skipped in some runs", "xfail": "expected to fail"}
_STATEMENT_LINES = 6


def support_risk(pr: PullRequest) -> str:
    """The first of: a test newly skipped, a tolerance moved, packages CI stops installing;
    "" when the PR does none of these."""
    risks = (_skipped, _tolerance, _installs_removed)
    return next(filter(None, (risk(pr) for risk in risks)), "")


def _skipped(pr: PullRequest) -> str:
    for path, hunk in file_hunks(pr, is_test_file):
        for row in sorted(hunk.new.changed):
            m = _SKIP.match(hunk.new.lines[row])
            if m and (test := line_owner(path, hunk, True, row)):
                reason = _reason(hunk.new.lines, row)
                said = f": {quoted(reason)}" if reason else "."
                return (
                    f"The PR marks {code(test)} (`{path}`) {_HOW[m[1]]}{said} CI no longer "
                    "checks what it covers: a regression there passes until the mark goes."
                )
    return ""


def _reason(lines: list[str], row: int) -> str:
    """The strings of the skip's statement, joined: its reason, where quotable."""
    text = " ".join(line.strip() for line in lines[row : row + _STATEMENT_LINES])
    text = text.split(")", 1)[0] if "(" in lines[row] else ""
    text = text.split("reason", 1)[1] if "reason" in text else text  # not a `skipif`'s test
    reason = "".join(a or b for a, b in _STRING.findall(text)).strip()
    if len(reason) > _REASON_CHARS or not quotable(reason):
        return ""
    return reason if reason.endswith((".", "!", "?")) else f"{reason}."


def _tolerance(pr: PullRequest) -> str:
    for f, old, new, where in _edited_lines(pr):
        before, after = dict(_TOLERANCE.findall(old)), dict(_TOLERANCE.findall(new))
        if not before or before.keys() != after.keys() or before == after:
            continue
        try:
            ratios = {k: float(after[k]) / float(before[k]) for k in before}
        except (ValueError, ZeroDivisionError):
            continue
        now = ", ".join(f"{k}={v}" for k, v in after.items())
        was = ", ".join(f"{k}={v}" for k, v in before.items())
        place = f"In {code(where)}" if where else f"In `{f}`"
        if all(r < 1 for r in ratios.values()):
            return (
                f"{place}, the check's tolerances become `{now}`, tighter than `{was}`: where "
                "the two results differ by more than that, the test now fails."
            )
        if all(r > 1 for r in ratios.values()):
            return (
                f"{place}, the check's tolerances become `{now}`, looser than `{was}`: an error "
                "of up to that size now passes unnoticed."
            )
    return ""


def _edited_lines(pr: PullRequest) -> Iterator[tuple[str, str, str, str | None]]:
    """(file, old line, new line, test) for each line of a test file changed in place, as
    line_edits pairs them."""
    for path, hunk in file_hunks(pr, is_test_file):
        for o, n, _, _ in hunk_edits(hunk.old, hunk.new):
            if o >= 0:
                yield path, hunk.old.lines[o], hunk.new.lines[n], line_owner(path, hunk, True, n)


def _installs_removed(pr: PullRequest) -> str:
    removed: dict[str, list[str]] = {}
    for path, hunk in file_hunks(pr):
        gone = hunk.old
        added = " ".join(hunk.new.lines[r] for r in hunk.new.changed)
        for row in sorted(r for r in gone.changed if _INSTALL.search(gone.lines[r])):
            packages = _packages(gone.lines, gone.changed, row)
            if packages and not any(p in added for p in packages):
                removed.setdefault(path, []).extend(packages)
    if not removed:
        return ""
    packages = list(dict.fromkeys(p for ps in removed.values() for p in ps))
    files = listed([code(f) for f in removed])
    return (
        f"CI no longer installs {listed([code(p) for p in packages])} (in {files}): the steps "
        "that ran after the install now pass only where the image already has them."
    )


def _packages(lines: list[str], changed: set[int], row: int) -> list[str]:
    """The packages the `pip install` at `row` names, over its continued lines."""
    text = lines[row].split("install", 1)[1]
    r = row
    while text.rstrip().endswith("\\") and r + 1 in changed:
        r += 1
        text = text.rstrip()[:-1] + " " + lines[r]
    words = [w for w in re.split(r"[\s\"]+", text.strip().strip("-\"' ")) if w and w != "\\"]
    return [m[1] for w in words if not w.startswith("-") and (m := _PACKAGE.fullmatch(w))]
