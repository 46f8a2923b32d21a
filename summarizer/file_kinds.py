"""What kind of file a changed path is: a test, docs, CI, a script beside the library, or the
code that runs. The checks, the facts' wording and every reader of changed code lines ask
it, so it stands on its own: nothing here reads a diff's claims.
"""

from __future__ import annotations

import re

from bot.core.models import ChangedFile
from summarizer.prose import only_prose

_TEST = re.compile(
    r"(?:^|/)(?:tests?|testing)/|(?:^|/)(?:test_[^/]*|[^/]*_test\.\w+|conftest\.py)$"
)
_DOC = re.compile(  # examples are documentation that runs: the diff budget ranks them so too
    r"(?:^|/)docs?/|^examples?/|\.(?:md|rst|adoc)$|(?:^|/)(?:README|CHANGELOG|LICENSE)[^/]*$", re.I
)
_CI = re.compile(
    r"^\.(?:github|buildkite|circleci|gitlab)/|^\.gitlab-ci|^\.pre-commit-config|^ci/"
    r"|(?:^|/)CODEOWNERS$|(?:^|/)\.?mergify\.ya?ml$|^tools/"  # tools/: the developers' own
)


def is_test_file(filename: str) -> bool:
    return bool(_TEST.search(filename))


def runs_code(f: ChangedFile) -> bool:
    """A change to the code that runs: not tests, docs or CI, and not only its comments."""
    return not is_support_file(f.filename) and not only_prose(f)


def is_support_file(filename: str) -> bool:
    """Tests, docs and CI: files that do not change what the code does."""
    return bool(_TEST.search(filename) or _DOC.search(filename) or _CI.search(filename))


_TOOLING = re.compile(r"^(?:benchmarks|tools|scripts|examples)/")


def is_tooling_file(filename: str) -> bool:
    """Scripts beside the library (a benchmark, a tool, an example): code that runs when
    someone runs it, which no user's request goes through. A risk of the library's own code
    comes before theirs (vLLM #33985's benchmark helper was named before its fusion pass)."""
    return bool(_TOOLING.match(filename))
