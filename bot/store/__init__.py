"""The store: all SQL, one module per table family (prs, summaries, llm_calls, posts, flags,
subscriptions, lease), joined by the `Store` facade; migrations. Each method is marked a read
or a write where it is written (`threads`). May import: `bot.core` and `bot.ports` only."""
