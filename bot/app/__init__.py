"""The top: the composition root, the platform registry, `prdigest run` and the CLI.

May import: everything (`adapters` included); nothing imports it.
"""
