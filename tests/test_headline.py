"""Every summary has a headline: one plain sentence of at most 20 words saying what the PR does
for a user of the code, written in the same call as the four sections.

It is asked for and bounded by both schemas, validated like a section, scrubbed like one,
claim-checked like one, kept through a revision and through an answer cut off at the cap, and
never counted as repetition of what_changed (which it restates by design).
"""

from __future__ import annotations

import json

import pytest

from bot.core.models import ChangedFile, ChangeType, PRSummary, PullRequest, SummarySections
from summarizer.claims import check_claims, extract_claims
from summarizer.prompt import (
    COMPACT_PROMPT_VERSION,
    COMPACT_SYSTEM_PROMPT,
    LEAK_REMOVED,
    LINK_REMOVED,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    PromptBudget,
    build_prompt,
    scrub_sections,
)
from summarizer.repetition import find_repetition
from summarizer.sampling import LOCAL, LOCAL_SECTION_CHARS, RETRY_SECTION_CHARS, output_cap
from summarizer.schema import (
    HEADLINE_CHARS,
    HEADLINE_MIN_CHARS,
    HEADLINE_WORDS,
    RESPONSE_FORMAT_REVISION,
    RESPONSE_FORMAT_SCHEMA,
    InvalidAnswer,
    bounded_schema,
    parse_answer,
)
from tests.fakes.openai_api import FakeOpenAI, SmallModel, default_responder
from tests.summarizers import hosted, local

PR = PullRequest(
    repo="o/r",
    number=7,
    title="Sort weight files in fastsafetensors_iterator",
    url="https://github.com/o/r/pull/7",
    author="dev",
    state="merged",
    body="Loading is now reproducible.",
    files=(
        ChangedFile(
            "vllm/model_loader/weight_utils.py",
            additions=1,
            patch="@@ -1 +1,2 @@\n def fastsafetensors_iterator(files):\n+    files = sorted(files)",
        ),
    ),
)
HEADLINE = "Weights now load in the same order on every run, so results are reproducible."
SECTIONS = {
    "what_changed": "The PR sorts the weight files before `fastsafetensors_iterator` reads them. "
    "Before, the order depended on the file system.",
    "technical_impact": "Loading becomes deterministic across machines. The extra sort costs a "
    "negligible amount of time for the few files a model has.",
    "potential_risks": "Code that relied on the old order could notice the change. Very large "
    "shard lists are sorted once, which is cheap.",
    "key_insights": "Reproducible loading makes bugs easier to bisect. Keep new iterators "
    "sorted the same way.",
}


def answer(**fields: object) -> str:
    """A valid answer in the order the local grammar writes it: type, headline, sections."""
    return json.dumps({"type": "SUBSTANTIAL", "headline": HEADLINE, **SECTIONS} | fields)


def without_headline() -> str:
    return json.dumps({"type": "SUBSTANTIAL", **SECTIONS})


def words(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


@pytest.fixture
def server():
    with FakeOpenAI() as srv:
        yield srv


# -- the schemas ask for it ----------------------------------------------------------------------


def test_the_hosted_strict_schema_requires_a_headline_string_with_no_length_bound():
    for response_format in (RESPONSE_FORMAT_SCHEMA, RESPONSE_FORMAT_REVISION):
        schema = response_format["json_schema"]["schema"]
        assert schema["properties"]["headline"] == {"type": "string"}  # strict mode: no maxLength
        assert "headline" in schema["required"]


@pytest.mark.parametrize("revision", [False, True])
def test_the_local_grammar_asks_for_the_headline_right_after_the_type_and_bounds_it(revision):
    schema = bounded_schema(LOCAL_SECTION_CHARS, revision=revision)["json_schema"]["schema"]
    assert list(schema["properties"])[:3] == ["type", "headline", "what_changed"]
    assert schema["properties"]["headline"] == {
        "type": "string",
        "minLength": HEADLINE_MIN_CHARS,
        "maxLength": HEADLINE_CHARS,
    }
    assert "headline" in schema["required"]
    assert HEADLINE_WORDS == 20 and 120 <= HEADLINE_CHARS <= 160  # about 20 words


def test_both_system_prompts_ask_for_a_plain_headline_of_at_most_20_words():
    for prompt in (SYSTEM_PROMPT, COMPACT_SYSTEM_PROMPT):
        assert "headline" in prompt
        assert "at most 20 words" in prompt
        assert "for a user of the code" in prompt
    assert "need no backticks" in SYSTEM_PROMPT
    built = build_prompt(PR, PromptBudget(compact=True))
    assert built.messages[0]["content"] == COMPACT_SYSTEM_PROMPT


def test_the_prompt_versions_are_bumped_so_cached_summaries_without_a_headline_are_redone():
    # 2 and 3c brought the headline; 3 and 4c the change facts (issue 22); 4 and 6c the lines
    # edited in place; 5 and 7c a statement added on its own: each redoes the cache.
    assert (PROMPT_VERSION, COMPACT_PROMPT_VERSION) == ("5", "7c")


def test_the_local_output_cap_fits_four_bounded_sections_and_the_headline():
    # 3.3 characters a token is the floor the cap is computed with (see sampling.py).
    for chars in (LOCAL_SECTION_CHARS, RETRY_SECTION_CHARS):
        assert output_cap(chars) * 3.3 >= 4 * chars + HEADLINE_CHARS
    assert LOCAL.max_tokens == output_cap(LOCAL_SECTION_CHARS) <= 600


# -- the answer is checked -----------------------------------------------------------------------


def test_the_headline_is_parsed_into_the_summary_and_is_not_one_of_the_four_sections():
    parsed = parse_answer(answer())
    assert parsed.sections.headline == HEADLINE
    assert [heading for heading, _ in parsed.sections.items()] == [
        "What changed and why",
        "Technical impact",
        "Potential risks",
        "Key insights",
    ]


@pytest.mark.parametrize("value", [None, "", "   ", 42])
def test_a_missing_or_empty_headline_is_invalid_with_a_hint_naming_it(value):
    content = without_headline() if value is None else answer(headline=value)
    with pytest.raises(InvalidAnswer, match="missing or empty: headline") as caught:
        parse_answer(content)
    assert "headline" in caught.value.hint and "at most 20 words" in caught.value.hint


def test_a_missing_headline_and_section_are_named_together():
    data = json.loads(without_headline())
    del data["key_insights"]
    with pytest.raises(InvalidAnswer, match="missing or empty: headline, key_insights") as caught:
        parse_answer(json.dumps(data))
    assert "four sections" in caught.value.hint and "headline" in caught.value.hint


def test_a_headline_on_several_lines_is_kept_on_one():
    parsed = parse_answer(answer(headline="Weights now load\n  in the same order\n"))
    assert parsed.sections.headline == "Weights now load in the same order"


def test_a_headline_of_exactly_20_words_is_kept():
    assert parse_answer(answer(headline=words(20))).sections.headline == words(20)


def test_a_long_headline_keeps_its_first_sentence_when_that_sentence_fits():
    long = f"{HEADLINE} It also changes how every loader iterates over its files on disk today."
    assert len(long.split()) > HEADLINE_WORDS
    assert parse_answer(answer(headline=long)).sections.headline == HEADLINE


def test_a_single_sentence_over_20_words_is_shortened_not_refused():
    # Refusing it cost 2 of 36 real PRs their whole summary with the built-in model.
    long = "Lets users pick the attention backend per model, so FlashInfer runs on Blackwell"
    long += " GPUs while older cards fall back to Triton without any new flag"
    headline = parse_answer(answer(headline=long + ".")).sections.headline
    assert (
        headline
        == "Lets users pick the attention backend per model, so FlashInfer runs on Blackwell GPUs "
        "while older cards fall back…"  # at the last clause break: "to Triton" would not fit
    )
    assert len(headline.split()) <= HEADLINE_WORDS
    assert parse_answer(answer(headline=words(21) + ".")).sections.headline.endswith("…")


def test_a_headline_the_grammar_closed_at_its_bound_keeps_its_finished_sentence():
    cut = ("Weights load in order. " + "then " * 40)[: HEADLINE_CHARS - 1]
    parsed = parse_answer(answer(headline=cut), section_chars=LOCAL_SECTION_CHARS)
    assert parsed.sections.headline == "Weights load in order."
    with pytest.raises(InvalidAnswer, match="headline cut off"):
        parse_answer(answer(headline="x" * HEADLINE_CHARS), section_chars=LOCAL_SECTION_CHARS)


def test_a_headline_restating_what_changed_is_not_repetition():
    first = SECTIONS["what_changed"].split(". ")[0] + "."
    parsed = parse_answer(answer(headline=first))
    assert parsed.sections.headline == first
    assert find_repetition(parsed.sections) is None


def test_an_answer_cut_off_in_its_last_section_keeps_its_headline():
    full = answer()
    cut = full[: full.index("Keep new iterators")]
    parsed = parse_answer(cut, cut_off=True)
    assert parsed.salvaged and parsed.sections.headline == HEADLINE
    assert parsed.sections.key_insights == "Reproducible loading makes bugs easier to bisect."


def test_an_answer_cut_before_its_headline_ended_is_invalid():
    full = answer()
    with pytest.raises(InvalidAnswer, match="not JSON"):
        parse_answer(full[: full.index("same order")], cut_off=True)


# -- scrubbed and claim-checked like a section ----------------------------------------------------


def sections_with(headline: str) -> SummarySections:
    return SummarySections(**SECTIONS, headline=headline)


def test_the_scrub_keeps_the_headline_and_removes_links_and_mass_mentions_from_it():
    scrubbed = scrub_sections(
        sections_with(
            "@everyone <!here> see [the fix](https://evil.example/x), https://evil.example/y "
            "and https://github.com/o/r/pull/7 about `https://x.example/code`."
        ),
        PR,
    )
    assert scrubbed.headline == (
        f"everyone here see the fix {LINK_REMOVED}, {LINK_REMOVED} "
        "and https://github.com/o/r/pull/7 about `https://x.example/code`."
    )
    assert scrubbed.what_changed == SECTIONS["what_changed"]  # the sections are scrubbed too


def test_a_clean_headline_is_kept_as_it_is():
    assert scrub_sections(sections_with(HEADLINE), PR).headline == HEADLINE


def test_a_headline_quoting_the_instructions_is_dropped_so_the_title_stands_in():
    quote = "You summarize one merged GitHub pull request for the developers of the project."
    scrubbed = scrub_sections(sections_with(quote), PR)
    assert scrubbed.headline == "" and LEAK_REMOVED not in scrubbed.headline


def test_names_in_the_headline_are_claims_that_must_be_grounded_in_the_pr():
    grounded = sections_with(
        "`fastsafetensors_iterator` in vllm/model_loader/weight_utils.py sorts."
    )
    assert check_claims(grounded, PR).ok
    invented = sections_with("Adds `GhostLoader` to vllm/ghost/loader.py for users.")
    assert extract_claims(invented)[:2] == ["GhostLoader", "fastsafetensors_iterator"]
    assert check_claims(invented, PR).ungrounded == ("GhostLoader", "vllm/ghost/loader.py")


# -- through the real client, against the fake endpoint --------------------------------------------


@pytest.mark.parametrize("make", [hosted, local], ids=["hosted", "local"])
async def test_a_summary_carries_the_models_headline(server, make):
    result = await make(server).summarize(PR)
    expected = json.loads(default_responder(server.chat_requests[0]))["headline"]
    assert result.sections.headline == expected
    assert 0 < len(expected.split()) <= HEADLINE_WORDS


async def test_an_answer_without_a_headline_is_repaired_once_naming_the_headline(server):
    server.script([("content", without_headline())])
    result = await hosted(server).summarize(PR)
    assert server.completions_count == 2
    assert "missing or empty: headline" in server.chat_requests[1]["messages"][-1]["content"]
    assert result.sections.headline


async def test_an_invented_name_in_the_headline_triggers_the_grounding_retry(server):
    server.script([("content", answer(headline="Adds `GhostLoader` so loading is reproducible."))])
    result = await hosted(server).summarize(PR)
    assert server.completions_count == 2
    assert "`GhostLoader`" in server.chat_requests[1]["messages"][-1]["content"]
    assert "GhostLoader" not in result.sections.headline


async def test_a_local_answer_cut_off_by_the_cap_keeps_its_headline(server):
    server.responder = SmallModel("cut_last")
    result = await local(server).summarize(PR)
    assert server.completions_count == 1
    assert result.sections.headline.startswith("Users of the code get")


def current(headline: str) -> PRSummary:
    return PRSummary(
        repo="o/r", number=7, revision_sha="abc", prompt_version=PROMPT_VERSION, model="m",
        change_type=ChangeType.SUBSTANTIAL, sections=sections_with(headline), files_covered=1,
        files_total=1,
    )  # fmt: skip


async def test_a_revision_shows_the_current_headline_and_keeps_the_corrected_one(server):
    fixed = "Weight files load sorted, so every run reads them in the same order."
    server.script([("content", answer(headline=fixed, changed=True, change_note="Headline."))])
    revision = await hosted(server).revise(PR, current(HEADLINE))
    shown = server.chat_requests[0]["messages"][1]["content"].split("Current summary:")[1]
    assert json.loads(shown)["headline"] == HEADLINE
    assert list(json.loads(shown))[0] == "headline"
    assert revision.changed and revision.result.sections.headline == fixed


async def test_a_revision_that_changes_nothing_keeps_the_headline(server):
    server.script([("content", answer(changed=False, change_note="All correct."))])
    revision = await hosted(server).revise(PR, current(HEADLINE))
    assert not revision.changed and revision.result.sections.headline == HEADLINE


async def test_a_summary_made_before_headlines_existed_gets_one_when_revised(server):
    server.script([("content", answer(changed=True, change_note="Added the headline."))])
    revision = await hosted(server).revise(PR, current(""))
    shown = server.chat_requests[0]["messages"][1]["content"].split("Current summary:")[1]
    assert json.loads(shown)["headline"] == ""
    assert revision.changed and revision.result.sections.headline == HEADLINE
