"""The reads of where notifications go, for the API that sets them: a campaign's hooks and the campaigns a
device's push subscription names. What the outbox reads as it writes its rows is its own (`campaign.notify`)."""

from __future__ import annotations

from campaign.models import Campaign, Hook, PushSubscription


def hooks(campaign: Campaign) -> list[Hook]:
    """The campaign's hooks, oldest first."""
    return list(Hook.objects.filter(campaign=campaign).order_by("pk"))


def subscribed_campaigns(subscription: PushSubscription) -> list[int]:
    """The ids of the campaigns whose every character a GM's device is told of, in order."""
    return sorted(subscription.campaigns.values_list("pk", flat=True))
