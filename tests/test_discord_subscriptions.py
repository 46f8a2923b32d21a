"""`/digest subscribe`, `unsubscribe` and `subscriptions` on Discord, through the core."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest

from bot.core.settings import Settings
from bot.schedule.scheduler import DigestScheduler
from bot.schedule.subscriptions import Subscriptions
from bot.store.lease import Lease
from bot.store.subscriptions import SubscriptionStore
from tests.conftest import REPO
from tests.fakes.discord import FakeDiscord, FakeInteraction, running_bot


@pytest.fixture
async def bot(fake: FakeDiscord, settings: Settings) -> AsyncIterator:
    async with running_bot(fake, settings) as bot:
        # As `prdigest run` wires it: the scheduler posts through the bot's own poster.
        bot.scheduler = DigestScheduler(
            bot.service,
            {"discord": bot.poster},
            Subscriptions.from_settings(settings, bot.store),
            settings,
            lease=Lease(bot.store),
        )
        yield bot


async def digest(fake: FakeDiscord, **options) -> FakeInteraction:
    permissions = options.pop("app_permissions", None)
    kwargs = {"app_permissions": permissions} if permissions is not None else {}
    interaction = fake.slash("digest", options, **kwargs)
    await fake.wait_for(lambda: interaction.finished, what="/digest to answer")
    (callback,) = interaction.callbacks
    assert callback["type"] == 4 and callback["data"]["flags"] & 64  # only the user sees it
    return interaction


async def test_subscribe_list_and_unsubscribe(fake, bot):
    subscribed = await digest(fake, day="subscribe at 8:30 tz Europe/Paris", repo=REPO)
    listed = await digest(fake, day="subscriptions")
    (sub,) = SubscriptionStore(bot.store).list("discord", fake.channel_id)
    removed = await digest(fake, day="unsubscribe", repo=REPO)
    assert subscribed.text().startswith(f"Subscribed: the digest of {REPO} is posted here every")
    assert "08:30 Europe/Paris" in subscribed.text()
    assert (sub.repo, sub.post_time, sub.tz_name) == (REPO, "08:30", "Europe/Paris")
    assert REPO in listed.text() and listed.text().startswith("Digests in this channel")
    assert removed.text().startswith("Unsubscribed")
    assert SubscriptionStore(bot.store).list("discord", fake.channel_id) == []
    assert fake.requests(r"^/channels/\d+/messages$", "POST") == []


async def test_subscribing_where_the_bot_cannot_post_is_refused(fake, bot):
    only_send = discord.Permissions(send_messages=True, view_channel=True).value
    refused = await digest(fake, day="subscribe", repo=REPO, app_permissions=only_send)
    assert "invite me first" in refused.text()
    assert SubscriptionStore(bot.store).list("discord", fake.channel_id) == []


async def test_without_a_scheduler_subscriptions_are_declined(fake, settings):
    async with running_bot(fake, settings):
        interaction = await digest(fake, day="subscriptions")
    assert interaction.text() == "Daily digests are not scheduled by this process."
