"""Table dice: a waiting advance asks the rolls a round needs of several characters at once (`Job.needs_rolls`)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0019_import_file_compressed"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="needs_rolls",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="every roll the advance waits for, one per character, the first being `needs_roll`",
            ),
        ),
        migrations.AlterField(
            model_name="job",
            name="rolls",
            field=models.JSONField(
                blank=True, default=dict, help_text="the GM's dice for the firings the advance stopped before"
            ),
        ),
    ]
