"""A logging call whose arguments do not fit its message's `%` placeholders fails when its
record is emitted; a PR that rewrites it to fit is said to fix that, in `logging`'s terms,
and its risk is that only what is logged changes (vLLM #35434, "debug print patch")."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.log_calls import log_call, log_fixes
from tests.diffs import changed, pr_of, risk_of

DEBUG_PRINT = pr_of(changed("vllm/transformers_utils/repo_utils.py", (
    "@@ -285,7 +285,7 @@ def get_hf_file_to_dict(\n"
    "             LocalEntryNotFoundError,\n"
    "         ) as e:\n"
    '-            logger.debug("File or repository not found in hf_hub_download", e)\n'
    '+            logger.debug("File or repository not found in hf_hub_download:", exc_info=e)\n'
    "             return None\n"
)))  # fmt: skip


def test_placeholders_are_counted_against_the_arguments_after_the_message():
    assert log_call('logger.debug("not found", e)').fits is False
    assert log_call('logger.warning("%s of %d", name, n)').fits is True
    assert log_call('logging.info("100%% done: %s", x)').fits is True
    assert log_call('logger.error("%s and %s", x)').fits is False
    # Not counted: an f-string, a mapping, a call that is not a logger's.
    assert log_call('logger.info(f"{x} done", y)') is None
    assert log_call('logger.info("%(x)s", {"x": 1})') is None
    assert log_call('print("x", y)') is None


def test_the_fix_says_what_was_broken_and_that_only_the_log_changes():
    (fix,) = log_fixes(DEBUG_PRINT)
    assert fix.enclosing == "get_hf_file_to_dict"
    out = finish(SummarySections("It patches a debug print.", "", "", ""), DEBUG_PRINT,
                 extract_facts(DEBUG_PRINT))  # fmt: skip
    assert (
        "The old `debug` call gave 1 argument to a message with no `%` placeholder: when the "
        "record was emitted, `logging` could not format it (\"not all arguments converted "
        'during string formatting") and printed a "--- Logging error ---" traceback instead '
        "of the message."
    ) in out.what_changed
    assert risk_of(DEBUG_PRINT) == (
        "Only what `get_hf_file_to_dict` logs changes, and only when `debug` records of its "
        "logger are emitted: the code around the call runs as it did."
    )


def test_a_call_that_fitted_before_is_no_fix():
    reworded = pr_of(changed("vllm/x.py", (
        "@@ -1,3 +1,3 @@ def f():\n"
        '-    logger.info("loaded %s", path)\n'
        '+    logger.info("loaded %s from disk", path)\n'
    )))  # fmt: skip
    assert log_fixes(reworded) == []


def test_what_logging_itself_accepts_is_no_fix_to_make():
    # With no arguments `logging` never formats: a bare `%` is text, not a placeholder.
    assert log_call('logger.info("Loaded 50% of weights")').fits is True
    # `%*d` takes a width and a value; `%ld` is a conversion with a length modifier.
    assert log_call('logger.info("%*d", width, n)').fits is True
    assert log_call('logger.info("%ld items", n)').fits is True
    # One mapping serves every `%(name)s`: not counted.
    assert log_call('logger.info("%(a)s", {"a": 1})') is None
    assert log_call('logger.warning_once("%s left", n)').level == "warning"


def test_a_logger_that_does_not_format_with_percent_is_not_read():
    loguru = pr_of(changed("vllm/x.py", (
        "@@ -1,3 +1,3 @@ from loguru import logger\n"
        "@@ -10,3 +10,3 @@ def f():\n"
        '-    logger.debug("not found", e)\n'
        '+    logger.debug("not found: %s", e)\n'
    )))  # fmt: skip
    assert log_fixes(loguru) == []
