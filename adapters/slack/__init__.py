"""The Slack adapter: Block Kit rendering, the Web API transport, and the Bolt app.

Entry points for the CLI: `run_slack()` (`prdigest run`) and `manifest_yaml()`
(`prdigest slack-manifest`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.slack.app import SlackBot


async def run_slack(*args: Any, **kwargs: Any) -> None:
    """See `adapters.slack.app.run_slack`; imported lazily so the CLI starts fast."""
    from adapters.slack.app import run_slack as run

    await run(*args, **kwargs)


def manifest_yaml(request_url: str | None = None) -> str:
    from adapters.slack.manifest import manifest_yaml as build

    return build(request_url)


__all__ = ["SlackBot", "manifest_yaml", "run_slack"]
