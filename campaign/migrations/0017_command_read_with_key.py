"""PostgreSQL: the command's read under the lock answers its Idempotency-Key's lookup too (one statement fewer).

`campaign_command_read(character, key)` takes the write lock of the character's campaign, then reads the character,
its campaign, the id of the campaign's open clock job and, for a key (NULL: no lookup), what already holds it in the
campaign: the position of its first event with the key and the id of an advance with it. One JSON array, as the
one-argument function of migration 0005 answered without the last two. The same two steps, the lock first: a
VOLATILE function takes a fresh snapshot for each statement it runs, so the read, lookup included, sees what the
previous holder of the lock committed (a single `SELECT ... FOR UPDATE` that waited for the lock would still return
the other rows as its snapshot saw them before the wait: a retry queued behind its first request would miss the
first's event). Every action with a key (each web form carries one) paid a statement of its own for the lookup: a
wound from a board card was 10 statements in all on PostgreSQL, now 9. SQLite needs no function: its
transactions take the whole database's write lock when they begin (`eventstore._joined_read`).

The one-argument function is dropped: nothing calls it any more. Going back restores it (and drops this one).
"""

from importlib import import_module

from django.db import migrations

from campaign.ledger.migration_sql import run_for_vendor

ONE_ARGUMENT = import_module("campaign.migrations.0005_command_read_function")

POSTGRES_CREATE = [
    """CREATE OR REPLACE FUNCTION campaign_command_read(wanted bigint, key text) RETURNS json AS $$
       DECLARE
           found json;
       BEGIN
           PERFORM 1 FROM campaign_campaign
            WHERE id = (SELECT campaign_id FROM campaign_character WHERE id = wanted) FOR UPDATE;
           SELECT json_build_array(
                      row_to_json(character_row),
                      row_to_json(campaign_row),
                      (SELECT job.id FROM campaign_job job
                        WHERE job.campaign_id = campaign_row.id AND job.status IN ('queued', 'running') LIMIT 1),
                      (SELECT held.position FROM campaign_event held
                        WHERE key IS NOT NULL AND held.campaign_id = campaign_row.id AND held.idempotency_key = key
                        ORDER BY held.position LIMIT 1),
                      (SELECT advance.id FROM campaign_job advance
                        WHERE key IS NOT NULL AND advance.campaign_id = campaign_row.id
                          AND advance.idempotency_key = key LIMIT 1))
             INTO found
             FROM campaign_character character_row
             JOIN campaign_campaign campaign_row ON campaign_row.id = character_row.campaign_id
            WHERE character_row.id = wanted;
           RETURN found;
       END;
       $$ LANGUAGE plpgsql VOLATILE;""",
    *ONE_ARGUMENT.POSTGRES_DROP,
]
POSTGRES_DROP = [
    "DROP FUNCTION IF EXISTS campaign_command_read(bigint, text);",
    *ONE_ARGUMENT.POSTGRES_CREATE,
]


class Migration(migrations.Migration):
    dependencies = [("campaign", "0016_invitations")]

    operations = [
        migrations.RunPython(
            run_for_vendor({"postgresql": POSTGRES_CREATE}), run_for_vendor({"postgresql": POSTGRES_DROP})
        )
    ]
