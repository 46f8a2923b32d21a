"""Which reactions are flags: the configured emoji (PRDIGEST_FLAG_EMOJI), however a platform
names them. An adapter asks once, at its edge, before anything else is done for a reaction."""

from __future__ import annotations

from collections.abc import Iterable

# Slack reports reactions by name, Discord by the character: the same flag either way.
EMOJI_NAMES = {
    "x": "❌",
    "-1": "👎",
    "thumbsdown": "👎",
    "warning": "⚠️",
    "no_entry": "⛔",
    "no_entry_sign": "🚫",
    "heavy_multiplication_x": "✖️",
    "triangular_flag_on_post": "🚩",
}


def normalize_emoji(emoji: str) -> str:
    """`x`, `:x:` and `❌` are one flag; Slack skin tones (`-1::skin-tone-3`) are dropped."""
    name = emoji.strip().strip(":").split("::", 1)[0]
    return EMOJI_NAMES.get(name, name).replace("\ufe0f", "")


class FlagEmojis:
    """The emoji that flag a summary as inaccurate."""

    def __init__(self, emojis: Iterable[str] = ("x",)):
        self.emojis = frozenset(normalize_emoji(e) for e in emojis)

    def match(self, emoji: str) -> str | None:
        """The flag `emoji` is, normalized as it is recorded (`:x:` is `❌`); None when it is
        not a flag."""
        name = normalize_emoji(emoji)
        return name if name in self.emojis else None
