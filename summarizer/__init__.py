"""Summarizers: turn one pull request into the report's four sections and a type.

`Summarizer` is the port (`summarizer.base`); `OpenAISummarizer` is the one implementation,
for any OpenAI-compatible endpoint, the built-in local model included.
"""
