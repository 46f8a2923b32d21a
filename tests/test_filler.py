"""Padding and invented claims are taken out, and code says what the model did not.

Advice to "developers", praise, and benefits nothing in the PR speaks of tell a reader
nothing about the diff; an acronym spelled out wrong tells them something false. They go
sentence by sentence (a benefit tacked on to a true clause takes only its clause), and a
section left with nothing is written from the facts: what callers and users see change, and
which tests change with the PR. A headline that the facts contradict gives way to the title.
"""

from __future__ import annotations

from dataclasses import replace

from bot.core.models import ChangedFile, ChangeType, PullRequest, SummarySections
from summarizer.checks import FindingKind, check_answer, remove_sentences
from summarizer.facts import extract_facts
from summarizer.filler import invented_benefit, invented_expansion, invented_setting, padding
from summarizer.finishing import fillable, finish
from summarizer.insight import interface_sentence
from tests.test_answer_findings import MOVED_FLAG
from tests.test_fact_claims import reported_summary


def pr_of(title: str, *files: ChangedFile, number: int = 1) -> PullRequest:
    return PullRequest(
        repo="o/r", number=number, title=title, url="u", author="a", state="merged", files=files
    )


# vLLM #34190's shape: one function sorts its files before it splits them across ranks.
SORTED = pr_of(
    "[Bugfix] Sort hf_weights_files in fastsafetensors_weights_iterator",
    ChangedFile("vllm/model_executor/model_loader/weight_utils.py", additions=1, patch=(
        "@@ -790,6 +790,7 @@ def fastsafetensors_weights_iterator(\n"
        "     pg = get_world_group()\n"
        "+    hf_weights_files = sorted(hf_weights_files, key=_natural_sort_key)\n"
        "     for f_list in split(hf_weights_files, pg.size()):\n"
        "         yield from load(f_list)\n")),
)  # fmt: skip


def sections(
    what: str = "The iterator sorts `hf_weights_files` before it splits them.",
    impact: str = "Every rank splits the same file order.",
    risks: str = "A rank that read files in another order loads other weights.",
    insights: str = "The order of `hf_weights_files` decides which rank loads which file.",
    headline: str = "Sort weight files before splitting them across ranks",
) -> SummarySections:
    return SummarySections(what, impact, risks, insights, headline=headline)


def finished(pr: PullRequest, answer: SummarySections) -> SummarySections:
    facts = extract_facts(pr)
    found = check_answer(pr, answer, ChangeType.SUBSTANTIAL, facts)
    return finish(remove_sentences(answer, found, fillable(facts, pr)), pr, facts)


def test_advice_that_asks_for_care_is_padding_but_advice_that_names_a_step_is_not():
    assert padding("Developers should be aware of the potential risks of the change.")
    assert padding("They should also ensure that the new function is correctly implemented.")
    assert padding("Users may need to carefully test their setups.")
    assert padding("The change is a small but important fix.")
    assert padding("It is a good example of how small changes matter.")
    assert not padding("Reviewers should look first at `fastsafetensors_weights_iterator`.")
    assert not padding("Developers should call `update_block_hashes` after extending a prompt.")


def test_a_bare_affects_the_behavior_of_is_padding_but_one_that_says_how_is_not():
    assert padding("The change affects the behavior of the `RMSNormGated` layer.")
    assert padding("The removal will affect the performance and functionality of the executor.")
    assert padding("The relaxation of the test does not affect the functionality of `f`.")
    assert padding("The PR is safe to make as long as the link is used.")
    assert not padding(
        "The change affects the behavior of the `RoutedExpertsCapturer` class by changing the "
        "device on which the tensors are allocated."
    )


def test_key_insights_of_advice_alone_are_written_from_the_facts():
    advice = (
        "Developers should be aware of the potential risks associated with the PR. "
        "They should also consider the impact of the change on the model."
    )
    out = finished(SORTED, sections(insights=advice))
    # The facts' risk is the order the code below now sees: the insight says what tests do.
    assert "`hf_weights_files` is now sorted by `_natural_sort_key`" in out.potential_risks
    assert out.key_insights == "No test changes with it in this PR."
    kept = finished(SORTED, sections(insights=f"The ranks split one order. {advice}"))
    assert kept.key_insights == "The ranks split one order."


def test_a_benefit_nothing_in_the_pr_speaks_of_goes_with_its_clause():
    why, claim = invented_benefit(
        "The new helper simplifies detection and makes it easier to maintain.", ["Fix a crash"]
    )
    assert (why, claim) == (
        'claims a benefit ("easier to maintain") that nothing in the PR speaks of',
        "easier to maintain",
    )
    said = "The iterator sorts the files, which makes loading more robust."
    out = finished(SORTED, sections(what=f"The iterator sorts `hf_weights_files`. {said}"))
    # A fix makes code robust: the title says it fixes something, so the claim stands.
    assert said in out.what_changed
    larger = "The change is part of a larger effort to improve the loader."
    out = finished(SORTED, sections(impact=f"Every rank splits the same file order. {larger}"))
    assert out.technical_impact == "Every rank splits the same file order."


def test_a_benefit_the_author_names_is_no_invention():
    title = ["[Refactor] Simplify the router registration"]
    assert invented_benefit("It makes the code easier to maintain.", title) == ("", "")
    assert invented_benefit("It improves readability.", ["Improve readability of x"]) == ("", "")


def test_an_acronym_spelled_out_where_the_pr_never_does_is_cut_to_the_acronym():
    corpus = "| DCP | Decode Context Parallelism support |"
    wrong = "The PR adds DCP (Deep Compression) support to the backend docs."
    assert invented_expansion(wrong, corpus) == (
        'spells out DCP as "Deep Compression", which the PR never does',
        "The PR adds DCP support to the backend docs.",
    )
    right = "The PR adds DCP (Decode Context Parallelism) support to the backend docs."
    assert invented_expansion(right, corpus) == ("", "")
    # Parentheses that are no expansion of the acronym before them are left alone.
    assert invented_expansion("It loads FP8 (block scales) weights.", corpus) == ("", "")
    # Judge pass 40, vLLM #34302: letters of the acronym skipped, a word quoted as code.
    assert invented_expansion("It uses TRTLLM (`TensorRT` Lite Lite Model) kernels.", corpus) == (
        'spells out TRTLLM as "TensorRT Lite Lite Model", which the PR never does',
        "It uses TRTLLM kernels.",
    )


def test_a_training_loop_or_chatbots_are_invented_where_the_pr_never_speaks_of_them():
    # vLLM #34198 "may require adjustments to the model's architecture and training loop",
    # in an inference engine's PR that never says "train".
    corpus = "self.chunk_gated_delta_rule = ChunkGatedDeltaRule()"
    said = "This change may require adjustments to the model's training loop."
    assert invented_setting(said, corpus) == (
        'speaks of "training", which nothing in the PR does'
    )
    assert invented_setting("It helps chatbots answer faster.", corpus)
    # A PR about RL training, or a gradient, may be said to be about them.
    assert invented_setting(said, "def train_step(batch):") == ""
    assert invented_setting("It keeps gradients on the GPU.", "grad_norm = clip(x)") == ""
    found = check_answer(SORTED, sections(impact=said), ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.section) for f in found] == [(FindingKind.INVENTED, "technical_impact")]


def test_risk_boilerplate_outside_the_risk_section_is_filler():
    said = "This change does not introduce new bugs but may affect the accuracy of the model."
    found = check_answer(SORTED, sections(impact=said), ChangeType.SUBSTANTIAL)
    assert [(f.kind, f.section) for f in found] == [(FindingKind.FILLER, "technical_impact")]


def test_a_section_of_padding_gets_what_callers_see_from_the_facts():
    out = finished(MOVED_FLAG, sections(
        what="The PR moves `--trust-remote-code` to the dataset parser.",
        impact="This makes the benchmarks easier to maintain.",
        insights="Developers should be aware of the new option.",
    ))  # fmt: skip
    assert out.technical_impact == (
        "For callers and users, the PR moves the CLI flag `--trust-remote-code` from "
        "`vllm/benchmarks/serve.py` to `vllm/benchmarks/datasets.py`."
    )
    assert out.key_insights == "No test changes with it in this PR."


def test_a_headline_the_facts_contradict_gives_way_to_the_title():
    revert = pr_of("Revert #34208", *(
        ChangedFile(f.filename, additions=f.deletions, deletions=f.additions, patch=_reversed(f.patch))
        for f in MOVED_FLAG.files
    ), number=34216)  # fmt: skip
    wrong = sections(headline="Revert #34208: Remove trust-remote-code flag from serve.py")
    assert finished(revert, wrong).headline == "Revert #34208"
    right = sections(headline="Revert #34208: move trust-remote-code back to serve.py")
    assert finished(revert, right).headline == right.headline


def test_a_headline_that_only_echoes_the_title_is_never_replaced():
    echo = sections(headline="Add `--trust-remote-code` to dataset bench args")
    assert finished(MOVED_FLAG, echo).headline == echo.headline


def test_a_headline_that_frames_a_mostly_added_pr_as_removals_gives_way_to_the_title():
    # vLLM #34175's shape: a new token-keyed API (40 lines) beside 5 lines dropped.
    body = "".join(f"+    key_part_{i} = token_ids[{i}]\n" for i in range(40))
    patch = "@@ -10,5 +10,40 @@ class LMCacheMPWorkerAdapter:\n" + body + "".join(
        f"-    old_{i} = block_hashes[{i}]\n" for i in range(5)
    )
    added_api = pr_of("[LMCache] Token Base IPC API", ChangedFile(
        "vllm/distributed/kv_transfer/lmcache_adapter.py", additions=40, deletions=5, patch=patch,
    ), number=34175)  # fmt: skip
    wrong = sections(headline="LMCache: Token Base IPC API Removals")
    assert finished(added_api, wrong).headline == "[LMCache] Token Base IPC API"
    right = sections(headline="LMCache: keys built from token ranges")
    assert finished(added_api, right).headline == right.headline
    # Tests the PR adds are not its code: a removal with a long new test is still a removal.
    removal = pr_of("[Cleanup] Old block hashes", ChangedFile(
        "vllm/lmcache_adapter.py", deletions=30,
        patch="@@ -1,30 +1,0 @@\n" + "".join(f"-old_{i} = {i}\n" for i in range(30)),
    ), ChangedFile(
        "tests/test_adapter.py", additions=200,
        patch="@@ -0,0 +1,200 @@\n" + "".join(f"+assert f({i})\n" for i in range(200)),
    ))  # fmt: skip
    removes = sections(headline="Removes the old block hash constants")
    assert finished(removal, removes).headline == removes.headline


def _reversed(patch: str | None) -> str:
    """The patch undone: what was added is removed and the reverse (a revert's diff)."""
    lines = []
    for line in (patch or "").splitlines():
        if line.startswith("@@"):
            old, new = line.split(" ")[1:3]
            line = line.replace(f"{old} {new}", f"-{new[1:]} +{old[1:]}", 1)
        elif line[:1] in "+-":
            line = {"+": "-", "-": "+"}[line[0]] + line[1:]
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_a_hosted_models_padding_never_reaches_the_report(env, github, llm):
    summary = reported_summary(github, llm, replace(SORTED, number=34190), {
        "type": "SUBSTANTIAL", "headline": "Sort weight files before splitting them",
        "what_changed": "The iterator sorts `hf_weights_files` with `_natural_sort_key`.",
        "technical_impact": "Every rank splits the same order. This is particularly "
                            "beneficial for applications such as chatbots.",
        "potential_risks": "A rank that listed files in another order now loads other ones.",
        "key_insights": "Developers should be aware of the change. The PR is a significant "
                        "improvement to the codebase.",
    })  # fmt: skip
    assert summary["technical_impact"] == "Every rank splits the same order."
    assert summary["key_insights"] == "No test changes with it in this PR."


# vLLM #34148's shape: docs and a config class's docstring reworded, nothing that runs.
DOCS_ONLY = pr_of("[Doc] Update usage of `--limit-mm-per-prompt`",
    ChangedFile("docs/features/multimodal_inputs.md", additions=1, deletions=1, patch=(
        "@@ -10,3 +10,3 @@ Pass limits per modality:\n"
        "-    --limit-mm-per-prompt '{\"image\": 2}'\n"
        "+    --limit-mm-per-prompt.image 2\n")),
    ChangedFile("vllm/config/multimodal.py", additions=1, deletions=1, patch=(
        "@@ -30,4 +30,4 @@ class MultiModalConfig:\n"
        "     limit_per_prompt: dict[str, int] = field(default_factory=dict)\n"
        '-    """The maximum number of input items per modality."""\n'
        '+    """The maximum number of input items per modality, set per modality."""\n'
        "     language_model_only: bool = False\n")),
    number=34148)  # fmt: skip


def test_a_class_said_modified_where_only_its_docstrings_change_gives_way_to_the_facts():
    out = finished(DOCS_ONLY, sections(
        what="The PR updates the usage of the `--limit-mm-per-prompt` flag in the "
        "`MultiModalConfig` class.",
        impact="It also changes the code by modifying the `MultiModalConfig` class.",
        headline="Update usage of `--limit-mm-per-prompt` in `MultiModalConfig`",
    ))  # fmt: skip
    assert out.what_changed == "The diff rewords only comments or docstrings in `MultiModalConfig`."
    assert out.technical_impact == (
        "Only tests, docs, CI or comments change: the code that runs is as it was."
    )
    assert out.headline == "[Doc] Update usage of `--limit-mm-per-prompt`"
    # Said as a docstring change, it is true, and stays.
    told = sections(what="The PR rewords the docstring of the `MultiModalConfig` class.")
    assert told.what_changed in finished(DOCS_ONLY, told).what_changed


def test_a_comment_reworded_in_passing_does_not_lead_where_code_changes():
    # vLLM #35413 fixes `Qwen3NextForCausalLM`'s mapping and rewords a comment elsewhere; the
    # lead said only "rewords only comments or docstrings in `Qwen3NextGatedDeltaNet`".
    pr = pr_of("[Bugfix] Fix packed_modules_mapping",
        ChangedFile("vllm/models/qwen3_next.py", additions=3, deletions=2, patch=(
            "@@ -10,4 +10,4 @@ class Qwen3NextGatedDeltaNet:\n"
            "     def forward(self, x):\n"
            "-        # project\n"
            "+        # project the input\n"
            "         return self.proj(x)\n"
            "@@ -90,4 +90,5 @@ class Qwen3NextForCausalLM:\n"
            "     packed_modules_mapping = {\n"
            '-        "qkv_proj": ["q_proj", "k_proj"],\n'
            '+        "qkv_proj": ["q_proj", "k_proj", "v_proj"],\n'
            '+        "in_proj": ["in_proj_qkvz", "in_proj_ba"],\n'
            "     }\n")))  # fmt: skip
    out = finished(pr, sections(what="The PR fixes the mapping."))
    assert "rewords" not in out.what_changed
    assert "`Qwen3NextForCausalLM`" in out.what_changed


def test_a_yaml_list_item_is_named_by_its_value_in_what_callers_see():
    # A list item has no key: vLLM #33810's sentence read "adds the YAML list item ``".
    pr = pr_of("Add batch specs", ChangedFile("benchmarks/configs/standard.yaml", additions=1,
        patch='@@ -1,3 +1,4 @@ batch_specs:\n   - "q2s1k"\n+  - "16q4s1k"\n   - "q4s1k"\n'))  # fmt: skip
    assert interface_sentence(extract_facts(pr), pr) == (
        'For callers and users, the PR adds the YAML list item `"16q4s1k"`.'
    )
