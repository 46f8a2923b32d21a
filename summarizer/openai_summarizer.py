"""The summarizer for any OpenAI-compatible chat completions endpoint (the `openai` client)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import openai
from openai import AsyncOpenAI

from bot.core.clock import utcnow
from bot.core.logs import mask
from bot.core.models import ChangeType, PRSummary, PullRequest, SummarySections, Usage
from bot.ports.summarizer import (
    AnswerText,
    AskSource,
    DayCandidate,
    Highlights,
    LLMCall,
    Revision,
    SummarizeError,
    SummaryResult,
    with_calls,
)
from summarizer import llm_client
from summarizer.ask_prompt import (
    ASK_PROMPT_VERSION,
    ASK_PURPOSE,
    UnusableAnswer,
    ask_response_format,
    ask_sampling,
    build_ask_prompt,
    parse_ask_answer,
)
from summarizer.checks import (
    Finding,
    FindingKind,
    check_answer,
    decide_type,
    findings_hint,
    remove_sentences,
)
from summarizer.claims import ClaimCheck, check_claims
from summarizer.facts import facts_to_json
from summarizer.finishing import fillable, finish, names_marked
from summarizer.highlights import (
    HIGHLIGHTS_PROMPT_VERSION,
    OVERVIEW_PURPOSE,
    UnusableHighlights,
    build_highlights_prompt,
    highlights_response_format,
    parse_highlights,
)
from summarizer.prompt import (
    REVISION_INSTRUCTIONS,
    BuiltPrompt,
    PromptBudget,
    build_prompt,
    prompt_version_for,
)
from summarizer.sampling import HOSTED, Sampling
from summarizer.schema import (
    RESPONSE_FORMAT_OBJECT,
    RESPONSE_FORMAT_REVISION,
    RESPONSE_FORMAT_SCHEMA,
    SECTION_KEYS,
    Answer,
    InvalidAnswer,
    bounded_schema,
    parse_answer,
    revision_fields,
)

log = logging.getLogger(__name__)

# Structured output first; servers that refuse it get the looser modes, best first.
_FALLBACKS: tuple[dict | None, ...] = (RESPONSE_FORMAT_OBJECT, None)
# What of a rejected answer goes back to the model with a request to fix its names.
_ECHO_CHARS = 4000


@dataclass
class _Work:
    """One piece of work (a PR's summary or re-check, a day's ranking) and the calls it made:
    they leave with its result, or with the error that ends it (`carried`)."""

    repo: str
    number: int  # 0 for a call about no single PR (a day's ranking)
    calls: list[LLMCall] = field(default_factory=list)

    @contextlib.contextmanager
    def carried(self) -> Iterator[None]:
        """Whatever stops the work (a SummarizeError, a bug, a cancellation) takes the calls
        made so far with it, so the caller logs them as it would a result's."""
        try:
            yield
        except BaseException as exc:
            with_calls(exc, self.calls)
            raise


@dataclass(frozen=True)
class _Completion:
    content: str | None
    usage: Usage
    finish_reason: str | None  # "length" when the output cap cut the answer


@dataclass(frozen=True)
class _Attempt:
    """A valid answer and the text it was parsed from."""

    answer: Answer
    content: str

    @property
    def change_type(self) -> ChangeType:
        return self.answer.change_type

    @property
    def sections(self) -> SummarySections:
        return self.answer.sections


# What only a regeneration can mend: the answer says the reverse of the diff, calls unchanged
# lines the change, or misquotes it.
_REWRITE_FOR = frozenset({FindingKind.INVERTED, FindingKind.UNCHANGED, FindingKind.UNGROUNDED_CODE})


class OpenAISummarizer:
    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        *,
        budget: PromptBudget | None = None,
        concurrency: int = 8,
        sampling: Sampling = HOSTED,
        prompt_version: str | None = None,
        on_close: Callable[[], None] | None = None,
    ):
        self.client = client
        self.model = model
        self.budget = budget or PromptBudget()
        self.concurrency = concurrency
        self.sampling = sampling
        self.prompt_version = prompt_version or prompt_version_for(self.budget)
        self._format_index = 0  # shared across PRs: once a server refuses a mode, stop asking
        self._on_close = on_close

    async def summarize(self, pr: PullRequest) -> SummaryResult:
        work = _Work(pr.repo, pr.number)
        with work.carried():
            return await self._summarize(pr, work)

    async def _summarize(self, pr: PullRequest, work: _Work) -> SummaryResult:
        # Reading the diff with parsers and counting tokens is CPU work: off the event loop.
        prompt = await asyncio.to_thread(build_prompt, pr, self.budget)
        answer, usage = await self._valid_answer(work, prompt.messages, "summary")
        answer, check, findings, more = await self._checked(pr, work, prompt, answer)
        change_type, sections = self._finished(pr, prompt, answer, findings)
        if sections != answer.sections:
            check = check_claims(sections, pr)
        return _result(prompt, change_type, sections, usage + more, check, work)

    def _findings(self, pr: PullRequest, prompt: BuiltPrompt, answer: _Attempt) -> list[Finding]:
        # The compact prompt is for small models: their sentences must name the PR's code.
        return check_answer(
            pr, self._marked(pr, prompt, answer), answer.change_type, prompt.facts,
            small_model=self.budget.compact,
        )  # fmt: skip

    @staticmethod
    def _marked(pr: PullRequest, prompt: BuiltPrompt, answer: _Attempt) -> SummarySections:
        if prompt.facts is None:
            return answer.sections
        return names_marked(answer.sections, prompt.facts, pr)

    def _finished(
        self,
        pr: PullRequest,
        prompt: BuiltPrompt,
        answer: _Attempt,
        findings: list[Finding] | None = None,
    ) -> tuple[ChangeType, SummarySections]:
        """The type code decides, and the sections as readers see them: what a regeneration
        could not fix taken out sentence by sentence (never a whole section that the facts
        cannot fill), names marked as code, and the facts' sentences where the model's fall
        short."""
        if findings is None:
            findings = self._findings(pr, prompt, answer)
        sections = remove_sentences(
            self._marked(pr, prompt, answer), findings, fillable(prompt.facts, pr)
        )
        change_type = decide_type(
            pr, answer.change_type, answer.sections.what_changed, prompt.facts
        )
        return change_type, finish(
            sections, pr, prompt.facts, change_type, small_model=self.budget.compact
        )

    async def _checked(
        self, pr: PullRequest, work: _Work, prompt: BuiltPrompt, answer: _Attempt
    ) -> tuple[_Attempt, ClaimCheck, list[Finding], Usage]:
        """The answer checked against the PR: names it does not have, code misquoted, a name
        said added that was removed (or the reverse), a speed-up the PR never speaks of, a
        boilerplate risk. Anything found is pointed out in one regeneration, kept when it is
        no worse."""
        check = check_claims(answer.sections, pr)
        findings = self._findings(pr, prompt, answer)
        if check.ok and not any(f.kind in _REWRITE_FOR for f in findings):
            # A speed-up claim goes sentence by sentence and boilerplate risk gives way to
            # the facts' risk (summarize): a second generation, 20 s on a CPU, buys nothing.
            return answer, check, findings, Usage()
        notes = [findings_hint(findings)] if findings else []
        if not check.ok:
            names = ", ".join(f"`{name}`" for name in check.ungrounded[:12])
            notes.insert(0, f"These names do not appear anywhere in the PR: {names}.")
        notes.append("Rewrite the JSON answer, using only what the PR data shows.")
        retry = _retry_messages(prompt.messages, " ".join(notes), previous=answer.content)
        retried, _fault, usage = await self._attempt(work, retry, "grounding", self.sampling)
        if retried is not None:
            recheck = check_claims(retried.sections, pr)
            refound = self._findings(pr, prompt, retried)
            if len(recheck.ungrounded) + len(refound) <= len(check.ungrounded) + len(findings):
                return retried, recheck, refound, usage
        return answer, check, findings, usage

    async def _valid_answer(
        self, work: _Work, messages: list[dict], purpose: str, *, revision: bool = False
    ) -> tuple[_Attempt, Usage]:
        """An answer that parses and says nothing twice, in at most two requests.

        The second request is never the first again: it names the first answer's fault (and,
        on a local model, asks for shorter sections under stronger repetition control).
        """
        answer, fault, usage = await self._attempt(work, messages, purpose, self.sampling, revision)
        if answer is not None:
            return answer, usage
        assert fault is not None
        retry = _retry_messages(
            messages, f"Your previous answer was rejected ({fault}). {fault.hint}"
        )
        answer, second, more = await self._attempt(
            work, retry, "repair", self.sampling.for_retry(), revision
        )
        if answer is not None:
            return answer, usage + more
        # Both answers repeated themselves: the first's other sections stand, and code
        # writes the ones that looped, as it does for sections that were only padding.
        kept = fault.kept or (second.kept if second else None)
        if kept is None:
            raise SummarizeError(f"the model's answer was invalid twice ({second})")
        log.info("%s#%d: kept the answer without its repeating sections", work.repo, work.number)
        return _Attempt(kept, _answer_json(kept)), usage + more

    async def _attempt(
        self,
        work: _Work,
        messages: list[dict],
        purpose: str,
        sampling: Sampling,
        revision: bool = False,
    ) -> tuple[_Attempt | None, InvalidAnswer | None, Usage]:
        completion = await self._complete(work, messages, purpose, sampling, revision)
        try:
            answer = parse_answer(
                completion.content,
                cut_off=completion.finish_reason == "length",
                section_chars=sampling.section_chars,
            )
        except InvalidAnswer as fault:
            log.info("%s#%d: invalid %s answer: %s", work.repo, work.number, purpose, fault)
            return None, fault, completion.usage
        return _Attempt(answer, completion.content or ""), None, completion.usage

    async def _complete(
        self,
        work: _Work,
        messages: list[dict],
        purpose: str,
        sampling: Sampling,
        revision: bool = False,
        *,
        schema: dict | None = None,
        single: bool = False,
        version: str | None = None,
    ) -> _Completion:
        """One answer from the endpoint, stepping down the response formats it refuses; each
        request, answered or not, is one of `work`'s calls.

        `schema` replaces the summary's and `version` the prompt version logged; `single`
        turns off the client's own retries, for a call whose caller has a fallback of its own
        and would rather not wait.
        """
        formats = (schema or self._schema(sampling, revision), *_FALLBACKS)
        client = self.client.with_options(max_retries=0) if single else self.client
        while True:
            tried = self._format_index
            response_format = formats[tried]
            kwargs: dict = {"model": self.model, "messages": messages, **sampling.kwargs()}
            if response_format is not None:
                kwargs["response_format"] = response_format
            started = time.monotonic()
            try:
                with llm_client.for_purpose(purpose):  # each HTTP request counted under it
                    response = await client.chat.completions.create(**kwargs)
            except openai.OpenAIError as exc:
                reason = self._reason(exc)
                self._log(work, purpose, messages, None, reason, Usage(), started, version)
                if not (response_format is not None and _refuses_format(exc)):
                    raise SummarizeError(reason) from None
                # Concurrent requests may all be refused at once: step down one mode only.
                self._format_index = max(self._format_index, tried + 1)
                log.info(
                    "%s refuses response_format %s; using %s",
                    self.model,
                    response_format["type"],
                    (formats[self._format_index] or {"type": "plain text"})["type"],
                )
                continue
            choice = response.choices[0] if response.choices else None
            content = choice.message.content if choice and choice.message else None
            usage = Usage(
                prompt_tokens=getattr(response.usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(response.usage, "completion_tokens", 0) or 0,
            )
            llm_client.count_tokens(usage)
            self._log(work, purpose, messages, content, None, usage, started, version)
            return _Completion(content, usage, getattr(choice, "finish_reason", None))

    @staticmethod
    def _schema(sampling: Sampling, revision: bool) -> dict:
        if sampling.section_chars:  # a grammar server: bound the sections
            return bounded_schema(sampling.section_chars, revision=revision)
        return RESPONSE_FORMAT_REVISION if revision else RESPONSE_FORMAT_SCHEMA

    def _reason(self, exc: Exception) -> str:
        # The endpoint's message is shown to users and stored: mask the key in case it is
        # quoted back (some proxies and servers echo the Authorization header they got).
        return mask(_reason(exc), getattr(self.client, "api_key", None))

    def _log(
        self, work: _Work, purpose, messages, content, error, usage: Usage, started: float,
        prompt_version: str | None = None,
    ) -> None:  # fmt: skip
        work.calls.append(
            LLMCall(
                repo=work.repo,
                number=work.number,
                model=self.model,
                prompt_version=prompt_version or self.prompt_version,
                purpose=purpose,
                messages=messages,
                response=content,
                error=error,
                usage=usage,
                duration_ms=int((time.monotonic() - started) * 1000),
                created_at=utcnow(),
            )
        )

    async def revise(self, pr: PullRequest, current: PRSummary) -> Revision:
        """The deeper pass after a flag: more diff, the full description, claims re-checked."""
        work = _Work(pr.repo, pr.number)
        with work.carried():
            return await self._revise(pr, current, work)

    async def _revise(self, pr: PullRequest, current: PRSummary, work: _Work) -> Revision:
        prompt = build_prompt(pr, self.budget.deeper())
        # The headline is shown too (empty for a summary made before it existed): the answer
        # must carry one, corrected like the rest.
        current_json = json.dumps(
            {"headline": current.sections.headline,
             **dict(zip(SECTION_KEYS, (t for _, t in current.sections.items()), strict=True)),
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
        answer, usage = await self._valid_answer(work, messages, "revision", revision=True)
        changed, note = revision_fields(answer.answer.data)
        # The same code steps as a first summary: compared with what readers were shown, an
        # unfinished answer would differ only by what code adds, and read as a correction.
        change_type, sections = self._finished(pr, prompt, answer)
        check = check_claims(sections, pr)
        result = _result(prompt, change_type, sections, usage, check, work)
        same = sections == current.sections and change_type == current.change_type
        return Revision(result, changed and not same, note)

    async def pick_highlights(
        self, repo: str, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> Highlights:
        """The model's `count` most important PRs of the day, best first, unchecked.

        One request, no repair and no client retry: the caller has a rule to fall back on,
        and a day's digest should not wait on a second try. A small budget shows only the
        first candidates that fit it (they come best first by the caller's rule); a grammar
        server is held to those numbers and to `count` of them.
        """
        if count <= 0 or not candidates:
            return Highlights()
        work = _Work(repo, 0)
        with work.carried():
            return await self._pick_highlights(work, day, candidates, count)

    async def _pick_highlights(
        self, work: _Work, day: str, candidates: Sequence[DayCandidate], count: int
    ) -> Highlights:
        repo = work.repo
        prompt = build_highlights_prompt(
            repo, day, candidates, count, max_prompt_tokens=self.budget.max_prompt_tokens
        )
        bounded = self.sampling.section_chars is not None
        completion = await self._complete(
            work,
            prompt.messages,
            OVERVIEW_PURPOSE,
            self.sampling.for_highlights(prompt.count),
            schema=highlights_response_format(prompt.count, prompt.numbers if bounded else None),
            single=True,
            version=HIGHLIGHTS_PROMPT_VERSION,
        )
        try:
            return Highlights(parse_highlights(completion.content), work.calls)
        except UnusableHighlights as exc:
            log.info("%s %s: unusable highlights: %s", repo, day, exc)
            raise SummarizeError(f"the model's highlights were unusable ({exc})") from None

    async def answer(self, repo: str, question: str, sources: Sequence[AskSource]) -> AnswerText:
        """A question about stored PRs, answered from `sources` in one request (see
        `summarizer.ask_prompt`), unchecked: the caller keeps only citations of `sources`."""
        work = _Work(repo, 0)
        with work.carried():
            prompt = build_ask_prompt(
                repo, question, sources, max_prompt_tokens=self.budget.max_prompt_tokens
            )
            bounded = self.sampling.section_chars is not None
            completion = await self._complete(
                work, prompt.messages, ASK_PURPOSE, ask_sampling(self.sampling),
                schema=ask_response_format(bounded=bounded), version=ASK_PROMPT_VERSION,
            )  # fmt: skip
            try:
                return AnswerText(parse_ask_answer(completion.content), work.calls)
            except UnusableAnswer as exc:
                raise SummarizeError(f"the model's answer was unusable ({exc})") from None

    async def aclose(self) -> None:
        await self.client.close()
        if self._on_close is not None:
            self._on_close()


def _result(
    prompt: BuiltPrompt, change_type: ChangeType, sections: SummarySections, usage: Usage,
    check: ClaimCheck, work: _Work,
) -> SummaryResult:  # fmt: skip
    """A summary with what its prompt covered, how well its names are grounded, and the
    calls that made it."""
    return SummaryResult(
        change_type=change_type,
        sections=sections,
        files_covered=prompt.files_covered,
        files_total=prompt.files_total,
        usage=usage,
        grounded_fraction=check.grounded_fraction,
        unverified=check.ungrounded,
        facts=json.dumps(facts_to_json(prompt.facts)) if prompt.facts else "",
        calls=tuple(work.calls),
    )


def _answer_json(answer: Answer) -> str:
    """An answer as the model's JSON, for a retry to edit."""
    sections = {key: getattr(answer.sections, key) for key in SECTION_KEYS}
    body = {"type": answer.change_type.value, "headline": answer.sections.headline, **sections}
    return json.dumps(body, ensure_ascii=False)


def _retry_messages(messages: list[dict], note: str, previous: str | None = None) -> list[dict]:
    """The request again with a note after the PR data; the prompt before it is unchanged, so
    a server with a prompt cache (llama.cpp) reads only the note.

    A rejected answer is not sent back: a loop in the context primes the next one. A valid
    answer that needs its names fixed is (`previous`), so the model edits rather than restarts.
    """
    if previous is not None:
        return [
            *messages,
            {"role": "assistant", "content": previous[:_ECHO_CHARS]},
            {"role": "user", "content": note},
        ]
    last = messages[-1]
    return [*messages[:-1], {**last, "content": f"{last['content']}\n\n{note}"}]


def _refuses_format(exc: openai.OpenAIError) -> bool:
    """A 400 that names the response format: the server does not support that mode."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _reason(exc: Exception) -> str:
    """One line for the report: what kind of failure, without the request or any key."""
    if isinstance(exc, openai.APIConnectionError) and (where := llm_client.describe(exc)):
        return where  # the host and the setting that points there (a timeout too)
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
