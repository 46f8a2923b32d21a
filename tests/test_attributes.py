"""An attribute a class no longer declares is a risk: code outside the diff reads it.

The facts' definitions do not see a public attribute go. A reader named it the risk the
summary missed: vLLM #34183 drops `Request.get_hash_new_full_blocks`, and #34188 turns
`SimpleContext.output_messages` into a property. Only a declaration the diff removes counts,
and only when nothing the diff shows sets the attribute again or still reads it.
"""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest
from summarizer.attributes import attributes_dropped
from summarizer.facts import extract_facts
from summarizer.finishing import risk_sentence


def pr_of(*files: ChangedFile) -> PullRequest:
    return PullRequest(
        repo="o/r", number=1, title="Fix it", url="u", author="a", state="merged", files=files
    )


# vLLM #34183's shape: the bound partial goes, and with it the public attribute.
HASHER = pr_of(ChangedFile("vllm/v1/request.py", additions=1, deletions=3, patch=(
    "@@ -40,9 +40,7 @@ class Request:\n"
    "         self.block_hashes: list[BlockHash] = []\n"
    "-        self.get_hash_new_full_blocks: Callable[[], list] | None = None\n"
    "-        if block_hasher is not None:\n"
    "-            self.get_hash_new_full_blocks = partial(block_hasher, self)\n"
    "+        self._block_hasher: Callable[[Request], list] | None = block_hasher\n"
    "         self.num_computed_tokens = 0\n")))  # fmt: skip

# vLLM #34188's shape: a list the object kept becomes a property computed from other state.
PROPERTY = pr_of(ChangedFile("vllm/entrypoints/context.py", additions=4, deletions=1, patch=(
    "@@ -10,6 +10,9 @@ class SimpleContext(ConversationContext):\n"
    "     def __init__(self):\n"
    "-        self.output_messages: list[Message] = []\n"
    "+        self._text = ''\n"
    "+\n"
    "+    @property\n"
    "+    def output_messages(self) -> list[Message]:\n"
    "+        return [Message(self._text)]\n")))  # fmt: skip


def test_a_public_attribute_no_longer_declared_is_a_risk_for_code_that_reads_it():
    assert [(a.qualified, a.now_property) for a in attributes_dropped(HASHER)] == [
        ("Request.get_hash_new_full_blocks", False)
    ]
    assert risk_sentence(extract_facts(HASHER), HASHER) == (
        "Code outside this diff that reads `Request.get_hash_new_full_blocks` breaks: the PR "
        "no longer sets that attribute."
    )


def test_an_attribute_that_becomes_a_property_is_a_risk_for_code_that_assigns_to_it():
    assert risk_sentence(extract_facts(PROPERTY), PROPERTY) == (
        "`SimpleContext.output_messages` is now a property, no longer an attribute the object "
        "sets: code outside this diff that assigns to it fails, and each read computes it anew."
    )


def test_an_attribute_set_again_or_private_or_only_reassigned_is_no_such_risk():
    kept = pr_of(ChangedFile("vllm/a.py", additions=1, deletions=1, patch=(
        "@@ -1,4 +1,4 @@ class A:\n"
        "     def __init__(self):\n"
        "-        self.size: int = 1\n"
        "+        self.size: int = 2\n"
        "-        self._cache: dict = {}\n")))  # fmt: skip
    assert attributes_dropped(kept) == []
    # A plain reassignment in some method is no declaration: the attribute may live on.
    reassigned = pr_of(
        ChangedFile(
            "vllm/a.py",
            deletions=1,
            patch=(
                "@@ -9,3 +9,2 @@ class A:\n         x = 1\n-        self.size = x\n         return x\n"
            ),
        )
    )
    assert attributes_dropped(reassigned) == []
