"""Web Push through the outbox (issue 45; docs/notifications.md): a delivery names the device it goes to and the one
character it tells of, and whose words it holds, so that the sender can check at send time that the device's user
may still read them. The rows written before keep an empty audience: they are hooks', whose audience is the hook's."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0022_notifications"),
    ]

    operations = [
        migrations.AddField(
            model_name="delivery",
            name="audience",
            field=models.CharField(
                blank=True, default="", help_text="whose words it holds: table or gm", max_length=8
            ),
        ),
        migrations.AddField(
            model_name="delivery",
            name="character",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="campaign.character",
            ),
        ),
        migrations.AddField(
            model_name="delivery",
            name="subscription",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="deliveries",
                to="campaign.pushsubscription",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="kind",
            field=models.CharField(help_text="the sender: discord, webhook or push", max_length=16),
        ),
    ]
