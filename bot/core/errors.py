"""Errors a user can act on. The CLI and the chat adapters show their message as one line."""


class PRDigestError(Exception):
    """Base for every error whose message is meant for the user, not a traceback."""


class UserInputError(PRDigestError):
    """Bad input: a malformed date, an unknown zone, a PR reference that is not one."""


class NotFoundError(PRDigestError):
    """The repository, PR or issue does not exist (or the token cannot see it)."""


class ConfigurationError(PRDigestError):
    """Something the user must configure is missing or wrong."""


class SourceError(PRDigestError):
    """GitHub failed in a way retries did not fix."""


class StorageError(PRDigestError):
    """The database cannot take a write (read-only, full, locked past its timeout, failing):
    nothing of the failed write was kept, and nothing stored before was lost.

    `str()` is the line a chat user sees (no server detail: no path, no setting);
    `operator_line` the CLI's, which may name the setting PRDIGEST_DB but never its value;
    `reason` is the short cause, for log lines.
    """

    READ_ONLY = "read-only"
    FULL = "full"
    LOCKED = "locked"
    BROKEN = "broken"

    # kind: (what failed, what a chat user can do, what the operator does)
    _LINES = {
        READ_ONLY: (
            "The database is read-only",
            "ask the bot's operator to make it writable, then try again",
            "make PRDIGEST_DB writable and try again",
        ),
        FULL: (
            "The database's disk is full",
            "ask the bot's operator to free some space, then try again",
            "free space on the disk of PRDIGEST_DB and try again",
        ),
        LOCKED: (
            "The database stayed locked by another process",
            "try again in a minute",
            "try again once the other process (another prdigest?) is done with PRDIGEST_DB",
        ),
        BROKEN: (
            "The database cannot be used",
            "ask the bot's operator to check it, then try again",
            "check the file PRDIGEST_DB names, then try again",
        ),
    }

    def __init__(self, kind: str, reason: str | None = None):
        self.kind = kind if kind in self._LINES else self.BROKEN
        failed, self._user_hint, self._operator_hint = self._LINES[self.kind]
        if self.kind == self.BROKEN and reason:
            failed = f"{failed} ({reason})"
        self.reason = reason or failed[0].lower() + failed[1:]
        self._failed = failed
        super().__init__(self._line(self._user_hint))

    def _line(self, hint: str) -> str:
        return f"{self._failed}, so nothing was saved and nothing was lost: {hint}."

    @property
    def operator_line(self) -> str:
        return self._line(self._operator_hint)
