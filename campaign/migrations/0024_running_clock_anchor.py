"""A clock that runs on its own is read from an anchor, and beat finds the due ones by an index (issue 46).

Before, beat read every campaign whose options said `time_scale` > 0 (a JSON lookup over every campaign) every 5 s
and appended a `ClockAdvanced` for each, due or not: 720 events an hour per running clock. Now a running clock reads
`anchor game + scale x (now - anchor real)` (campaign.ledger.running) and `clock_due_at`, indexed, says when its next
firing comes. A running clock is anchored where it stood at its last tick (`clock_ticked_at`), which is where the
old beat would have measured its next step from; its `clock_due_at` comes from its timers as the projections keep it.
"""

import time

from django.db import migrations, models
from django.db.models import Min


def anchor_running_clocks(apps, schema_editor):
    Campaign = apps.get_model("campaign", "Campaign")
    Timer = apps.get_model("campaign", "Timer")
    now = time.time()
    for campaign in Campaign.objects.filter(options__time_scale__gt=0):
        scale = float(campaign.options["time_scale"])
        real = campaign.clock_ticked_at.timestamp() if campaign.clock_ticked_at else now
        earliest = Timer.objects.filter(campaign=campaign).aggregate(due=Min("due"))["due"]
        due_at = None
        if earliest is not None:
            due_at = real + (max(earliest, campaign.game_time) - campaign.game_time) / scale
        Campaign.objects.filter(pk=campaign.pk).update(
            clock_anchor_game=campaign.game_time, clock_anchor_real=real, clock_due_at=due_at
        )


class Migration(migrations.Migration):
    dependencies = [("campaign", "0023_push_deliveries")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="clock_anchor_game",
            field=models.BigIntegerField(
                blank=True,
                help_text="game second the running clock read at clock_anchor_real; null: stopped",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="clock_anchor_real",
            field=models.FloatField(
                blank=True,
                help_text="real time (Unix seconds) at which the running clock read its anchor",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="clock_due_at",
            field=models.FloatField(
                blank=True,
                db_index=True,
                help_text="real time (Unix seconds) of the running clock's next due firing; null: stopped or nothing due",
                null=True,
            ),
        ),
        migrations.RunPython(anchor_running_clocks, migrations.RunPython.noop),
        migrations.RemoveField(model_name="campaign", name="clock_ticked_at"),
    ]
