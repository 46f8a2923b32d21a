"""How the model is asked to answer: output cap, section bounds, temperature, repetition control.

A hosted endpoint gets the plain request (`HOSTED`): its models do not loop, and OpenAI's
strict mode refuses length bounds. The built-in model gets `LOCAL`, whose every value was
chosen by running `bench/quality.py` on the 36 PRs of 2026-02-09 on a 2-core machine, where
Qwen2.5-Coder-1.5B at greedy decoding otherwise loops in its last section until the cap cuts
the JSON (23 of 42 calls of a real 18-PR day did).

With these values, on the 36 PRs of 2026-02-09: no answer reached the cap (the longest was 402
tokens of 550, the cap before the headline), none was cut off or broken JSON, and the 3 to 7
first answers per run that repeated themselves were all fixed by their one retry.

A retry is never the identical request (`for_retry`): at temperature 0 the same request gives
the same answer, so the retry changes what caused the failure. Every endpoint's retry names the
fault in the prompt; the local one also gets shorter sections and stronger repetition control.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from summarizer.schema import HEADLINE_CHARS

# The real reports' sections run to 47 words at the median and 60 at the 90th percentile, at
# about 6.5 characters a word with backticked names. 420 characters (about 65 words) lets every
# section the reports would write end by itself, and stops a loop within one section.
LOCAL_SECTION_CHARS = 420
# On a retry, sections are held to about 45 words: a loop has less room to start.
RETRY_SECTION_CHARS = 300
# The built-in model's tokenizer averages 4.2 characters a token on its answers (measured on the
# dev days); 3.3 leaves room for identifier-heavy text. Four bounded sections, the bounded
# headline (about 45 tokens more), the type and the JSON punctuation then always fit, so the
# cap is never what ends an answer.
_CHARS_PER_TOKEN_FLOOR = 3.3
_JSON_OVERHEAD_TOKENS = 40
# The day's highlights are a list of PR numbers. Qwen's tokenizer writes one token per digit,
# so a 6-digit number and its ", " take 8; the braces and the key take about 12.
_TOKENS_PER_HIGHLIGHT = 8
_HIGHLIGHTS_OVERHEAD_TOKENS = 12

# DRY ("don't repeat yourself") penalizes a token that would extend a sequence already seen in
# the window, by multiplier x base^(length - allowed_length); 0.8 and 1.75 are DRY's published
# defaults. allowed_length 5: a repeated clause (10+ tokens) is cut off fast, short phrases are
# free. A backtick breaks a sequence (as newlines and quotes do by default), so a name used in
# several sections is never penalized: without it, the dev days showed the model garbling a
# name it had already written (`hf_weights Files`) to dodge the penalty, and the claim check
# then found names the PR does not have. penalty_last_n 320: the window holds the whole answer
# (about 250 tokens) and only the tail of the prompt. Adding `_`, `.` and `/` as breakers was
# tried on 70 dev-day PRs: sentences then repeated across sections and 7 PRs had no summary
# after their retry (1 before), so they are not breakers.
LOCAL_DRY = {
    "dry_multiplier": 0.8,
    "dry_base": 1.75,
    "dry_allowed_length": 5,
    "dry_penalty_last_n": 320,
    "dry_sequence_breakers": ["\n", ":", '"', "*", "`"],
}
# The retry doubles the multiplier and penalizes from 4 tokens on: a second loop is cut earlier.
RETRY_DRY = {**LOCAL_DRY, "dry_multiplier": 1.6, "dry_allowed_length": 3}


def output_cap(section_chars: int) -> int:
    """max_tokens for an answer of four bounded sections and the bounded headline: what the
    bounds allow, no more."""
    chars = 4 * section_chars + HEADLINE_CHARS
    return math.ceil(chars / _CHARS_PER_TOKEN_FLOOR) + _JSON_OVERHEAD_TOKENS


def highlights_cap(count: int) -> int:
    """max_tokens for the day's highlights: `count` PR numbers in a JSON object."""
    return _HIGHLIGHTS_OVERHEAD_TOKENS + _TOKENS_PER_HIGHLIGHT * max(1, count)


@dataclass(frozen=True)
class Sampling:
    """The generation side of a request; `kwargs()` gives the openai client's arguments."""

    max_tokens: int | None = None
    temperature: float | None = None
    section_chars: int | None = None  # a bound per section in the schema (grammar servers only)
    extra_body: dict = field(default_factory=dict)  # server-specific fields (llama.cpp's DRY)
    retry_extra_body: dict = field(default_factory=dict)
    retry_section_chars: int | None = None

    def kwargs(self) -> dict:
        out: dict = {}
        if self.max_tokens:
            out["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.extra_body:
            out["extra_body"] = dict(self.extra_body)
        return out

    def for_highlights(self, count: int) -> Sampling:
        """The day's ranking call: on a local model, an output cap of `count` numbers and no
        repetition control. DRY also penalizes what repeats the prompt, and every good answer
        copies PR numbers from it. A hosted endpoint gets the plain request, as always."""
        if self.section_chars is None:
            return self
        return replace(self, max_tokens=highlights_cap(count), extra_body={})

    def for_retry(self) -> Sampling:
        """Stronger controls for the second attempt; the caller also names the fault."""
        if self.section_chars is None:
            return self
        chars = self.retry_section_chars or self.section_chars
        return replace(
            self,
            section_chars=chars,
            max_tokens=output_cap(chars),
            extra_body=self.retry_extra_body or self.extra_body,
        )


HOSTED = Sampling()

LOCAL = Sampling(
    max_tokens=output_cap(LOCAL_SECTION_CHARS),
    temperature=0.0,  # the best-scoring choice on the dev days, and reproducible
    section_chars=LOCAL_SECTION_CHARS,
    extra_body=LOCAL_DRY,
    retry_extra_body=RETRY_DRY,
    retry_section_chars=RETRY_SECTION_CHARS,
)
