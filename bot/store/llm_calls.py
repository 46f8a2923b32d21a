"""The `llm_calls` table: every prompt and response, as llm logs them."""

from __future__ import annotations

import json

from bot.core.clock import utcnow
from bot.core.models import Usage
from bot.store.base import Tables, iso


class LLMCallTables(Tables):
    def log_llm_call(
        self,
        *,
        repo: str,
        number: int,
        model: str,
        prompt_version: str,
        purpose: str,
        messages: list[dict],
        response: str | None,
        error: str | None,
        usage: Usage,
        duration_ms: int,
    ) -> int:
        return (
            self.db["llm_calls"]
            .insert(
                {
                    "repo": repo,
                    "number": number,
                    "model": model,
                    "prompt_version": prompt_version,
                    "purpose": purpose,
                    "messages": json.dumps(messages),
                    "response": response,
                    "error": error,
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "duration_ms": duration_ms,
                    "created_at": iso(utcnow()),
                }
            )
            .last_pk
        )

    def llm_call_count(self) -> int:
        return self.db["llm_calls"].count

    def recent_call_seconds(self, model: str, purpose: str, limit: int) -> list[float]:
        """How long the last `limit` answered calls of `model` for `purpose` took, newest
        first: a measure of this machine's speed with that model."""
        rows = self.db.execute(
            "SELECT duration_ms FROM llm_calls"
            " WHERE model = ? AND purpose = ? AND error IS NULL AND duration_ms > 0"
            " ORDER BY id DESC LIMIT ?",
            [model, purpose, limit],
        )
        return [ms / 1000 for (ms,) in rows.fetchall()]
