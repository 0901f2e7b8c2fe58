"""PostgreSQL: the read under the lock that every command starts with, as one function call (one round trip).

`campaign_command_read(character)` takes the write lock of the character's campaign, then reads the character, its
campaign and the id of the campaign's open clock job, and returns them as one JSON array. The two steps are two
statements inside the function: a VOLATILE function takes a fresh snapshot for each statement it runs, so the read
sees what the previous holder of the lock committed (a single `SELECT ... FOR UPDATE` that waited for the lock
would still return the other rows as its snapshot saw them before the wait). SQLite needs no function: its
transactions take the whole database's write lock when they begin.
"""

from django.db import migrations

from campaign.ledger.migration_sql import run_for_vendor

POSTGRES_CREATE = [
    """CREATE OR REPLACE FUNCTION campaign_command_read(wanted bigint) RETURNS json AS $$
       DECLARE
           found json;
       BEGIN
           PERFORM 1 FROM campaign_campaign
            WHERE id = (SELECT campaign_id FROM campaign_character WHERE id = wanted) FOR UPDATE;
           SELECT json_build_array(
                      row_to_json(character_row),
                      row_to_json(campaign_row),
                      (SELECT job.id FROM campaign_job job
                        WHERE job.campaign_id = campaign_row.id AND job.status IN ('queued', 'running') LIMIT 1))
             INTO found
             FROM campaign_character character_row
             JOIN campaign_campaign campaign_row ON campaign_row.id = character_row.campaign_id
            WHERE character_row.id = wanted;
           RETURN found;
       END;
       $$ LANGUAGE plpgsql VOLATILE;""",
]
POSTGRES_DROP = ["DROP FUNCTION IF EXISTS campaign_command_read(bigint);"]


class Migration(migrations.Migration):
    dependencies = [("campaign", "0004_campaign_projection_epoch")]

    operations = [
        migrations.RunPython(
            run_for_vendor({"postgresql": POSTGRES_CREATE}), run_for_vendor({"postgresql": POSTGRES_DROP})
        )
    ]
