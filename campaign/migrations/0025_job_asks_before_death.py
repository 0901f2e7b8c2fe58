"""A death waits for the GM's yes (issue 42's night: "+10 min" killed a dying character with no prompt and no chance
to stop). An advance that asks before a death stops before a firing that kills, open, as one waiting for a roll does,
until the GM lets it happen or stops the advance there. Jobs made before ask nothing, as before."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0024_running_clock_anchor")]

    operations = [
        migrations.AddField(
            model_name="job",
            name="asks_before_death",
            field=models.BooleanField(
                default=False, help_text="the advance waits for the GM's yes before a firing that kills"
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="needs_yes",
            field=models.JSONField(
                blank=True,
                help_text="the death the advance waits at (the character, the firing, when, what kills), or null",
                null=True,
            ),
        ),
    ]
