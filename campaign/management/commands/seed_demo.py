"""Load a demo: a GM and two players, one campaign per ruleset, characters with a few injuries (dice entered).

Each ruleset brings its own demo campaign (`CharacterSheet.demo` in `rules/<slug>/sheet.py`)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from campaign import services
from campaign.models import Campaign
from rules.registry import all_rulesets

PASSWORD = "demo-password-123"


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
        for ruleset in all_rulesets():
            demo = ruleset.sheet.demo if ruleset.sheet is not None else None
            if demo is None or Campaign.objects.filter(name=demo.title).exists():
                continue
            campaign = services.campaign_create(user=users["gm"], name=demo.title, ruleset=ruleset.slug)
            for name, player, attributes, actions in demo.characters:
                # The demo's players are members without being asked (an invitation waits for an answer).
                services.member_add(campaign=campaign, username=player, role="player")
                character = services.character_create(
                    campaign=campaign, actor="gm", name=name, player=player, attributes=attributes
                )
                for body in actions:
                    services.character_act(character_id=character.pk, body=body, actor="gm")
        self.stdout.write(
            f"demo ready: log in at http://127.0.0.1:8000/ as gm, player or player2 (password {PASSWORD})"
        )
