"""A day's digest: the GitHub source, the DigestService, and the Markdown and JSON renderers.

May import: `bot.store`, `summarizer`, `bot.ports`, `bot.core`, PyGithub.
"""
