"""Table dice: a clock advance that asks the GM for its dice, the roll it waits for and the dice given."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0014_campaign_fight_started_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="asks",
            field=models.BooleanField(default=False, help_text="the advance asks the GM for its dice"),
        ),
        migrations.AddField(
            model_name="job",
            name="needs_roll",
            field=models.JSONField(
                blank=True,
                help_text="the roll the advance waits for (and the firing that needs it), or null",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="rolls",
            field=models.JSONField(
                blank=True, default=dict, help_text="the GM's dice for the firing the advance stopped before"
            ),
        ),
    ]
