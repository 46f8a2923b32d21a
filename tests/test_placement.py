"""A change put in the wrong place is a finding: the facts know where every changed line is.

The built-in model names the right pieces and the wrong place: "to include
`target_channels=1` in the `get_replacement` function" when the diff adds it in
`get_data_parser`, or "removes two methods and a function from the `LMCacheMPWorkerAdapter`
class" when one of the three is that class's. Such a sentence goes; the right place, a
place the code cannot be sure of, and a negated sentence are left alone.
"""

from __future__ import annotations

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import FindingKind, check_answer
from summarizer.facts import extract_facts
from summarizer.placement import misplaced, placed_lines


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title="Fix it", url="u", author="a", state="merged", files=files
    )


# vLLM #34140's shape: a keyword added in one method, a length read in another.
VOXTRAL = pr_of(ChangedFile("vllm/model_executor/models/voxtral.py", additions=3, deletions=1,
    patch=(
        "@@ -60,6 +60,7 @@ class VoxtralProcessingInfo(BaseProcessingInfo):\n"
        "     def get_data_parser(self):\n"
        "         return MultiModalDataParser(\n"
        "             target_sr=self.sampling_rate,\n"
        "+            target_channels=1,\n"
        "         )\n"
        "@@ -200,7 +201,8 @@ class VoxtralMultiModalProcessor(BaseProcessor):\n"
        "         def get_replacement(item_idx: int):\n"
        "-            audio_len = audios.get_audio_length(item_idx)\n"
        "+            audio_arr = out_audio_items[item_idx]\n"
        "+            audio_len = len(audio_arr)\n"
        "             return [self.audio_token_id] * audio_len\n"
    )))  # fmt: skip

# vLLM #34175's shape: of three definitions removed, one is the adapter's.
LMCACHE = pr_of(ChangedFile("vllm/distributed/lmcache_mp.py", deletions=9, patch=(
    "@@ -10,9 +10,0 @@ import torch\n"
    "-def convert_block_hashes_to_bytes(hashes):\n"
    "-    return [h.to_bytes() for h in hashes]\n"
    "-\n"
    "@@ -40,9 +31,3 @@ class LMCacheMPWorkerAdapter:\n"
    "     def __init__(self):\n"
    "         self.chunk_size = 256\n"
    "-\n"
    "-    def _block_hashes_to_keys(self, hashes):\n"
    "-        return [self._key(h) for h in hashes]\n"
    "@@ -80,6 +65,3 @@ class LoadStoreOp:\n"
    "     block_ids: list[int]\n"
    "-\n"
    "-    def __post_init__(self):\n"
    "-        assert self.block_ids\n"
)))  # fmt: skip


def test_each_changed_line_knows_the_definition_it_lies_in():
    where = {line.text: line.where for line in placed_lines(VOXTRAL)}
    assert where["target_channels=1,"] == ("VoxtralProcessingInfo", "get_data_parser")
    assert where["audio_len=len(audio_arr)"] == ("VoxtralMultiModalProcessor", "get_replacement")


def test_code_said_to_be_added_in_a_function_the_diff_does_not_add_it_in_is_misplaced():
    lines = placed_lines(VOXTRAL)
    wrong = (
        "It changes the parser to include `target_channels=1` in the `get_replacement` function."
    )
    assert misplaced(wrong, lines, None) == (
        "puts `target_channels=1` in `get_replacement`, where the diff does not change it"
    )
    right = "It adds `target_channels=1` in the `get_data_parser` method."
    assert misplaced(right, lines, None) == ""
    qualified = "It adds `target_channels=1` to `VoxtralProcessingInfo.get_data_parser`."
    assert misplaced(qualified, lines, None) == ""
    negated = "It does not add `target_channels=1` in the `get_replacement` function."
    assert misplaced(negated, lines, None) == ""


def test_a_class_said_to_change_in_a_method_that_is_not_its_own_is_misplaced():
    lines = placed_lines(VOXTRAL)
    wrong = (
        "The `VoxtralProcessingInfo` class now reads `audio_len` in the `get_replacement` method."
    )
    assert "puts `VoxtralProcessingInfo` in `get_replacement`" in misplaced(wrong, lines, None)
    right = "The `VoxtralMultiModalProcessor` class now reads `audio_len` in `get_replacement`."
    assert misplaced(right, lines, None) == ""


def test_a_file_or_a_name_the_diff_does_not_change_is_no_place_to_judge():
    lines = placed_lines(VOXTRAL)
    assert misplaced("It adds `target_channels=1` in `voxtral.py`.", lines, None) == ""
    assert misplaced("It adds `target_channels=1` to the `Parser` class.", lines, None) == ""


def test_more_definitions_said_removed_from_a_class_than_the_diff_removes_there():
    facts = extract_facts(LMCACHE)
    lines = placed_lines(LMCACHE)
    wrong = "The PR removes two methods and a function from the `LMCacheMPWorkerAdapter` class."
    assert misplaced(wrong, lines, facts) == (
        "says 3 definitions are removed in `LMCacheMPWorkerAdapter`; the diff has 1 there"
    )
    right = "The PR removes a method from the `LMCacheMPWorkerAdapter` class."
    assert misplaced(right, lines, facts) == ""


def test_a_misplaced_sentence_is_a_finding_that_takes_the_sentence_out():
    said = SummarySections(
        "The PR adds `target_channels=1` in the `get_replacement` function.", "", "", ""
    )
    found = check_answer(VOXTRAL, said, ChangeType.SUBSTANTIAL, extract_facts(VOXTRAL))
    assert [f.kind for f in found] == [FindingKind.CONTRADICTS_FACTS]


# vLLM #34183's shape: the scheduler's hunk names `append_output_token_ids` only in a comment
# it removes, and the hunk header hides the method the change is in.
SESSION = pr_of(ChangedFile("vllm/v1/core/sched/scheduler.py", additions=2, deletions=4, patch=(
    "@@ -982,8 +982,6 @@ class Scheduler(SchedulerInterface):\n"
    "         session.prompt_token_ids.extend(update.prompt_token_ids or ())\n"
    "-        # Update block hashes for the new tokens\n"
    "-        # (mirrors Request.append_output_token_ids)\n"
    "-        if session.get_hash_new_full_blocks is not None:\n"
    "-            session.block_hashes.extend(session.get_hash_new_full_blocks())\n"
    "+        # Update block hashes for the new tokens.\n"
    "+        session.update_block_hashes()\n"
    "         session.num_prompt_tokens = len(session.prompt_token_ids)\n"
)))  # fmt: skip


def test_a_method_the_diff_names_only_in_a_comment_is_a_guessed_place():
    guessed = (
        "The `Scheduler` class is modified to call `update_block_hashes` in the "
        "`append_output_token_ids` method."
    )
    found = check_answer(
        SESSION, SummarySections(guessed, "", "", ""), ChangeType.SUBSTANTIAL,
        extract_facts(SESSION),
    )  # fmt: skip
    assert [f.explanation for f in found] == [
        "puts a change in `append_output_token_ids`, which the diff names only in a comment"
    ]
    said = "The `Scheduler` class now calls `update_block_hashes` on the session."
    assert check_answer(
        SESSION, SummarySections(said, "", "", ""), ChangeType.SUBSTANTIAL, extract_facts(SESSION)
    ) == []


# vLLM #34687's shape: test helpers added in the test file, the backend changed beside them.
HELPERS = pr_of(
    ChangedFile("vllm/v1/attention/backends/flashinfer.py", additions=1, deletions=1, patch=(
        "@@ -10,3 +10,3 @@ def fast_plan_decode(self, indptr):\n"
        "-    self._cached_module.plan(indptr)\n"
        "+    self.fast_decode_plan(indptr=indptr)\n"
    )),
    ChangedFile("tests/kernels/attention/test_flashinfer.py", additions=4, patch=(
        "@@ -1,2 +1,6 @@ import torch\n"
        " \n"
        "+def _make_paged_kv_metadata(n):\n"
        "+    return torch.zeros(n)\n"
        "+def test_fast_plan_decode_matches_full_plan():\n"
        "+    assert _make_paged_kv_metadata(1) is not None\n"
    )),
)  # fmt: skip


def test_a_definition_said_to_be_added_to_a_file_it_is_not_in_is_misplaced():
    facts, lines = extract_facts(HELPERS), placed_lines(HELPERS)
    said = (
        "The PR adds new functions `_make_paged_kv_metadata` and "
        "`test_fast_plan_decode_matches_full_plan` to the "
        "`vllm/v1/attention/backends/flash infer.py` file."  # the model's space, read past
    )
    assert misplaced(said, lines, facts) == (
        "puts `_make_paged_kv_metadata` in `vllm/v1/attention/backends/flashinfer.py`, where "
        "the diff has it in `tests/kernels/attention/test_flashinfer.py`"
    )
    for fine in (
        "The PR adds `_make_paged_kv_metadata` to `tests/kernels/attention/test_flashinfer.py`.",
        "The addition of `_make_paged_kv_metadata` and the change to `flashinfer.py` help.",
        "The PR moves `_make_paged_kv_metadata` from `flashinfer.py` to the tests.",
        "It changes the tests in `tests/kernels/attention/test_flashinfer.py` by adding "
        "`_make_paged_kv_metadata`.",
    ):
        assert misplaced(fine, lines, facts) == "", fine
    # The place first, then what is added there (judge pass 37, vLLM #34973's test helper).
    first = (
        "The PR changes the `fast_plan_decode` function in `vllm/v1/attention/backends/"
        "flashinfer.py` by adding a new function `_make_paged_kv_metadata`."
    )
    assert misplaced(first, lines, facts).startswith("puts `_make_paged_kv_metadata` in")
