"""prdigest: what was merged into a GitHub repository yesterday, summarized.

Layers, top to bottom: app → schedule → chat → digest → store → ports → core (adapters sit
between app and schedule, summarizer beside store); each imports only those below it.
"""

__version__ = "0.1.0"
