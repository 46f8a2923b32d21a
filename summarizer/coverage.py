"""Which of the changed code the PR's own tests name, and which they leave out.

"The PR's only test changes are in `tests/compile/test_fusion_attn.py`" is true and raises no
concern. A reviewer asks which part of the change those tests reach: #33945 changes both
`AttentionFp8StaticQuantPattern` and `AttentionNvfp4QuantPattern`, and its new assertion sits
in a test of the FP8 pattern only. Whether a test file's lines name a definition is exact;
whether a test reaches it some other way is not known, so the sentence says "may".
"""

from __future__ import annotations

import re
from collections import Counter

from bot.core.models import PullRequest
from summarizer.checks import is_test_file
from summarizer.facts import short_name
from summarizer.wording import code, listed, tests_sentence

_NAMED = 3  # definitions named in the sentence, at most


def coverage_sentence(pr: PullRequest, changed: list[str]) -> str:
    """What the PR's test changes name of the `changed` definitions (qualified names): "The
    PR's tests (`t.py`) name `A` but not `B`: its change may have no test here." Without test
    changes, or when the tests name them all, which tests change (wording.tests_sentence)."""
    tests = [f for f in pr.files if is_test_file(f.filename)]
    aliases = _aliases(changed)
    if not tests or not aliases:
        return tests_sentence(pr)
    text = "\n".join(f.patch or "" for f in tests)
    named = [n for n, also in aliases.items() if any(_names(text, a) for a in also)]
    unnamed = [n for n in aliases if n not in named]
    if not unnamed:
        return tests_sentence(pr)
    where = listed([code(f.filename) for f in tests])
    missing = _either([code(n) for n in unnamed[:_NAMED]])
    if named:
        them = "their changes" if len(unnamed) > 1 else "its change"
        return (
            f"The PR's tests ({where}) name {listed([code(n) for n in named[:_NAMED]])} but "
            f"not {missing}: {them} may have no test here."
        )
    if len(unnamed) == 1:
        return (
            f"The PR's test changes ({where}) do not name {missing}: they may not test its change."
        )
    return f"The PR's test changes ({where}) name none of {missing}: they may not test the change."


def _aliases(changed: list[str]) -> dict[str, set[str]]:
    """Each changed definition as the sentence names it (a method by its class), with the
    names a test may use for it: a method's own name too, unless another changed method
    shares it (`A.pattern` and `B.pattern`: a test that says `pattern` names neither)."""
    own = Counter(short_name(n) for n in changed if "." in n or "::" in n)
    aliases: dict[str, set[str]] = {}
    for name in changed:
        owner, _, method = re.sub("::", ".", name).rpartition(".")
        said = short_name(owner) if owner else name
        also = {said} | ({method} if owner and own[method] == 1 else set())
        aliases.setdefault(said, set()).update(also)
    return aliases


def _names(text: str, name: str) -> bool:
    # `TestAttentionFp8StaticQuantPatternModel` and `test_forward` name what they test.
    return (
        re.search(rf"(?:(?<![A-Za-z0-9])|(?<=Test)){re.escape(name)}(?![a-z0-9])", text) is not None
    )


def _either(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"
