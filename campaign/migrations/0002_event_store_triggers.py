"""Make the event log append-only in the database itself: UPDATE and DELETE on campaign_event are refused."""

from django.db import migrations

from campaign.ledger.migration_sql import run_for_vendor

SQLITE_CREATE = [
    """CREATE TRIGGER IF NOT EXISTS campaign_event_no_update BEFORE UPDATE ON campaign_event
       BEGIN SELECT RAISE(ABORT, 'campaign_event is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER IF NOT EXISTS campaign_event_no_delete BEFORE DELETE ON campaign_event
       BEGIN SELECT RAISE(ABORT, 'campaign_event is append-only: DELETE refused'); END;""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS campaign_event_no_update;",
    "DROP TRIGGER IF EXISTS campaign_event_no_delete;",
]
POSTGRES_CREATE = [
    """CREATE OR REPLACE FUNCTION campaign_event_append_only() RETURNS trigger AS $$
       BEGIN RAISE EXCEPTION 'campaign_event is append-only: % refused', TG_OP; END;
       $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER campaign_event_append_only BEFORE UPDATE OR DELETE ON campaign_event
       FOR EACH ROW EXECUTE FUNCTION campaign_event_append_only();""",
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS campaign_event_append_only ON campaign_event;",
    "DROP FUNCTION IF EXISTS campaign_event_append_only();",
]


class Migration(migrations.Migration):
    dependencies = [("campaign", "0001_initial")]

    operations = [
        migrations.RunPython(
            run_for_vendor({"sqlite": SQLITE_CREATE, "postgresql": POSTGRES_CREATE}),
            run_for_vendor({"sqlite": SQLITE_DROP, "postgresql": POSTGRES_DROP}),
        )
    ]
