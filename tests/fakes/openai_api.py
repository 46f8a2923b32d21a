"""A fake OpenAI-compatible chat completions server.

Usage::

    with FakeOpenAI(latency=0.2) as srv:
        client = openai.AsyncOpenAI(base_url=srv.url + "/v1", api_key="k")
        srv.script([("status", 500), ("content", "not json")])  # then default behaviour

Requests are served on one thread per connection, so concurrent client requests overlap
exactly as they would against a real (parallel) backend.

Two kinds of request are told apart. A PR summary (or revision) is answered by `responder`
after `script` and `fault_every` steps. The day's highlight ranking (prdigest's
`pick_highlights`, recognised by `is_highlights_request`) is answered by
`highlights_responder` after `script_highlights` steps, and never consumes a summary's
scripted step: a test that scripts its summaries' faults keeps them, whether the digest asks
for highlights or not. By default it answers the first `count` candidates in the order listed::

    srv.highlights_responder = invented_highlights  # numbers that are no candidate, then some
    srv.highlights_responder = too_few_highlights  # one number only
    srv.highlights_responder = garbage_highlights  # prose with no JSON and no list
    srv.script_highlights([("status", 500)])  # the next ranking request fails
    srv.script_highlights([("content", highlights_answer([12, 99999]))])  # exactly this
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from tests.fakes.http_server import FakeHTTPServer, RecordedRequest, Response, reason

#: A responder returns the answer's text, or ``(text, finish_reason)`` to end otherwise than
#: with "stop" ("length": the output cap cut the answer).
Responder = Callable[[dict[str, Any]], "str | tuple[str, str]"]

#: One scripted behaviour: ``("status", code[, headers[, body]])``, ``("content", text)``,
#: ``("length", text)`` (an answer cut off at max_tokens), ``("hang", seconds)``.
ScriptStep = tuple[Any, ...]

_TITLE = re.compile(r"^\s*Title:\s*(?P<title>.+?)\s*$", re.MULTILINE)
_TRIVIAL_WORDS = re.compile(
    r"\b(typos?|bump|chore|docs?|readme|lint|format(ting)?|whitespace|comments?|spelling)\b",
    re.IGNORECASE,
)
_STEP_KINDS = ("status", "content", "length", "hang")
#: The json_schema name of prdigest's highlight-ranking request.
HIGHLIGHTS_SCHEMA_NAME = "day_highlights"
_DAY_LIST = re.compile(r"<day>\n(?P<lines>.*?)</day>", re.DOTALL)
_CANDIDATE = re.compile(r"^#(?P<number>\d+) ", re.MULTILINE)
_HIGHLIGHT_COUNT = re.compile(r"exactly (?P<count>\d+) PR numbers")
_HEADLINE_WORDS = 13  # of the title; the fake's headline stays within prdigest's 20 words
_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def message_text(message: dict[str, Any]) -> str:
    """Text of a chat message whose content is a string or a list of content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def request_text(request: dict[str, Any]) -> str:
    return "\n".join(message_text(m) for m in request.get("messages") or [] if isinstance(m, dict))


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def find_title(request: dict[str, Any]) -> str | None:
    """The ``Title: ...`` line of the last user message (falling back to any message)."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    user_texts = [message_text(m) for m in messages if m.get("role") == "user"]
    for text in [*reversed(user_texts), request_text(request)]:
        match = _TITLE.search(text)
        if match:
            return match["title"]
    return None


def _identifier(title: str) -> str:
    """A code-ish word taken from the title, so prdigest's claim check finds it in the PR."""
    words = sorted(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", title), key=len, reverse=True)
    return words[0] if words else "change"


def varied_prose(chars: int, topic: str) -> str:
    """About `chars` characters of text that never repeats a sentence, for answers that must be
    long but valid (prdigest rejects an answer that says the same thing twice)."""
    sentences, length = [], 0
    while length < chars:
        n = len(sentences)
        word = f"{topic}{n}"  # every three words in a row hold one found nowhere else
        sentences.append(f"Item {word} covers {word}x and {word}y in full.")
        length += len(sentences[-1]) + 1
    return " ".join(sentences)


DISTINCT_WORD = re.compile(r"\b[a-h][0-9]{3}\b")


def distinct_words(count: int, section: int) -> str:
    """`count` words of four characters, none repeated within or across sections 0-3: as long
    as "word " * count, without saying anything twice. Count them with DISTINCT_WORD."""
    letters = "abcdefgh"[2 * section : 2 * section + 2]
    return " ".join(f"{letters[i // 1000]}{i % 1000:03d}" for i in range(count))


def headline_for(title: str) -> str:
    """The fake's headline for a PR: its title (first words), as one plain sentence."""
    words = title.split()
    short = " ".join(words[:_HEADLINE_WORDS]) + (" …" if len(words) > _HEADLINE_WORDS else "")
    return f'Users of the code get "{short}".'


def default_responder(request: dict[str, Any]) -> str:
    """A valid prdigest summary (JSON) that mentions the PR title.

    ``type`` is TRIVIAL when the title looks like housekeeping (typo, docs, bump, chore...),
    SUBSTANTIAL otherwise, so digests built from fake output have both kinds. The headline
    is built from the title (see `headline_for`).
    """
    title = find_title(request) or "this change"
    ident = f"`{_identifier(title)}`"
    # The title is quoted once: a real answer does not restate it in every section, and
    # prdigest rejects an answer whose sections restate each other.
    summary = {
        "headline": headline_for(title),
        "what_changed": (
            f'The pull request "{title}" updates {ident} as described in its title. '
            "It keeps the existing behaviour for callers that do not opt in."
        ),
        "technical_impact": (
            f"Merging it changes how {ident} is wired into the surrounding modules. "
            "No public interface is removed."
        ),
        "potential_risks": (
            f"The main risk is an edge case around {ident} that tests may not cover. "
            "Rolling back is a single revert."
        ),
        "key_insights": (
            f"Reviewers should look first at {ident}. "
            "The change is self-contained and easy to follow."
        ),
        "type": "TRIVIAL" if _TRIVIAL_WORDS.search(title) else "SUBSTANTIAL",
    }
    return json.dumps(summary)


def huge_sections(request: dict[str, Any]) -> str:
    """~9,000 characters per section for the PR titled "Huge change" (several chat messages),
    the default answer for every other PR."""
    answer = json.loads(default_responder(request))
    if find_title(request) == "Huge change":
        for key in ("what_changed", "technical_impact", "potential_risks", "key_insights"):
            answer[key] = varied_prose(9200, key)
    return json.dumps(answer)


def is_highlights_request(request: dict[str, Any]) -> bool:
    """prdigest's day ranking (`pick_highlights`): by its schema's name, or, when the endpoint
    was asked for json_object or plain text, by the fenced day list its prompt carries."""
    response_format = request.get("response_format") or {}
    if (response_format.get("json_schema") or {}).get("name") == HIGHLIGHTS_SCHEMA_NAME:
        return True
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    system = "\n".join(message_text(m) for m in messages if m.get("role") == "system")
    return "highlights" in system and bool(_DAY_LIST.search(request_text(request)))


def highlight_candidates(request: dict[str, Any]) -> list[int]:
    """The PR numbers a ranking request lists between <day> and </day>, in their order."""
    match = _DAY_LIST.search(request_text(request))
    return [int(m["number"]) for m in _CANDIDATE.finditer(match["lines"])] if match else []


def highlight_count(request: dict[str, Any]) -> int:
    """How many numbers a ranking request asks for ("exactly N PR numbers")."""
    match = _HIGHLIGHT_COUNT.search(request_text(request))
    return int(match["count"]) if match else 5


def highlights_answer(numbers: Iterable[Any]) -> str:
    """A ranking answer holding `numbers` as given (ints, or strings such as "#12")."""
    return json.dumps({"highlights": list(numbers)})


def default_highlights(request: dict[str, Any]) -> str:
    """The first `count` candidates, in the order listed: what a model agreeing with prdigest's
    own rule would answer."""
    return highlights_answer(highlight_candidates(request)[: highlight_count(request)])


def invented_highlights(request: dict[str, Any]) -> str:
    """Two numbers that are no candidate of the day, around the first real ones: what the
    caller must drop."""
    listed = highlight_candidates(request)
    ghost = max(listed, default=0) + 1000
    real = listed[: max(0, highlight_count(request) - 2)]
    return highlights_answer([ghost, *real[:1], ghost + 1, *real[1:]])


def too_few_highlights(request: dict[str, Any]) -> str:
    """Only the first candidate, however many were asked for: the caller tops up."""
    return highlights_answer(highlight_candidates(request)[:1])


def garbage_highlights(request: dict[str, Any]) -> str:
    """Prose with no JSON and no list: no usable number (SummarizeError)."""
    return "All of these pull requests are important in their own way."


class SmallModel:
    """A responder that fails the way a small local model at temperature 0 does.

    It is deterministic: the same request always gets the same answer. The first distinct
    request for a PR gets the failure (`fault`), so a client that retries with the identical
    request gets the identical bad answer back; any request that differs gets a good answer.

    Faults: "repeat" (the last section says one sentence over and over), "restate" (the last
    section restates the first), "cut_last" (cut off by max_tokens inside the last section),
    "cut_early" (cut off before the last section began), "always_repeat" (every answer
    loops in its last section, whatever the request), and "always_repeat_first" (every answer
    loops in what_changed).
    """

    def __init__(self, fault: str) -> None:
        self.fault = fault
        self._answers: dict[str, tuple[str, str]] = {}
        self._faulted: set[str] = set()
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> tuple[str, str]:
        self.requests.append(request)
        key = json.dumps(request, sort_keys=True)
        if key not in self._answers:
            title = find_title(request) or ""
            if self.fault.startswith("always_") or title not in self._faulted:
                self._faulted.add(title)
                self._answers[key] = self._bad(request)
            else:
                self._answers[key] = (default_responder(request), "stop")
        return self._answers[key]

    def _bad(self, request: dict[str, Any]) -> tuple[str, str]:
        answer = json.loads(default_responder(request))
        loop = "Developers should also note that the change must be tested carefully. "
        if self.fault in ("repeat", "always_repeat"):
            answer["key_insights"] = loop * 6
            return json.dumps(answer), "stop"
        if self.fault == "always_repeat_first":
            answer["what_changed"] = loop * 6
            return json.dumps(answer), "stop"
        if self.fault == "restate":
            answer["key_insights"] = answer["what_changed"]
            return json.dumps(answer), "stop"
        # A grammar-led local model writes the type first, so a cut-off answer still has it.
        text = json.dumps({"type": answer.pop("type"), **answer}, indent=1)
        if self.fault == "cut_last":
            # Everything up to the middle of the last section's second sentence.
            cut = text.index("The change is self-contained") + len("The change is")
            return text[:cut], "length"
        if self.fault == "cut_early":
            return text[: text.index('"potential_risks"') + 30], "length"
        raise ValueError(f"unknown fault {self.fault!r}")


class FakeOpenAI(FakeHTTPServer):
    """Fake OpenAI API: ``POST /v1/chat/completions``, ``GET /v1/models[/{id}]``.

    Args:
        latency: seconds slept before answering each request (concurrent requests overlap).
        responder: ``(request_json) -> str`` producing the assistant message content;
            defaults to :func:`default_responder`.
        highlights_responder: the same, for highlight-ranking requests; defaults to
            :func:`default_highlights`.
        reject_json_schema: answer requests with ``response_format.type == "json_schema"``
            with HTTP 400 (as some OpenAI-compatible servers do); ``json_object`` still works.
        api_key: when set, requests must send ``Authorization: Bearer <api_key>`` (else 401).
        models: ids listed by ``GET /v1/models``.
    """

    def __init__(
        self,
        *,
        latency: float = 0.0,
        responder: Responder | None = None,
        highlights_responder: Responder | None = None,
        reject_json_schema: bool = False,
        api_key: str | None = None,
        models: Iterable[str] = ("gpt-4.1-mini", "gpt-4o-mini", "gpt-4o"),  # prdigest's default first
    ) -> None:
        super().__init__(latency=latency)
        self.responder: Responder = responder or default_responder
        self.highlights_responder: Responder = highlights_responder or default_highlights
        self.reject_json_schema = reject_json_schema
        self.api_key = api_key
        self.models = list(models)
        self.chat_requests: list[dict[str, Any]] = []  # parsed bodies, in arrival order
        self._script: deque[ScriptStep] = deque()
        self._highlights_script: deque[ScriptStep] = deque()
        self._every: tuple[int, list[ScriptStep]] | None = None
        self._every_seen = 0
        self.every_fired = 0  # requests answered by a fault_every() step
        self._count = 0
        self._state_lock = threading.Lock()

        self.route("POST", r"/v1/chat/completions", self._chat_completions)
        self.route("GET", r"/v1/models", self._list_models)
        self.route("GET", r"/v1/models/(?P<model>[^/]+)", self._get_model)

    # -- knobs -----------------------------------------------------------------------------

    def script(self, steps: Iterable[ScriptStep]) -> None:
        """Queue per-request behaviours; each chat request consumes one, then defaults resume.

        Steps: ``("status", code)``, ``("status", code, headers)``,
        ``("status", code, headers, body)``, ``("content", text)``, ``("hang", seconds)``
        (sleep, then answer normally — pair with a client timeout). Highlight-ranking requests
        do not consume these: see `script_highlights`.
        """
        steps = list(steps)
        for step in steps:
            if not step or step[0] not in _STEP_KINDS:
                raise ValueError(f"unknown script step {step!r}")
        with self._state_lock:
            self._script.extend(steps)

    def script_highlights(self, steps: Iterable[ScriptStep]) -> None:
        """Queue behaviours for highlight-ranking requests only (same steps as `script`);
        each ranking request consumes one, then `highlights_responder` resumes."""
        steps = list(steps)
        for step in steps:
            if not step or step[0] not in _STEP_KINDS:
                raise ValueError(f"unknown script step {step!r}")
        with self._state_lock:
            self._highlights_script.extend(steps)

    @property
    def highlights_requests(self) -> list[dict[str, Any]]:
        """The highlight-ranking requests received, in arrival order."""
        with self._state_lock:
            return [r for r in self.chat_requests if is_highlights_request(r)]

    @property
    def summary_requests(self) -> list[dict[str, Any]]:
        """Every other chat request (summaries, repairs, revisions), in arrival order."""
        with self._state_lock:
            return [r for r in self.chat_requests if not is_highlights_request(r)]

    def fault_every(self, n: int, steps: Iterable[ScriptStep]) -> None:
        """Every `n`th chat request (the nth, 2nth, ...) takes the next of `steps`, in a cycle,
        until ``fault_every(0, [])`` turns it off. Script steps are consumed first. Highlight-
        ranking requests are not counted (see `script_highlights`)."""
        steps = list(steps)
        for step in steps:
            if not step or step[0] not in _STEP_KINDS:
                raise ValueError(f"unknown script step {step!r}")
        with self._state_lock:
            self._every = (n, steps) if n > 0 and steps else None
            self._every_seen = 0

    @property
    def script_remaining(self) -> int:
        with self._state_lock:
            return len(self._script)

    @property
    def completions_count(self) -> int:
        """Chat completion requests received (including failed ones)."""
        with self._state_lock:
            return self._count

    # -- hooks -----------------------------------------------------------------------------

    def default_headers(self, req: RecordedRequest, resp: Response) -> dict[str, str]:
        return {
            "Content-Type": "application/json",
            "x-request-id": f"req_{uuid.uuid4().hex}",
            "openai-processing-ms": str(int(self.latency * 1000)),
            "openai-version": "2020-10-01",
            "x-ratelimit-limit-requests": "10000",
            "x-ratelimit-remaining-requests": "9999",
            "x-ratelimit-limit-tokens": "2000000",
            "x-ratelimit-remaining-tokens": "1999000",
        }

    def error_body(self, status: int, headers: dict[str, str], req: RecordedRequest) -> Any:
        return _error_body(status)

    def not_found(self, req: RecordedRequest) -> Response:
        return Response(
            404,
            _error_body(404, f"Invalid URL ({req.method} {req.path})", code=None),
        )

    # -- handlers --------------------------------------------------------------------------

    def _check_auth(self, req: RecordedRequest) -> Response | None:
        auth = req.header("authorization") or ""
        if not auth.startswith("Bearer ") or (
            self.api_key is not None and auth != f"Bearer {self.api_key}"
        ):
            return Response(
                401,
                _error_body(401, "Incorrect API key provided."),
            )
        return None

    def _chat_completions(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        with self._state_lock:
            self._count += 1
        return self._complete(req)

    def _complete(self, req: RecordedRequest) -> Response:
        if not isinstance(req.json, dict):
            return Response(
                400, _error_body(400, "We could not parse the JSON body of your request.")
            )
        body: dict[str, Any] = req.json
        with self._state_lock:
            self.chat_requests.append(body)
        if (denied := self._check_auth(req)) is not None:
            return denied
        if not body.get("model") or not isinstance(body.get("messages"), list):
            return Response(
                400, _error_body(400, "Missing required parameter: 'messages'.", param="messages")
            )
        response_format = body.get("response_format") or {}
        if self.reject_json_schema and response_format.get("type") == "json_schema":
            return Response(
                400,
                _error_body(
                    400,
                    "response_format json_schema is not supported",
                    param="response_format",
                    code=None,
                ),
            )

        ranking = is_highlights_request(body)
        with self._state_lock:
            if ranking:
                step = self._highlights_script.popleft() if self._highlights_script else None
            else:
                step = self._script.popleft() if self._script else None
            if step is None and not ranking and self._every is not None:
                every, steps = self._every
                self._every_seen += 1
                if self._every_seen % every == 0:
                    step = steps[self.every_fired % len(steps)]
                    self.every_fired += 1
        content: str | None = None
        finish_reason = "stop"
        if step is not None:
            kind = step[0]
            if kind == "status":
                status = int(step[1])
                headers = dict(step[2]) if len(step) > 2 and step[2] else {}
                err = step[3] if len(step) > 3 else _error_body(status)
                return Response(status, err, headers)
            if kind in ("content", "length"):
                content, finish_reason = str(step[1]), "stop" if kind == "content" else "length"
            elif kind == "hang":
                self.sleep(float(step[1]))
        if content is None:
            answer = (self.highlights_responder if ranking else self.responder)(body)
            content, finish_reason = answer if isinstance(answer, tuple) else (answer, "stop")
        return self._completion_response(body, content, finish_reason)

    def _completion_response(
        self, body: dict[str, Any], content: str, finish_reason: str = "stop"
    ) -> Response:
        prompt_tokens = estimate_tokens(request_text(body))
        completion_tokens = estimate_tokens(content)
        completion_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())
        model = str(body["model"])
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        if body.get("stream"):
            return self._stream_response(body, completion_id, created, model, content, usage)
        return Response(
            200,
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": content,
                            "refusal": None,
                            "annotations": [],
                        },
                        "logprobs": None,
                        "finish_reason": finish_reason,
                    }
                ],
                "usage": usage,
                "service_tier": "default",
                "system_fingerprint": "fp_fake",
            },
        )

    def _stream_response(
        self,
        body: dict[str, Any],
        completion_id: str,
        created: int,
        model: str,
        content: str,
        usage: dict[str, Any],
    ) -> Response:
        """Server-sent events, all written at once (enough for clients that ask to stream)."""

        def chunk(delta: dict[str, Any], finish: str | None, with_usage: bool = False) -> str:
            data: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": []
                if with_usage
                else [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if with_usage:
                data["usage"] = usage
            return f"data: {json.dumps(data)}\n\n"

        events = [
            chunk({"role": "assistant", "content": ""}, None),
            chunk({"content": content}, None),
            chunk({}, "stop"),
        ]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(chunk({}, None, with_usage=True))
        events.append("data: [DONE]\n\n")
        return Response(200, "".join(events), {"Content-Type": "text/event-stream; charset=utf-8"})

    def _model_json(self, model: str) -> dict[str, Any]:
        return {"id": model, "object": "model", "created": 1700000000, "owned_by": "fake"}

    def _list_models(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._check_auth(req)) is not None:
            return denied
        return Response(200, {"object": "list", "data": [self._model_json(x) for x in self.models]})

    def _get_model(self, req: RecordedRequest, m: re.Match[str]) -> Response:
        if (denied := self._check_auth(req)) is not None:
            return denied
        if m["model"] not in self.models:
            return Response(
                404, _error_body(404, f"The model '{m['model']}' does not exist", param="model")
            )
        return Response(200, self._model_json(m["model"]))


def _error_body(
    status: int,
    message: str | None = None,
    *,
    param: str | None = None,
    code: str | None = "",
) -> dict[str, Any]:
    """OpenAI's error envelope: ``{"error": {message, type, param, code}}``."""
    err_type, default_code = _ERROR_TYPES.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", None)
    )
    if message is None:
        if status == 429:
            message = "Rate limit reached for requests. Please try again later."
        elif status >= 500:
            message = "The server had an error while processing your request. Sorry about that!"
        else:
            message = reason(status)
    return {
        "error": {
            "message": message,
            "type": err_type,
            "param": param,
            "code": default_code if code == "" else code,
        }
    }
