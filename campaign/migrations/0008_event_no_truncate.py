"""PostgreSQL: refuse TRUNCATE on campaign_event, as UPDATE and DELETE already are (migration 0002).

TRUNCATE fires no row-level trigger, so 0002's triggers let `TRUNCATE campaign_event` (or a `TRUNCATE ... CASCADE`
of the campaigns it references) empty the log in one statement. A statement-level trigger fires for every table a
TRUNCATE empties, the cascaded ones included. It reuses 0002's function: its message names the refused operation
(`TG_OP`). SQLite has no TRUNCATE (its `DELETE` without a WHERE clause is refused by 0002's trigger), so nothing
is added there.

The test suite's flush after a transactional test is a TRUNCATE of every table: tests/conftest.py disables this
trigger for that flush only.
"""

from django.db import migrations

from campaign.ledger.migration_sql import run_for_vendor

POSTGRES_CREATE = [
    """CREATE TRIGGER campaign_event_no_truncate BEFORE TRUNCATE ON campaign_event
       FOR EACH STATEMENT EXECUTE FUNCTION campaign_event_append_only();""",
]
POSTGRES_DROP = ["DROP TRIGGER IF EXISTS campaign_event_no_truncate ON campaign_event;"]


class Migration(migrations.Migration):
    dependencies = [("campaign", "0007_idempotency_keys")]

    operations = [
        migrations.RunPython(
            run_for_vendor({"postgresql": POSTGRES_CREATE}), run_for_vendor({"postgresql": POSTGRES_DROP})
        )
    ]
