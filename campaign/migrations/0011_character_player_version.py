"""Character.player_version: the count of a stream's events a player's history shows (campaign.ledger.secrecy).

A player is told this number instead of the stream's version, which counts GM notes and hidden rolls too. The
column is filled here from each character's events; afterwards the projections keep it with every append.
History pages need no new index: keyset pages run on the unique (stream, version) index.
"""

from django.db import migrations, models


def count_entries(apps, schema_editor):
    from campaign.ledger.secrecy import stream_entries
    from rules.registry import get_ruleset

    Character = apps.get_model("campaign", "Character")
    Event = apps.get_model("campaign", "Event")
    for character in Character.objects.select_related("campaign").iterator():
        rows = (
            Event.objects.filter(stream=f"character:{character.pk}")
            .order_by("version")
            .only("type", "data", "game_time", "schema_version", "cause")
            .iterator(chunk_size=5000)
        )
        seen = stream_entries(get_ruleset(character.campaign.ruleset), rows)
        if seen:
            Character.objects.filter(pk=character.pk).update(player_version=seen)


class Migration(migrations.Migration):
    dependencies = [("campaign", "0010_import_jobs")]

    operations = [
        migrations.AddField(
            model_name="character",
            name="player_version",
            field=models.IntegerField(
                db_default=0,
                default=0,
                help_text="how many events of the stream a player's history shows: the version a player is told, "
                "which must not count what the player may not see (GM notes, rolls on undiagnosed hits)",
            ),
        ),
        migrations.RunPython(count_entries, migrations.RunPython.noop),
    ]
