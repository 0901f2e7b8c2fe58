"""The Celery app. Without CELERY_BROKER_URL tasks run eagerly in-process (the embedded default)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "campaign.settings")

app = Celery("campaign")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["campaign"])
