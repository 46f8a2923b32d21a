"""Summarizers: the prompt and diff budget, the OpenAI-compatible client, the local model.

May import: `bot.ports`, `bot.core` (LLM settings only, never `bot.core.settings`), openai.
"""
