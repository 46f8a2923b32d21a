"""An attribute a class no longer declares is a risk: code outside the diff reads it. One a
method of code that was there now sets is the other way round: a read now gets it.

The facts' definitions do not see a public attribute go. A reader named it the risk the
summary missed: vLLM #34183 drops `Request.get_hash_new_full_blocks`, and #34188 turns
`SimpleContext.output_messages` into a property. Only a declaration the diff removes counts,
and only when nothing the diff shows sets the attribute again or still reads it.
"""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest
from summarizer.attributes import attributes_dropped, attributes_set
from summarizer.facts import extract_facts
from summarizer.finishing import risk_sentence
from tests.diffs import changed, risk_of
from tests.diffs import pr_of as pr_with


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


# vLLM #35080: `MRotaryEmbedding` read `self.truncate` and never set it.
TRUNCATE = changed("vllm/model_executor/layers/rotary_embedding/mrope.py", (
    "@@ -218,8 +218,10 @@ class MRotaryEmbedding(RotaryEmbeddingBase):\n"
    "         beta_slow: int = 1,\n"
    "+        truncate: bool = True,\n"
    "     ) -> None:\n"
    "         self.beta_fast = beta_fast\n"
    "         self.beta_slow = beta_slow\n"
    "+        self.truncate = truncate\n"
    "         if self.scaling_factor is not None:\n"
))  # fmt: skip


def test_an_attribute_a_method_of_code_that_was_there_now_sets_is_what_a_read_now_gets():
    assert risk_of(pr_with(TRUNCATE)) == (
        "`MRotaryEmbedding` now sets `self.truncate = truncate`, `True` unless a caller passes "
        "`truncate`: code that reads `truncate` on it gets that value, where before it raised "
        "`AttributeError` unless a base class set it."
    )


def test_an_attribute_set_in_a_branch_set_before_or_of_new_code_is_no_such_risk():
    branch = changed("vllm/a.py", (
        "@@ -5,3 +5,5 @@ class A:\n"
        "         self.x = 1\n"
        "         if ok:\n"
        "+            self.y = 2\n"
    ))  # fmt: skip
    moved = changed("vllm/b.py", (
        "@@ -5,3 +5,3 @@ class B:\n"
        "-        self.z = old()\n"
        "         self.x = 1\n"
        "+        self.z = new()\n"
    ))  # fmt: skip
    new_class = changed("vllm/c.py", (
        "@@ -0,0 +1,3 @@\n"
        "+class C:\n"
        "+    def __init__(self):\n"
        "+        self.w = 3\n"
    ))  # fmt: skip
    assert attributes_set(pr_with(branch, moved, new_class)) == []


def test_a_class_attribute_a_subclass_no_longer_sets_is_inherited_instead():
    # vLLM #35054: Mamba1 now gets its base builder's `supports_update_block_table`.
    inherited = changed("vllm/v1/attention/backends/mamba1_attn.py", (
        "@@ -29,4 +29,3 @@ class Mamba1AttentionMetadataBuilder(\n"
        "     BaseMambaAttentionMetadataBuilder[Mamba1AttentionMetadata]\n"
        " ):\n"
        "     metadata_cls = Mamba1AttentionMetadata\n"
        "-    supports_update_block_table: bool = False\n"
    ))  # fmt: skip
    assert risk_of(pr_with(inherited)) == (
        "`Mamba1AttentionMetadataBuilder` no longer sets `supports_update_block_table: bool = "
        "False` itself: code that reads `supports_update_block_table` on it now gets the value "
        "its base class sets, where it got `False`."
    )


def test_an_attribute_set_from_a_lookup_without_a_default_may_be_none():
    # vLLM #35352: a vocabulary without `<think>` gives `None`.
    looked_up = changed("vllm/reasoning/minimax_m2_reasoning_parser.py", (
        "@@ -40,3 +40,4 @@ class MiniMaxM2AppendThinkReasoningParser(ReasoningParser):\n"
        "         self.end_token_id = self.vocab.get(\"</think>\")\n"
        "+        self.start_token_id = self.vocab.get(\"<think>\")\n"
        "         self.end_token = \"</think>\"\n"
    ))  # fmt: skip
    assert risk_of(pr_with(looked_up)).endswith(
        "Where `self.vocab` has no `\"<think>\"`, it is `None`."
    )


def test_an_attribute_the_prs_own_new_code_reads_is_said_with_that_reader():
    # vLLM #35352: nothing read `start_token_id` before; the new check does.
    read_by_new = changed("vllm/reasoning/minimax_m2_reasoning_parser.py", (
        "@@ -40,3 +40,4 @@ class MiniMaxM2AppendThinkReasoningParser(ReasoningParser):\n"
        "         self.end_token_id = self.vocab.get(\"</think>\")\n"
        "+        self.start_token_id = self.vocab.get(\"<think>\")\n"
        "         self.end_token = \"</think>\"\n"
        "@@ -60,3 +61,4 @@ class MiniMaxM2AppendThinkReasoningParser(ReasoningParser):\n"
        "     def is_reasoning_end(self, input_ids):\n"
        "         for token in reversed(input_ids):\n"
        "+            if token == self.start_token_id:\n"
        "                 return False\n"
    ))  # fmt: skip
    assert risk_of(pr_with(read_by_new)).startswith(
        "`MiniMaxM2AppendThinkReasoningParser` now sets `self.start_token_id = "
        "self.vocab.get(\"<think>\")`, which the PR's new code in "
        "`MiniMaxM2AppendThinkReasoningParser.is_reasoning_end` reads."
    )
