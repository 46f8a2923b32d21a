"""A summary is checked against the diff it describes: a model that inverts the change,
invents code, promises speed-ups or pads its risk section is caught, told what to fix, or
has the wrong sentence taken out, and a tiny or test-only PR is TRIVIAL unless the model
shows otherwise."""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import (
    Finding,
    FindingKind,
    _named_changes,
    check_answer,
    decide_type,
    findings_hint,
    only_deletes,
    remove_sentences,
)
from summarizer.facts import extract_facts

# A Python PR in the shape of vLLM #35617: `dtype=config.dtype` is removed from five model
# constructors, because the layers now read the dtype themselves.
DTYPE_PATCH = "".join(
    f"@@ -{n}0,7 +{n}0,6 @@ class Model{n}(nn.Module):\n"
    "         self.norm = RMSNorm(\n"
    "             config.hidden_size,\n"
    "             eps=config.rms_norm_eps,\n"
    "-            dtype=config.dtype,\n"
    "         )\n"
    for n in range(1, 6)
)
DTYPE_PR = PullRequest(
    repo="o/r", number=35617, title="[Model] Stop passing dtype to RMSNorm", url="u",
    author="a", state="merged", body="The norm layers pick the dtype from the context.",
    files=(ChangedFile("vllm/model_executor/models/llama.py", additions=0, deletions=5,
                       patch=DTYPE_PATCH),),
)  # fmt: skip

# A C++ PR in the shape of vLLM #32621 (the diff says `else 128`), with a C++ kernel file.
BLOCK_PR = PullRequest(
    repo="o/r", number=32621, title="[LoRA] Update LoRA expand kernel block_n calculation",
    url="u", author="a", state="merged",
    files=(
        ChangedFile("vllm/lora/ops/triton_ops/utils.py", additions=1, deletions=1, patch=(
            "@@ -251,7 +251,7 @@ def get_lora_op_configs(\n"
            "         default = {\n"
            '-            "block_n": max(64, next_power_of_2(128 // num_slices)),\n'
            '+            "block_n": 64 if num_slices > 1 else 128,\n'
            '             "block_k": 16,\n')),
        ChangedFile("csrc/lora/expand.cu", additions=2, deletions=2, patch=(
            "@@ -40,6 +40,6 @@ __global__ void lora_expand_kernel(const float* in, float* out) {\n"
            "   const int lane = threadIdx.x % 32;\n"
            "-  const int block_n = max(64, next_pow2(128 / num_slices));\n"
            "+  const int block_n = num_slices > 1 ? 64 : 128;\n"
            "-  uint32_t offset = row * stride;\n"
            "+  size_t offset = static_cast<size_t>(row) * stride;\n"
            "   out[offset + lane] = in[offset + lane];\n")),
    ),
)  # fmt: skip

# A refactor of dummy-data generation: nothing in it is about speed.
DUMMY_PR = PullRequest(
    repo="o/r", number=35001, title="[Refactor] Build dummy inputs with one helper", url="u",
    author="a", state="merged",
    files=(ChangedFile("vllm/v1/worker/dummy_inputs.py", additions=4, deletions=6, patch=(
        "@@ -12,9 +12,7 @@ class DummyInputBuilder:\n"
        "-    def _text(self, n):\n"
        "-        return [0] * n\n"
        "-    def _image(self, n):\n"
        "-        return torch.zeros(n, 3, 224, 224)\n"
        "+    def build(self, kind: str, n: int):\n"
        "+        return self._makers[kind](n)\n")),),
)  # fmt: skip


# vLLM #34208: a CLI flag moved, unchanged, from the serve parser to the dataset parser.
FLAG_LEFT = (
    "@@ -1300,9 +1300,4 @@ def add_cli_args(parser):\n     )\n"
    "-    parser.add_argument(\n-        '--trust-remote-code',\n"
    "-        action='store_true',\n-        help='Trust remote code',\n-    )\n"
    "     parser.add_argument('--disable-tqdm')\n"
)
FLAG_ARRIVED = (
    "@@ -1314,3 +1314,8 @@ def add_dataset_parser(parser):\n"
    "+    parser.add_argument(\n+        '--trust-remote-code',\n"
    "+        action='store_true',\n+        help='Trust remote code',\n+    )\n"
    "     parser.add_argument('--seed', type=int, default=0)\n"
)
MOVED_FLAG = PullRequest(
    repo="o/r", number=34208, title="[Bugfix] Add `--trust-remote-code` to dataset bench args",
    url="u", author="a", state="merged",
    files=(ChangedFile("vllm/benchmarks/serve.py", deletions=5, patch=FLAG_LEFT),
           ChangedFile("vllm/benchmarks/datasets.py", additions=5, patch=FLAG_ARRIVED)),
)  # fmt: skip


def answer(
    what: str = "", impact: str = "", risks: str = "", insights: str = ""
) -> SummarySections:
    return SummarySections(
        what or "The PR edits the model code.",
        impact or "Behaviour is unchanged for users.",
        risks or "Models that relied on the explicit argument may load in another dtype.",
        insights or "Read the layer constructors before passing arguments.",
        headline="Model constructors stop passing an argument.",
    )


def kinds(findings: list[Finding]) -> list[FindingKind]:
    return [f.kind for f in findings]


# --- INVERTED -------------------------------------------------------------------------------


def test_a_name_said_to_be_added_that_the_diff_removes_is_inverted():
    said = "It changes `dtype` to use `config.dtype` in the model constructors."
    found = check_answer(DTYPE_PR, answer(what=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.INVERTED]
    assert found[0].section == "what_changed" and found[0].sentence == said
    assert found[0].explanation == (
        "says `config.dtype` is added, but the diff removes it (in 5 places)"
    )


def test_the_same_change_told_the_right_way_round_passes():
    said = "It removes `dtype=config.dtype` from the five `RMSNorm` calls of the models."
    assert check_answer(DTYPE_PR, answer(what=said), ChangeType.SUBSTANTIAL) == []


def test_removing_one_name_and_adding_another_in_one_sentence_is_told_the_right_way_round():
    # vLLM #34108's "removes `_get_gcn_arch_via_amdsmi` and adds a new function `_get_gcn_arch`"
    # was once read as "no longer adds": a false INVERTED and a wasted regeneration.
    said = "The PR removes the `_image` method and adds a new method `build`."
    assert check_answer(DUMMY_PR, answer(what=said), ChangeType.SUBSTANTIAL) == []
    told_backwards = "It no longer adds `build`."
    assert kinds(check_answer(DUMMY_PR, answer(what=told_backwards), ChangeType.SUBSTANTIAL)) == [
        FindingKind.INVERTED
    ]


def test_several_renames_in_one_list_each_read_from_old_to_new():
    # vLLM #33724: code's own "renames `a` to `b`, `c` to `d`" read `c` as added.
    said = "The diff renames `_image` to `build`, `_text` to `build_text` and `a` to `b`."
    assert _named_changes(said) == [
        ("_image", "old"), ("build", "add"), ("_text", "old"), ("build_text", "add"),
        ("a", "old"), ("b", "add"),
    ]  # fmt: skip
    # A name after a rename's clause ends is read by its own verb.
    assert _named_changes("It renames `a` to `b`; adds `c` and `d`.")[2:] == [
        ("c", "add"), ("d", "add"),
    ]  # fmt: skip


def test_a_name_said_to_be_removed_that_the_diff_only_adds_is_inverted():
    said = "The PR drops the `build` helper."
    found = check_answer(DUMMY_PR, answer(what=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.INVERTED]
    assert "adds it (in 1 place)" in found[0].explanation


def test_replacing_a_with_b_is_inverted_when_the_diff_replaces_b_with_a():
    said = "It replaces `build` with `_image` in `DummyInputBuilder`."
    found = check_answer(DUMMY_PR, answer(what=said), ChangeType.SUBSTANTIAL)
    assert [f.explanation.split(",")[0] for f in found] == [
        "says `build` is removed or replaced",
        "says `_image` is added",
    ]
    fixed = "It replaces `_text` and `_image` with one `build` method in `DummyInputBuilder`."
    assert check_answer(DUMMY_PR, answer(what=fixed), ChangeType.SUBSTANTIAL) == []


def test_places_conditions_and_negations_claim_nothing():
    said = (
        "It does not add `config.dtype` anywhere. Previously, it passed `dtype=config.dtype`, "
        "which is no longer needed. It adds a check for `config.dtype` in `RMSNorm`."
    )
    assert check_answer(DTYPE_PR, answer(what=said), ChangeType.SUBSTANTIAL) == []


def test_a_cpp_change_read_backwards_is_inverted():
    said = "The kernel now uses `uint32_t` offsets instead of `size_t`."
    found = check_answer(BLOCK_PR, answer(what=said), ChangeType.SUBSTANTIAL)
    assert [f.explanation for f in found] == [
        "says `uint32_t` is added, but the diff removes it (in 1 place)",
        "says `size_t` is removed or replaced, but the diff adds it (in 1 place)",
    ]
    fixed = "The kernel now uses `size_t` offsets instead of `uint32_t`, so rows past 4 GiB work."
    assert check_answer(BLOCK_PR, answer(what=fixed), ChangeType.SUBSTANTIAL) == []


# --- UNGROUNDED_CODE ------------------------------------------------------------------------


def test_quoted_code_must_be_in_the_diff_as_written_not_just_its_names():
    said = "`block_n` becomes `64 if num_slices > 1 else 64`."
    found = check_answer(BLOCK_PR, answer(what=said), ChangeType.TRIVIAL)
    assert kinds(found) == [FindingKind.UNGROUNDED_CODE]
    assert found[0].explanation == (
        "quotes `64 if num_slices > 1 else 64`, but the diff has "
        '`"block_n":64 if num_slices>1 else 128,`'
    )
    # A value changed inside a call, brackets doubled: 11 of its 14 tokens are the line's.
    doubled = "It used `max(64, next_power_of_2((64 // num_slices)))`."
    found = check_answer(BLOCK_PR, answer(what=doubled), ChangeType.TRIVIAL)
    assert kinds(found) == [FindingKind.UNGROUNDED_CODE]


def test_code_quoted_right_passes_whatever_its_spacing_or_left_out_arguments():
    said = (
        "`block_n` becomes `64 if num_slices>1 else 128` in Python and "
        "`num_slices > 1 ? 64 : 128` in the kernel, replacing `max(64, next_power_of_2())`."
    )
    assert check_answer(BLOCK_PR, answer(what=said), ChangeType.TRIVIAL) == []


def test_an_invented_name_is_ungrounded_but_an_example_or_a_builtin_is_not():
    said = "It adds `BlockSizePicker` to the LoRA ops."
    found = check_answer(BLOCK_PR, answer(what=said), ChangeType.TRIVIAL)
    assert [f.explanation for f in found] == [
        "names `BlockSizePicker`, which appears nowhere in the PR"
    ]
    fine = (
        "A `num_slices` of zero raises `ZeroDivisionError` no more; "
        "edge cases like `num_slices = 0` are not validated."
    )
    assert check_answer(BLOCK_PR, answer(risks=fine), ChangeType.TRIVIAL) == []


# --- UNSUPPORTED_PERFORMANCE ----------------------------------------------------------------


def test_a_speed_up_nothing_in_the_pr_speaks_of_is_unsupported():
    said = "The new helper can lead to faster training and reduces overhead."
    found = check_answer(DUMMY_PR, answer(impact=said), ChangeType.SUBSTANTIAL)
    # Training is a setting this PR never speaks of, either (summarizer/filler.py).
    assert kinds(found) == [FindingKind.UNSUPPORTED_PERFORMANCE, FindingKind.INVENTED]
    assert found[0].section == "technical_impact"
    assert '("faster")' in found[0].explanation


def test_a_gain_tacked_on_to_a_true_sentence_goes_and_the_sentence_stays():
    said = (
        "The PR builds every dummy input with one helper, `build`, potentially improving "
        "performance of the runner."
    )
    found = check_answer(DUMMY_PR, answer(impact=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.UNSUPPORTED_PERFORMANCE]
    assert remove_sentences(answer(impact=said), found).technical_impact == (
        "The PR builds every dummy input with one helper, `build`."
    )
    # A claim that is the sentence's point goes whole; one in a possessive is a claim too.
    whole = "The change is part of an effort to improve the model's performance. It is a helper."
    found = check_answer(DUMMY_PR, answer(impact=whole), ChangeType.SUBSTANTIAL)
    assert remove_sentences(answer(impact=whole), found).technical_impact == "It is a helper."


def test_a_performance_claim_passes_when_the_pr_is_about_performance():
    perf = PullRequest(
        repo="o/r", number=1, title="[Perf] Cache the dummy inputs", url="u", author="a",
        state="merged", files=DUMMY_PR.files,
    )  # fmt: skip
    said = "Building dummy inputs once is faster on every warm-up."
    assert check_answer(perf, answer(impact=said), ChangeType.SUBSTANTIAL) == []


def test_a_headline_about_speed_needs_the_pr_to_say_it_is_about_speed():
    # vLLM #35102 adds a model; a cache among its 1,400 lines let "Improves model performance
    # by adding a new layer type" stand as its headline. The body may speak of speed; the
    # headline says what the PR is for, which is its author's to say.
    cached = replace(DUMMY_PR.files[0], patch=DUMMY_PR.files[0].patch + "+    cache = {}\n")
    model = replace(DUMMY_PR, title="[Model] Ring 2.5", files=(cached,))
    said = replace(answer(), headline="Improves model performance by adding a layer type")
    found = check_answer(model, said, ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.section) for f in found] == [
        (FindingKind.UNSUPPORTED_PERFORMANCE, "headline")
    ]
    impact = answer(impact="Keeping the cache makes the warm-up faster.")
    assert check_answer(model, impact, ChangeType.SUBSTANTIAL) == []
    perf = replace(model, title="[Perf] Ring 2.5 prefill")
    assert check_answer(perf, said, ChangeType.SUBSTANTIAL) == []


def test_a_pr_said_to_change_nothing_or_not_a_file_it_changes_is_contradicted():
    # vLLM #34990 adds a skip marker to its one test file; the small model wrote "No changes
    # to the code" and "does not change any code in" that file.
    path = "tests/entrypoints/openai/responses/test_harmony.py"
    skip = replace(DUMMY_PR, files=(ChangedFile(path, "modified", 1, 0, (
        "@@ -10,2 +10,3 @@ class TestMcp:\n"
        '+    @pytest.mark.skip(reason="flaky in CI")\n'
        "     async def test_mcp_code_interpreter_streaming(self):\n"
    )),))  # fmt: skip
    said = replace(
        answer(what=f"The PR does not change any code in the `{path}` file."),
        headline="No changes to the code",
    )
    found = check_answer(skip, said, ChangeType.TRIVIAL)
    assert [(f.section, f.explanation) for f in found] == [
        ("headline", f"says nothing changed, where the PR changes `{path}`"),
        ("what_changed", f"says the PR does not change `{path}`, which it changes"),
    ]
    # What the PR does not change is no claim about what it does.
    fine = answer(impact="It does not change the code that runs in production.")
    assert check_answer(skip, fine, ChangeType.TRIVIAL) == []


def test_a_pr_to_the_benchmark_tools_is_not_about_performance_by_its_paths():
    said = "It will improve the performance of dataset benchmarks."
    found = check_answer(MOVED_FLAG, answer(impact=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.UNSUPPORTED_PERFORMANCE]


def test_a_fix_to_prefix_caching_is_not_about_performance_by_its_feature_name():
    # vLLM #29387: the model's "improves performance ... by reducing the number of cache hits"
    prefix = PullRequest(
        repo="o/r", number=1, title="[BugFix] Avoid prefix cache hit in the same step",
        url="u", author="a", state="merged", files=DUMMY_PR.files,
    )  # fmt: skip
    said = "The changes improve the performance of the manager by reducing cache hits."
    found = check_answer(prefix, answer(impact=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.UNSUPPORTED_PERFORMANCE]


def test_a_risk_of_being_slower_is_not_a_claim_of_speed():
    said = "The dispatch through `_makers` adds a dictionary lookup per call."
    assert check_answer(DUMMY_PR, answer(risks=said), ChangeType.SUBSTANTIAL) == []


# --- EMPTY_RISK -----------------------------------------------------------------------------


def test_risk_boilerplate_that_names_nothing_of_the_pr_is_empty():
    padded = "There is no known risk. Developers should test thoroughly to ensure compatibility."
    found = check_answer(DUMMY_PR, answer(risks=padded), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.EMPTY_RISK, FindingKind.EMPTY_RISK]
    assert {f.section for f in found} == {"potential_risks"}


def test_a_risk_tied_to_a_name_of_the_pr_or_a_mechanical_change_with_its_reason_passes():
    named = "Callers of `_text` outside `DummyInputBuilder` break; test them thoroughly."
    mechanical = "The change is mechanical (one helper replaces two), so the risk is low."
    for risks in (named, mechanical):
        assert check_answer(DUMMY_PR, answer(risks=risks), ChangeType.SUBSTANTIAL) == []


def test_calling_a_change_of_behaviour_mechanical_and_safe_is_boilerplate_too():
    # What the built-in model wrote on the dev days for PR after PR.
    for risks in (
        "The mechanical change is safe and does not introduce any new bugs or issues.",
        "There are no known risks associated with this mechanical change.",
    ):
        found = check_answer(DUMMY_PR, answer(risks=risks), ChangeType.SUBSTANTIAL)
        assert kinds(found) == [FindingKind.EMPTY_RISK]
    # A TRIVIAL change may be called mechanical and safe.
    trivial = "There are no known risks associated with this mechanical change."
    assert check_answer(DUMMY_PR, answer(risks=trivial), ChangeType.TRIVIAL) == []


# --- Acting on findings ---------------------------------------------------------------------


def test_the_wrong_sentences_are_removed_but_never_a_whole_section():
    padded = "There is no known risk. Developers should test thoroughly."
    wrong = answer(
        what="It adds `dtype=config.dtype` to the norms. The norms read the dtype themselves.",
        risks=padded,
    )
    found = check_answer(DTYPE_PR, wrong, ChangeType.SUBSTANTIAL)
    kept = remove_sentences(wrong, found)
    assert kept.what_changed == "The norms read the dtype themselves."
    assert kept.potential_risks == padded  # all boilerplate: kept, the caller regenerates
    assert kept.headline == wrong.headline


def test_a_sentence_that_answered_a_removed_one_is_made_to_stand_on_its_own():
    wrong = answer(what="It adds `dtype=config.dtype` to the norms. However, the norms still work.")
    kept = remove_sentences(wrong, check_answer(DTYPE_PR, wrong, ChangeType.SUBSTANTIAL))
    assert kept.what_changed == "The norms still work."
    also = answer(what="It adds `dtype=config.dtype` to the norms. It also reads the dtype.")
    kept = remove_sentences(also, check_answer(DTYPE_PR, also, ChangeType.SUBSTANTIAL))
    assert kept.what_changed == "It reads the dtype."
    # A section that starts with a name is left as written.
    untouched = answer(what="`dtype` is read from the config.")
    assert remove_sentences(untouched, []) == untouched


def test_the_hint_says_each_fault_once_with_what_to_do_instead():
    wrong = answer(
        what="It changes `dtype` to use `config.dtype`. It adds `config.dtype` everywhere.",
        impact="This improves performance.",
        risks="There is no known risk.",
    )
    hint = findings_hint(check_answer(DTYPE_PR, wrong, ChangeType.SUBSTANTIAL))
    assert hint == (
        "Your summary says `config.dtype` is added, but the diff removes it (in 5 places): "
        "describe what the diff does, not its reverse. "
        'Your summary claims a performance gain ("improves performance") that nothing in the '
        "PR shows: say nothing about performance unless the PR shows it. "
        "Your risk section is boilerplate: name the identifier or file at risk and why, or "
        "say the change is mechanical and why."
    )
    assert findings_hint([]) == ""


# --- The type -------------------------------------------------------------------------------

TEST_ONLY = PullRequest(
    repo="o/r", number=2, title="[CI] Relax test_mcp_tool_call", url="u", author="a",
    state="merged",
    files=(ChangedFile("tests/entrypoints/test_mcp.py", additions=40, deletions=3,
                       patch="@@ -1,3 +1,40 @@\n-assert out == '56088'\n+assert '56088' in out\n"),),
)  # fmt: skip
TINY_COMMENT = PullRequest(
    repo="o/r", number=3, title="Fix a link", url="u", author="a", state="merged",
    files=(ChangedFile("vllm/config/model.py", additions=1, deletions=1,
                       patch="@@ -9,3 +9,3 @@ class ModelConfig:\n-    # see old/url\n+    # see docs/models.md\n"),),
)  # fmt: skip
REVERT = PullRequest(
    repo="o/r", number=4, title='Revert "Add --trust-remote-code to bench args"', url="u",
    author="a", state="merged", body="Reverts o/r#34208",
    files=(ChangedFile("tests/benchmarks/test_args.py", additions=1, deletions=1,
                       patch="@@ -1 +1 @@\n-x = 1\n+x = 2\n"),),
)  # fmt: skip


def test_a_test_only_pr_is_trivial_whatever_the_model_says_without_a_checkable_reason():
    assert decide_type(TEST_ONLY, ChangeType.SUBSTANTIAL, None) == ChangeType.TRIVIAL
    vague = "It changes how the tests behave, which matters."
    assert decide_type(TEST_ONLY, ChangeType.SUBSTANTIAL, vague) == ChangeType.TRIVIAL
    # A test's own names are no reason: the code under test did not change.
    assert decide_type(TEST_ONLY, ChangeType.SUBSTANTIAL, "`test_mcp.py`") == ChangeType.TRIVIAL


def test_a_tiny_pr_that_changes_no_logic_is_trivial_even_when_the_reason_names_its_class():
    assert decide_type(TINY_COMMENT, ChangeType.SUBSTANTIAL) == ChangeType.TRIVIAL
    # The class holds the comment; no line of logic changed, so naming it is no reason.
    reason = "`ModelConfig` documents where the model list lives."
    assert decide_type(TINY_COMMENT, ChangeType.SUBSTANTIAL, reason) == ChangeType.TRIVIAL


DEAD_CODE = PullRequest(
    repo="o/r", number=5, title="[Refactor] Remove dead private func `_fp8_perm`", url="u",
    author="a", state="merged",
    files=(ChangedFile("vllm/model_executor/layers/fused_moe/utils.py", deletions=6,
                       patch="@@ -40,10 +40,4 @@ import torch\n def keep():\n     pass\n-\n-\n"
                             "-def _fp8_perm(m, idx):\n-    if m.dtype == torch.float8_e4m3fn:\n"
                             "-        return m.view(torch.uint8)[idx].view(m.dtype)\n"
                             "-    return m[idx]\n"),),
)  # fmt: skip
UNUSED_FLAG = PullRequest(
    repo="o/r", number=6, title="Remove --legacy-mode", url="u", author="a", state="merged",
    files=(ChangedFile("vllm/engine/arg_utils.py", deletions=4,
                       patch="@@ -80,8 +80,4 @@ def add_cli_args(parser):\n     parser.add_argument('--x')\n"
                             "-    parser.add_argument(\n-        '--legacy-mode',\n"
                             "-        action='store_true',\n-    )\n"),),
)  # fmt: skip


def test_a_clean_up_that_only_deletes_code_is_trivial():
    facts = extract_facts(DEAD_CODE)
    assert [d.name for d in facts.of("removed")] == ["_fp8_perm"]
    assert only_deletes(DEAD_CODE, facts)
    reason = "It removes `_fp8_perm`, which nothing calls."
    assert decide_type(DEAD_CODE, ChangeType.SUBSTANTIAL, reason, facts) == ChangeType.TRIVIAL


def test_new_definitions_in_the_code_that_runs_are_substantial_whatever_the_model_says():
    # vLLM #30357's shape: the small model called a PR of new classes TRIVIAL.
    new_class = PullRequest(
        repo="o/r", number=6, title="Add an OSS MoE method", url="u", author="a", state="merged",
        files=(ChangedFile("vllm/model_executor/layers/quantization/quark/quark_moe.py",
                           additions=3, patch="@@ -40,2 +40,5 @@ import torch\n def keep():\n"
                           "     pass\n+class OssMoEMethod:\n+    def apply(self):\n"
                           "+        return 1\n"),),
    )  # fmt: skip
    facts = extract_facts(new_class)
    assert decide_type(new_class, ChangeType.TRIVIAL, "", facts) == ChangeType.SUBSTANTIAL
    # Tests only, the model's TRIVIAL stands.
    assert decide_type(TEST_ONLY, ChangeType.TRIVIAL, "", extract_facts(TEST_ONLY)) == ChangeType.TRIVIAL


def test_a_deletion_that_removes_a_setting_keeps_the_models_type():
    facts = extract_facts(UNUSED_FLAG)
    assert [s.name for s in facts.settings] == ["--legacy-mode"]
    assert not only_deletes(UNUSED_FLAG, facts)
    assert decide_type(UNUSED_FLAG, ChangeType.SUBSTANTIAL, "", facts) == ChangeType.SUBSTANTIAL


def test_code_moved_unchanged_and_nothing_else_is_trivial():
    moved = MOVED_FLAG
    facts = extract_facts(moved)
    reason = "It adds `--trust-remote-code` to `add_dataset_parser`."
    assert decide_type(moved, ChangeType.SUBSTANTIAL, reason, facts) == ChangeType.TRIVIAL


def test_a_check_reordered_in_its_function_is_no_move_and_keeps_the_models_type():
    patch = (
        "@@ -304,12 +304,12 @@ def validate(schema):\n"
        "+    if unsupported(schema):\n+        raise ValueError(\n"
        "+            'not supported'\n+        )\n"
        "     compile_grammar(schema)\n"
        "-    if unsupported(schema):\n-        raise ValueError(\n"
        "-            'not supported'\n-        )\n"
        "     return\n"
    )
    pr = PullRequest(
        repo="o/r", number=33233, title="validate unsupported json features first", url="u",
        author="a", state="merged",
        files=(ChangedFile("vllm/backend.py", additions=4, deletions=4, patch=patch),),
    )  # fmt: skip
    facts = extract_facts(pr)
    reason = "`unsupported` now runs before `compile_grammar`."
    assert decide_type(pr, ChangeType.SUBSTANTIAL, reason, facts) == ChangeType.SUBSTANTIAL
    said = "The order changes, but there is no behaviour change."
    found = check_answer(pr, answer(impact=said), ChangeType.SUBSTANTIAL, facts)
    assert kinds(found) == [FindingKind.NO_EFFECT_CLAIMED]


def test_a_change_to_docstrings_and_comments_only_is_trivial_at_any_size():
    docstrings = PullRequest(
        repo="o/r", number=34148, title="[Doc] Update usage of `--limit-mm-per-prompt`",
        url="u", author="a", state="merged",
        files=(ChangedFile("vllm/config/multimodal.py", additions=6, deletions=6, patch=(
            "@@ -55,12 +55,12 @@ class MultiModalConfig:\n"
            '     """Controls the behavior of multimodal models."""\n \n'
            "     language_model_only: bool = False\n"
            '-    """If True, disables all multimodal inputs by setting all modality limits\n'
            "-    to 0. Equivalent to setting --limit-mm-per-prompt=0 for every\n"
            '-    modality."""\n'
            '+    """If True, disables all multimodal inputs by setting all modality limits to 0.\n'
            '+    Equivalent to setting `--limit-mm-per-prompt` to 0 for every modality."""\n'
            "+    # See docs/features/multimodal_inputs.md\n"
            "+    # for the dotted form of the flag.\n"
            "+    # (one comment line more)\n"
            "+    # (and another)\n"
            "     limit_per_prompt: dict[str, DummyOptions] = Field(default_factory=dict)\n"
            '     """The maximum number of input items and options allowed per\n'
            "-        prompt for each modality.\n"
            "-        (indented too far)\n"
            "-\n"
            "+    prompt for each modality.\n"
            "     Defaults to 999 for each modality.\n")),),
    )  # fmt: skip
    reason = "It rewrites the docstring of `language_model_only`."
    assert decide_type(docstrings, ChangeType.SUBSTANTIAL, reason) == ChangeType.TRIVIAL
    # A name the docstrings hold is no reason: a docstring is not logic (vLLM #34148).
    quoted = "It changes how `--limit-mm-per-prompt` is used."
    assert decide_type(docstrings, ChangeType.SUBSTANTIAL, quoted) == ChangeType.TRIVIAL


def test_examples_are_documentation_unless_written_at_length():
    def with_example(added: int) -> PullRequest:
        patch = f"@@ -1,1 +1,{added} @@\n-llm = LLM(m)\n" + "".join(
            f"+step_{i}(llm)\n" for i in range(added)
        )
        return PullRequest(
            repo="o/r", number=34992, title="Show pause_mode='keep' in the RLHF example",
            url="u", author="a", state="merged",
            files=(ChangedFile("examples/offline_inference/rlhf.py", additions=added,
                               deletions=1, patch=patch),),
        )  # fmt: skip

    reason = "It calls `step_0` on the engine."
    assert decide_type(with_example(3), ChangeType.SUBSTANTIAL, reason) == ChangeType.TRIVIAL
    assert decide_type(with_example(150), ChangeType.SUBSTANTIAL, reason) == (
        ChangeType.SUBSTANTIAL
    )


def test_a_docstring_that_closes_above_changed_code_does_not_hide_the_code():
    code_after_docstring = PullRequest(
        repo="o/r", number=34142, title="[Bugfix] Avoid duplicate k-proj weight emission",
        url="u", author="a", state="merged",
        files=(ChangedFile("vllm/model_executor/models/whisper.py", additions=2, deletions=2,
                           patch=(
            "@@ -958,8 +958,8 @@ def _create_fake_bias_for_k_proj(\n"
            "     So that the bias for k_proj in qkv_proj can be initialized with zeros.\n"
            '     """\n'
            "     for name, weight in weights:\n"
            "+        yield name, weight\n"
            "         if name.endswith(fake_bias_key_name):\n"
            "-            yield from [(name, weight), (bias_name, bias)]\n"
            "-        yield name, weight\n"
            "+            yield bias_name, bias\n")),),
    )  # fmt: skip
    reason = "`_create_fake_bias_for_k_proj` now yields each weight once: `yield bias_name, bias`."
    kind = decide_type(code_after_docstring, ChangeType.SUBSTANTIAL, reason)
    assert kind == ChangeType.SUBSTANTIAL


def test_a_test_only_pr_that_fixes_a_failing_test_keeps_the_models_type():
    def test_pr(title: str) -> PullRequest:
        return PullRequest(
            repo="o/r", number=35135, title=title, url="u", author="a", state="merged",
            files=(ChangedFile("tests/lora/test_fused_moe_lora_kernel.py", additions=19,
                               deletions=10, patch="@@ -1 +1 @@\n-a = 1\n+a = 2\n"),),
        )  # fmt: skip

    fixed = test_pr("[Bugfix] Fix lora_ids in FusedMoE LoRA test")
    assert decide_type(fixed, ChangeType.SUBSTANTIAL) == ChangeType.SUBSTANTIAL
    relaxed = test_pr("[CI/Build] Relax `test_mcp_tool_call`")
    assert decide_type(relaxed, ChangeType.SUBSTANTIAL) == ChangeType.TRIVIAL


def test_the_change_to_a_name_is_not_a_claim_that_it_was_added():
    removed_default = PullRequest(
        repo="o/r", number=35054, title="[Mamba1] Change supports_update_block_table to True",
        url="u", author="a", state="merged",
        files=(ChangedFile("vllm/v1/attention/backends/mamba1_attn.py", deletions=1, patch=(
            "@@ -29,4 +29,3 @@ class Mamba1AttentionMetadataBuilder(\n"
            "     metadata_cls = Mamba1AttentionMetadata\n"
            "-    supports_update_block_table: bool = False\n")),),
    )  # fmt: skip
    noun = SummarySections("", "", "", "The change to `supports_update_block_table` matters.")
    assert check_answer(removed_default, noun, ChangeType.SUBSTANTIAL) == []
    verb = SummarySections("It changes the flag to `supports_update_block_table`.", "", "", "")
    kinds = [f.kind for f in check_answer(removed_default, verb, ChangeType.SUBSTANTIAL)]
    assert kinds == [FindingKind.INVERTED]


def test_a_small_change_of_logic_keeps_the_models_type():
    assert decide_type(BLOCK_PR, ChangeType.SUBSTANTIAL) == ChangeType.SUBSTANTIAL
    assert decide_type(BLOCK_PR, ChangeType.TRIVIAL) == ChangeType.TRIVIAL
    assert decide_type(DTYPE_PR, ChangeType.SUBSTANTIAL) == ChangeType.SUBSTANTIAL


def test_a_value_passed_as_a_string_is_logic_but_a_pip_index_beside_a_pin_is_not():
    # vLLM #33088's shape: a reduction op, given on a line of its own, changes from "avg".
    reduction = PullRequest("o/r", 33088, "[Bugfix] Sum, not average", "u", "a", "merged", files=(
        ChangedFile("vllm/compilation/collective_fusion.py", additions=1, deletions=1, patch=(
            "@@ -53,7 +53,7 @@ class GEMMReduceScatterPattern(BasePattern):\n"
            "                 mm_weight,\n"
            '-                "avg",\n'
            '+                "sum",\n'
            "                 scatter_dim=0,\n"
        )),
    ))  # fmt: skip
    assert decide_type(reduction, ChangeType.SUBSTANTIAL) == ChangeType.SUBSTANTIAL
    # vLLM #34387's shape: the wheel index and a pin move to a release.
    pins = PullRequest("o/r", 34387, "[ROCm] Use the 2.10 release", "u", "a", "merged", files=(
        ChangedFile("requirements/rocm-build.txt", additions=2, deletions=2, patch=(
            "@@ -1,5 +1,5 @@\n"
            " -r common.txt\n"
            "---extra-index-url https://download.pytorch.org/whl/test/rocm7.0\n"
            "+--extra-index-url https://download.pytorch.org/whl/rocm7.1\n"
            " torch==2.10.0\n"
            "-amdsmi==6.4.3\n"
            "+amdsmi==7.0.2\n"
        )),
    ))  # fmt: skip
    assert decide_type(pins, ChangeType.SUBSTANTIAL, "`amdsmi` moves") == ChangeType.TRIVIAL
    # A log message is still a message, and a flag's name a label.
    message = replace(reduction, files=(replace(reduction.files[0], patch=(
        "@@ -53,3 +53,3 @@ def warn():\n"
        "     logger.warning(\n"
        '-        "falling back to avg",\n'
        '+        "falling back to the sum",\n'
        "     )\n"
    )),))  # fmt: skip
    assert decide_type(message, ChangeType.SUBSTANTIAL) == ChangeType.TRIVIAL


def test_a_revert_is_substantial_even_of_a_test():
    assert decide_type(REVERT, ChangeType.TRIVIAL) == ChangeType.SUBSTANTIAL


# --- NO_EFFECT_CLAIMED ----------------------------------------------------------------------


def test_no_behaviour_change_is_wrong_when_a_flag_leaves_a_parser():
    facts = extract_facts(MOVED_FLAG)
    said = "This does not change the behavior of the code in any way."
    found = check_answer(MOVED_FLAG, answer(impact=said), ChangeType.SUBSTANTIAL, facts)
    assert kinds(found) == [FindingKind.NO_EFFECT_CLAIMED]
    assert found[0].explanation == (
        'says "does not change the behavior", but the PR moves the CLI flag '
        "`--trust-remote-code` out of vllm/benchmarks/serve.py"
    )
    assert remove_sentences(answer(impact=f"{said} Serve loses the flag."), found) == answer(
        impact="Serve loses the flag."
    )
    assert check_answer(MOVED_FLAG, answer(impact=said), ChangeType.SUBSTANTIAL) == []  # no facts


def test_no_behaviour_change_stands_for_a_function_moved_to_another_module():
    left = "@@ -1,6 +1,2 @@ import os\n-def helper(x):\n-    y = x + 1\n-    return y * 2\n-\n"
    arrived = "@@ -1,2 +1,6 @@ import os\n+def helper(x):\n+    y = x + 1\n+    return y * 2\n+\n"
    pr = PullRequest(
        repo="o/r", number=2, title="Move helper", url="u", author="a", state="merged",
        files=(ChangedFile("m/a.py", deletions=4, patch=left),
               ChangedFile("m/b.py", additions=4, patch=arrived)),
    )  # fmt: skip
    said = "There is no functional change: `helper` only moves."
    assert check_answer(pr, answer(impact=said), ChangeType.TRIVIAL, extract_facts(pr)) == []


# --- UNCHANGED ------------------------------------------------------------------------------

# vLLM #32975: `num_output_tokens` is new; `update` is an unchanged line the hunk shows.
DETOKENIZER = PullRequest(
    repo="o/r", number=32975, title="Optimize detokenizer python logic", url="u", author="a",
    state="merged",
    files=(ChangedFile("vllm/v1/engine/detokenizer.py", additions=3, patch=(
        "@@ -90,6 +90,9 @@ class IncrementalDetokenizer:\n"
        "     def update(self, new_token_ids: list[int], stop_terminated: bool):\n"
        "         self.token_ids.extend(new_token_ids)\n"
        "+    @property\n+    def num_output_tokens(self) -> int:\n"
        "+        return len(self.token_ids) - self.prompt_len\n")),),
)  # fmt: skip


def test_a_name_said_to_be_added_that_the_diff_shows_unchanged_is_caught():
    said = "The PR adds two new methods, `num_output_tokens` and `update`, to the detokenizer."
    found = check_answer(DETOKENIZER, answer(what=said), ChangeType.SUBSTANTIAL)
    assert kinds(found) == [FindingKind.UNCHANGED]
    assert (
        found[0].explanation
        == "says `update` is added, but the diff shows it unchanged (in 1 place)"
    )
    assert findings_hint(found) == (
        "Your summary says `update` is added, but the diff shows it unchanged (in 1 place): "
        "describe the lines the diff changes, not the unchanged ones."
    )
    right = "The PR adds `num_output_tokens`, which `update`'s callers can read."
    assert check_answer(DETOKENIZER, answer(what=right), ChangeType.SUBSTANTIAL) == []


def test_a_removal_that_goes_on_past_its_place_with_as_well_as_claims_the_next_name_too():
    # vLLM #35418 removed `MockModelConfig` from one file and said it removed "the
    # corresponding `MockLayer` class" from another, where `MockLayer` is an unchanged line.
    exports = PullRequest("o/r", 35418, "Remove dead code", "u", "a", "merged", files=(
        ChangedFile("benchmarks/common.py", deletions=2, patch=(
            "@@ -1,4 +1,2 @@ import x\n-class MockModelConfig:\n-    pass\n"
            " class MockLayer:\n     pass\n"
        )),
    ))  # fmt: skip
    said = (
        "It removes the `MockModelConfig` class from the `benchmarks/common.py` file, as well "
        "as the corresponding `MockLayer` class from the same file."
    )
    found = check_answer(exports, answer(what=said), ChangeType.TRIVIAL)
    assert [f.explanation for f in found] == [
        "says `MockLayer` is removed, but the diff shows it unchanged (in 1 place)"
    ]
    kept = "It removes `MockModelConfig`, as well as a check for `MockLayer`."
    assert check_answer(exports, answer(what=kept), ChangeType.TRIVIAL) == []


def test_a_count_of_definitions_the_facts_do_not_give_is_caught():
    # vLLM #35068 removed three private helpers; the model said "two".
    helpers = PullRequest("o/r", 35068, "Remove unused helpers", "u", "a", "merged", files=(
        ChangedFile("vllm/a.py", deletions=4, patch=(
            "@@ -1,6 +1,2 @@ import torch\n-def _one(x):\n-    return x\n-def _two(x):\n-    return x\n"
            " def kept():\n     pass\n"
        )),
        ChangedFile("vllm/b.py", deletions=2, patch=(
            "@@ -1,4 +1,2 @@ import torch\n-def _three(x):\n-    return x\n def kept():\n     pass\n"
        )),
    ))  # fmt: skip
    facts = extract_facts(helpers)
    said = "The PR removes two private functions from the `a.py` and `b.py` files."
    found = check_answer(helpers, answer(what=said), ChangeType.TRIVIAL, facts)
    assert [f.explanation for f in found] == ["says the PR removes two functions; it removes 3"]
    for right in (
        "The PR removes three private functions.",
        "It removes two functions, `_one` and `_two`, and a third in `b.py`.",  # its own list
    ):
        assert check_answer(helpers, answer(what=right), ChangeType.TRIVIAL, facts) == []
    added = PullRequest("o/r", 2, "Add helpers", "u", "a", "merged", files=(
        ChangedFile("vllm/c.py", additions=4, patch=(
            "@@ -1,2 +1,6 @@ import torch\n+def one(x):\n+    return x\n+def two(x):\n+    return x\n"
            " def kept():\n     pass\n"
        )),
    ))  # fmt: skip
    said = "The PR adds three new functions to the module."
    found = check_answer(added, answer(what=said), ChangeType.SUBSTANTIAL, extract_facts(added))
    assert [f.explanation for f in found] == ["says the PR adds three functions; it adds 2"]


def test_a_sentence_cut_inside_a_code_span_is_a_finding_and_goes():
    # vLLM #34032: "now uses `ARG TRITON_BRANCH=" ended the model's what_changed, and its open
    # backtick paired with the code-written risk's, two sections later.
    pr = PullRequest(
        repo="o/r", number=34032, title="Update the triton branch", url="u", author="a",
        state="merged", files=(ChangedFile("docker/Dockerfile.rocm_base", additions=1, deletions=1,
        patch='@@ -1,2 +1,2 @@\n-ARG TRITON_BRANCH="57c693b6"\n+ARG TRITON_BRANCH="f332c492"\n'),),
    )  # fmt: skip
    cut = "The Dockerfile for ROCm now uses `ARG TRITON_BRANCH="
    sections = SummarySections(
        headline="Update the triton branch", what_changed=f"The branch is bumped. {cut}",
        technical_impact="", potential_risks="", key_insights="",
    )  # fmt: skip
    findings = check_answer(pr, sections, ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.sentence) for f in findings if f.section == "what_changed"] == [
        (FindingKind.CUT_QUOTE, cut)
    ]
    assert remove_sentences(sections, findings).what_changed == "The branch is bumped."
    # Alone in its section, it goes too where the facts can fill the section.
    alone = replace(sections, what_changed=cut)
    findings = check_answer(pr, alone, ChangeType.SUBSTANTIAL)
    assert remove_sentences(alone, findings, frozenset({"what_changed"})).what_changed == ""


def test_a_sentence_that_only_points_back_at_a_removed_one_goes_with_it():
    # Judge pass 37, vLLM #34973: "... by adding a new function `_build_vllm_parsers`" was
    # misplaced, and "The new function checks ..." told the reader more of it.
    wrong = "It adds a new function `_build` to `a.py`."
    said = f"{wrong} The new function checks the first argument. It raises `ValueError`."
    found = [Finding(FindingKind.CONTRADICTS_FACTS, "what_changed", wrong, "misplaced")]
    assert remove_sentences(answer(what=said), found).what_changed == "It raises `ValueError`."


def test_a_name_the_diff_adds_only_inside_a_string_is_not_added_code():
    # vLLM #34739 guards a call that was there, and names it in the error it raises.
    guarded = PullRequest("o/r", 1, "Fix local mypy issues", "u", "a", "merged", files=(
        ChangedFile("vllm/kv_connector/nixl.py", "modified", 4, 0, (
            "@@ -10,3 +10,7 @@ class NixlConnectorWorker:\n"
            "     def pin(self, cores):\n"
            "+        if not hasattr(os, \"sched_setaffinity\"):\n"
            "+            raise NotImplementedError(\n"
            "+                \"os.sched_setaffinity is not available on this platform\"\n"
            "+            )\n"
            "         os.sched_setaffinity(0, cores)\n"
        )),
    ))  # fmt: skip
    said = "It changes `NixlConnectorWorker` by adding `os.sched_setaffinity` to pin cores."
    found = check_answer(guarded, answer(what=said), ChangeType.SUBSTANTIAL)
    assert [f.explanation for f in found if f.kind == FindingKind.UNCHANGED] == [
        "says `os.sched_setaffinity` is added, but the diff adds it only inside a string; the "
        "code that uses it is unchanged (in 1 place)"
    ]


def test_a_section_that_must_stay_still_loses_the_clauses_known_wrong():
    # vLLM #35392: every sentence of a Dockerfile PR's "what changed" was found wanting, and
    # the section stayed whole with "UMD (Universal Module Definition)" in it.
    invented = "It pins the UMD (Universal Module Definition) for the XPU image."
    found = [
        Finding(FindingKind.INVENTED, "what_changed", invented, "spells out UMD",
                trimmed="It pins the UMD for the XPU image."),
        Finding(FindingKind.UNANCHORED, "what_changed", invented, "names nothing"),
        Finding(FindingKind.UNANCHORED, "what_changed", "It helps stability.", "names nothing"),
    ]  # fmt: skip
    said = f"{invented} It helps stability."
    assert remove_sentences(answer(what=said), found).what_changed == (
        "It pins the UMD for the XPU image. It helps stability."
    )
