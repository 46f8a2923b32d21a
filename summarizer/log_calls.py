"""A logging call whose arguments do not fit its message, and the PR's line that fixes it.

vLLM #35434 rewrote `logger.debug("File or repository not found in hf_hub_download", e)` as
`logger.debug("…:", exc_info=e)`. The old call passes one argument to a message with no
`%` placeholder: when the record is emitted, `logging` cannot format it ("not all arguments
converted during string formatting") and prints a "--- Logging error ---" traceback in place
of the message. The title said "debug print patch"; the built-in model said "changes the debug
output", and a reader had to know `logging`'s rules to see what was broken. Code knows them:
the `%` placeholders of a literal message are counted against the arguments after it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks
from summarizer.facts import line_owner
from summarizer.file_kinds import runs_code
from summarizer.line_edits import change_blocks
from summarizer.wording import code, in_place

_LOGGERS = r"(?:logger|logging|log|_logger|LOG|LOGGER)"
_LOGGER = re.compile(rf"(?:^|\.){_LOGGERS}$")
_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})
# A line that logs, and its level (vLLM's `warning_once` and `info_once` log as the level).
LOG_LINE = re.compile(rf"{_LOGGERS}\.({'|'.join(sorted(_LEVELS, key=len, reverse=True))})\w*\(")
# A %-style conversion, `%(name)s` and `%*d` included; `%%` is a literal percent sign.
_PLACEHOLDER = re.compile(
    r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]"
)
# Loggers that format with `{}` or keywords: their calls are not `%`-formatted at all.
_OTHER_LOGGING = re.compile(r"\b(?:loguru|structlog)\b")


@dataclass(frozen=True)
class LogCall:
    level: str
    placeholders: int
    arguments: int
    eager: bool = False  # an argument calls something, whether or not the record is emitted

    @property
    def fits(self) -> bool:
        """`logging` formats the message only when it is given arguments."""
        return self.arguments == 0 or self.placeholders == self.arguments


@dataclass(frozen=True)
class LogFix:
    """A logging call rewritten in place from one whose arguments do not fit its message to
    one whose do."""

    file: str
    enclosing: str | None
    old: LogCall
    new: LogCall


def log_call(line: str) -> LogCall | None:
    """The call's level and counts, for a whole `logger.<level>("…", …)` call on one line
    whose message is a plain string literal (an f-string or a name is not counted)."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    level = call.func.attr.removesuffix("_once")
    if level not in _LEVELS or not _LOGGER.search(ast.unparse(call.func.value)):
        return None
    if not call.args or not isinstance(message := call.args[0], ast.Constant):
        return None
    if not isinstance(message.value, str) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if len(call.args) == 2 and isinstance(call.args[1], ast.Dict):
        return None  # one mapping serves every `%(name)s`: not counted here
    conversions = [m.group(0) for m in _PLACEHOLDER.finditer(message.value)]
    conversions = [c for c in conversions if c != "%%"]
    if any("(" in c for c in conversions):
        return None
    wanted = sum(1 + c.count("*") for c in conversions)  # `%*d` takes a width and a value
    values = [*call.args[1:], *(k.value for k in call.keywords)]
    eager = any(isinstance(n, ast.Call) for v in values for n in ast.walk(v))
    return LogCall(level, wanted, len(call.args) - 1, eager)


def log_fixes(pr: PullRequest) -> list[LogFix]:
    """Each logging call of the Python that runs rewritten, in its change block, from one
    whose arguments do not fit its message to one whose do."""
    found = []
    other = {f.filename for f in pr.files if _OTHER_LOGGING.search(f.patch or "")}
    for path, hunk in code_hunks(pr):
        if path in other:
            continue
        old_blocks, new_blocks = change_blocks(hunk.old), change_blocks(hunk.new)
        for row, block in old_blocks.items():
            old = log_call(hunk.old.lines[row])
            if old is None or old.fits:
                continue
            rows = [r for r, b in new_blocks.items() if b == block]
            calls = [(r, c) for r in rows if (c := log_call(hunk.new.lines[r])) is not None]
            fixed = [(r, c) for r, c in calls if c.fits and c.level == old.level]
            if len(fixed) == 1:
                where = line_owner(path, hunk, True, fixed[0][0])
                found.append(LogFix(path, where, old, fixed[0][1]))
    return found


def broken_sentence(fix: LogFix) -> str:
    """What was broken, in `logging`'s own terms."""
    given = _count(fix.old.arguments, "argument")
    holds = (
        _count(fix.old.placeholders, "`%` placeholder")
        if fix.old.placeholders
        else "no `%` placeholder"
    )
    if fix.old.arguments > fix.old.placeholders:
        failure = "not all arguments converted during string formatting"
    else:
        failure = "not enough arguments for format string"
    return (
        f"The old `{fix.old.level}` call gave {given} to a message with {holds}: when the "
        f'record was emitted, `logging` could not format it ("{failure}") and printed a '
        '"--- Logging error ---" traceback instead of the message.'
    )


def log_risk(pr: PullRequest) -> str:
    """For a PR whose code that runs changes only by such fixes: that only what is logged
    changes, and when it shows; "" otherwise."""
    fixes = log_fixes(pr)
    running = [f for f in pr.files if runs_code(f)]
    if len(fixes) != 1 or fixes[0].new.eager:
        return ""  # several calls, or one whose arguments now run code, say more than this
    if sum(f.additions + f.deletions for f in running) != 2:
        return ""
    fix = fixes[0]
    level = code(fix.new.level)
    return (
        f"Only what {in_place(fix.enclosing, fix.file).removeprefix('In ')} logs changes, and "
        f"only when {level} records of its logger are emitted: the code around the call runs "
        "as it did."
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
