"""Sentences that tell a reader nothing about this PR, or tell them what it never shows.

A small model pads. On the dev days (66 PRs, two runs of the built-in model) its
key_insights were advice in 223 sentences: "Developers should be aware of the potential
risks associated with the change", "They should also test the changes thoroughly". The rest
was praise ("a small but important fix", "a significant improvement to the codebase") or a
benefit nobody measured: "makes it easier to maintain", "improves the robustness of the
grammar validation", "part of a larger effort to improve the model's performance". A reader
who checked them against the diffs called them boilerplate at best; at worst they carried a
wrong claim ("Developers should be aware of the new parameter added to `get_replacement`",
whose signature does not change). The model also expands acronyms it does not know: "DCP
(Deep Compression)", where the PR's legend says Decode Context Parallelism.

Each function returns why a sentence is padding or invented ("" when it is neither), and
the checks (summarizer/checks.py) make that a finding that takes the sentence out, or only
its clause. None of these is worth a regeneration: the same model pads the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# "Developers should be aware of …", "They should also ensure …", "users may need to test …":
# advice whose verb asks for care, not for a step this PR calls for ("Reviewers should look
# first at `x`", "Developers should call `f` when …" say something, and stay).
_ADVICE = re.compile(
    r"\b(?:developers|users|maintainers|reviewers|contributors|they|teams?|one)"
    r"(?: of (?:the|this) \w+)? (?:should|must|need to|needs to|may need to|will need to|"
    r"are advised to|are encouraged to)(?: also)?(?: \w+ly)? (?:be (?:aware|careful|cautious|"
    r"mindful|prepared|vigilant)|ensure|make sure|consider|keep in mind|test|verify|monitor|"
    r"watch|mitigate|take (?:appropriate|steps|care|precautions|measures|note)"
    r"|review (?:the|their) (?:code|changes))\b",
    re.IGNORECASE,
)
# Praise and verdicts with no content: what the reader can't check and needn't know.
_PRAISE = re.compile(
    r"\b(?:a|is an?) (?:significant|major|important|valuable|welcome|great|useful) "
    r"(?:improvement|enhancement|addition|change|step)\b"
    r"|\bsmall but (?:important|significant|crucial|meaningful)\b"
    r"|\bgood (?:example|practice|illustration) of\b"
    r"|\b(?:safe to merge|good practice to)\b"
    r"|\b(?:PR|change|changes|update|fix) (?:is|are|should be) safe\b"
    r"|\bcan have a (?:big|significant|large) impact\b",
    re.IGNORECASE,
)
# A benefit other than speed (checks.UNSUPPORTED_PERFORMANCE reads those): the quality it
# claims, by the stem a PR that speaks of it would use.
_QUALITIES = {
    "robustness": "robust",
    "reliability": "reliab",
    "stability": "stab",
    "quality": "quality",
    "readability": "readab",
    "maintainability": "maintain",
    "user experience": "user experience",
    "accuracy": "accura",
    "correctness": "correct",
    "consistency": "consisten",
    "flexibility": "flexib",
    "usability": "usab",
    "security": "secur",
    "scalability": "scal",
    "modularity": "modular",
    "clarity": "clar",
    "organization": "organi",
}
_QUALITY = "|".join(sorted(_QUALITIES, key=len, reverse=True))
_BENEFIT = re.compile(
    rf"\b(?:improv|enhanc|boost|increas|ensur)\w*(?: [\w'-]+){{0,3}} (?:{_QUALITY})\b"
    r"(?: and (?:\w+ ){0,2}\w+)?"
    r"|\b(?:easier|simpler) to (?:maintain|read|understand|debug|extend|use|test|manage)\b"
    r"|\breduc\w* (?:the )?(?:overall )?complexity\b"
    r"|\bmore (?:robust|reliable|maintainable|readable|straightforward|flexible|modular"
    r"|stable|user-friendly|streamlined)\b"
    r"|\bpart of (?:a|an) (?:larger|broader|wider|ongoing) (?:effort|initiative|refactor\w*)\b"
    r"|\b(?:particularly|especially) (?:beneficial|useful|important|valuable)\b"
    r"|\b(?:crucial|essential) for (?:generating|ensuring|maintaining|the overall)\b",
    re.IGNORECASE,
)
# Words a PR uses when a benefit of this kind is its point.
_BENEFIT_STEMS = {
    "easier": "maintain|readab|simplif|clean|refactor",
    "simpler": "maintain|readab|simplif|clean|refactor",
    "complexity": "simplif|complex|clean|refactor",
    "straightforward": "simplif|clean|refactor",
    "streamlined": "simplif|clean|refactor",
    "part of": r"part of|follow[- ]?up|series|step \d|rfc|tracking",
    "particularly": "",  # whom a change helps most is for its author to say
    "especially": "",
    "crucial": "",
    "essential": "",
}
# A fix makes code correct: "a more accurate calculation" of a bug fix is its point.
_FIXED_QUALITIES = ("accura", "correct", "reliab", "stab", "robust", "consisten")
_FIX = re.compile(r"\b(?:bug ?fix|fix(?:es|ed|ing)?|bug|broken|crash\w*|wrong|incorrect)\b", re.I)


# "The change affects the behavior of the `RMSNormGated` layer.": that a change to code
# changes what it does, with nothing of how. The small model wrote it in 36 sentences of the
# 122 dev-day summaries; the reader called the bare ones empty. One that goes on to say how
# ("by changing the device the tensors are allocated on") says something, and stays.
_BARE_EFFECT = re.compile(
    r"\b(?:affect(?:s|ed|ing)?|alter(?:s|ed|ing)?)\s+(?:the\s+)?"
    r"(?:behaviou?r|functionality|performance|way)(?:\s+(?:and|or)\s+(?:the\s+)?\w+)?\s+of\b"
    r"(?P<rest>[^.:;]*)\.?\s*$",
    re.IGNORECASE,
)
_HOW = re.compile(r"\b(?:by|because|since|when|whenever|so that|so|as|which|where|if|unless)\b", re.I)
_BY = re.compile(r"\bby\s+(?P<how>\w+ing\b[^.:;]*)", re.I)


def padding(sentence: str) -> str:
    """Why the sentence is padding: advice to "developers", praise, or a bare "affects the
    behavior of"; "" when it is not."""
    if m := _ADVICE.search(sentence):
        return f'is advice that says nothing about this PR ("{m.group(0)} …")'
    if m := _PRAISE.search(sentence):
        return f'is a verdict with no content ("{m.group(0)}")'
    if (m := _BARE_EFFECT.search(sentence)) and not _HOW.search(m["rest"]):
        return "says only that the change affects what the code does, not how"
    return ""


def effect_how(sentence: str) -> str:
    """What follows "affects the behavior of X by": the words that say how, or "" when the
    sentence is no such claim. The small model guesses there ("by scaling the embeddings
    before they are used in the attention instances", for a line that only gives
    `embed_scale` a `None` default: vLLM #35094), and the caller decides whether it names
    enough of the PR to stand."""
    if not (m := _BARE_EFFECT.search(sentence)):
        return ""
    how = _BY.search(m["rest"])
    return how["how"] if how else ""


def invented_benefit(sentence: str, said: Sequence[str]) -> tuple[str, str]:
    """(why, the matched claim) for a benefit that nothing the PR's author `said` (title,
    description, changed comments) speaks of; ("", "") when there is none or it is said."""
    for m in _BENEFIT.finditer(sentence):
        claim = m.group(0)
        if not _benefit_said(claim, said):
            return f'claims a benefit ("{claim}") that nothing in the PR speaks of', claim
    return "", ""


def _benefit_said(claim: str, said: Sequence[str]) -> bool:
    text = " ".join(said).lower()
    lowered = claim.lower()
    for word, stems in _BENEFIT_STEMS.items():
        if word in lowered:
            return bool(stems) and bool(re.search(rf"\b(?:{stems})", text))
    stems = [stem for quality, stem in _QUALITIES.items() if quality in lowered]
    if not stems:  # "more robust", "more flexible": the adjective's own stem
        stems = [lowered.split()[-1][:6]]
    if any(stem in _FIXED_QUALITIES for stem in stems) and _FIX.search(text):
        return True
    return any(re.search(rf"\b{re.escape(stem)}", text) for stem in stems)


# The small model takes an inference engine for a training framework or an app: "the model's
# training loop", "the distributed training framework", "chatbots". Each is a setting the
# PR must speak of (by the stem on the right) before a summary may place it there.
_SETTINGS = {
    re.compile(r"\b(?:training|trained|train|fine-?tun\w*|backprop\w*|gradients?)\b", re.I): (
        r"train|fine-?tun|backprop|\bgrad"
    ),
    re.compile(r"\bchat ?bots?\b|\bvirtual assistants?\b", re.I): r"chat ?bot|assistant",
    re.compile(r"\bgam(?:e|es|ing)\b", re.I): r"\bgam(?:e|es|ing)\b",
}


def invented_setting(sentence: str, corpus: str) -> str:
    """Why the sentence places the change where the PR never is ("" when it does not): a
    training loop, chatbots, games, in a PR whose text and diff never speak of them."""
    for claim, stems in _SETTINGS.items():
        if (m := claim.search(sentence)) and not re.search(stems, corpus, re.I):
            return f'speaks of "{m.group(0)}", which nothing in the PR does'
    return ""


# "DCP (Deep Compression)" and "Deep Compression (DCP)": an acronym and what it stands for.
_EXPANSION = re.compile(
    r"\b(?P<acr>[A-Z][A-Z0-9]{1,7})\s*\((?P<words>`?[A-Z][\w-]*`?(?:\s+`?[A-Za-z][\w-]*`?){1,5})\)"
    r"|(?P<words2>\b[A-Z][\w-]*(?:\s+[A-Za-z][\w-]*){1,5})\s*\((?P<acr2>[A-Z][A-Z0-9]{1,7})\)"
)


def invented_expansion(sentence: str, corpus: str) -> tuple[str, str]:
    """(why, the sentence with the acronym alone) for an acronym the sentence spells out
    where the PR never does; ("", "") otherwise."""
    lowered = re.sub(r"\s+", " ", corpus.lower())
    for m in _EXPANSION.finditer(sentence):
        acronym = m.group("acr") or m.group("acr2")
        words = (m.group("words") or m.group("words2")).replace("`", "")
        words = _initial_words(words, acronym)
        if not words or words.lower() in lowered:
            continue
        trimmed = sentence[: m.start()] + acronym + sentence[m.end() :]
        return f'spells out {acronym} as "{words}", which the PR never does', trimmed
    return "", ""


def _initial_words(words: str, acronym: str) -> str:
    """The last words of `words` whose initials could spell `acronym` ("supports Decode
    Context Parallelism" for DCP is "Decode Context Parallelism"); "" when none do: then
    the parentheses are not an expansion ("FP8 (block scales)")."""
    parts = words.split()
    for start in range(len(parts)):
        tail = parts[start:]
        initials = "".join(p[0] for p in tail).upper()
        if initials == acronym.upper() or (len(tail) >= 2 and initials == acronym[: len(tail)]):
            return " ".join(tail)
        if len(tail) >= 3 and initials[0] == acronym[0] and _in_order(initials, acronym.upper()):
            return " ".join(tail)  # "TRTLLM (TensorRT Lite Lite Model)": letters skipped
    return ""


def _in_order(letters: str, word: str) -> bool:
    """Each of `letters` is in `word`, in this order."""
    rest = iter(word)
    return all(letter in rest for letter in letters)
