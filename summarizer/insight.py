"""What code writes in technical_impact and key_insights when the model wrote only padding.

When every sentence of those sections is advice, praise or an invented benefit
(summarizer/filler.py), the checks take them all out, and the sections are filled from the
change facts, which are exact. A maintainer reading a digest asks two things the facts answer:
- does anything a caller or user relies on change: a signature, a flag, a setting, a public
  definition added or removed (or else, where is the change)?
- which tests change with it?
"""

from __future__ import annotations

from bot.core.models import PullRequest
from summarizer.facts import MACRO_BLOCK, ChangeFacts, short_name
from summarizer.file_kinds import is_support_file, runs_code
from summarizer.relocation import relocation_sentence
from summarizer.same_values import unchanged_values_sentence
from summarizer.wording import (
    code,
    listed,
    moved_names,
    moved_setting,
    named_definitions,
    phrase,
    settings_named,
    settings_of,
)


def interface_sentence(facts: ChangeFacts, pr: PullRequest) -> str:
    """What callers and users see change: flags and settings, public signatures, public
    definitions removed or added; else where the change is, or that no code that runs
    changes. "" when the facts name nothing of the code that runs."""
    parts = [
        phrase("moves", [moved_setting(s) for s in settings_of(facts, "moved")]),
        phrase("removes", settings_named(settings_of(facts, "removed"))),
        phrase("adds", settings_named(settings_of(facts, "added"))),
        phrase("changes", settings_named(settings_of(facts, "changed"))),
        phrase(
            "changes the signature of",
            [
                code(s.name) for s in facts.signatures
                if _public(s.name, s.file) and not s.retyped_only
            ],
        ),  # fmt: skip
        phrase("removes", _public_defs(facts, "removed")),
        phrase("adds", _public_defs(facts, "added")),
    ]
    said = [p for p in parts if p][:3]
    if said:
        return f"For callers and users, the PR {'; '.join(said)}."
    if relocated := relocation_sentence(facts, pr) or unchanged_values_sentence(pr, facts):
        return relocated
    running = {f.filename for f in pr.files if runs_code(f)}
    if not running:
        return "Only tests, docs, CI or comments change: the code that runs is as it was."
    defs = [d for d in facts.definitions if d.file in running]
    # A method says where the change is more exactly than its class.
    inside = [code(d.name) for d in defs if not any(o.name.startswith(f"{d.name}.") for o in defs)]
    # Not "no signature changes": a hunk that starts inside a parameter list hides one.
    return f"The changed code is in {listed(inside)}." if inside else ""


def _public(name: str, file: str) -> bool:
    return not is_support_file(file) and not any(
        part.startswith("_") for part in (short_name(name), name.split(".")[0])
    )


def _public_defs(facts: ChangeFacts, change: str) -> list[str]:
    # A macro block registers ops: no caller or user names it.
    public = [d for d in facts.of(change) if _public(d.name, d.file) and d.kind != MACRO_BLOCK]
    return named_definitions(public, moved_names(facts))
