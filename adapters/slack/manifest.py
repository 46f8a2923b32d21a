"""The Slack app manifest: paste it at api.slack.com/apps → "From a manifest" and you are set.

Built from data so that the shipped `slack/manifest.yml`, `prdigest slack-manifest` and the
tests agree; the scopes are exactly what the bot calls:

- `chat:write`: the digest thread, flag acknowledgements (chat.postMessage)
- `commands`: /digest and /prsummary
- `reactions:read`: the reaction_added / reaction_removed events that record flags
- `channels:history`, `groups:history`: conversations.history / conversations.replies, to
  find a message sent just before a crash (public / private channels) and to read the
  metadata of a flagged /prsummary answer
- `users:read`: users.info, so the answers to a flag name the flagger by display name,
  as plain text that notifies nobody
"""

from __future__ import annotations

import json
from typing import Any

COMMANDS = (
    {
        "command": "/digest",
        "description": "Post a day's merged PRs, summarized, as a thread in this channel",
        "usage_hint": "[yesterday | YYYY-MM-DD | N days ago] [owner/repo]",
    },
    {
        "command": "/prsummary",
        "description": "Summarize one pull request",
        "usage_hint": "35156 | #35156 | owner/repo#35156 | PR link",
    },
)
BOT_SCOPES = (
    "chat:write", "commands", "reactions:read", "channels:history", "groups:history",
    "users:read",
)  # fmt: skip
BOT_EVENTS = ("reaction_added", "reaction_removed")


def manifest(request_url: str | None = None, *, name: str = "prdigest") -> dict[str, Any]:
    """The manifest as data: Socket Mode, or HTTP mode when `request_url` is given."""
    commands = []
    for command in COMMANDS:
        entry: dict[str, Any] = dict(command)
        if request_url:
            entry["url"] = request_url
        entry["should_escape"] = False  # we want "#35156" as typed, not a channel link
        commands.append(entry)
    events: dict[str, Any] = {"bot_events": list(BOT_EVENTS)}
    if request_url:
        events["request_url"] = request_url
    return {
        "display_information": {
            "name": name,
            "description": "Daily summaries of the pull requests merged into a GitHub repository",
            "background_color": "#24292f",
        },
        "features": {
            "bot_user": {"display_name": name, "always_online": True},
            "slash_commands": commands,
        },
        "oauth_config": {"scopes": {"bot": list(BOT_SCOPES)}},
        "settings": {
            "event_subscriptions": events,
            "org_deploy_enabled": False,
            "socket_mode_enabled": request_url is None,
            "token_rotation_enabled": False,
        },
    }


def manifest_yaml(request_url: str | None = None) -> str:
    """The manifest as YAML, the format Slack's "From a manifest" dialog shows by default."""
    header = (
        "# prdigest's Slack app. Create it at https://api.slack.com/apps → Create New App →\n"
        "# From a manifest, paste this, then install it to the workspace and copy the Bot\n"
        "# token (SLACK_BOT_TOKEN) and an app-level token with connections:write\n"
        "# (SLACK_APP_TOKEN). Regenerate with: prdigest slack-manifest\n"
    )
    return header + "\n".join(_yaml(manifest(request_url), 0)) + "\n"


def _yaml(value: Any, indent: int) -> list[str]:
    """A small YAML emitter for dicts, lists and scalars; strings are JSON-quoted (valid YAML)."""
    pad = "  " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{key}:")
                lines.extend(_yaml(item, indent + 1))
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item:
                first, *rest = _yaml(item, indent + 1)
                lines.append(f"{pad}- {first.lstrip()}")
                lines.extend(rest)
            else:
                lines.append(f"{pad}- {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)
