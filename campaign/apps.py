from django.apps import AppConfig

from campaign import queue


class CampaignConfig(AppConfig):
    name = "campaign"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The services hand jobs to the queue through `campaign.queue`; the tasks are its other side. Imported
        # here, once the models are loaded (Django's place for it; tasks.py reads the models at its import):
        # the tasks import the services, and nothing in the services imports the tasks.
        from campaign import tasks

        queue.connect(tasks)
