"""The subcommands of `prdigest`, one module each, imported by `bot.app.cli` only when run.

Each module defines `command` and imports what that command uses and no more: a module
here is what one command costs to start.
"""
