"""What the summarizer is allowed to see of the settings: the LLM's, and nothing else.

`Settings.llm` builds one; no chat token, GitHub token or database path is in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.endpoints import Endpoint, check_url, host_of
from bot.core.errors import ConfigurationError

DEFAULT_MODEL = "gpt-4.1-mini"
OPENAI_URL = "https://api.openai.com/v1"  # the openai client's own default
# Where a connection to the LLM is set up: what names it in every error.
BASE_URL_SETTING = "OPENAI_BASE_URL"


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

    def __post_init__(self) -> None:
        # Settings.from_env has checked these already; an LLMSettings made in code is too.
        if self.openai_base_url:
            check_url(BASE_URL_SETTING, self.openai_base_url, "http://localhost:8000/v1")
        if self.concurrency < 1 or self.llm_max_retries < 0 or not self.llm_timeout > 0:
            raise ConfigurationError(
                "The LLM needs a concurrency of 1 or more, 0 or more retries and a timeout "
                "of more than 0 seconds"
            )

    @property
    def llm_configured(self) -> bool:
        """An endpoint is set up (a key or a base URL), so the local model is not needed."""
        return bool(self.openai_api_key or self.openai_base_url)

    @property
    def endpoint(self) -> Endpoint:
        """The LLM's place, as errors name it: OpenAI's own, or the server OPENAI_BASE_URL names."""
        return llm_endpoint(self.openai_base_url or OPENAI_URL)


def llm_endpoint(url: str) -> Endpoint:
    """The LLM at `url`: "OpenAI" on OpenAI's own host, "the LLM" on any other."""
    service = "OpenAI" if host_of(url) == host_of(OPENAI_URL) else "the LLM"
    return Endpoint(service, BASE_URL_SETTING, url)
