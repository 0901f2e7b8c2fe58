from typing import Any

from django.core.management.base import BaseCommand

from campaign.ledger.projections import rebuild_campaign
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Recompute every read model (characters, timers, campaign clocks) from the event log."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--campaign", type=int, help="only this campaign")

    def handle(self, *args: Any, campaign: int | None = None, **options: Any) -> None:
        campaigns = Campaign.objects.order_by("pk")
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
        total = 0
        for item in campaigns:
            total += rebuild_campaign(item)
        self.stdout.write(f"rebuilt {campaigns.count()} campaign(s) from {total} events")
