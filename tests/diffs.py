"""A PR built from hand-written hunks, and the risk code reads from it: what the specs of the
diff readers (summarizer/behaviour.py and the readers it draws on) are written against."""

from __future__ import annotations

from bot.core.models import ChangedFile, PullRequest
from summarizer.facts import extract_facts
from summarizer.finishing import fact_risk


def pr_of(*files: ChangedFile, number: int = 1, title: str = "A fix") -> PullRequest:
    return PullRequest("o/r", number, title, "u", "a", "merged", files=files)


def changed(filename: str, patch: str) -> ChangedFile:
    """A modified file whose line counts are the patch's own."""
    plus = sum(1 for line in patch.splitlines() if line.startswith("+"))
    minus = sum(1 for line in patch.splitlines() if line.startswith("-"))
    return ChangedFile(filename, "modified", plus, minus, patch)


def risk_of(pr: PullRequest) -> str:
    """The risk sentence the facts give, which these specs expect there is."""
    risk = fact_risk(extract_facts(pr), pr)
    assert risk is not None
    return risk.sentence


# vLLM #34813: the scaling leaves the `else:` to run in both cases, its text rewritten too.
OUT_OF_ELSE = changed("vllm/model_executor/models/granitemoehybrid.py", (
    "@@ -378,7 +378,7 @@ class GraniteMoeHybridModel(nn.Module):\n"
    "                 hidden_states = inputs_embeds\n"
    "             else:\n"
    "                 hidden_states = self.embed_input_ids(input_ids)\n"
    "-                hidden_states = hidden_states * self.embedding_multiplier\n"
    "+            hidden_states *= self.embedding_multiplier\n"
    "             residual = None\n"
))  # fmt: skip


# vLLM #34052: the s390x specialization goes, and the aarch64 one becomes the `#else`.
ARCH_FALLBACK = changed("csrc/cpu/mla_decode.cpp", (
    "@@ -38,12 +38,9 @@ struct KernelVecType<c10::BFloat16> {\n"
    "   using qk_vec_type = vec_op::BF16Vec32;\n"
    " };\n"
    "-\n"
    "-#elif defined(__s390x__)\n"
    "-template <>\n"
    "-struct KernelVecType<c10::BFloat16> {\n"
    "-  using qk_vec_type = vec_op::FP32Vec16;\n"
    "-};\n"
    "-\n"
    "-#elif defined(__aarch64__)\n"
    "+#else\n"
    " template <>\n"
    " struct KernelVecType<c10::BFloat16> {\n"
    "   using qk_load_vec_type = vec_op::BF16Vec16;\n"
))  # fmt: skip


# vLLM #35099: a property made a cached_property.
CACHED_PROPERTY = changed("vllm/config/model.py", (
    "@@ -1365,7 +1365,7 @@ class ModelConfig:\n"
    " \n"
    "         return diff_sampling_param\n"
    " \n"
    "-    @property\n"
    "+    @cached_property\n"
    "     def is_encoder_decoder(self) -> bool:\n"
    '         """Extract the HF encoder/decoder model flag."""\n'
    "         return is_encoder_decoder(self.hf_config)\n"
))  # fmt: skip
