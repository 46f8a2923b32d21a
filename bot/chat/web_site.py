"""Serving an aiohttp application on our own event loop: Slack's events endpoint (`--http`)
and `/healthz` with `/metrics` start the same way, and fail the same way when the port is
taken."""

from __future__ import annotations

from aiohttp import web

from bot.core.errors import ConfigurationError


async def start_site(
    app: web.Application, host: str, port: int, *, failure: str, access_log: bool = True
) -> web.AppRunner:
    """`app` listening on `host:port`; the runner to clean up. A port that cannot be bound is
    one ConfigurationError, "`failure`: the reason", with nothing left half-started."""
    runner = web.AppRunner(app) if access_log else web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise ConfigurationError(f"{failure}: {exc.strerror or exc}") from None
    return runner
