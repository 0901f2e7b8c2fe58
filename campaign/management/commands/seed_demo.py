"""Load a demo: a GM and two players, one campaign per ruleset, characters with a few injuries (dice entered)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from campaign import services
from campaign.models import Campaign

PASSWORD = "demo-password-123"
DEMO = [
    (
        "Seattle Shadows (demo)",
        "shadowrun2",
        [
            (
                "Ash",
                "player",
                {"body": 4, "willpower": 5},
                [
                    {
                        "type": "wound",
                        "severity": "S",
                        "open_wound": True,
                        "rolls": {
                            "body_check": [2, 5, 1, 3],
                            "location": [3, 4],
                            "critical": [2],
                            "death_time": [4],
                        },
                    },
                    {"type": "note", "text": "Shot by the Lone Star sniper on the roof."},
                ],
            ),
            (
                "Brick",
                "player2",
                {"body": 7},
                [
                    {"type": "wound", "severity": "M", "rolls": {"body_check": [6, 6, 3, 1, 5, 2, 4]}},
                ],
            ),
        ],
    ),
    (
        "Night City Blues (demo)",
        "cyberpunk2020",
        [
            (
                "Vex",
                "player",
                {"body": 6, "luck": 4},
                [
                    {
                        "type": "damage",
                        "damage": 20,
                        "kind": "normal",
                        "location": "left_arm",
                        "rolls": {"stun_save": [3], "death_save": [2], "sever": [7]},
                    },
                ],
            ),
        ],
    ),
    (
        "Route 66 Run (demo)",
        "darkfuture",
        [
            (
                "Jet",
                "player",
                {"con": 8, "skills": {"driver": 3, "gunner": 4}, "driver": True},
                [
                    {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [2]}},
                    {"type": "damage", "weapon_damage": 1, "rolls": {"damage": [4], "stun": [2]}},
                ],
            ),
        ],
    ),
]


class Command(BaseCommand):
    help = "Create demo users (gm, player, player2; password demo-password-123) and one campaign per ruleset."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        users = {}
        for name in ("gm", "player", "player2"):
            user, created = User.objects.get_or_create(username=name)
            if created:
                user.set_password(PASSWORD)
                user.save()
            users[name] = user
        if not users["gm"].is_superuser:
            users["gm"].is_staff = users["gm"].is_superuser = True
            users["gm"].save()
        for title, ruleset, characters in DEMO:
            if Campaign.objects.filter(name=title).exists():
                continue
            campaign = services.campaign_create(user=users["gm"], name=title, ruleset=ruleset)
            for name, player, attributes, actions in characters:
                character = services.character_create(
                    campaign=campaign, actor="gm", name=name, player=player, attributes=attributes
                )
                for body in actions:
                    services.character_act(character_id=character.pk, body=body, actor="gm")
        self.stdout.write(
            f"demo ready: log in at http://127.0.0.1:8000/ as gm, player or player2 (password {PASSWORD})"
        )
