"""prdigest: what was merged into a GitHub repository yesterday, summarized."""

__version__ = "0.1.0"
