"""The Slack adapter: Block Kit rendering, the Web API transport, and the Bolt listeners.

May import: `bot.chat`, `bot.digest`, `bot.store`, `bot.ports`, `bot.core`, slack_bolt, slack_sdk.
"""

from adapters.slack.app import SlackBot, run_slack
from adapters.slack.manifest import manifest_yaml

__all__ = ["SlackBot", "manifest_yaml", "run_slack"]
