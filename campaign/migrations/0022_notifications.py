"""Notifications out of the game (issue 45; docs/notifications.md): a campaign's hooks, the outbox of deliveries
written with the events they speak of, what a campaign's notifications need at hand (`Campaign.notify`) and an
advance's standing of each character before it fired (`Job.notices`)."""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0021_push_subscriptions"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="notify",
            field=models.JSONField(
                default=dict,
                help_text="what its notifications need at hand without a query (campaign/notify): `wanted`, the kinds of notice someone listens for, and `off`, the hooks switched off for failing, in words",
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="notices",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="what the advance's notifications compare with: each fired character's standing before its first firing (campaign/notify)",
            ),
        ),
        migrations.CreateModel(
            name="Hook",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("discord", "Discord"), ("webhook", "Signed webhook")], max_length=16
                    ),
                ),
                ("url", models.CharField(max_length=2000)),
                (
                    "audience",
                    models.CharField(choices=[("table", "The table"), ("gm", "The GM")], max_length=8),
                ),
                (
                    "events",
                    models.JSONField(default=list, help_text="the kinds of notice the GM chose to tell"),
                ),
                (
                    "secret",
                    models.CharField(
                        blank=True, default="", help_text="a webhook's signing key", max_length=80
                    ),
                ),
                ("active", models.BooleanField(default=True)),
                (
                    "last_error",
                    models.TextField(
                        blank=True, default="", help_text="in words; empty once a delivery succeeds"
                    ),
                ),
                (
                    "failing_since",
                    models.DateTimeField(
                        blank=True, help_text="the first error since the last success", null=True
                    ),
                ),
                (
                    "resting_until",
                    models.DateTimeField(
                        blank=True,
                        help_text="the receiver's rate limit: nothing is sent to it before then",
                        null=True,
                    ),
                ),
                (
                    "last_sent_at",
                    models.DateTimeField(blank=True, help_text="when a delivery last reached it", null=True),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="hooks",
                        to="campaign.campaign",
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="Delivery",
            fields=[
                (
                    "id",
                    models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False),
                ),
                (
                    "kind",
                    models.CharField(
                        help_text="the sender: discord, webhook (push plugs in here)", max_length=16
                    ),
                ),
                (
                    "first_position",
                    models.BigIntegerField(blank=True, help_text="the first event it speaks of", null=True),
                ),
                (
                    "last_position",
                    models.BigIntegerField(blank=True, help_text="the last event it speaks of", null=True),
                ),
                (
                    "message",
                    models.JSONField(help_text="what to tell, in words, as its audience may read it"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("pending", "pending"), ("sent", "sent"), ("failed", "failed")],
                        default="pending",
                        max_length=8,
                    ),
                ),
                ("tries", models.IntegerField(default=0)),
                ("next_try_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "claimed_until",
                    models.DateTimeField(
                        blank=True,
                        help_text="a sender is at work on it until then (a killed one lets go by itself)",
                        null=True,
                    ),
                ),
                ("last_error", models.TextField(blank=True, default="")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="campaign.campaign",
                    ),
                ),
                (
                    "hook",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="campaign.hook",
                    ),
                ),
            ],
            options={
                "ordering": ["created_at"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("status", "pending")),
                        fields=["next_try_at"],
                        name="delivery_pending_due",
                    )
                ],
            },
        ),
    ]
