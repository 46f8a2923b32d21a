"""What the summarizer is allowed to see of the settings: the LLM's, and nothing else.

`Settings.llm` builds one; no chat token, GitHub token or database path is in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MODEL = "gpt-4.1-mini"


@dataclass(frozen=True)
class LLMSettings:
    openai_api_key: str | None = field(default=None, repr=False)
    openai_base_url: str | None = None
    model: str = DEFAULT_MODEL
    local_model: str | None = None  # a GGUF file for the built-in runtime
    max_prompt_tokens: int = 12000
    concurrency: int = 8
    llm_timeout: float = 120.0
    llm_max_retries: int = 3

    @property
    def llm_configured(self) -> bool:
        """An endpoint is set up (a key or a base URL), so the local model is not needed."""
        return bool(self.openai_api_key or self.openai_base_url)
