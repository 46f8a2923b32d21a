"""Everything platform-neutral about chat: commands, posting, flags, revisions, subscriptions.

May import: `bot.digest`, `bot.store`, `bot.ports`, `bot.core`; never a chat library.
"""
