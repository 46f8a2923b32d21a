"""The ports: the summarizer, the chat transport, flag answers and schedule control, as Protocols.

May import: `bot.core` only; every layer above may import these.
"""
