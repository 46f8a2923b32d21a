"""The LLM: the endpoint answers, the model is one it serves, and one tiny call with the
summary's own schema comes back as that schema; or the built-in model is installed.

The one call is the doctor's only LLM call. It is asked through the summarizer's client
(`summarizer.llm_client.make_client`: the same timeouts, and connection failures that name the
host and OPENAI_BASE_URL) with the schema summaries are asked with, retries off. It is not
logged in the database: the doctor writes nothing. The built-in model is looked at, never
loaded (that takes most of a minute).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import openai

from bot.app.doctor.check import Check, failed, passed, within
from bot.core.llm_settings import LLMSettings
from summarizer import model_assembly
from summarizer.llm_client import describe, for_purpose, make_client
from summarizer.schema import RESPONSE_FORMAT_SCHEMA, SUMMARY_SCHEMA

LIST_SECONDS = 15.0
CALL_SECONDS = 60.0  # one short answer, from a model that may be slow to start
ENDPOINT = "LLM endpoint"
MODEL = "LLM model"
ROUND_TRIP = "LLM structured output"
LOCAL = "Built-in model"
PURPOSE = "doctor"  # the label of its requests in prdigest_llm_calls_total
# The one request: a made-up change, answered in the summary's schema, a sentence a section.
PROMPT = (
    "This is a connection test. Summarize this made-up pull request in the JSON schema given, "
    "one short sentence per field.\nTitle: Fix a typo in the README\n"
    "Diff: README.md: -Teh quick start / +The quick start"
)


async def llm_checks(llm: LLMSettings, *, call: bool = True) -> list[Check]:
    """The endpoint, the model and (`call`) the one round trip; or the built-in model."""
    if not llm.llm_configured:
        return [local_check(llm)]
    client = make_client(llm).with_options(max_retries=0)
    place = llm.endpoint.place
    try:
        with for_purpose(PURPOSE):  # counted apart from the digests' calls in /metrics
            listed = await within(LIST_SECONDS, ENDPOINT, endpoint_check(client, llm), where=place)
            checks = [listed] if isinstance(listed, Check) else listed
            if call and all(check.ok for check in checks):
                asked = round_trip(client, llm)
                checks.append(await within(CALL_SECONDS, ROUND_TRIP, asked, where=place))
        return checks
    finally:
        await client.close()


async def endpoint_check(client: openai.AsyncOpenAI, llm: LLMSettings) -> list[Check]:
    """The endpoint's list of models (GET /models, no LLM call), and the model among them."""
    place = llm.endpoint.place
    try:
        served = [model.id async for model in client.models.list()]
    except openai.NotFoundError:  # a server that lists no models: the call below tells
        return [passed(ENDPOINT, f"{place} answers (it does not list its models)")]
    except openai.OpenAIError as exc:
        return [failed(ENDPOINT, reason_of(exc), endpoint_fix(exc, llm))]
    answers = passed(ENDPOINT, f"{place} answers, serving {len(served)} models")
    if llm.model in served:
        return [answers, passed(MODEL, f"{llm.model} is served")]
    close = difflib.get_close_matches(llm.model, served, n=3, cutoff=0.4) or served[:3]
    return [
        answers,
        failed(
            MODEL,
            f"{llm.model} is not one of the {len(served)} models {place} serves",
            f"set PRDIGEST_MODEL to one it serves (e.g. {', '.join(close) or 'none listed'})",
        ),
    ]


def endpoint_fix(exc: openai.OpenAIError, llm: LLMSettings) -> str:
    if isinstance(exc, openai.AuthenticationError):
        return "set OPENAI_API_KEY to a key this endpoint accepts"
    if isinstance(exc, openai.APIConnectionError):
        return "check OPENAI_BASE_URL (e.g. http://localhost:8000/v1) and that the server is up"
    return "check OPENAI_BASE_URL and OPENAI_API_KEY"


async def round_trip(client: openai.AsyncOpenAI, llm: LLMSettings) -> Check:
    """One call with the summaries' schema; its answer must be that schema's object."""
    try:
        response = await client.chat.completions.create(
            model=llm.model,
            messages=[{"role": "user", "content": PROMPT}],
            response_format=RESPONSE_FORMAT_SCHEMA,  # type: ignore[arg-type]
        )
    except openai.BadRequestError as exc:
        if "response_format" in str(exc) or "json_schema" in str(exc):
            # The summarizer steps down to json_object then, so this is no failure.
            return passed(ROUND_TRIP, f"{llm.model} refuses json_schema: summaries ask for JSON")
        return failed(ROUND_TRIP, reason_of(exc), "check PRDIGEST_MODEL and the server's logs")
    except openai.OpenAIError as exc:
        return failed(ROUND_TRIP, reason_of(exc), endpoint_fix(exc, llm))
    choice = response.choices[0] if response.choices else None
    content = (choice.message.content if choice and choice.message else None) or ""
    missing = schema_faults(content)
    if missing:
        return failed(
            ROUND_TRIP,
            f"{llm.model} answered, but not in the schema asked for ({missing})",
            "use a model or server that supports structured output (json_schema)",
        )
    tokens = getattr(response.usage, "total_tokens", 0) or 0
    return passed(ROUND_TRIP, f"{llm.model} answered in the summary schema ({tokens} tokens)")


def reason_of(exc: openai.OpenAIError) -> str:
    """The failure in one line: where a connection failed, or what the endpoint answered."""
    if isinstance(exc, openai.APIConnectionError):
        return describe(exc) or "could not reach the LLM endpoint"
    if isinstance(exc, openai.AuthenticationError):
        return "the endpoint refused OPENAI_API_KEY (401)"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
        message = str(body.get("message", "")) if isinstance(body, dict) else ""
        return f"the endpoint answered {exc.status_code}" + (
            f": {message[:160]}" if message else ""
        )
    return f"LLM error: {type(exc).__name__}"


def schema_faults(content: str) -> str:
    """What is wrong with an answer as the summary's JSON object; "" when nothing is."""
    try:
        data = json.loads(content)
    except ValueError:
        return "not JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    missing = [key for key in SUMMARY_SCHEMA["required"] if not isinstance(data.get(key), str)]
    if missing:
        return "no " + ", ".join(missing)
    if data["type"] not in SUMMARY_SCHEMA["properties"]["type"]["enum"]:
        return f"type {data['type'][:20]!r}"
    return ""


def local_check(llm: LLMSettings) -> Check:
    """The built-in model: installed, and joined and verified already or on first use."""
    runtime = importlib.util.find_spec(model_assembly.RUNTIME_MODULE) is not None
    if llm.local_model:
        try:
            path = model_assembly.local_model_path(llm)
        except model_assembly.ModelAssemblyError as exc:
            return failed(LOCAL, str(exc), "fix PRDIGEST_LOCAL_MODEL, or unset it")
        if not runtime:
            return failed(LOCAL, f"{path}: the llama.cpp runtime is not installed", INSTALL)
        return passed(LOCAL, f"{path} (PRDIGEST_LOCAL_MODEL), {_size(path)}")
    if not model_assembly.local_runtime_available():
        return failed(
            "LLM",
            "none configured (no OPENAI_API_KEY or OPENAI_BASE_URL, no built-in model)",
            "set OPENAI_API_KEY (or OPENAI_BASE_URL for a self-hosted OpenAI-compatible "
            f"server), or install the built-in model: {model_assembly.INSTALL_HINT}",
        )
    target = model_assembly.default_cache_dir() / f"{model_assembly.MODEL_NAME}.gguf"
    if model_assembly.is_assembled():
        return passed(LOCAL, f"{model_assembly.MODEL_NAME}, verified, at {target}")
    return passed(
        LOCAL,
        f"{model_assembly.MODEL_NAME} installed: joined and verified into {target.parent} at "
        "its first use (1.1 GB, about a minute)",
    )


INSTALL = f"install it: {model_assembly.INSTALL_HINT}"


def _size(path: Path) -> str:
    return f"{path.stat().st_size / 1e9:.1f} GB"
