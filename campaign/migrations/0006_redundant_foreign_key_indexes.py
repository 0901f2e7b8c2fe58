"""Drop three foreign-key indexes that a wider index already starts with: every event and timer row written paid
for them. `event_campaign_feed` (campaign_id, position) serves lookups of events by campaign, `timer_next`
(campaign_id, due, ...) of timers by campaign and `one_timer_per_key` (character_id, key) of timers by character.

Plain `DROP INDEX` on both databases: an `AlterField` would make SQLite copy the table into a new one, and the new
`campaign_event` would not have the append-only triggers of migration 0002.
"""

import django.db.models.deletion
from django.db import migrations, models

from campaign.ledger.migration_sql import run_for_vendor

INDEXES = {
    "campaign_event_campaign_id_aa4e685f": ("campaign_event", "campaign_id"),
    "campaign_timer_campaign_id_64f671d5": ("campaign_timer", "campaign_id"),
    "campaign_timer_character_id_c855b45e": ("campaign_timer", "character_id"),
}
DROP = [f'DROP INDEX IF EXISTS "{name}"' for name in INDEXES]
CREATE = [
    f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")'
    for name, (table, column) in INDEXES.items()
]


class Migration(migrations.Migration):
    dependencies = [("campaign", "0005_command_read_function")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name=model,
                    name=name,
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name=related_name,
                        to=to,
                    ),
                )
                for model, name, related_name, to in (
                    ("event", "campaign", "events", "campaign.campaign"),
                    ("timer", "campaign", "timers", "campaign.campaign"),
                    ("timer", "character", "timer_rows", "campaign.character"),
                )
            ],
            database_operations=[
                migrations.RunPython(
                    run_for_vendor({"sqlite": DROP, "postgresql": DROP}),
                    run_for_vendor({"sqlite": CREATE, "postgresql": CREATE}),
                )
            ],
        )
    ]
