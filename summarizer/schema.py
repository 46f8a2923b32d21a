"""The answer's shape: a JSON schema for servers that enforce it, and a validator for the rest.

Two schemas. The hosted one is what OpenAI's strict mode accepts: it refuses `maxLength`, so
its strings are unbounded. The local one (`bounded_schema`) is turned into a grammar by
llama.cpp: it asks for the type and the headline first (so a cut-off answer still has them) and
bounds every string's length, so the answer always ends well inside the output cap.

The headline is one plain sentence of at most `HEADLINE_WORDS` words, written in the same call
as the four sections; it is not one of them (`SummarySections.items()` leaves it out).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from json.decoder import scanstring

from bot.core.models import ChangeType, SummarySections
from summarizer.repetition import (
    complete_sentences,
    drop_repeated_sentences,
    ends_sentence,
    find_repetition,
    finished_clauses,
    sentences,
)

SECTION_KEYS = ("what_changed", "technical_impact", "potential_risks", "key_insights")
_TYPE_SCHEMA = {"type": "string", "enum": [t.value for t in ChangeType]}

# The headline: read first in chat and in the day at a glance, so it is short enough to read
# at a glance. 150 characters is 20 words at 7.5 characters a word, backticked names included;
# the grammar's bound stops a runaway headline, the word count is checked in parse_answer.
HEADLINE_WORDS = 20
HEADLINE_MIN_CHARS = 10
HEADLINE_CHARS = 150
HEADLINE_HINT = (
    "headline: at most 20 words. Write it as one plain sentence saying what the PR does for "
    "a user of the code."
)
HEADLINE_MISSING_HINT = 'Write the headline too (the JSON key "headline"): ' + HEADLINE_HINT


def object_schema(properties: dict) -> dict:
    """A JSON object of exactly `properties`, every one required (what strict mode asks)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def strict_format(name: str, properties: dict) -> dict:
    """The `response_format` of a strict JSON-schema answer: every answer prdigest asks for
    (a summary, a revision, highlights, an ask) has this one shape."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "strict": True, "schema": object_schema(properties)},
    }


# Strict mode writes the keys in this order: the one-line headline first, the type last.
_SUMMARY_PROPERTIES: dict = {
    "headline": {"type": "string"},
    **{key: {"type": "string"} for key in SECTION_KEYS},
    "type": _TYPE_SCHEMA,
}
SUMMARY_SCHEMA: dict = object_schema(_SUMMARY_PROPERTIES)
RESPONSE_FORMAT_SCHEMA = strict_format("pr_summary", _SUMMARY_PROPERTIES)
RESPONSE_FORMAT_OBJECT = {"type": "json_object"}

_REVISION_PROPERTIES: dict = {
    **_SUMMARY_PROPERTIES,
    "changed": {"type": "boolean"},
    "change_note": {"type": "string"},
}
REVISION_SCHEMA: dict = object_schema(_REVISION_PROPERTIES)
RESPONSE_FORMAT_REVISION = strict_format("pr_summary_revision", _REVISION_PROPERTIES)

NOTE_CHARS = 300  # a revision's one-line note, as revision_fields keeps it
# A section shorter than this is no section ("N/A."); the grammar then keeps the model writing.
MIN_SECTION_CHARS = 20


def bounded_schema(section_chars: int, *, revision: bool = False) -> dict:
    """The response format for a grammar-constrained server: type and headline first, every
    string bounded."""
    bounded = {"type": "string", "minLength": MIN_SECTION_CHARS, "maxLength": section_chars}
    headline = {"type": "string", "minLength": HEADLINE_MIN_CHARS, "maxLength": HEADLINE_CHARS}
    properties: dict = {
        "type": _TYPE_SCHEMA,
        "headline": headline,
        **{key: bounded for key in SECTION_KEYS},
    }
    if revision:
        note = {"type": "string", "maxLength": NOTE_CHARS}  # one sentence, shown as is
        properties |= {"changed": {"type": "boolean"}, "change_note": note}
    return strict_format("pr_summary_revision" if revision else "pr_summary", properties)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*(?:```\s*)?$", re.DOTALL)
_PARTIAL_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{0,3})?$")


class InvalidAnswer(ValueError):
    """The model's answer is not the JSON object asked for; the message says what is wrong.

    `hint` is what the retry tells the model to do differently.
    """

    def __init__(
        self,
        message: str,
        hint: str = "Reply with only the JSON object asked for.",
        kept: Answer | None = None,
    ):
        super().__init__(message)
        self.hint = hint
        # What is left of an answer that repeated itself, without the sections that repeat:
        # kept when the retry fails too, so that one loop never costs a PR its summary.
        self.kept = kept


@dataclass(frozen=True)
class Answer:
    change_type: ChangeType
    sections: SummarySections
    data: dict  # the whole object, for fields beyond the summary (a revision's note)
    salvaged: bool = False  # a cut-off answer, kept up to its last finished sentence


def parse_answer(
    content: str | None, *, cut_off: bool = False, section_chars: int | None = None
) -> Answer:
    """Validate an answer: JSON with the headline, the four sections and the type, saying
    nothing twice.

    `cut_off` is True when the model stopped at the output cap. Such an answer is kept when
    the headline is there, every section has started and only the last one was cut: that
    section keeps its finished sentences. `section_chars` is the bound the grammar enforced: a
    section that reached it was closed mid-sentence by the grammar, and is cut back to its
    finished sentences too.
    """
    if not content or not content.strip():
        raise InvalidAnswer("empty answer")
    data, cut_key = _load_json(content.strip(), cut_off=cut_off)
    raw_type = str(data.get("type", "")).strip().upper()
    if raw_type not in ChangeType.__members__:
        raise InvalidAnswer(f"type must be TRIVIAL or SUBSTANTIAL, not {raw_type[:20]!r}")
    values = _section_values(data, cut_key, section_chars)
    _require_every_section(values, data)
    # The grammar's bound closes a runaway headline mid-sentence, as it does a section.
    bounded = section_chars is not None and len(data["headline"].strip()) >= HEADLINE_CHARS - 2
    headline = parse_headline(data["headline"], cut=bounded or cut_key == "headline")
    sections = drop_repeated_sentences(SummarySections(**values, headline=headline))
    if repetition := find_repetition(sections):
        kept = without_repeats(sections)
        raise InvalidAnswer(
            str(repetition),
            hint=f"It said the same thing twice. {repetition.fix}",
            kept=Answer(ChangeType(raw_type), kept, data, cut_key is not None) if kept else None,
        )
    return Answer(ChangeType(raw_type), sections, data, salvaged=cut_key is not None)


def without_repeats(sections: SummarySections) -> SummarySections | None:
    """The sections with each one that loops or restates another emptied, for code to fill
    from the facts; None when what_changed is one: an answer without it says nothing."""
    while repetition := find_repetition(sections):
        if repetition.section == "what_changed":
            return None
        sections = replace(sections, **{repetition.section: ""})
    return sections


def _load_json(text: str, *, cut_off: bool) -> tuple[dict, str | None]:
    """The answer's JSON object, and the key it was cut off in when it had to be salvaged
    (allowed only when the model hit the output cap with every section started)."""
    if match := _FENCE.match(text):  # small models wrap JSON in fences without a schema
        text = match.group(1)
    cut_key: str | None = None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        data, cut_key = _salvage(text)
        needed = {"headline", *SECTION_KEYS}
        started = [k for k in needed if k in data] + ([cut_key] if cut_key else [])
        if not (cut_off or cut_key) or set(started) != needed or "type" not in data:
            where = f"; it stopped in {cut_key}" if cut_key else ""
            raise InvalidAnswer(
                f"not JSON ({exc.msg} at char {exc.pos}){where}",
                hint="Your answer was cut off before the JSON ended. Keep every section to two "
                "or three short sentences so the whole object fits.",
            ) from None
    if not isinstance(data, dict):
        raise InvalidAnswer("not a JSON object")
    return data, cut_key


def _section_values(data: dict, cut_key: str | None, section_chars: int | None) -> dict:
    """Each section given, on one line; one that was cut off keeps its finished sentences."""
    values = {}
    for key in SECTION_KEYS:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        value = " ".join(value.split())
        if key == cut_key or (section_chars and len(value) >= section_chars - 2):
            value = complete_sentences(value) or finished_clauses(value)
        elif not ends_sentence(value):
            # Stopped mid-sentence below the bound (a repetition stop, a grammar's early end):
            # its finished sentences, when it has any, rather than "also updates `".
            value = complete_sentences(value) or value
        values[key] = value
    return values


def _require_every_section(values: dict, data: dict) -> None:
    missing = [k for k in SECTION_KEYS if not values.get(k)]
    if not _has_text(data.get("headline")):
        missing.insert(0, "headline")
    if missing:
        hints = [HEADLINE_MISSING_HINT] if "headline" in missing else []
        if missing != ["headline"]:
            hints.insert(0, "Write every one of the four sections as complete sentences.")
        raise InvalidAnswer(f"missing or empty: {', '.join(missing)}", hint=" ".join(hints))


def parse_headline(value: object, *, cut: bool = False) -> str:
    """The answer's headline on one line, at most `HEADLINE_WORDS` words; InvalidAnswer only
    when there is none.

    A headline over the word limit is kept as its first sentence when that sentence fits: a
    model that adds a second sentence has still written a headline. Otherwise it is shortened
    at a clause break (`shortened`): on 2026-02-09 the built-in model wrote 21 and 24 words
    for 2 of 36 PRs, and refusing them cost those PRs their whole summary after a retry. `cut`
    is True when the headline was stopped mid-sentence (by the grammar's length bound or the
    output cap): it keeps its finished sentences, or is shortened the same way.
    """
    if not _has_text(value):
        raise InvalidAnswer("missing or empty: headline", hint=HEADLINE_MISSING_HINT)
    headline = " ".join(str(value).split())
    if cut:
        # The last word may be cut in half: without a finished sentence, it goes.
        headline = complete_sentences(headline) or " ".join(headline.split()[:-1]) + "…"
        if len(headline) < HEADLINE_MIN_CHARS:
            raise InvalidAnswer(
                "headline cut off before its first sentence ended", hint=HEADLINE_HINT
            )
    if len(headline.split()) <= HEADLINE_WORDS:
        return headline
    first = sentences(headline)[0]
    if len(first.split()) <= HEADLINE_WORDS and len(first) >= HEADLINE_MIN_CHARS:
        return first  # more than one sentence (else `first` is all of it, over the limit)
    return shortened(headline)


_CLAUSE_BREAK = re.compile(r"[,;:—]$|^(?:and|while|so|by|with|to|which|for)$", re.I)


def shortened(headline: str, limit: int = HEADLINE_WORDS) -> str:
    """`headline` cut to at most `limit` words, at the last clause break that keeps at least
    half of them (else at the limit), ending with an ellipsis so the cut shows."""
    words = headline.split()[: max(1, limit)]
    cut = len(words)
    for i in range(len(words) - 1, max(1, len(words) // 2) - 1, -1):
        if _CLAUSE_BREAK.search(words[i]):
            cut = i + 1 if words[i][-1] in ",;:—" else i
            break
    text = " ".join(words[:cut]).rstrip(" ,;:.—")
    return text + "…"


def _has_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def revision_fields(data: dict) -> tuple[bool, str]:
    """A revision answer's extra fields: whether anything changed, and the one-line note."""
    changed = data.get("changed")
    note = " ".join(str(data.get("change_note", "")).split())[:NOTE_CHARS]
    return bool(changed) if isinstance(changed, bool) else True, note


def _salvage(text: str) -> tuple[dict, str | None]:
    """The complete members of a JSON object cut off mid-way, and the key of a string value
    that was cut (its finished part stored under that key), if the cut fell inside one."""
    data: dict = {}
    pos = text.find("{") + 1
    if pos == 0:
        return data, None
    decoder = json.JSONDecoder()
    while True:
        pos = _skip(text, pos, " \t\r\n,")
        if pos >= len(text) or text[pos] != '"':
            return data, None
        try:
            key, pos = scanstring(text, pos + 1)
        except ValueError:
            return data, None
        pos = _skip(text, _skip(text, pos, " \t\r\n") + 1, " \t\r\n")  # past the colon
        if pos >= len(text):
            return data, None
        try:
            data[key], pos = decoder.raw_decode(text, pos)
        except ValueError:
            if text[pos] != '"':
                return data, None
            partial = _PARTIAL_ESCAPE.sub("", text[pos + 1 :])
            try:
                data[key] = json.loads(f'"{partial}"')
            except ValueError:
                data[key] = partial
            return data, key


def _skip(text: str, pos: int, chars: str) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos
