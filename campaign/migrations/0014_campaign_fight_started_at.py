from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0013_job_stop_on")]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="fight_started_at",
            field=models.BigIntegerField(
                blank=True,
                help_text="game second the GM's current fight began (the board's round counter); null: no fight",
                null=True,
            ),
        ),
    ]
