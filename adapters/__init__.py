"""Chat platform adapters: per platform, its listeners, its transport and its pure renderer.

May import: `bot.chat`, `bot.digest`, `bot.store`, `bot.ports`, `bot.core`, and the chat libraries
(slack_bolt, slack_sdk, discord), which nothing outside `adapters/` imports.
"""
