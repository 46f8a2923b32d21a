"""A read that could fail made one that falls back: `config.x` becoming
`getattr(config, "x", True)`, or `config["producer"]` becoming `config.get("producer", {})`.

vLLM #34110 reads `norm_topk_prob` with a default so that Qwen3.5's config, which lacks it,
loads. The line edit says what the text became; what it does is the point, and the question a
reviewer asks: an object without the attribute (or a mapping without the key) no longer fails
there, it gets the default, and nothing tells that it was missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from summarizer.facts import ChangeFacts
from summarizer.file_kinds import is_support_file
from summarizer.line_edits import LineEdit
from summarizer.wording import in_place

_GETATTR = re.compile(
    r"getattr\(\s*(?P<obj>[A-Za-z_][\w.]*)\s*,\s*(?P<q>[\"'])(?P<name>\w+)(?P=q)\s*"
    r"(?:,\s*(?P<default>[^(),]+|\w*\(\)|\{\}|\[\]))?\s*\)"
)
_GET = re.compile(
    r"(?P<obj>[A-Za-z_][\w.]*)\.get\(\s*(?P<key>(?P<q>[\"'])[^\"']+(?P=q))\s*"
    r"(?:,\s*(?P<default>[^(),]+|\{\}|\[\]))?\s*\)"
)


@dataclass(frozen=True)
class TolerantRead:
    file: str
    enclosing: str | None
    read: str  # as it was: `config.norm_topk_prob`, `config["producer"]`
    now: str  # as it is: `getattr(config, "norm_topk_prob", True)`
    obj: str  # what is read from: `config`
    missing: str  # "an attribute `norm_topk_prob`", "the key `"producer"`"
    error: str  # what such an object raised there before: `AttributeError`, `KeyError`
    default: str  # what it gets now: `True`, `None`


def tolerant_reads(facts: ChangeFacts) -> list[TolerantRead]:
    """Each edit of the code that runs that turns `obj.name` into `getattr(obj, "name", d)`,
    or `obj["key"]` into `obj.get("key", d)`, in the facts' order."""
    return [t for e in facts.edits if not is_support_file(e.file) for t in _reads(e)][:3]


def _reads(e: LineEdit) -> list[TolerantRead]:
    found = []
    for m in _GETATTR.finditer(e.new):
        read = f"{m['obj']}.{m['name']}"
        if _word(read, e.old) and not _word(read, e.new):
            found.append(TolerantRead(
                e.file, e.enclosing, read, m.group(0), m["obj"], f"an attribute `{m['name']}`",
                "AttributeError", m["default"] or "None",
            ))  # fmt: skip
    for m in _GET.finditer(e.new):
        read = f"{m['obj']}[{m['key']}]"
        if read in e.old and read not in e.new:
            found.append(TolerantRead(
                e.file, e.enclosing, read, m.group(0), m["obj"], f"the key `{m['key']}`",
                "KeyError", m["default"] or "None",
            ))  # fmt: skip
    return found


def _word(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def tolerant_sentence(t: TolerantRead) -> str:
    """ "In `f`, `config.x` is now read as `getattr(config, "x", True)`: a `config` without an
    attribute `x` gets `True` there, where it raised `AttributeError` before: ..." """
    return (
        f"{in_place(t.enclosing, t.file)}, `{t.read}` is now read as `{t.now}`: a `{t.obj}` "
        f"without {t.missing} gets `{t.default}` there, where it raised `{t.error}` before, so "
        "one that lacks it by mistake no longer shows as an error."
    )
