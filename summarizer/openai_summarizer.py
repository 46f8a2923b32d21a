"""The summarizer for any OpenAI-compatible chat completions endpoint (the `openai` client)."""

from __future__ import annotations

import json
import logging
import time

import openai
from openai import AsyncOpenAI

from bot.core.logs import mask
from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage
from bot.ports.summarizer import CallLog, LLMCall, Revision, SummarizeError, SummaryResult
from summarizer.claims import ClaimCheck, check_claims
from summarizer.prompt import (
    PROMPT_VERSION,
    REVISION_INSTRUCTIONS,
    BuiltPrompt,
    PromptBudget,
    build_prompt,
)
from summarizer.schema import (
    RESPONSE_FORMAT_OBJECT,
    RESPONSE_FORMAT_REVISION,
    RESPONSE_FORMAT_SCHEMA,
    SECTION_KEYS,
    InvalidAnswer,
    parse_answer,
    parse_revision,
)

log = logging.getLogger(__name__)

# Structured output first; servers that refuse it get the looser modes, best first.
_FALLBACKS: tuple[dict | None, ...] = (RESPONSE_FORMAT_OBJECT, None)


class OpenAISummarizer:
    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        *,
        budget: PromptBudget | None = None,
        concurrency: int = 8,
        call_log: CallLog | None = None,
        max_tokens: int | None = None,
        prompt_version: str = PROMPT_VERSION,
        on_close=None,
    ):
        self.client = client
        self.model = model
        self.budget = budget or PromptBudget()
        self.concurrency = concurrency
        self.call_log = call_log
        self.max_tokens = max_tokens
        self.prompt_version = prompt_version + ("c" if self.budget.compact else "")
        self._format_index = 0  # shared across PRs: once a server refuses a mode, stop asking
        self._on_close = on_close

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        prompt = build_prompt(pr, self.budget)
        content, usage = await self._complete(pr, prompt.messages, "summary")
        try:
            change_type, sections = parse_answer(content)
        except InvalidAnswer as first:
            # One repair: show the model its answer and what is wrong with it.
            repair = [
                *prompt.messages,
                {"role": "assistant", "content": (content or "")[:4000]},
                {
                    "role": "user",
                    "content": f"That answer is invalid ({first}). Reply with only the JSON "
                    "object with the keys what_changed, technical_impact, potential_risks, "
                    "key_insights (non-empty strings) and type (TRIVIAL or SUBSTANTIAL).",
                },
            ]
            content, more = await self._complete(pr, repair, "repair")
            usage = usage + more
            try:
                change_type, sections = parse_answer(content)
            except InvalidAnswer as second:
                raise SummarizeError(f"the model's answer was invalid twice ({second})") from None
        check = check_claims(sections, pr)
        if not check.ok:
            # One regeneration, naming what the PR never mentions; then accept with a note.
            names = ", ".join(f"`{name}`" for name in check.ungrounded[:12])
            retry = [
                *prompt.messages,
                {"role": "assistant", "content": (content or "")[:4000]},
                {
                    "role": "user",
                    "content": f"These names do not appear anywhere in the PR: {names}. Rewrite "
                    "the JSON answer using only identifiers and paths that appear in the PR data.",
                },
            ]
            content, more = await self._complete(pr, retry, "grounding")
            usage = usage + more
            try:
                retried_type, retried = parse_answer(content)
            except InvalidAnswer:
                retried_type, retried = change_type, sections
            recheck = check_claims(retried, pr)
            if len(recheck.ungrounded) <= len(check.ungrounded):
                change_type, sections, check = retried_type, retried, recheck
        return _result(prompt, change_type, sections, usage, check)

    async def _complete(
        self,
        pr: PullRequest,
        messages: list[dict],
        purpose: str,
        schema: dict = RESPONSE_FORMAT_SCHEMA,
    ) -> tuple[str | None, Usage]:
        formats = (schema, *_FALLBACKS)
        while True:
            tried = self._format_index
            response_format = formats[tried]
            kwargs: dict = {"model": self.model, "messages": messages}
            if response_format is not None:
                kwargs["response_format"] = response_format
            if self.max_tokens:
                kwargs["max_tokens"] = self.max_tokens
            started = time.monotonic()
            try:
                response = await self.client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if response_format is not None and _refuses_format(exc):
                    self._log(pr, purpose, messages, None, self._reason(exc), Usage(), started)
                    # Concurrent requests may all be refused at once: step down one mode only.
                    self._format_index = max(self._format_index, tried + 1)
                    log.info(
                        "%s refuses response_format %s; using %s",
                        self.model,
                        response_format["type"],
                        (formats[self._format_index] or {"type": "plain text"})["type"],
                    )
                    continue
                self._log(pr, purpose, messages, None, self._reason(exc), Usage(), started)
                raise SummarizeError(self._reason(exc)) from None
            except openai.OpenAIError as exc:
                self._log(pr, purpose, messages, None, self._reason(exc), Usage(), started)
                raise SummarizeError(self._reason(exc)) from None
            choice = response.choices[0] if response.choices else None
            content = choice.message.content if choice and choice.message else None
            usage = Usage(
                prompt_tokens=getattr(response.usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(response.usage, "completion_tokens", 0) or 0,
            )
            self._log(pr, purpose, messages, content, None, usage, started)
            return content, usage

    def _reason(self, exc: Exception) -> str:
        # The endpoint's message is shown to users and stored: mask the key in case it is
        # quoted back (some proxies and servers echo the Authorization header they got).
        return mask(_reason(exc), getattr(self.client, "api_key", None))

    def _log(self, pr, purpose, messages, content, error, usage: Usage, started: float) -> None:
        if self.call_log is None:
            return
        self.call_log(
            LLMCall(
                repo=pr.repo,
                number=pr.number,
                model=self.model,
                prompt_version=self.prompt_version,
                purpose=purpose,
                messages=messages,
                response=content,
                error=error,
                usage=usage,
                duration_ms=int((time.monotonic() - started) * 1000),
            )
        )

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        """The deeper pass after a flag: more diff, the full description, claims re-checked."""
        prompt = build_prompt(pr, self.budget.deeper())
        current_json = json.dumps(
            {**dict(zip(SECTION_KEYS, (t for _, t in current.sections.items()), strict=True)),
             "type": current.change_type.value}, indent=1,
        )  # fmt: skip
        messages = [
            prompt.messages[0],
            {
                "role": "user",
                "content": f"{prompt.messages[1]['content']}\n\n{REVISION_INSTRUCTIONS}"
                f"{current_json}",
            },
        ]
        content, usage = await self._complete(pr, messages, "revision", RESPONSE_FORMAT_REVISION)
        try:
            change_type, sections, changed, note = parse_revision(content)
        except (InvalidAnswer, ValueError) as exc:
            raise SummarizeError(f"the revision answer was invalid ({exc})") from None
        check = check_claims(sections, pr)
        result = _result(prompt, change_type, sections, usage, check)
        same = sections == current.sections and change_type == current.change_type
        return Revision(result, changed and not same, note)

    async def aclose(self) -> None:
        await self.client.close()
        if self._on_close is not None:
            self._on_close()


def _result(
    prompt: BuiltPrompt, change_type: ChangeType, sections: SummarySections, usage: Usage,
    check: ClaimCheck,
) -> SummaryResult:  # fmt: skip
    """A summary with what its prompt covered and how well its names are grounded."""
    return SummaryResult(
        change_type=change_type,
        sections=sections,
        files_covered=prompt.files_covered,
        files_total=prompt.files_total,
        usage=usage,
        grounded_fraction=check.grounded_fraction,
        unverified=check.ungrounded,
    )


def _refuses_format(exc: openai.BadRequestError) -> bool:
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _reason(exc: Exception) -> str:
    """One line for the report: what kind of failure, without the request or any key."""
    if isinstance(exc, openai.APITimeoutError):
        return "the LLM timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "could not reach the LLM endpoint"
    if isinstance(exc, openai.AuthenticationError):
        return "the LLM endpoint refused the API key (401)"
    if isinstance(exc, openai.RateLimitError):
        return "the LLM endpoint kept answering 429 (rate limited)"
    if isinstance(exc, openai.APIStatusError):
        message = ""
        body = exc.body
        if isinstance(body, dict):
            err = body.get("error", body)
            message = str(err.get("message", "")) if isinstance(err, dict) else str(err)
        return f"the LLM endpoint answered {exc.status_code}" + (
            f": {message[:160]}" if message else ""
        )
    return f"LLM error: {type(exc).__name__}"
