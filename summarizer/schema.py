"""The answer's shape: a JSON schema for servers that enforce it, and a validator for the rest."""

from __future__ import annotations

import json
import re

from bot.core.models import ChangeType, SummarySections

SECTION_KEYS = ("what_changed", "technical_impact", "potential_risks", "key_insights")

SUMMARY_SCHEMA: dict = {
    "type": "object",
    "properties": {
        **{key: {"type": "string"} for key in SECTION_KEYS},
        "type": {"type": "string", "enum": [t.value for t in ChangeType]},
    },
    "required": [*SECTION_KEYS, "type"],
    "additionalProperties": False,
}

RESPONSE_FORMAT_SCHEMA = {
    "type": "json_schema",
    "json_schema": {"name": "pr_summary", "strict": True, "schema": SUMMARY_SCHEMA},
}
RESPONSE_FORMAT_OBJECT = {"type": "json_object"}

REVISION_SCHEMA: dict = {
    "type": "object",
    "properties": {
        **SUMMARY_SCHEMA["properties"],
        "changed": {"type": "boolean"},
        "change_note": {"type": "string"},
    },
    "required": [*SUMMARY_SCHEMA["required"], "changed", "change_note"],
    "additionalProperties": False,
}
RESPONSE_FORMAT_REVISION = {
    "type": "json_schema",
    "json_schema": {"name": "pr_summary_revision", "strict": True, "schema": REVISION_SCHEMA},
}

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class InvalidAnswer(ValueError):
    """The model's answer is not the JSON object asked for; the message says what is wrong."""


def parse_answer(content: str | None) -> tuple[ChangeType, SummarySections]:
    if not content or not content.strip():
        raise InvalidAnswer("empty answer")
    text = content.strip()
    if match := _FENCE.match(text):  # small models wrap JSON in fences without a schema
        text = match.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(data, dict):
        raise InvalidAnswer("not a JSON object")
    missing = [k for k in SECTION_KEYS if not isinstance(data.get(k), str) or not data[k].strip()]
    if missing:
        raise InvalidAnswer(f"missing or empty: {', '.join(missing)}")
    raw_type = str(data.get("type", "")).strip().upper()
    if raw_type not in ChangeType.__members__:
        raise InvalidAnswer(f"type must be TRIVIAL or SUBSTANTIAL, not {raw_type[:20]!r}")
    sections = SummarySections(**{k: " ".join(data[k].split()) for k in SECTION_KEYS})
    return ChangeType(raw_type), sections


def parse_revision(content: str | None) -> tuple[ChangeType, SummarySections, bool, str]:
    """A revision answer: the summary, whether anything changed, and the one-line note."""
    change_type, sections = parse_answer(content)
    data = json.loads(_FENCE.sub(r"\1", (content or "").strip()))
    changed = data.get("changed")
    note = " ".join(str(data.get("change_note", "")).split())[:300]
    return change_type, sections, bool(changed) if isinstance(changed, bool) else True, note
