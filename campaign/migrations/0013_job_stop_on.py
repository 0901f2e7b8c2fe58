"""Job.stop_on and Job.stopped_because: an advance that stops at the first firing changing a character's status
(issue 16, docs/clock.md "Stopping when something happens")."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0012_character_retired")]

    operations = [
        migrations.AddField(
            model_name="job",
            name="stop_on",
            field=models.CharField(
                blank=True,
                default="",
                help_text='"status": stop at the first firing that changes a status',
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="stopped_because",
            field=models.CharField(
                blank=True, default="", help_text="what stopped it early: 'Johnny dies'", max_length=300
            ),
        ),
    ]
