"""The daily schedule: configured subscriptions (prdigest.toml, the environment) and the scheduler.

May import: `bot.chat`, `bot.digest`, `bot.store`, `bot.ports`, `bot.core`, APScheduler.
"""
