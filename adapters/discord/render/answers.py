"""What the user who typed a command is told once a digest is out."""

from __future__ import annotations


def posted_notice(status: str, repo: str, day: str, link: str, replies: int) -> str:
    if status == "posted":
        return f"Posted the digest of `{repo}` for {day}: {link}"
    if status == "resumed":
        return f"Finished the digest of `{repo}` for {day} ({replies} more PRs): {link}"
    return f"The digest of `{repo}` for {day} is already posted: {link}"
