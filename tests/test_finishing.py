"""What code adds to the model's answer: the PR's names marked as code, and, where the model
named nothing, sentences written from the change facts, true by construction."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import check_answer, remove_sentences
from summarizer.facts import ChangeFacts, Move, extract_facts
from summarizer.finishing import (
    change_sentence,
    code_names,
    fillable,
    finish,
    mark_code,
    risk_sentence,
)
from summarizer.insight import interface_sentence
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile


def pr_of(*files: ChangedFile, title: str = "A change") -> PullRequest:
    return PullRequest(REPO, 1, title, "u", "a", "merged", files=files)


TIMING = pr_of(
    ChangedFile(
        "vllm/multimodal/processing/context.py", additions=6, deletions=4,
        patch="@@ -10,6 +10,8 @@ import time\n"
        "-class InputProcessingContext:\n-    def get_timing_stats(self):\n-        return {}\n"
        "+class TimingContext:\n+    def record(self, name):\n+        self.names.append(name)\n"
        "+    def register(self):\n+        pass\n",
    ),
)  # fmt: skip
DEAD_CODE = pr_of(
    ChangedFile(
        "vllm/model_executor/layers/fused_moe/utils.py", deletions=5,
        patch="@@ -40,8 +40,3 @@ import torch\n def keep():\n     pass\n-\n"
        "-def _fp8_perm(m, idx):\n-    if m.dtype == torch.float8_e4m3fn:\n"
        "-        return m.view(torch.uint8)[idx].view(m.dtype)\n-    return m[idx]\n",
    ),
)  # fmt: skip
NEW_SIGNATURE = pr_of(
    ChangedFile(
        "vllm/lora/ops/utils.py", additions=1, deletions=1,
        patch="@@ -5,3 +5,3 @@\n-def get_lora_op_configs(op_type, num_slices, add_inputs):\n"
        "+def get_lora_op_configs(op_type, num_slices):\n     return {}\n",
    ),
)  # fmt: skip

GENERIC = SummarySections(
    what_changed="The PR decouples the TimingContext from the InputProcessingContext.",
    technical_impact="Timing is recorded in one place, through `record`.",
    potential_risks="The refactoring may introduce new bugs. Developers should test thoroughly.",
    key_insights="Use the new context for timing.",
)


def test_a_name_of_the_change_written_in_prose_is_marked_as_code():
    finished = mark_code(GENERIC, code_names(extract_facts(TIMING), TIMING))
    assert finished.what_changed == (
        "The PR decouples the `TimingContext` from the `InputProcessingContext`."
    )


def test_code_spans_and_plain_words_stay_as_written():
    names = code_names(extract_facts(TIMING), TIMING)
    assert "register" not in names and "record" not in names  # English words in prose
    text = SummarySections("Keeps `TimingContext.record` and registers it.", "x", "y", "z")
    assert mark_code(text, names) == text


def test_a_what_changed_that_names_nothing_is_led_by_the_facts():
    sections = SummarySections("It cleans up the utilities.", "x", "y", "z")
    finished = finish(sections, DEAD_CODE, extract_facts(DEAD_CODE))
    assert finished.what_changed == "The diff removes `_fp8_perm`. It cleans up the utilities."


def test_a_small_models_sentence_that_names_nothing_more_gives_way_to_the_facts():
    # Where code says what changed, the built-in model's sentences that name nothing more are
    # restatements or guesses at a purpose: a third of those were wrong on the held-out days
    # ("to handle multiple shard IDs for BNB", backwards, vLLM #35289). A hosted model keeps
    # them (above).
    sections = SummarySections("It cleans up the utilities.", "x", "y", "z")
    finished = finish(sections, DEAD_CODE, extract_facts(DEAD_CODE), small_model=True)
    assert finished.what_changed == "The diff removes `_fp8_perm`."


def test_a_small_models_impact_that_names_nothing_the_facts_do_not_gives_way_to_them():
    # vLLM #35123's "The new macro blocks will enable CUDA support" named nothing and was wrong.
    guessed = SummarySections("x", "The change will enable faster loading for the model.", "y", "z")
    facts = extract_facts(NEW_SIGNATURE)
    finished = finish(guessed, NEW_SIGNATURE, facts, small_model=True)
    assert finished.technical_impact == (
        "For callers and users, the PR changes the signature of `get_lora_op_configs`."
    )
    named = SummarySections("x", "`fused_moe_lora` still passes three arguments.", "y", "z")
    finished = finish(named, NEW_SIGNATURE, facts, small_model=True)
    assert finished.technical_impact == named.technical_impact


def test_a_model_sentence_that_names_more_than_code_said_stays_beside_it():
    said = "It cleans up the utilities. `_fp8_perm` was only called by `permute_weights`."
    sections = SummarySections(said, "x", "y", "z")
    finished = finish(sections, DEAD_CODE, extract_facts(DEAD_CODE), small_model=True)
    assert finished.what_changed == (
        "The diff removes `_fp8_perm`. `_fp8_perm` was only called by `permute_weights`."
    )


def test_a_what_changed_that_names_the_code_is_left_alone():
    said = (
        "It removes `_fp8_perm` and its `torch.float8_e4m3fn` view from "
        "`vllm/model_executor/layers/fused_moe/utils.py`."
    )
    sections = SummarySections(said, "x", "y", "z")
    assert finish(sections, DEAD_CODE, extract_facts(DEAD_CODE)).what_changed == said


MOVED_FLAG = pr_of(
    ChangedFile("vllm/benchmarks/serve.py", deletions=5, patch=(
        "@@ -1300,9 +1300,4 @@ def add_cli_args(parser):\n     )\n"
        "-    parser.add_argument(\n-        '--trust-remote-code',\n"
        "-        action='store_true',\n-        help='Trust remote code',\n-    )\n"
        "     parser.add_argument('--disable-tqdm')\n")),
    ChangedFile("vllm/benchmarks/datasets.py", additions=5, patch=(
        "@@ -1314,3 +1314,8 @@ def add_dataset_parser(parser):\n"
        "+    parser.add_argument(\n+        '--trust-remote-code',\n"
        "+        action='store_true',\n+        help='Trust remote code',\n+    )\n"
        "     parser.add_argument('--seed', type=int, default=0)\n")),
)  # fmt: skip


def test_a_move_told_as_an_addition_is_led_by_the_move():
    said = SummarySections(
        "The PR adds `--trust-remote-code` to `add_dataset_parser` in `datasets.py`.", "", "", ""
    )
    what = finish(said, MOVED_FLAG, extract_facts(MOVED_FLAG)).what_changed
    assert what == (
        "The diff moves the CLI flag `--trust-remote-code` from `vllm/benchmarks/serve.py` to "
        "`vllm/benchmarks/datasets.py`. " + said.what_changed
    )
    told = SummarySections(
        "It moves `--trust-remote-code` from `add_cli_args` to `add_dataset_parser`.", "", "", ""
    )
    assert finish(told, MOVED_FLAG, extract_facts(MOVED_FLAG)).what_changed == told.what_changed


def test_boilerplate_risk_gives_way_to_the_callers_of_what_was_removed():
    sections = SummarySections("x", "y", "There is no known risk. Test thoroughly.", "z")
    finished = finish(sections, DEAD_CODE, extract_facts(DEAD_CODE))
    assert finished.potential_risks == (
        "Code outside this diff that still uses `_fp8_perm` breaks: the PR removes it, and no "
        "line the diff shows names it any more."
    )


def test_a_removal_says_whether_the_diff_still_names_it_and_whether_it_was_a_script():
    # vLLM #35418 removed benchmark mocks that a reader wanted called dead code.
    still_called = pr_of(ChangedFile(
        "vllm/model_executor/layers/fused_moe/utils.py", deletions=2,
        patch="@@ -40,5 +40,3 @@ import torch\n-def _fp8_perm(m, idx):\n-    return m[idx]\n"
        " def keep(m):\n     return _fp8_perm(m, 0)\n",
    ))  # fmt: skip
    assert risk_sentence(extract_facts(still_called), still_called) == (
        "Code outside this diff that still uses `_fp8_perm` breaks: the PR removes it."
    )
    script = pr_of(ChangedFile(
        "benchmarks/attention_benchmarks/common.py", deletions=3,
        patch="@@ -40,5 +40,2 @@ import torch\n-class MockRunner:\n-    pass\n-\n class Kept:\n     pass\n",
    ))  # fmt: skip
    assert risk_sentence(extract_facts(script), script) == (
        "Code outside this diff that still uses `MockRunner` breaks: the PR removes it, and no "
        "line the diff shows names it any more; it stood in "
        "`benchmarks/attention_benchmarks/common.py`, a script beside the library."
    )


def test_a_removed_parameter_is_the_risk_named():
    assert risk_sentence(extract_facts(NEW_SIGNATURE), NEW_SIGNATURE) == (
        "A caller that still passes `add_inputs` to `get_lora_op_configs` breaks: "
        "the parameter is gone."
    )
    assert change_sentence(extract_facts(NEW_SIGNATURE)) == (
        "The diff removes the parameter `add_inputs` from `get_lora_op_configs`."
    )


NESTED = pr_of(
    ChangedFile(
        "tools/gen.py", additions=1, deletions=3,
        patch="@@ -10,6 +10,4 @@ def table(rows):\n     out = []\n-    def sort_key(row):\n"
        "-        return row.name\n-    rows.sort(key=sort_key)\n"
        "+    rows.sort(key=lambda row: row.name)\n     return out\n",
    ),
    ChangedFile(
        "vllm/x.py", additions=1, deletions=1,
        patch="@@ -1,2 +1,2 @@\n def run(a):\n-    return a\n+    return a + 1\n",
    ),
)  # fmt: skip


def test_a_function_nested_in_a_function_has_no_outside_callers_to_warn_about():
    facts = extract_facts(NESTED)
    assert [d.name for d in facts.of("removed")] == ["table.sort_key"]
    # The risk names the code that runs, not the developers' tool.
    assert risk_sentence(facts, NESTED) == (
        "In `vllm/x.py`, `run` changes, and no test in this PR covers it: a mistake there "
        "shows only when that code runs."
    )


def test_a_risk_that_names_the_code_is_kept_as_the_model_wrote_it():
    risk = "A caller of `_fp8_perm` outside the repository would fail."
    sections = SummarySections("x", "y", risk, "z")
    assert finish(sections, DEAD_CODE, extract_facts(DEAD_CODE)).potential_risks == risk


def test_a_test_only_change_says_which_files_and_that_production_code_is_untouched():
    tests_only = pr_of(
        ChangedFile(
            "tests/test_a.py", additions=1, deletions=1, patch="@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        )
    )
    assert risk_sentence(extract_facts(tests_only), tests_only) == (
        "Only `tests/test_a.py` changes here: tests, docs, CI or comments, not the code that "
        "runs in production."
    )
    # A source file whose only change is its comments runs as it did.
    comments = pr_of(
        ChangedFile("vllm/a.py", additions=1, deletions=1, patch="@@ -1 +1 @@\n-# old\n+# new\n"),
        *tests_only.files,
    )
    assert risk_sentence(extract_facts(comments), comments) == (
        "Only `vllm/a.py` and `tests/test_a.py` change here: tests, docs, CI or comments, not "
        "the code that runs in production."
    )


def test_without_facts_the_answer_is_unchanged():
    assert finish(GENERIC, TIMING, None, ChangeType.SUBSTANTIAL) == GENERIC


def test_new_cli_flags_are_said_with_the_file_that_parses_them_once_for_each_file():
    # vLLM #35220: three flags of the benchmark's own parser, not the server's.
    pr = PullRequest("o/r", 1, "t", "u", "a", "merged", files=(ChangedFile(
        "vllm/benchmarks/serve.py", "modified", 4, 0, (
            "@@ -10,2 +10,6 @@ def add_cli_args(parser):\n"
            "     parser.add_argument('--seed', type=int, default=0)\n"
            "+    parser.add_argument('--plot-timeline', action='store_true')\n"
            "+    parser.add_argument('--plot-dataset-stats', action='store_true')\n"
            "     return parser\n"
        )),))  # fmt: skip
    assert interface_sentence(extract_facts(pr), pr) == (
        "For callers and users, the PR adds the CLI flags `--plot-timeline` and "
        "`--plot-dataset-stats` in `vllm/benchmarks/serve.py`."
    )


def test_a_private_or_special_method_removed_is_not_said_to_break_outside_callers():
    # vLLM #34175: no code outside a class calls its `_helper`, and none calls
    # `__post_init__` by name; a reader scored that risk boilerplate.
    pr = PullRequest("o/r", 1, "t", "u", "a", "merged", files=(ChangedFile(
        "vllm/distributed/kv_transfer/lmcache_mp.py", "modified", 0, 8, (
            "@@ -10,12 +10,4 @@ class LoadStoreOp:\n"
            "     block_ids: list[int]\n"
            "-    def __post_init__(self):\n"
            "-        assert len(self.block_hashes) == len(self.block_ids)\n"
            "-\n"
            "-    def _to_keys(self):\n"
            "-        return [bytes(h) for h in self.block_hashes]\n"
            "-\n"
            "-def convert_block_hashes_to_bytes(hashes):\n"
            "-    return [bytes(h) for h in hashes]\n"
        )),))  # fmt: skip
    finished = finish(SummarySections("x", "y", "", "z"), pr, extract_facts(pr))
    assert finished.potential_risks == (
        "Code outside this diff that still uses `convert_block_hashes_to_bytes` breaks: the PR "
        "removes it, and no line the diff shows names it any more."
    )


def test_a_hosted_models_generic_answer_is_stored_with_the_facts_sentences_in_one_request(
    env, github, llm
):
    day = "2026-02-23"
    patch = DEAD_CODE.files[0].patch
    github.add_pr(REPO, make_pr(35068, f"{day} 10:00:00", title="[Refactor] Remove dead code",
                                file_list=[FakeFile(DEAD_CODE.files[0].filename, patch=patch)]))  # fmt: skip
    llm.script([("content", json.dumps({
        "type": "SUBSTANTIAL", "headline": "Dead code removed from the MoE utilities",
        "what_changed": "The PR cleans up the fused MoE utilities.",
        "technical_impact": "The module is shorter.",
        "potential_risks": "There is no known risk. Developers should test thoroughly.",
        "key_insights": "Less code to maintain.",
    }))] * 2)  # fmt: skip
    result = CliRunner().invoke(cli, ["report", "--date", day, "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["pull_requests"]
    summary = entry["summary"]
    assert summary["what_changed"].startswith("The diff removes `_fp8_perm`.")
    assert summary["potential_risks"].startswith(
        "Code outside this diff that still uses `_fp8_perm` breaks"
    )
    assert "test thoroughly" not in summary["potential_risks"]
    assert entry["type"] == "TRIVIAL"  # a clean-up that only deletes code
    # Boilerplate risk alone is mended by code, not by a second generation (20 s on a CPU).
    assert len(llm.summary_requests) == 1


REORDERED = pr_of(
    ChangedFile("vllm/v1/structured_output/backend_xgrammar.py", additions=5, deletions=5, patch=(
        "@@ -304,12 +304,12 @@ def validate_xgrammar_grammar(sampling_params):\n"
        "+        if has_unsupported(schema):\n+            raise ValueError(\n"
        "+                'not supported by xgrammar'\n+            )\n"
        "         try:\n             xgr.Grammar.from_json_schema(schema)\n"
        "         except Exception as err:\n             raise ValueError(err) from err\n"
        "-        if has_unsupported(schema):\n-            raise ValueError(\n"
        "-                'not supported by xgrammar'\n-            )\n"
        "         return\n")),
)  # fmt: skip


def test_a_check_moved_ahead_in_its_function_is_told_as_run_earlier():
    said = SummarySections("The PR adds a validation step for `schema`.", "", "", "")
    what = finish(said, REORDERED, extract_facts(REORDERED)).what_changed
    assert what == (
        "The diff moves 4 unchanged lines starting `if has_unsupported(schema):` before "
        "`xgr.Grammar.from_json_schema(schema)` in `validate_xgrammar_grammar` "
        "(`vllm/v1/structured_output/backend_xgrammar.py`); "
        "changes `validate_xgrammar_grammar`. " + said.what_changed
    )


def test_a_moved_flag_is_the_risk_of_the_parser_it_left_even_beside_the_models_own():
    said = SummarySections(
        "It moves the flag.", "", "`add_dataset_parser` now parses one more flag for every dataset.", ""
    )
    risks = finish(said, MOVED_FLAG, extract_facts(MOVED_FLAG)).potential_risks
    assert risks == (
        "The CLI flag `--trust-remote-code` is now defined in `vllm/benchmarks/datasets.py`, "
        "not `vllm/benchmarks/serve.py`: code that read it from the old place without the new "
        "one loses it, and code that already defined it where it now arrives defines it twice. "
        + said.potential_risks
    )


def test_code_run_in_another_order_is_the_risk_named_with_the_code_it_now_passes():
    # `try:` names nothing: the call inside it is what the check now runs ahead of.
    assert risk_sentence(extract_facts(REORDERED), REORDERED) == (
        "The lines starting `if has_unsupported(schema):` in `validate_xgrammar_grammar` now "
        "run before `xgr.Grammar.from_json_schema(schema)`, the code they used to follow: "
        "an input that both handle now meets them first."
    )


def test_a_model_risk_that_names_the_removed_code_keeps_its_own_words():
    said = SummarySections("x", "y", "Callers of `_fp8_perm` in other kernels break.", "z")
    assert finish(said, DEAD_CODE, extract_facts(DEAD_CODE)).potential_risks == (
        "Callers of `_fp8_perm` in other kernels break."
    )


def test_a_promise_of_no_new_bugs_beside_a_real_risk_is_dropped():
    said = SummarySections(
        "x",
        "y",
        "The change does not introduce any new bugs.\n- Callers of `_fp8_perm` break.",
        "z",
    )
    assert finish(said, DEAD_CODE, extract_facts(DEAD_CODE)).potential_risks == (
        "- Callers of `_fp8_perm` break."
    )


def test_a_model_risk_that_only_says_behaviour_changes_or_that_a_name_must_be_set_right_goes():
    # vLLM #30950 and #35098 on a fresh 02-23 run: each was the whole risk section.
    said = SummarySections("x", "y", (
        "The PR changes the behavior of `_fp8_perm` and its callers. "
        "It is a risk if `_fp8_perm` is not set correctly."
    ), "z")  # fmt: skip
    assert finish(said, DEAD_CODE, extract_facts(DEAD_CODE)).potential_risks == (
        "Code outside this diff that still uses `_fp8_perm` breaks: the PR removes it, and no "
        "line the diff shows names it any more."
    )


def test_a_model_risk_that_says_what_the_changed_behaviour_does_stays():
    said = SummarySections("x", "y", (
        "The PR changes the behavior of `_fp8_perm`: fp8 tensors indexed by callers break."
    ), "z")  # fmt: skip
    risks = finish(said, DEAD_CODE, extract_facts(DEAD_CODE)).potential_risks
    assert risks.endswith("fp8 tensors indexed by callers break.")


def test_lines_moved_between_two_hunks_of_one_file_do_not_lead_what_changed():
    patch = (
        "@@ -10,6 +10,3 @@ class Table:\n"
        "-    rows = parse(text)\n-    rows.sort()\n-    emit(rows)\n"
        "     return None\n"
        "@@ -80,3 +77,6 @@ def render():\n"
        "+    rows = parse(text)\n+    rows.sort()\n+    emit(rows)\n"
        "     return None\n"
    )
    pr = pr_of(ChangedFile("tools/table.py", additions=3, deletions=3, patch=patch))
    facts = extract_facts(pr)
    assert facts.moved_lines and not facts.moved_lines[0].reordered
    said = SummarySections("It edits the table tool.", "", "", "")
    assert "unchanged lines" not in finish(said, pr, facts).what_changed


def test_the_changed_code_risk_names_each_changed_definition_of_its_file_but_no_enclosing_class():
    # vLLM #33945 changes two attention patterns; naming only the first hid the second.
    patterns = pr_of(ChangedFile("vllm/fusion.py", additions=2, deletions=0, patch=(
        "@@ -10,6 +10,7 @@ class AttentionFp8StaticQuantPattern(AttentionQuantPattern):\n"
        "     def pattern(self, q, k, v):\n"
        "+        kv_cache_dummy_dep = self.empty(0)\n"
        "         return q\n"
        "@@ -40,6 +41,7 @@ class AttentionNvfp4QuantPattern(AttentionQuantPattern):\n"
        "     def pattern(self, q, k, v):\n"
        "+        kv_cache_dummy_dep = self.empty(0)\n"
        "         return q\n")))  # fmt: skip
    assert risk_sentence(extract_facts(patterns), patterns) == (
        "In `vllm/fusion.py`, `AttentionFp8StaticQuantPattern.pattern` and "
        "`AttentionNvfp4QuantPattern.pattern` change, and no test in this PR covers them: a "
        "mistake there shows only when that code runs."
    )


def test_a_rename_leads_what_changed_and_its_old_callers_are_the_risk():
    renamed = pr_of(ChangedFile("engine/platforms/rocm.py", additions=2, deletions=3, patch=(
        "@@ -101,9 +101,8 @@ def _query_arch() -> str:\n"
        "-@cache\n"
        "-def _get_arch_via_smi() -> str:\n"
        "+def _get_arch() -> str:\n"
        '     """Get the architecture name."""\n'
        "     try:\n"
        "         return _query_arch()\n"
        "     except RuntimeError:\n"
        "         return torch.cuda.get_device_properties(0).gcnArchName\n"
    )))  # fmt: skip
    facts = extract_facts(renamed)
    said = SummarySections(
        "Removed the function `_get_arch_via_smi` and added a new function `_get_arch`.",
        "The addition of the new function `_get_arch` simplifies arch detection.", "", "",
    )  # fmt: skip
    found = check_answer(renamed, said, ChangeType.SUBSTANTIAL, facts)
    assert {f.section for f in found} == {"what_changed", "technical_impact"}
    out = finish(remove_sentences(said, found, fillable(facts, renamed)), renamed, facts)
    assert out.what_changed.startswith("The diff renames `_get_arch_via_smi` to `_get_arch`")
    assert out.potential_risks == (
        "Code outside this diff that still uses `_get_arch_via_smi` breaks: the PR renames it "
        "to `_get_arch`."
    )


def test_a_single_line_removed_is_said_as_the_line_not_as_its_class_changed():
    # vLLM #35054: the class's own `False` goes, and it inherits its base's value.
    unset = pr_of(ChangedFile("vllm/v1/attention/backends/mamba1_attn.py", additions=0,
                              deletions=1, patch=(
        "@@ -29,4 +29,3 @@ class Mamba1AttentionMetadataBuilder(\n"
        "     BaseMambaAttentionMetadataBuilder[Mamba1AttentionMetadata]\n"
        " ):\n"
        "     metadata_cls = Mamba1AttentionMetadata\n"
        "-    supports_update_block_table: bool = False\n"
    )))  # fmt: skip
    assert change_sentence(extract_facts(unset)) == (
        "The diff removes the line `supports_update_block_table: bool = False` from "
        "`Mamba1AttentionMetadataBuilder` (`vllm/v1/attention/backends/mamba1_attn.py`)."
    )


def test_of_several_renames_the_risk_names_the_one_renamed_in_the_most_files():
    # vLLM #33724 renamed an op in its C++ source, its header and its Python binding, and a
    # helper in one file; the helper's callers are the op, which the PR rewrites itself.
    op = "get_cutlass_pplx_moe_mm_data"
    facts = ChangeFacts(moves=(
        Move("declaration", f"{op}_caller", "csrc/entry.cu", "batched_caller", "csrc/entry.cu"),
        Move("function", op, "csrc/entry.cu", "get_batched_data", "csrc/entry.cu"),
        Move("declaration", op, "csrc/ops.h", "get_batched_data", "csrc/ops.h"),
        Move("function", op, "vllm/_custom_ops.py", "get_batched_data", "vllm/_custom_ops.py"),
    ))  # fmt: skip
    assert risk_sentence(facts, pr_of()) == (
        f"Code outside this diff that still uses `{op}` breaks: the PR renames it to "
        "`get_batched_data`."
    )


def test_code_moved_later_in_its_function_names_the_code_it_now_follows():
    later = pr_of(ChangedFile("pkg/backend.py", additions=3, deletions=3, patch=(
        "@@ -10,8 +10,8 @@ def validate(schema):\n"
        "-    if unsupported(schema):\n-        log.warning('unsupported')\n"
        "-        raise ValueError('unsupported')\n"
        "     grammar = compile_schema(schema)\n"
        "     cache[schema] = grammar\n"
        "+    if unsupported(schema):\n+        log.warning('unsupported')\n"
        "+        raise ValueError('unsupported')\n"
        "     return grammar\n"
    )))  # fmt: skip
    assert risk_sentence(extract_facts(later), later) == (
        "The lines starting `if unsupported(schema):` in `validate` now run after "
        "`grammar = compile_schema(schema)`, the code they used to precede: an input that "
        "both handle now meets that code first."
    )
