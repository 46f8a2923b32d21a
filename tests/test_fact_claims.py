"""A sentence that the change facts contradict is found and taken out, and the facts' own
sentence stands where the model's was: a function that existed called new, a moved flag
called added or removed, a keyword passed at a call called a new parameter, a base class the
diff only shows called changed. Beside a risk written from the facts, the model's hedges
("may break the model if … is not implemented correctly") go too."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import Finding, FindingKind, check_answer, remove_sentences
from summarizer.facts import extract_facts
from summarizer.finishing import fillable, finish
from summarizer.wording import scope_sentence
from summarizer.wording import tests_sentence as sentence_on_tests
from tests.conftest import REPO, make_pr
from tests.fakes.github import FakeFile
from tests.test_answer_findings import DETOKENIZER, MOVED_FLAG  # vLLM #32975 and #34208


def pr_of(title: str, *files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title=title, url="u", author="a", state="merged", files=files
    )


def answer(what: str = "", risks: str = "") -> SummarySections:
    return SummarySections(
        what or "The PR changes the docs generator.",
        "The generated tables gain a column.",
        risks or "Tables may render wider.",
        "Regenerate the docs after editing a backend.",
        headline="Docs gain a column",
    )


def contradictions(pr: PullRequest, sections: SummarySections) -> list[Finding]:
    found = check_answer(pr, sections, ChangeType.SUBSTANTIAL, extract_facts(pr))
    return [f for f in found if f.kind == FindingKind.CONTRADICTS_FACTS]


def explained(pr: PullRequest, **said: str) -> list[str]:
    """What the facts say against the answer with these sections, one line a finding."""
    return [f.explanation for f in contradictions(pr, answer(**said))]


# vLLM #33936: `find_class_in_ast` moves within its file (and gains a check); `dcp_column` is new.
DOCS_TOOL = pr_of("[Doc] Add DCP column", ChangedFile("tools/gen_docs.py", additions=6, deletions=4, patch=(
    "@@ -1,8 +1,4 @@ import ast\n"
    "-def find_class_in_ast(tree, name):\n-    for node in ast.walk(tree):\n"
    "-        if node.name == name:\n-            return node\n"
    " def parse(path):\n     return ast.parse(open(path).read())\n"
    "@@ -20,3 +16,9 @@ def render(rows):\n     return rows\n"
    "+def find_class_in_ast(tree, name):\n+    for node in ast.walk(tree):\n"
    "+        if isinstance(node, ast.ClassDef) and node.name == name:\n+            return node\n"
    "+def dcp_column(rows):\n+    return [r.dcp for r in rows]\n")))  # fmt: skip


def test_a_function_that_existed_before_called_new_contradicts_the_facts():
    said = "It adds a new function `find_class_in_ast` to parse class definitions."
    found = contradictions(DOCS_TOOL, answer(what=said))
    assert [f.explanation for f in found] == [
        "calls `find_class_in_ast` new, but it existed before this PR: the diff changes it"
    ]
    assert contradictions(DOCS_TOOL, answer(what="It adds a new function `dcp_column`.")) == []


def test_a_method_on_an_unchanged_line_called_a_new_addition_contradicts_the_diff():
    said = "The `update` method is also a new addition to the class."
    assert explained(DETOKENIZER, risks=said) == [
        "calls `update` new, but the diff shows it only on unchanged lines"
    ]
    fine = "The `num_output_tokens` method is a new addition to the class."
    assert contradictions(DETOKENIZER, answer(risks=fine)) == []


def test_a_moved_flag_called_added_or_removed_contradicts_the_facts_but_the_title_may_say_it():
    said = "The PR adds a new argument `--trust-remote-code` to the dataset benchmark arguments."
    assert explained(MOVED_FLAG, what=said) == [
        "says `--trust-remote-code` is added, but the diff moves it from "
        "vllm/benchmarks/serve.py to vllm/benchmarks/datasets.py"
    ]
    moved = "The PR moves `--trust-remote-code` from the serve parser to the dataset parser."
    assert contradictions(MOVED_FLAG, answer(what=moved)) == []
    # The headline echoes the PR's own title: not the model's claim to check.
    titled = SummarySections(
        "It moves a flag.", "x", "y", "z", headline="Add `--trust-remote-code`"
    )
    assert contradictions(MOVED_FLAG, titled) == []


# vLLM #34187: the dummy run passes a value the method always accepted.
PASSED_AT_A_CALL = pr_of("[Bugfix] Fix DP attention padding in dummy run", ChangedFile(
    "vllm/v1/worker/gpu_model_runner.py", additions=1, patch=(
        "@@ -4100,6 +4100,7 @@ class GPUModelRunner:\n"
        "             attn_metadata = self._build_attention_metadata(\n"
        "                 num_reqs=num_reqs,\n"
        "+                num_tokens_padded=num_tokens_padded if pad_attn else None,\n"
        "             )\n")))  # fmt: skip
NEW_PARAMETER = pr_of("Pad attention", ChangedFile("vllm/v1/worker/runner.py", additions=2, deletions=1, patch=(
    "@@ -10,3 +10,4 @@ class Runner:\n"
    "-    def build(self, num_reqs):\n"
    "+    def build(self, num_reqs, num_tokens_padded=None):\n"
    "+        self.padded = num_tokens_padded\n"
    "         return num_reqs\n")))  # fmt: skip


def test_a_keyword_passed_at_a_call_called_a_new_parameter_contradicts_the_signatures():
    said = "It adds a new parameter `num_tokens_padded` to the `_build_attention_metadata` method."
    found = contradictions(PASSED_AT_A_CALL, answer(what=said))
    assert [f.explanation for f in found] == [
        "calls `num_tokens_padded` a new parameter, but no signature in the diff gains it: "
        "a call passes it"
    ]
    assert (
        contradictions(
            NEW_PARAMETER, answer(what=said.replace("_build_attention_metadata", "build"))
        )
        == []
    )


def test_a_method_the_diff_only_calls_on_an_unchanged_line_is_not_said_to_be_modified():
    said = "It does so by modifying the `_build_attention_metadata` method."
    assert explained(PASSED_AT_A_CALL, what=said) == [
        "says `_build_attention_metadata` is changed, but the diff shows it only on unchanged lines"
    ]
    # The class whose lines change may be said to change.
    assert contradictions(PASSED_AT_A_CALL, answer(what="It changes `GPUModelRunner`.")) == []


# vLLM #34198: the subclass gains an attribute its inherited forward needs; the base is untouched.
SUBCLASS = pr_of("[Bugfix] Adopt `ChunkGatedDeltaRule` for Qwen3.5", ChangedFile(
    "vllm/model_executor/models/qwen3_5.py", additions=2, patch=(
        "@@ -268,6 +268,8 @@ class Qwen3_5GatedDeltaNet(Qwen3NextGatedDeltaNet):\n"
        "             prefix=f\"{prefix}.out_proj\",\n         )\n \n"
        "+        self.chunk_gated_delta_rule = ChunkGatedDeltaRule()\n+\n"
        "         compilation_config = get_current_vllm_config().compilation_config\n")))  # fmt: skip


def test_a_base_class_the_diff_only_shows_is_not_changed_but_the_class_that_is_may_be_said_so():
    said = "It modifies the `Qwen3NextGatedDeltaNet` class to use the new attribute."
    assert explained(SUBCLASS, what=said) == [
        "says `Qwen3NextGatedDeltaNet` is changed, but the diff shows it only on unchanged lines"
    ]
    right = "It modifies the `Qwen3_5GatedDeltaNet` class: it sets `chunk_gated_delta_rule`."
    assert contradictions(SUBCLASS, answer(what=right)) == []


def test_a_section_whose_every_sentence_is_wrong_gives_way_to_the_facts_sentence():
    wrong = answer(what="It modifies the `Qwen3NextGatedDeltaNet` class to use the new attribute.")
    facts = extract_facts(SUBCLASS)
    found = check_answer(SUBCLASS, wrong, ChangeType.SUBSTANTIAL, facts)
    # Without a sentence from the facts to stand in its place, a section is never emptied.
    assert remove_sentences(wrong, found).what_changed == wrong.what_changed
    assert "what_changed" in fillable(facts, SUBCLASS)
    emptied = remove_sentences(wrong, found, fillable(facts, SUBCLASS))
    assert emptied.what_changed == ""
    assert finish(emptied, SUBCLASS, facts).what_changed == (
        "In `Qwen3_5GatedDeltaNet`, `self.chunk_gated_delta_rule = ChunkGatedDeltaRule()` is added."
    )


def test_beside_the_facts_risk_the_models_hedges_go_even_when_they_name_code():
    hedged = (
        "The change may break the model if the `ChunkGatedDeltaRule` class is not implemented "
        "correctly. This change is safe as long as `Qwen3_5GatedDeltaNet` is configured."
    )
    risks = finish(answer(risks=hedged), SUBCLASS, extract_facts(SUBCLASS)).potential_risks
    assert risks == SET_RISK


SET_RISK = (
    "`Qwen3_5GatedDeltaNet` now sets `self.chunk_gated_delta_rule = ChunkGatedDeltaRule()`: code "
    "that reads `chunk_gated_delta_rule` on it gets that value, where before it raised "
    "`AttributeError` unless a base class set it."
)


def test_a_specific_risk_of_the_models_own_stays_beside_the_facts_risk():
    said = "`Qwen3_5GatedDeltaNet` builds `ChunkGatedDeltaRule` with its default arguments."
    risks = finish(answer(risks=said), SUBCLASS, extract_facts(SUBCLASS)).potential_risks
    assert risks == said


def test_the_facts_risk_names_the_tests_the_pr_changes_with_the_code():
    registered = ChangedFile("vllm/model_executor/models/qwen3_5.py", additions=1, patch=(
        "@@ -268,6 +268,7 @@ class Qwen3_5GatedDeltaNet(Qwen3NextGatedDeltaNet):\n"
        "             prefix=f\"{prefix}.out_proj\",\n         )\n \n"
        "+        register(ChunkGatedDeltaRule())\n"
        "         compilation_config = get_current_vllm_config().compilation_config\n"))  # fmt: skip
    tested = pr_of("Fix", registered, ChangedFile("tests/models/test_qwen3_5.py", additions=3,
                   patch="@@ -1,1 +1,2 @@ import torch\n+def test_chunk():\n+    assert True\n"))  # fmt: skip
    risks = finish(answer(risks="Tables may render wider."), tested, extract_facts(tested))
    assert risks.potential_risks == (
        "In `vllm/model_executor/models/qwen3_5.py`, `Qwen3_5GatedDeltaNet` changes. "
        "The PR's only test changes are in `tests/models/test_qwen3_5.py`, which adds "
        "`test_chunk`."  # a test's name says what it checks
    )


def reported_summary(github, llm, pr: PullRequest, answer: dict) -> dict:
    """The summary `prdigest report` writes of `pr`, merged on the day, when a hosted model
    answers `answer` (and the same again, should the checks ask once more)."""
    day = "2026-02-09"
    files = [FakeFile(f.filename, patch=f.patch) for f in pr.files]
    github.add_pr(REPO, make_pr(pr.number, f"{day} 10:00:00", title=pr.title, file_list=files))
    llm.script([("content", json.dumps(answer))] * 2)
    result = CliRunner().invoke(cli, ["report", "--date", day, "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["pull_requests"]
    return entry["summary"]


def test_a_hosted_models_contradicted_sentences_never_reach_the_report(env, github, llm):
    summary = reported_summary(github, llm, SUBCLASS, {
        "type": "SUBSTANTIAL", "headline": "Qwen3.5 builds the rule its forward needs",
        "what_changed": "It modifies the `Qwen3NextGatedDeltaNet` class to use the attribute.",
        "technical_impact": "Qwen3.5 models get `chunk_gated_delta_rule` at construction.",
        "potential_risks": "The change may break the model if `ChunkGatedDeltaRule` is not "
                           "implemented correctly.",
        "key_insights": "A subclass must build what its inherited forward reads.",
    })  # fmt: skip
    assert summary["what_changed"] == (
        "In `Qwen3_5GatedDeltaNet`, `self.chunk_gated_delta_rule = ChunkGatedDeltaRule()` is added."
    )
    assert summary["potential_risks"] == SET_RISK


def test_a_parameter_said_to_be_added_to_a_function_whose_signature_stays_contradicts():
    said = "It adds a new parameter to the `_build_attention_metadata` method."
    assert explained(PASSED_AT_A_CALL, what=said) == [
        "says `_build_attention_metadata` gains a parameter, but its signature does not change "
        "in the diff"
    ]
    gained = "It adds a new parameter to the `build` method: `num_tokens_padded`."
    assert contradictions(NEW_PARAMETER, answer(what=gained)) == []


def test_finishing_a_finished_summary_changes_nothing():
    # A stored summary re-read by the same code steps (a rescore, a revision compared with
    # what readers saw) must not grow a second facts sentence or lose its risk's second half.
    facts = extract_facts(SUBCLASS)
    hedged = answer(risks="The change may break the model if it is not implemented correctly.")
    once = finish(hedged, SUBCLASS, facts)
    assert finish(once, SUBCLASS, facts) == once


# vLLM #34183's shape: the fix changes one line of an existing test.
TEST_EDITED = pr_of(
    "[BugFix] Fix a reference cycle",
    ChangedFile("vllm/v1/request.py", additions=1, deletions=1, patch=(
        "@@ -10,3 +10,3 @@ class Request:\n"
        "-        self.block_hasher = partial(block_hasher, self)\n"
        "+        self._block_hasher = block_hasher\n")),
    ChangedFile("tests/v1/core/test_async_scheduler.py", additions=1, deletions=1, patch=(
        "@@ -40,3 +40,3 @@ def test_prefix_caching_for_multi_turn():\n"
        "-    req.block_hasher = hasher\n"
        "+    req._block_hasher = hasher\n")),
)  # fmt: skip


def test_a_test_said_to_be_added_where_the_diff_only_edits_one_contradicts_the_facts():
    said = "The PR also adds a test to verify that the block hashes are updated."
    assert explained(TEST_EDITED, what=said) == [
        "says a test is added, but the diff only changes existing tests"
    ]
    new_test = pr_of("Test the cycle", *TEST_EDITED.files, ChangedFile(
        "tests/v1/test_request.py", status="added", additions=2,
        patch="@@ -0,0 +1,2 @@\n+def test_no_cycle():\n+    assert True\n"))  # fmt: skip
    assert contradictions(new_test, answer(what=said)) == []
    cases = "The PR adds test cases for multi-turn prefix caching."
    assert contradictions(TEST_EDITED, answer(what=cases)) == []


def test_a_change_of_behaviour_claimed_for_docs_and_docstrings_only_contradicts_the_facts():
    docs = pr_of(
        "[Doc] Update usage of `--limit-mm-per-prompt`",
        ChangedFile("docs/features/multimodal_inputs.md", additions=1, deletions=1, patch=(
            "@@ -1,1 +1,1 @@\n-Use `--limit-mm-per-prompt '{\"image\":2}'`.\n"
            "+Use `--limit-mm-per-prompt.image 2`.\n")),
        ChangedFile("vllm/config/multimodal.py", additions=1, deletions=1, patch=(
            "@@ -55,3 +55,3 @@ class MultiModalConfig:\n     language_model_only: bool = False\n"
            '-    """If True, disables all multimodal inputs."""\n'
            '+    """If True, disables every multimodal input."""\n')),
    )  # fmt: skip
    said = "It changes the default behavior to disable all multimodal inputs."
    assert explained(docs, what=said) == [
        'says "changes the default behavior", but the PR changes only docs, examples, '
        "comments or docstrings"
    ]
    assert contradictions(docs, answer(what="The docs show the flag's dotted form.")) == []


def test_a_moved_setting_called_a_new_option_in_words_contradicts_the_facts():
    said = "It introduces a new configuration option for the dataset benchmarks."
    assert explained(MOVED_FLAG, what=said) == [
        "calls a setting new, but the diff only moves `--trust-remote-code`"
    ]
    moved = "It moves the option to the dataset parser, where it is a new option there."
    assert contradictions(MOVED_FLAG, answer(what=moved)) == []


# vLLM #35083's shape: a class is added, and the model writes its name as a plain word.
TIMING_ADDED = PullRequest(REPO, 35083, "[Refactor] Decouple TimingContext", "u", "a", "merged",
    files=(ChangedFile("vllm/multimodal/processing/context.py", additions=4, deletions=1, patch=(
        "@@ -10,4 +10,7 @@ import time\n"
        "-TIMINGS = {}\n"
        "+class TimingContext:\n"
        "+    def record(self, name):\n"
        "+        self.names.append(name)\n"
        "+TIMER = TimingContext()\n"
        " class InputProcessingContext:\n"
        "     pass\n"
    )),))  # fmt: skip


def test_a_name_written_as_a_plain_word_is_checked_as_the_code_it_is_marked_as(env, github, llm):
    summary = reported_summary(github, llm, TIMING_ADDED, {
        "type": "SUBSTANTIAL", "headline": "Decouple the timing context",
        "what_changed": "The PR adds `TimingContext.record`. The changes include removing the "
                        "TimingContext from the InputProcessingContext.",
        "technical_impact": "Timings are recorded by `TimingContext.record`.",
        "potential_risks": "Code that read `TIMINGS` breaks.",
        "key_insights": "`TIMER` is a module-level `TimingContext`.",
    })  # fmt: skip
    assert "removing" not in summary["what_changed"]
    assert "The PR adds `TimingContext.record`." in summary["what_changed"]


def test_the_tests_sentence_names_the_test_functions_added_changed_and_removed():
    tests = ChangedFile("tests/test_parser.py", additions=4, deletions=3, patch=(
        "@@ -1,3 +1,5 @@ import pytest\n"
        " \n"
        "+def test_reasoning_thinking_disabled():\n"
        "+    assert parse(\"x\") is None\n"
        " \n"
        "@@ -40,3 +42,3 @@ def test_kept(parser):\n"
        "     parser.start()\n"
        "-    assert parser.run() == 1\n"
        "+    assert parser.run() == 2\n"
        "@@ -80,4 +82,2 @@ def test_kept(parser):\n"
        " \n"
        "-def test_old_behaviour():\n"
        "-    assert True\n"
        " \n"
    ))  # fmt: skip
    pr = pr_of("Fix", *SUBCLASS.files, tests)
    assert sentence_on_tests(pr, extract_facts(pr)) == (
        "The PR's only test changes are in `tests/test_parser.py`, which adds "
        "`test_reasoning_thinking_disabled` and changes `test_kept` and removes "
        "`test_old_behaviour`."
    )
    assert sentence_on_tests(pr) == "The PR's only test changes are in `tests/test_parser.py`."
    # Beside a test file that defines nothing new, the one that does names its functions.
    registry = ChangedFile("tests/models/registry.py", additions=1, patch=(
        "@@ -1,2 +1,3 @@ _MODELS = {\n+    \"Qwen3_5\": _Info(\"q\"),\n }\n"))  # fmt: skip
    two = pr_of("Fix", *SUBCLASS.files, tests, registry)
    assert sentence_on_tests(two, extract_facts(two)) == (
        "The PR's only test changes are in `tests/test_parser.py` and `tests/models/registry.py`; "
        "`tests/test_parser.py` adds `test_reasoning_thinking_disabled` and changes `test_kept` "
        "and removes `test_old_behaviour`."
    )


def test_the_scope_sentence_says_tools_are_left_out_where_the_pr_changes_one():
    edit = "@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    pr = pr_of(
        "Fix links",
        ChangedFile("vllm/config.py", additions=1, deletions=1, patch=edit),
        ChangedFile("tools/profiler/print.py", additions=1, deletions=1, patch=edit),
    )
    assert scope_sentence(pr) == (
        "Outside tests, docs, CI and tools, the PR adds 1 line and removes 1, in `vllm/config.py`."
    )
