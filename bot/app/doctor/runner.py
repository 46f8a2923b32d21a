"""Every check the settings configure, run at once where they are independent.

The local ones first (prdigest.toml and the database give the subscriptions the others read),
then GitHub, the LLM, Slack and Discord side by side, each call under its own time limit and
each service under an overall one, then the schedule. A check that raises something
unexpected is one failed line, never a traceback; every line is masked for the settings'
secrets and cleaned of control characters on its way out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from bot.app.doctor.check import Check, failed, in_thread
from bot.app.doctor.discord import discord_checks
from bot.app.doctor.github import github_checks
from bot.app.doctor.llm import llm_checks
from bot.app.doctor.schedule import schedule_checks
from bot.app.doctor.settings_db import Configured, local_checks
from bot.app.doctor.slack import slack_checks
from bot.core.settings import Settings

log = logging.getLogger(__name__)

SERVICE_SECONDS = 120.0  # a whole service's checks: the LLM's call may take a minute
START_CHECKS = "prdigest-start-checks"  # the name of `prdigest run`'s task of `check_at_start`


async def run_checks(settings: Settings, *, llm_call: bool = True) -> list[Check]:
    """The doctor's checks for these settings, in the order they are printed; `llm_call`
    False leaves out the one LLM request (the endpoint and the model are still checked)."""
    found = await in_thread(local_checks, settings)
    subs = found.subscriptions
    services = await asyncio.gather(
        _service("GitHub", github_checks(settings, repositories(settings, found), subs)),
        _service("LLM", llm_checks(settings.llm, call=llm_call)),
        _service("Slack", slack_checks(settings, subs)),
        _service("Discord", discord_checks(settings, subs)),
    )
    checks = [*found.checks, *(c for lines in services for c in lines)]
    checks += schedule_checks(settings, subs)
    secrets = settings.secrets()
    return [check.cleaned(secrets) for check in checks]


def repositories(settings: Settings, found: Configured) -> dict[str, str]:
    """Each repository to read, once (any case), with where it is set, for the fix."""
    where: dict[str, str] = {}
    if settings.repo:
        where[settings.repo] = "PRDIGEST_REPO"
    config = str(settings.config_path) if settings.config_path else "PRDIGEST_REPO"
    for sub in found.subscriptions:
        origin = config if sub.id is None else f"the /digest subscribe in {sub.channel}"
        where.setdefault(sub.repo, origin)
    unique: dict[str, tuple[str, str]] = {}
    for repo, origin in where.items():
        unique.setdefault(repo.lower(), (repo, origin))
    return dict(unique.values())


async def _service(name: str, checks: Awaitable[list[Check]]) -> list[Check]:
    try:
        return await asyncio.wait_for(checks, SERVICE_SECONDS)
    except TimeoutError:
        return [
            failed(
                name,
                f"its checks took over {SERVICE_SECONDS:g} s",
                "run prdigest -v doctor to see why",
            )
        ]
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback; -v logs it
        log.info("the %s checks failed", name, exc_info=True)
        return [
            failed(
                name,
                f"could not be checked ({type(exc).__name__})",
                "run prdigest -v doctor to see why",
            )
        ]


async def check_at_start(settings: Settings) -> None:
    """`prdigest run`'s start: the same checks in the background, each failure one warning
    line in the log; nothing waits for them and nothing is stopped by them. All but the LLM
    request: a restart costs no tokens, and takes no answer a test scripted for a digest."""
    try:
        checks = await run_checks(settings, llm_call=False)
    except Exception:  # noqa: BLE001 - a check of the set-up must never stop the bot
        log.warning("the start-up checks could not run", exc_info=True)
        return
    failures = [check for check in checks if not check.ok]
    for check in failures:
        log.warning("doctor: %s", check.line())
    if not failures:
        log.info("doctor: all %d checks passed", len(checks))
