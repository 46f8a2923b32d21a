"""A small model's sentences must each name something of the PR; a hosted model's need not.

Read against the diffs of a real vLLM day, the built-in model's sentences that name no
function, class, setting or file were its guesses at a cause or an effect ("by reducing the
number of tokens processed at once", "which is essential for training large language
models"), wrong far more often than right. On the compact prompt (the one small models get)
such a sentence goes, and so does a trailing purpose clause (", ensuring that …") that names
nothing; a section left empty is written from the facts. A hosted model's prose is kept.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import FindingKind, check_answer, remove_sentences
from summarizer.facts import extract_facts
from summarizer.finishing import fillable, finish
from tests.fakes.openai_api import FakeOpenAI, headline_for
from tests.summarizers import hosted, local

# vLLM #32975's shape: a count read through a method instead of `len()` of a sliced list.
DETOKENIZER = PullRequest(
    repo="o/r", number=32975, title="[Perf] Optimize detokenizer python logic", url="u",
    author="a", state="merged",
    files=(ChangedFile("vllm/v1/engine/detokenizer.py", additions=4, deletions=1, patch=(
        "@@ -80,7 +80,10 @@ class BaseIncrementalDetokenizer:\n"
        "     def update(self, new_token_ids):\n"
        "-        stop_checked = len(self.output_token_ids) > 1\n"
        "+        stop_checked = self.num_output_tokens() > 1\n"
        "         return stop_checked\n"
        "+\n"
        "+    def num_output_tokens(self) -> int:\n"
        "+        return len(self.token_ids) - self.prompt_len\n")),),
)  # fmt: skip

ANCHORED = "`BaseIncrementalDetokenizer.update` now calls `num_output_tokens`."
GUESS = "The changes are aimed at reducing the number of tokens processed at once."


def answer(what: str, impact: str = "", insights: str = "") -> SummarySections:
    return SummarySections(
        what, impact or "`update` reads the count without copying the list.", "", insights
    )


def finished(pr: PullRequest, said: SummarySections, *, small_model: bool) -> SummarySections:
    facts = extract_facts(pr)
    found = check_answer(pr, said, ChangeType.SUBSTANTIAL, facts, small_model=small_model)
    return finish(remove_sentences(said, found, fillable(facts, pr)), pr, facts)


def test_a_small_models_sentence_that_names_nothing_of_the_pr_goes():
    said = answer(f"{ANCHORED} {GUESS}")
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    assert [(f.kind, f.sentence) for f in found] == [(FindingKind.UNANCHORED, GUESS)]
    assert remove_sentences(said, found).what_changed == ANCHORED


def test_a_hosted_models_sentence_is_not_held_to_naming_code():
    said = answer(f"{ANCHORED} {GUESS}")
    assert check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL) == []


def test_a_file_stem_that_is_a_plain_word_does_not_anchor_a_sentence():
    # "detokenizer" is `detokenizer.py`'s stem, and in prose only the word.
    said = answer(f"{ANCHORED} The detokenizer logic will process input text faster.")
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    assert FindingKind.UNANCHORED in [f.kind for f in found]
    named = answer(f"{ANCHORED} Only `vllm/v1/engine/detokenizer.py` changes.")
    assert check_answer(DETOKENIZER, named, ChangeType.SUBSTANTIAL, small_model=True) == []


def test_a_purpose_clause_that_names_nothing_is_trimmed_and_the_named_part_stays():
    said = answer(
        "`BaseIncrementalDetokenizer.update` now calls `num_output_tokens` for the count, "
        "ensuring that the output is processed correctly."
    )
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    assert remove_sentences(said, found).what_changed == (
        "`BaseIncrementalDetokenizer.update` now calls `num_output_tokens` for the count."
    )
    # A clause that names the code is what the sentence is about: it stays.
    named = answer(
        "`update` now counts with a method, so that `len(self.output_token_ids)` no longer "
        "copies the list."
    )
    assert check_answer(DETOKENIZER, named, ChangeType.SUBSTANTIAL, small_model=True) == []


def test_affects_the_behavior_of_a_named_class_by_a_guess_that_names_nothing_goes_whole():
    # vLLM #35094: "by scaling the embeddings before they are used in the attention
    # instances", said of a line that only gives `embed_scale` a `None` default. Without
    # its guess at how, the sentence says only that a change changes what the code does.
    guess = (
        "The change affects the behavior of `BaseIncrementalDetokenizer` by processing the "
        "tokens before they are used in the attention layers."
    )
    found = check_answer(DETOKENIZER, answer(ANCHORED, impact=guess), ChangeType.SUBSTANTIAL,
                         small_model=True)  # fmt: skip
    assert [(f.kind, f.section, f.trimmed) for f in found] == [
        (FindingKind.UNANCHORED, "technical_impact", "")
    ]
    # How, in the PR's own names, is something said: it stays.
    named = "The change affects the behavior of `update` by calling `num_output_tokens`."
    said = answer(ANCHORED, impact=named)
    assert check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True) == []
    hosted_said = answer(ANCHORED, impact=guess)
    assert check_answer(DETOKENIZER, hosted_said, ChangeType.SUBSTANTIAL) == []


def test_a_sentence_that_is_padding_once_its_unnamed_clause_is_cut_goes_whole():
    # vLLM #35369: ", as it now correctly applies the activation function" names nothing;
    # without it, "affects the behavior of the `RMSNormGated` layer" says only that.
    said = answer(
        ANCHORED,
        impact="The change affects the behavior of `BaseIncrementalDetokenizer`, as it now "
        "correctly counts the output.",
    )
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    assert [(f.section, f.trimmed) for f in found] == [("technical_impact", "")]


def test_sections_left_with_nothing_are_written_from_the_facts():
    said = answer(
        ANCHORED,
        impact="The changes will result in faster processing of input text.",
        insights="This is important for large inputs.",
    )
    out = finished(DETOKENIZER, said, small_model=True)
    assert out.technical_impact == (
        "For callers and users, the PR adds `BaseIncrementalDetokenizer.num_output_tokens`."
    )
    assert out.key_insights == "No test changes with it in this PR."


def test_a_sentence_whose_only_fault_is_an_unknown_name_is_kept_when_the_rest_goes():
    # The unknown name is shown with its "Unverified" note, in the model's words: better
    # than the whole section the model wrote, guesses included.
    said = answer(f"The PR changes `update_tokens` in `BaseIncrementalDetokenizer`. {GUESS}")
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    kept = remove_sentences(said, found, frozenset())
    assert kept.what_changed == "The PR changes `update_tokens` in `BaseIncrementalDetokenizer`."


def test_a_section_the_facts_can_fill_drops_a_sentence_about_an_unknown_name():
    # The facts' sentence is true; the model's names something the PR does not have (vLLM
    # #34990 named the test above the one the PR skips, misspelled).
    said = answer(f"The PR changes `update_tokens` in `BaseIncrementalDetokenizer`. {GUESS}")
    found = check_answer(DETOKENIZER, said, ChangeType.SUBSTANTIAL, small_model=True)
    kept = remove_sentences(said, found, frozenset({"what_changed"}))
    assert kept.what_changed == ""


# -- through the summarizers, against the fake OpenAI endpoint ---------------------------------


def guessing(request: dict[str, Any]) -> str:
    """A model that names the change, then guesses at its effect."""
    return json.dumps({
        "headline": headline_for("Optimize detokenizer python logic"),
        "what_changed": f"{ANCHORED} {GUESS}",
        "technical_impact": "It will result in faster processing of input text.",
        "potential_risks": "`num_output_tokens` must equal `len(self.output_token_ids)`.",
        "key_insights": "`update` no longer copies `output_token_ids` to count it.",
        "type": "SUBSTANTIAL",
    })  # fmt: skip


@pytest.fixture
def server():
    with FakeOpenAI(responder=guessing) as srv:
        yield srv


async def test_the_built_in_models_summary_loses_its_guesses_and_a_hosted_one_keeps_them(
    server,
):
    small = await local(server).summarize(DETOKENIZER)
    assert GUESS not in small.sections.what_changed
    assert ANCHORED in small.sections.what_changed
    assert "faster processing" not in small.sections.technical_impact
    big = await hosted(server).summarize(DETOKENIZER)
    assert GUESS in big.sections.what_changed


def test_an_impact_that_says_again_what_changed_gives_way_to_the_facts():
    # vLLM #35080: once the checks cut its first sentence, the impact was a sentence of
    # "what changed" word for word.
    said = answer(f"{ANCHORED} The count no longer copies the list.",
                  impact="The count no longer copies the list.")  # fmt: skip
    out = finished(DETOKENIZER, said, small_model=True)
    assert "copies the list" not in out.technical_impact
    assert out.technical_impact
