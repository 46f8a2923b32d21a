"""`prdigest slack-manifest`: the Slack app manifest to paste."""

from __future__ import annotations

import click

from adapters.slack.manifest import manifest_yaml


@click.command("slack-manifest")
@click.option("--request-url", help="HTTP mode: the public URL of /slack/events.")
def command(request_url: str | None) -> None:
    """Print the Slack app manifest to paste at api.slack.com/apps."""
    click.echo(manifest_yaml(request_url), nl=False)
