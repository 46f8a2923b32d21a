"""The store: all SQL, one module per table family (prs, summaries, llm_calls, posts, flags,
subscriptions, lease), joined by the `Store` facade; migrations. May import: `bot.core` only."""
