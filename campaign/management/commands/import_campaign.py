from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaign.transfer import import_file
from rules.params import RuleError


class Command(BaseCommand):
    help = "Create a new campaign from a JSON Lines export; the named user becomes its GM."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file")
        parser.add_argument("--gm", required=True, help="user name of the new campaign's GM")

    def handle(self, *args: Any, file: str, gm: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=gm).first()
        if user is None:
            raise CommandError(f"no user named {gm!r}")
        with open(file, "rb") as upload:
            data = upload.read()
        try:
            # The API's checks and its job, run here whatever the broker.
            campaign = import_file(data, user=user)
        except RuleError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"imported campaign {campaign.pk} ({campaign.name})")
