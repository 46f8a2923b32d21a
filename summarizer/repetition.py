"""Finding an answer that repeats itself: the failure of small models at greedy decoding.

A 1.5B model summarizing a long PR tends to fall into a loop in its last section ("Developers
should also note that ... They should ensure that ..."), or to restate one section as another.
Such an answer is invalid, from any model, and is treated like broken JSON: one retry that
names the fault, then a visible mark.

The thresholds were checked against the 488 sections of the 122 real report entries of the dev
days: none of them trips either rule, with a wide margin (figures below).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.core.models import SummarySections

# A sentence ends at ., ! or ? followed by white space; a dot inside `vllm.config` does not end
# one, and neither does one inside a code span.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_WORDS = re.compile(r"[a-z0-9_]+")

# Two sentences this alike (word-trigram Jaccard) are one sentence said twice, maybe with a word
# or two changed, as the loops of the built-in model do. Two sentences of one real report entry
# peak at 0.16 (95th percentile 0.10), although they often share a phrase.
SAME_SENTENCE = 0.6
MIN_SENTENCE_WORDS = 5  # shorter sentences ("This is minimal.") may recur innocently
# A section whose prose trigrams are this much contained in another section's restates it. Two
# sections of one real report entry peak at 0.12. Code spans are left out of this comparison:
# the same identifiers rightly recur in every section.
RESTATED_SECTION = 0.5


# What each section is for, to tell the model on a retry what the repeating one should say.
PURPOSES = {
    "what_changed": "what the PR changes and why",
    "technical_impact": "the effect on behaviour, performance and the rest of the code",
    "potential_risks": "what could break or regress, and what is untested",
    "key_insights": "what a developer working on this code should do or watch for next",
}


@dataclass(frozen=True)
class Repetition:
    """What repeats, in one line fit for a log and for the retry prompt."""

    kind: str  # "sentence" or "section"
    section: str  # the section that repeats (the later one): what a retry must rewrite
    other: str  # the section it repeats
    text: str = ""  # the repeated sentence

    def __str__(self) -> str:
        if self.kind == "sentence":
            where = (
                self.section if self.other == self.section else f"{self.other} and {self.section}"
            )
            return f"repeated sentence in {where}: {_clip(self.text)!r}"
        return f"{self.section} restates {self.other}"

    @property
    def fix(self) -> str:
        """What the retry asks for instead."""
        return (
            f"Write {self.section} again in new words, about {PURPOSES[self.section]} only; "
            "no sentence may repeat or paraphrase another one of the answer."
        )


def sentences(text: str) -> list[str]:
    """The sentences of a section, code spans kept whole."""
    masked = _CODE_SPAN.sub(lambda m: m.group(0).replace(".", "\0"), text)
    return [s.replace("\0", ".").strip() for s in _SENTENCE_END.split(masked) if s.strip()]


def drop_repeated_sentences(sections: SummarySections) -> SummarySections:
    """The sections without the sentences that say again what an earlier section said, where
    the section keeps a sentence of its own. On the dev days 17 of 70 answers of the built-in
    model repeated one sentence in a later section and were regenerated whole for it (16 s
    each). A loop inside one section, and a section that is nothing but repeats, are still
    found by `find_repetition`: they mark an answer gone wrong, not one slip."""
    earlier: list[frozenset[tuple[str, ...]]] = []
    changes = {}
    for key, _heading in SummarySections.HEADINGS:
        kept, mine = [], []
        said = sentences(getattr(sections, key))
        for sentence in said:
            words = _WORDS.findall(sentence.lower())
            grams = _trigrams(words)
            if len(words) < MIN_SENTENCE_WORDS or not any(
                _jaccard(grams, other) >= SAME_SENTENCE for other in earlier
            ):
                kept.append(sentence)
                mine.append(grams)
        if kept and len(kept) < len(said):
            changes[key] = " ".join(kept)
        earlier += mine
    return replace(sections, **changes) if changes else sections


def restates(text: str, other: str) -> bool:
    """`text` says again what `other` says, code spans aside: the rule `find_repetition`
    holds a section to."""
    grams = _trigrams(_WORDS.findall(_CODE_SPAN.sub(" ", text).lower()))
    other_grams = _trigrams(_WORDS.findall(_CODE_SPAN.sub(" ", other).lower()))
    return bool(grams) and _containment(grams, other_grams) >= RESTATED_SECTION


def find_repetition(sections: SummarySections) -> Repetition | None:
    """The first repeated sentence (anywhere in the answer) or restated section, if any.

    Only the four sections are compared. The headline is left out on purpose: it is what_changed
    in one line, so it restates that section by design, and a model that loops does so in the
    long sections, not in a sentence bounded to 20 words.
    """
    seen: list[tuple[str, str, frozenset[tuple[str, ...]]]] = []
    for key, _heading in SummarySections.HEADINGS:
        for sentence in sentences(getattr(sections, key)):
            words = _WORDS.findall(sentence.lower())
            if len(words) < MIN_SENTENCE_WORDS:
                continue
            grams = _trigrams(words)
            for other_key, _other, other_grams in seen:
                if _jaccard(grams, other_grams) >= SAME_SENTENCE:
                    return Repetition("sentence", key, other_key, sentence)
            seen.append((key, sentence, grams))
    keyed = [
        (key, _trigrams(_WORDS.findall(_CODE_SPAN.sub(" ", getattr(sections, key)).lower())))
        for key, _ in SummarySections.HEADINGS
    ]
    for i, (key, grams) in enumerate(keyed):
        for other_key, other in keyed[:i]:
            if _containment(grams, other) >= RESTATED_SECTION:
                return Repetition("section", key, other_key)
    return None


def ends_sentence(text: str) -> bool:
    """Whether the text ends a sentence: with its stop, maybe inside a code span, a
    parenthesis or a quotation."""
    return text.rstrip().endswith((".", "!", "?", ".`", "!`", "?`", ".)", '."'))


def complete_sentences(text: str) -> str:
    """The text up to its last finished sentence: what to keep of a section that was cut off."""
    kept = []
    for sentence in sentences(text):
        if not ends_sentence(sentence):
            break
        kept.append(sentence)
    return " ".join(kept)


# Where a sentence turns to its next clause: ", and it also moves", "; the".
_CLAUSE_BREAK = re.compile(r",\s|;\s")
LEAST_CLAUSE_WORDS = 8  # what a clause kept alone must say, at least


def finished_clauses(text: str) -> str:
    """A section cut before its first sentence ended, kept to its last clause break and
    closed there: "… file to the `kernels/linear/__init__.py` file, and it also moves the
    `vllm/model_…" keeps its first clause. Without a break that keeps `LEAST_CLAUSE_WORDS`
    words and closes every code span, nothing: such a section said nothing whole (vLLM
    #34055's answers were refused twice for it, and the PR went unsummarized)."""
    for m in reversed(list(_CLAUSE_BREAK.finditer(text))):
        kept = text[: m.start()].rstrip(" ,;")
        if len(kept.split()) < LEAST_CLAUSE_WORDS:
            break
        if kept.count("`") % 2 == 0 and not _CODE_SPAN.sub("", kept).count("`"):
            return kept + "."
    return ""


def _trigrams(words: list[str]) -> frozenset[tuple[str, ...]]:
    if len(words) < 3:
        return frozenset({tuple(words)}) if words else frozenset()
    return frozenset(tuple(words[i : i + 3]) for i in range(len(words) - 2))


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _containment(a: frozenset, b: frozenset) -> float:
    """How much of the smaller set lies in the larger one."""
    small = min(len(a), len(b))
    return len(a & b) / small if small else 0.0


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
