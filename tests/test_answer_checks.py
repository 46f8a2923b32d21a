"""What makes an answer valid: JSON with a headline, four sections and a type, saying nothing
twice, and what is kept of an answer the output cap cut off."""

from __future__ import annotations

import json

import pytest

from bot.core.models import ChangeType, SummarySections
from summarizer.repetition import complete_sentences, find_repetition, sentences
from summarizer.schema import InvalidAnswer, parse_answer

# Four sections of one real report entry (vLLM #32621): they share names and phrases, as
# real sections do, and are not repetition.
REAL = SummarySections(
    what_changed="The PR simplifies the `block_n` calculation in LoRA's expand kernel "
    "configuration. Previously, it used `max(64, next_power_of_2(128 // num_slices))`, which "
    "always resulted in 64 when `num_slices > 1`.",
    technical_impact="This change maintains identical runtime behavior since the logic is "
    "mathematically equivalent, but reduces computational overhead during kernel configuration.",
    potential_risks="The risk is minimal as the change is a direct simplification of an existing "
    "invariant. However, developers should ensure that `num_slices` is always a positive integer.",
    key_insights="This is a clean optimization that removes unnecessary complexity. Developers "
    "should verify that `num_slices` is properly validated in all usage contexts.",
    headline="LoRA's expand kernel picks its block size with simpler code and the same result.",
)
LOOP = (
    "Developers should ensure that the list is sorted before use. This can be done by calling "
    "the sorted function. Developers should ensure that the list is sorted before using it. "
)


def answer(**sections: str) -> str:
    data = {"type": "SUBSTANTIAL", "headline": REAL.headline,
            **{k: v for k, v in zip(_KEYS, REAL_TEXTS, strict=True)}}  # fmt: skip
    return json.dumps(data | sections)


_KEYS = ("what_changed", "technical_impact", "potential_risks", "key_insights")
REAL_TEXTS = [text for _, text in REAL.items()]


def test_real_report_sections_are_not_repetition():
    assert find_repetition(REAL) is None
    assert parse_answer(answer()).sections == REAL


def test_the_same_sentence_twice_is_repetition_even_with_a_word_changed():
    found = find_repetition(SummarySections(*REAL_TEXTS[:3], LOOP))
    assert found is not None and found.kind == "sentence"
    assert "key_insights" in str(found)


def test_a_sentence_repeated_in_another_section_is_repetition():
    repeated = REAL_TEXTS[0].split(". ")[0] + "."
    found = find_repetition(SummarySections(*REAL_TEXTS[:3], f"{repeated} It matters."))
    assert found is not None and "what_changed and key_insights" in str(found)


def test_a_section_that_restates_another_is_repetition():
    reworded = REAL_TEXTS[0].replace("The PR simplifies", "In short, it simplifies")
    found = find_repetition(SummarySections(*REAL_TEXTS[:3], reworded))
    assert found is not None


def test_a_repeating_answer_is_invalid_and_the_fault_tells_the_model_what_to_do():
    with pytest.raises(InvalidAnswer, match="repeated sentence in key_insights") as caught:
        parse_answer(answer(key_insights=LOOP))
    assert "Write key_insights again in new words" in caught.value.hint


def test_sentences_do_not_end_inside_code_or_dotted_names():
    text = "It moves `vllm.model_executor.kernels` there. Then `a. b` stays! Done?"
    assert sentences(text) == ["It moves `vllm.model_executor.kernels` there.", "Then `a. b` stays!",
                               "Done?"]  # fmt: skip


def test_complete_sentences_drops_the_unfinished_tail():
    assert complete_sentences("One is done. Two is done. Three is cut") == (
        "One is done. Two is done."
    )
    assert complete_sentences("Nothing finished here") == ""


def test_an_answer_cut_in_its_last_section_is_kept_up_to_its_last_finished_sentence():
    full = answer()
    cut = full[: full.index("properly validated")]
    result = parse_answer(cut, cut_off=True)
    assert result.salvaged
    assert result.change_type == ChangeType.SUBSTANTIAL
    assert result.sections.key_insights == (
        "This is a clean optimization that removes unnecessary complexity."
    )
    assert result.sections.what_changed == REAL.what_changed


def test_an_answer_cut_before_every_section_started_is_invalid():
    full = answer()
    cut = full[: full.index('"key_insights"')]
    with pytest.raises(InvalidAnswer, match="not JSON") as caught:
        parse_answer(cut, cut_off=True)
    assert "cut off" in caught.value.hint


def test_an_answer_cut_inside_an_escape_is_kept_too():
    full = answer(key_insights='Use `"x"` now. Then \\"more')
    cut = full[: full.index("more") - 1]
    assert parse_answer(cut, cut_off=True).sections.key_insights == 'Use `"x"` now.'


def test_a_last_section_with_no_finished_sentence_is_invalid():
    full = answer(key_insights="This sentence never ends because the cap cut it off")
    with pytest.raises(InvalidAnswer, match="missing or empty: key_insights"):
        parse_answer(full[: full.index("cut it")], cut_off=True)


def test_a_section_closed_by_the_grammar_bound_keeps_its_finished_sentences():
    bounded = "First point is made. Second point runs until the bound clo"
    result = parse_answer(answer(potential_risks=bounded), section_chars=len(bounded))
    assert result.sections.potential_risks == "First point is made."


def test_a_section_the_bound_closed_in_its_first_sentence_keeps_its_finished_clause():
    # vLLM #34055's retry: refused for an empty what_changed, the PR went unsummarized.
    bounded = (
        "The PR moves the `choose_mp_linear_kernel` function from `mixed_precision/__init__.py` "
        "to `kernels/linear/__init__.py`, and it also moves the `vllm/model_executor/layers` "
        "directory to the `vllm/model_exec"
    )
    result = parse_answer(answer(what_changed=bounded), section_chars=len(bounded))
    assert result.sections.what_changed == (
        "The PR moves the `choose_mp_linear_kernel` function from `mixed_precision/__init__.py` "
        "to `kernels/linear/__init__.py`."
    )
    # A clause too short to say anything, or none at all, is still nothing.
    short = "It moves `a`, and then the `vllm/model_exec"
    with pytest.raises(InvalidAnswer, match="missing or empty: what_changed"):
        parse_answer(answer(what_changed=short), section_chars=len(short))


def test_a_fenced_answer_without_its_closing_fence_still_parses():
    assert parse_answer("```json\n" + answer()).sections == REAL


def test_a_sentence_a_later_section_repeats_is_dropped_and_the_answer_kept():
    said = REAL.what_changed.split(". ")[0] + "."
    result = parse_answer(answer(key_insights=f"{said} Validate `num_slices` at the call site."))
    assert result.sections.key_insights == "Validate `num_slices` at the call site."
    assert result.sections.what_changed == REAL.what_changed


def test_a_section_that_is_only_a_repeat_still_makes_the_answer_invalid():
    said = REAL.what_changed.split(". ")[0] + "."
    with pytest.raises(InvalidAnswer, match="repeated sentence in what_changed and key_insights"):
        parse_answer(answer(key_insights=said))


def test_an_answer_that_loops_keeps_its_other_sections_for_when_the_retry_loops_too():
    with pytest.raises(InvalidAnswer) as invalid:
        parse_answer(answer(key_insights=LOOP))
    kept = invalid.value.kept
    assert kept is not None and kept.sections == SummarySections(*REAL_TEXTS[:3], "", REAL.headline)


def test_an_answer_whose_what_changed_loops_keeps_nothing():
    with pytest.raises(InvalidAnswer) as invalid:
        parse_answer(answer(what_changed=LOOP))
    assert invalid.value.kept is None
