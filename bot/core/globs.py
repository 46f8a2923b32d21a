"""Path globs as users write them in prdigest.toml and in chat: `vllm/v1/attention/**`.

One syntax for every place a path pattern appears (area maps, subscription filters):
- `**` matches any number of directories, none included (`a/**/b` matches `a/b`);
  a trailing `/**` matches everything below the directory;
- `*` matches within one path segment, `?` one character of a segment;
- a trailing `/` names a directory: `docs/` is `docs/**`; a pattern with no wildcard names a
  file or a directory, so `vllm/v1/attention` matches everything below it too;
- a pattern without a `/` matches the file name at any depth, as in `.gitignore`:
  `*.md` matches `README.md` and `docs/usage/intro.md`.
Matching is case-sensitive, as paths on GitHub are.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bot.core.errors import UserInputError


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression a path must fully match; UserInputError for an empty pattern."""
    text = pattern.strip()
    if not text or text in ("/", "!"):
        raise UserInputError(f"empty path pattern {pattern!r}")
    if text.endswith("/"):
        text += "**"
    anchored = "/" in text.rstrip("/")
    text = text.lstrip("/")
    out: list[str] = [] if anchored else ["(?:.*/)?"]
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    if not any(char in text for char in "*?"):
        out.append("(?:/.*)?")  # what a user means by naming a directory: all below it
    return re.compile("".join(out))


def glob_matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).fullmatch(path) is not None


def any_glob_matches(patterns: tuple[str, ...] | list[str], path: str) -> bool:
    return any(glob_matches(p, path) for p in patterns)
