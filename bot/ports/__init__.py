"""The ports: the summarizer, the chat transport, flag reactions and answers, and schedule
control, as Protocols (and the values an adapter hands over).

May import: `bot.core` only; every layer above may import these.
"""
