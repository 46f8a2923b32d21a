"""A PR that changes no code says what it does through its docs' edited lines.

vLLM #34148 moves five guides and examples from `--limit-mm-per-prompt '{"image":2}'` to
`--limit-mm-per-prompt.image 2`, and rewords one docstring. Its facts used to be the docstring
and a file list, and a reader scored its summary's specificity 0. The docs' lines edited in
place are facts for such a PR, compared word by word and quoted whole-word.
"""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest, SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title="[Doc] Update usage", url="u", author="a", state="merged",
        files=files,
    )  # fmt: skip


GUIDE = ChangedFile("docs/features/multimodal_inputs.md", additions=1, deletions=1, patch=(
    "@@ -521,4 +521,4 @@ First, launch the server:\n"
    " ```bash\n"
    " vllm serve microsoft/Phi-3.5-vision-instruct --runner generate \\\n"
    "-  --trust-remote-code --max-model-len 4096 --limit-mm-per-prompt '{\"image\":2}'\n"
    "+  --trust-remote-code --max-model-len 4096 --limit-mm-per-prompt.image 2\n"
    " ```\n"))  # fmt: skip

EXAMPLE = ChangedFile("examples/offline_inference/mistral-small.py", additions=1, deletions=1,
    patch=(
    "@@ -18,3 +18,3 @@ from vllm.assets.image import ImageAsset\n"
    " # vllm serve mistralai/Mistral-Small-3.1-24B-Instruct-2503 \\\n"
    "-#   --limit-mm-per-prompt '{\"image\":4}' --max-model-len 16384\n"
    "+#   --limit-mm-per-prompt.image 4 --max-model-len 16384\n"))  # fmt: skip

CODE = ChangedFile("vllm/config/multimodal.py", additions=1, deletions=1, patch=(
    "@@ -10,3 +10,3 @@ class MultiModalConfig:\n"
    "     cap: int = 4\n"
    "-    cap: int = 4\n"
    "+    cap: int = 8\n"))  # fmt: skip


def test_a_pr_of_docs_only_has_its_docs_lines_edited_as_facts_word_by_word():
    facts = extract_facts(pr_of(GUIDE, EXAMPLE))
    assert [(e.file, e.old, e.new) for e in facts.edits] == [
        ("docs/features/multimodal_inputs.md",
         "--max-model-len 4096 --limit-mm-per-prompt '{\"image\":2}'",
         "--max-model-len 4096 --limit-mm-per-prompt.image 2"),
        ("examples/offline_inference/mistral-small.py",  # quoted without its comment's `#`
         "--limit-mm-per-prompt '{\"image\":4}' --max-model-len 16384",
         "--limit-mm-per-prompt.image 4 --max-model-len 16384"),
    ]  # fmt: skip


def test_a_line_of_an_example_keeps_its_trailing_comment_marker():
    # vLLM #34992: the quote read `world_size = 3 1 trainer + …`, a line the diff never had.
    commented = ChangedFile("examples/offline_inference/rlhf.py", additions=1, deletions=1, patch=(
        "@@ -40,3 +40,3 @@ import ray\n"
        "-world_size = 3  # 1 trainer + 2 inference workers\n"
        "+world_size = 2  # 1 trainer + 1 inference worker\n"))  # fmt: skip
    [edit] = extract_facts(pr_of(commented)).edits
    assert (edit.old, edit.new) == (
        "world_size = 3  # 1 trainer + 2 inference workers",
        "world_size = 2  # 1 trainer + 1 inference worker",
    )


def test_the_summary_of_such_a_pr_quotes_the_edit():
    pr = pr_of(GUIDE, EXAMPLE)
    what = finish(SummarySections("", "", "", ""), pr, extract_facts(pr)).what_changed
    assert what.startswith(
        "In `docs/features/multimodal_inputs.md`, `--max-model-len 4096 --limit-mm-per-prompt "
        "'{\"image\":2}'` becomes `--max-model-len 4096 --limit-mm-per-prompt.image 2`"
    )


def test_beside_a_change_to_code_the_docs_edits_are_not_the_facts():
    facts = extract_facts(pr_of(GUIDE, CODE))
    assert all(not e.file.startswith("docs/") for e in facts.edits)
