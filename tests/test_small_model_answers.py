"""A small model's bad answers: loops, restated sections, answers cut off at the output cap.

The fake endpoint answers like Qwen2.5-Coder-1.5B at temperature 0 did on real vLLM days: the
same request always gets the same answer, and the first answer for a PR is the bad one. The
summarizer survives each: a retry that is never the identical request, a cut-off answer that
keeps its finished sentences, and a visible mark when the model fails twice.
"""

from __future__ import annotations

import json

import pytest

from bot.core.models import ChangedFile, PullRequest
from bot.ports.summarizer import SummarizeError
from summarizer.sampling import LOCAL, LOCAL_SECTION_CHARS, RETRY_SECTION_CHARS
from tests.fakes.openai_api import FakeOpenAI, SmallModel
from tests.summarizers import hosted, local

PR = PullRequest(
    repo="o/r",
    number=7,
    title="Sort weight files in fastsafetensors_iterator",
    url="https://github.com/o/r/pull/7",
    author="dev",
    state="merged",
    files=(
        ChangedFile(
            "vllm/model_loader/weight_utils.py",
            additions=1,
            patch="@@ -1 +1,2 @@\n def fastsafetensors_iterator(files):\n+    files = sorted(files)",
        ),
    ),
)


@pytest.fixture
def server():
    with FakeOpenAI() as srv:
        yield srv


@pytest.mark.parametrize("make", [hosted, local], ids=["hosted", "local"])
@pytest.mark.parametrize("fault", ["repeat", "restate"])
async def test_a_repeating_answer_is_retried_with_a_different_request(server, make, fault):
    model = SmallModel(fault)
    server.responder = model
    result = await make(server).summarize(PR)
    assert len(model.requests) == 2
    first, retry = model.requests
    assert retry != first  # at temperature 0 the identical request would loop again
    assert "rejected" in retry["messages"][-1]["content"]  # the fault is named
    assert "said the same thing twice" in retry["messages"][-1]["content"]
    assert "Developers should also note" not in result.sections.key_insights
    assert result.usage.completion_tokens > 0  # both calls are counted


async def test_a_local_retry_also_asks_for_shorter_sections_and_stronger_repetition_control(
    server,
):
    model = SmallModel("repeat")
    server.responder = model
    await local(server).summarize(PR)
    first, retry = model.requests

    def bound(request: dict) -> int:
        schema = request["response_format"]["json_schema"]["schema"]
        return schema["properties"]["key_insights"]["maxLength"]

    assert (bound(first), bound(retry)) == (LOCAL_SECTION_CHARS, RETRY_SECTION_CHARS)
    assert retry["dry_multiplier"] > first["dry_multiplier"]
    assert retry["max_tokens"] < first["max_tokens"]


@pytest.mark.parametrize("make", [hosted, local], ids=["hosted", "local"])
async def test_a_section_that_loops_twice_is_written_by_code_and_the_rest_stands(server, make):
    model = SmallModel("always_repeat")
    server.responder = model
    result = await make(server).summarize(PR)
    assert server.completions_count == 2  # one retry, then what is left: no third call
    if make is hosted:
        assert 'The pull request "Sort weight files in' in result.sections.what_changed  # its own
    else:  # the built-in model's restatement of the title gives way to code's sentence
        assert result.sections.what_changed == (
            "In `fastsafetensors_iterator`, `files = sorted(files)` is added."
        )
    assert "Developers should also note" not in result.sections.key_insights
    assert result.sections.key_insights == "No test changes with it in this PR."  # the facts'


async def test_an_answer_whose_what_changed_loops_twice_is_a_visible_failure(server):
    server.responder = SmallModel("always_repeat_first")
    with pytest.raises(SummarizeError, match="invalid twice .*repeated sentence"):
        await local(server).summarize(PR)
    assert server.completions_count == 2


async def test_an_answer_cut_off_in_its_last_section_keeps_its_finished_sentences(server):
    model = SmallModel("cut_last")
    server.responder = model
    result = await local(server).summarize(PR)
    assert len(model.requests) == 1  # stored as it is: nothing to retry
    assert result.sections.key_insights.startswith("Reviewers should look first at")
    assert result.sections.key_insights.endswith(".")
    assert "The change is" not in result.sections.key_insights  # the unfinished sentence
    # Its finished risk stays; beside it, a sentence naming nothing of the PR gives way.
    assert result.sections.potential_risks == (
        "The main risk is an edge case around `fastsafetensors_iterator` that tests may not cover."
    )


async def test_an_answer_cut_off_before_its_last_section_is_retried(server):
    model = SmallModel("cut_early")
    server.responder = model
    result = await local(server).summarize(PR)
    assert len(model.requests) == 2
    assert "cut off" in model.requests[1]["messages"][-1]["content"]
    assert result.sections.key_insights


async def test_the_local_schema_bounds_every_section_and_the_hosted_one_does_not(server):
    await local(server).summarize(PR)
    await hosted(server).summarize(PR)
    local_request, hosted_request = server.chat_requests

    local_schema = local_request["response_format"]["json_schema"]["schema"]
    assert list(local_schema["properties"])[0] == "type"  # a cut-off answer still has it
    for key in ("what_changed", "technical_impact", "potential_risks", "key_insights"):
        assert local_schema["properties"][key]["maxLength"] == LOCAL_SECTION_CHARS
    assert local_request["temperature"] == 0
    assert local_request["dry_multiplier"] > 0  # llama.cpp's repetition control
    assert local_request["max_tokens"] == LOCAL.max_tokens

    hosted_schema = hosted_request["response_format"]["json_schema"]
    assert hosted_schema["strict"] is True
    assert "maxLength" not in json.dumps(hosted_schema)  # OpenAI's strict mode refuses it
    assert not {"dry_multiplier", "max_tokens", "temperature"} & set(hosted_request)


def test_the_output_cap_fits_four_bounded_sections_and_no_runaway():
    # The seed's sections are ~45 words; the cap is what four bounded sections can use, far
    # below the 700 tokens a looping answer used to run to.
    assert 400 <= LOCAL.max_tokens <= 600
