"""Parameters changed in a signature the hunk header opens.

A long Python signature is written one parameter a line, so a hunk that adds a parameter in
its middle often starts below the `def` line: git then names the `def` in the hunk header
(`@@ -149,13 +149,13 @@ def build_attn_metadata(`) and the fragment holds only parameter
lines up to the `) -> dict[str, Any]:` that closes them. No parser sees a definition there,
yet the signature changed: this module reads those leading lines on both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from summarizer.brackets import split_top_level
from summarizer.hunks import Hunk, Side

# git's default function-name lines start at column 0, so a `def` header is a module-level
# function, never a method.
_HEADER_DEF = re.compile(r"(?:async\s+)?def\s+([A-Za-z_]\w*)\(([^)]*)$")
_CLOSE = re.compile(r"\)\s*(?:->\s*(.+?))?\s*:\s*(?:#.*)?$")
_PARAM = re.compile(r"(?:\*{1,2}[A-Za-z_]\w*|\*|/|[A-Za-z_]\w*(?:\s*:\s*[^=]+?)?(?:\s*=\s*.+)?)")


@dataclass(frozen=True)
class OpenedSignature:
    """The parameters a hunk shows of the function its header opens, on each side; the
    parameters above the hunk are not shown, so the lists are the tail of the signature."""

    name: str
    old_params: tuple[str, ...]
    new_params: tuple[str, ...]
    old_return: str | None
    new_return: str | None
    closed: bool = True  # the fragment shows the line that closes the parameters

    def shown(self, new: bool) -> str:
        """The visible part of one side's signature: `(…, a: int, b) -> Tensor`, or
        `(…, a: int, b, …)` where the fragment ends among the parameters."""
        params = self.new_params if new else self.old_params
        returns = self.new_return if new else self.old_return
        tail = "" if self.closed else ", …"
        return f"(…, {', '.join(params)}{tail})" + (f" -> {returns}" if returns else "")


def opened_signature(hunk: Hunk) -> OpenedSignature | None:
    """The signature the hunk's header opens, when a changed line lies among its parameters
    and both sides close it in the fragment with nothing but parameters before the close."""
    m = _HEADER_DEF.match(hunk.header)
    if not m or m.group(2).count("(") > m.group(2).count(")"):
        return None
    old, new = _leading_params(hunk.old), _leading_params(hunk.new)
    if old is None or new is None or not (old[2] or new[2]) or old[3] != new[3]:
        return None
    if old[:2] == new[:2]:
        return None  # only a comment among the parameters changed
    return OpenedSignature(m.group(1), old[0], new[0], old[1], new[1], closed=old[3])


def _leading_params(side: Side) -> tuple[tuple[str, ...], str | None, bool, bool] | None:
    """The parameters on the side's first lines, the return annotation of the line that
    closes them, whether any of those lines changed, and whether the close is shown; None
    when a line before the close is not a parameter (the fragment is inside the body, not
    the signature). A fragment that ends among parameters counts only where each has a
    type, as a call's arguments over several lines never do (vLLM #34687 removed
    `seq_lens_cpu: torch.Tensor,` in a hunk that stops three parameters below)."""
    params: list[str] = []
    for row, line in enumerate(side.lines):
        text = line.split("  #")[0].strip()
        if not text or text.startswith("#"):
            continue
        if close := _CLOSE.fullmatch(text):
            changed = any(r <= row for r in side.changed if side.lines[r].strip())
            return tuple(params), close.group(1), changed, True
        parts = _split_params(text.rstrip(","))
        if not parts or not all(_PARAM.fullmatch(p) for p in parts):
            return None
        params += parts
    if not params or not all(":" in p for p in params):
        return None
    return tuple(params), None, any(side.lines[r].strip() for r in side.changed), False


def _split_params(text: str) -> list[str]:
    """`a: int, b: dict[str, int] = {}` as its two parameters: commas inside brackets or
    quotes do not split."""
    return [p.strip() for p in split_top_level(text, _COMMA) if p.strip()]


_COMMA = re.compile(",")
