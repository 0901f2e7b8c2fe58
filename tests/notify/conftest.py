"""What the notification tests share: the server's VAPID keys, a fake push service and a player's phone subscribed
to it; hooks added as a GM adds them, through the API, pointed at local fakes (`HOOKS_ALLOW_PRIVATE` on, as
docs/notifications.md says tests and development do)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from campaign.management.commands.vapid_keys import new_pair
from campaign.models import Delivery, Event
from tests.conftest import Persona, Table
from tests.notify.fake_push import FakePushService, Phone

SUBJECT = "mailto:gm@example.org"


@pytest.fixture
def vapid(settings: Any) -> str:
    """A key pair of the server's own, as `manage.py vapid_keys` makes it; the public key."""
    public, private = new_pair()
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY, settings.VAPID_SUBJECT = public, private, SUBJECT
    return public


@pytest.fixture
def push_service(vapid: str, settings: Any) -> Iterator[FakePushService]:
    settings.HOOKS_ALLOW_PRIVATE = True  # the fake push service is on 127.0.0.1, over http
    with FakePushService(vapid, SUBJECT) as service:
        yield service


def subscribe(who: Persona, phone: Phone, **more: Any) -> dict[str, Any]:
    """`who` taps "Tell me on this phone" on `phone`: its subscription posted as the page posts it."""
    answer = who.post("/api/push/subscriptions/", {**phone.subscription(), **more})
    assert answer.status_code in (200, 201), answer.content
    return answer.json()


def last_position() -> int:
    return Event.objects.order_by("-position").values_list("position", flat=True).first() or 0


def positions_after(position: int, character_id: int) -> list[int]:
    """The character's events after `position`: what one action or advance appended, as the outbox names them."""
    rows = Event.objects.filter(position__gt=position, character_id=character_id).order_by("position")
    return list(rows.values_list("position", flat=True))


EVERY_KIND = [
    "wounded",
    "healed",
    "stabilized",
    "dying",
    "dead",
    "fit_again",
    "party_fit",
    "clock",
    "house_rules",
]
# A Serious wound with a Mortal hit to the chest's lung, undiagnosed: the GM sees it bleed out in 30 minutes; the
# player feels a wound in the chest (tests/api/test_shadowrun2.py).
MORTAL_LUNG = {"body_check": [1, 1, 1, 1, 1], "location": [3, 4], "critical": [1], "death_time": [3]}

# Cyberpunk: a medic's first aid on a wound of the torso (`WOUND_TORSO_7`), which then heals a point a day.
TREAT = {
    "type": "treat",
    "skill": "first_aid",
    "medic": "Doc",
    "tech": 6,
    "skill_level": 4,
    "rolls": {"treatment": [5]},
}


@pytest.fixture
def local_fakes(settings: Any) -> None:
    settings.HOOKS_ALLOW_PRIVATE = True


def add_hook(
    table: Table, audience: str, *, kind: str = "webhook", url: str = "http://127.0.0.1:9/hook", **more: Any
) -> dict[str, Any]:
    answer = table.gm.post(
        f"/api/campaigns/{table.campaign['id']}/hooks/",
        {"kind": kind, "url": url, "audience": audience, **more},
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def messages(audience: str) -> list[dict[str, Any]]:
    """The messages the outbox holds for the hooks of an audience, oldest first."""
    return [row.message for row in Delivery.objects.filter(hook__audience=audience).order_by("created_at")]
