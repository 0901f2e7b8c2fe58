import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaign.models import Campaign
from campaign.services import ServiceError
from campaign.transfer import export_text


class Command(BaseCommand):
    help = "Write a campaign's events as JSON Lines (to a file, or standard output)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("--output", "-o", help="file to write (default: standard output)")

    def handle(self, *args: Any, campaign: int, output: str | None = None, **options: Any) -> None:
        item = Campaign.objects.filter(pk=campaign).first()
        if item is None:
            raise CommandError(f"no campaign {campaign}")
        try:
            lines = export_text(item)
        except ServiceError as error:  # an advance is running
            raise CommandError(error.message) from None
        stream = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
        try:
            for line in lines:
                stream.write(line)
        finally:
            if output:
                stream.close()
