"""Logging set-up: one line per event on stderr, with every secret value masked."""

from __future__ import annotations

import logging
import sys
from typing import Protocol


def mask(text: str, *secrets: str | None) -> str:
    """`text` with each secret (of 4+ characters) replaced by ***: for error messages that
    quote a server, which may echo the credentials it was sent."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


class RedactSecrets(logging.Filter):
    """Replaces any configured secret in a record's final text, whoever logged it."""

    def __init__(self, secrets: list[str]):
        super().__init__()
        self.secrets = [s for s in secrets if len(s) >= 4]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            message = record.getMessage()
            for secret in self.secrets:
                message = message.replace(secret, "***")
            record.msg, record.args = message, None
            if record.exc_info:
                # Tracebacks can quote a header or URL: render them here, masked, instead.
                text = logging.Formatter().formatException(record.exc_info)
                for secret in self.secrets:
                    text = text.replace(secret, "***")
                record.exc_info, record.exc_text = None, text
        return True


class HasSecrets(Protocol):
    def secrets(self) -> list[str]: ...


# The libraries' loggers. Their warnings (urllib3's "Retrying ...", a deprecation) are for
# whoever runs with -v: prdigest's own error line says what failed, once, in its words.
LIBRARIES = (
    "httpx", "httpx2", "httpcore", "httpcore2", "urllib3", "requests", "github", "openai",
    "slack_sdk", "discord", "py.warnings",
)  # fmt: skip


def configure_logging(settings: HasSecrets, verbose: int = 0) -> None:
    """stderr gets prdigest's warnings; -v adds its info and the libraries' warnings (Python
    warnings included), -vv prdigest's debug lines."""
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(settings.secrets()))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # warnings.warn() goes to the "py.warnings" logger, and so to the log, not to the terminal.
    logging.captureWarnings(True)
    # The HTTP clients log every request at DEBUG/INFO, URLs and headers included: even -vv
    # shows only their warnings. Without -v, not even those.
    library_level = logging.ERROR if verbose <= 0 else logging.WARNING
    for name in LIBRARIES:
        logging.getLogger(name).setLevel(library_level)
