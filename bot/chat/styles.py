"""How a channel shows a repository's digest: its title, trivial style and bot accounts.

One answer for every path that posts a digest (the schedule, `/digest`, `prdigest post` and
the resume after a restart), so a resumed thread is cut into replies exactly as it began.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.models import Digest, Subscription
from bot.core.post_times import subscription_key, target_key
from bot.core.scope import subscription_filter
from bot.core.settings import Settings
from bot.ports.schedule import SubscriptionSource


@dataclass(frozen=True)
class DigestStyles:
    settings: Settings
    subscriptions: SubscriptionSource | None = None

    @property
    def bots(self) -> frozenset[str]:
        return frozenset(login.lower() for login in self.settings.bots)

    def subscription(self, platform: str, channel: str, repo: str) -> Subscription | None:
        """The subscription posting `repo` to this channel, if any."""
        if self.subscriptions is None:
            return None
        key = target_key(platform, channel, repo)
        return next((s for s in self.subscriptions.all() if subscription_key(s) == key), None)

    def apply(self, digest: Digest, platform: str, channel: str) -> Digest:
        """`digest` as this channel shows it: its subscription's style, else the defaults."""
        sub = self.subscription(platform, channel, digest.repo)
        return self.of(digest, sub)

    def of(self, digest: Digest, sub: Subscription | None) -> Digest:
        if sub is None:
            return digest.styled(None, self.settings.trivial_style, self.bots)
        group_bots = subscription_filter(sub).groups_bots
        return digest.styled(sub.display_name, sub.trivial_style, self.bots, group_bots)
