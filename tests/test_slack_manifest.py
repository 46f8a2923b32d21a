"""The Slack app manifest: what a new user pastes, and the file the repo ships."""

from __future__ import annotations

import re
from pathlib import Path

from adapters.slack import manifest_yaml
from adapters.slack.manifest import BOT_SCOPES, manifest

SHIPPED = Path(__file__).resolve().parent.parent / "slack" / "manifest.yml"


def test_the_shipped_manifest_is_the_generated_one():
    # Regenerate with: prdigest slack-manifest > slack/manifest.yml
    assert SHIPPED.read_text(encoding="utf-8") == manifest_yaml()


def test_socket_mode_manifest_declares_commands_scopes_and_events():
    data = manifest()
    assert [c["command"] for c in data["features"]["slash_commands"]] == ["/digest", "/prsummary"]
    assert all("url" not in c for c in data["features"]["slash_commands"])
    assert all(c["should_escape"] is False for c in data["features"]["slash_commands"])
    scopes = data["oauth_config"]["scopes"]["bot"]
    assert {"chat:write", "commands", "reactions:read"} <= set(scopes)
    # Only what the bot calls: no chat:write.public, no admin scopes; users:read names a
    # flagger (users.info) without mentioning them.
    assert set(scopes) == set(BOT_SCOPES) == {
        "chat:write", "commands", "reactions:read", "channels:history", "groups:history",
        "users:read",
    }  # fmt: skip
    settings = data["settings"]
    assert settings["event_subscriptions"]["bot_events"] == ["reaction_added", "reaction_removed"]
    assert settings["socket_mode_enabled"] is True
    assert "request_url" not in settings["event_subscriptions"]


def test_http_manifest_points_commands_and_events_at_the_request_url():
    url = "https://bot.example.com/slack/events"
    data = manifest(url)
    assert data["settings"]["socket_mode_enabled"] is False
    assert data["settings"]["event_subscriptions"]["request_url"] == url
    assert {c["url"] for c in data["features"]["slash_commands"]} == {url}
    assert f'request_url: "{url}"' in manifest_yaml(url)


def test_the_yaml_is_plain_block_style():
    text = manifest_yaml()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines[0] == "display_information:"
    assert '    - command: "/digest"' in lines
    assert '      usage_hint: "35156 | #35156 | owner/repo#35156 | PR link"' in lines
    assert '      - "reactions:read"' in lines
    assert "  socket_mode_enabled: true" in lines
    for line in lines:
        # Every line is `key:`, `key: scalar` or `- scalar` at an even indent.
        assert re.fullmatch(r'( {2})*(- )?([a-z_]+:( .+)?|"[^"]*")', line), line
