"""`prdigest doctor`: everything the settings configure, checked, one line each (✓ or ✗, what
is wrong, and the fix). It changes nothing: no post, no channel joined, no database written,
at most one LLM call.

- `check`: the `Check` line, and the time limit and thread every network call runs under;
- `runner`: `run_checks(settings)`, in order, concurrently where independent; and
  `check_at_start`, which `prdigest run` starts in the background to log the failures;
- one module per service: `settings_db` (prdigest.toml, subscriptions, the database),
  `github`, `llm`, `slack`, `discord` (their calls are `adapters.*.doctor`'s), `schedule`.

May import what `bot.app` may; `bot.app.commands.doctor` and `bot.app.runner` import it.
"""
