"""The Celery app. Without CELERY_BROKER_URL tasks run eagerly in-process (the embedded default)."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

from campaign.startup import freeze_startup_objects

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "campaign.settings")

app = Celery("campaign")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["campaign"])


@worker_init.connect
def freeze_after_start(**kwargs: Any) -> None:
    freeze_startup_objects()
