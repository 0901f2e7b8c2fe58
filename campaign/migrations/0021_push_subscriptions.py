"""Web Push: a browser's subscription, its keys, and the campaigns a GM asked to be told of (issue 45)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0020_job_needs_rolls"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PushSubscription",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "endpoint",
                    models.TextField(help_text="the push service's URL for this browser", unique=True),
                ),
                (
                    "p256dh",
                    models.CharField(help_text="the browser's P-256 public key, base64url", max_length=100),
                ),
                (
                    "auth",
                    models.CharField(help_text="the browser's 16-byte auth secret, base64url", max_length=50),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "campaigns",
                    models.ManyToManyField(
                        blank=True,
                        help_text="the campaigns whose every character this device is told of (the user GMs them)",
                        related_name="+",
                        to="campaign.campaign",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="push_subscriptions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
    ]
