"""Everything platform-neutral about chat: commands, posting, subscriptions, and flags with
their re-checks (`bot.chat.flags`).

May import: `bot.digest`, `bot.store`, `bot.ports`, `bot.core`; never a chat library.
"""
