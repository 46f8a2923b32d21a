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
