"""Character.retired: a character a GM retired (CharacterRetired) is out of the board and the lists and has no
timer rows; CharacterRestored brings it back. Every existing character is active."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("campaign", "0011_character_player_version")]

    operations = [
        migrations.AddField(
            model_name="character",
            name="retired",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="retired by a GM (CharacterRetired): out of the board and the lists, no timers, history "
                "kept",
            ),
        ),
    ]
