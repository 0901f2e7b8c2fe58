"""An import's file moves out of its job's row into a row of its own (`ImportFile`).

The job's row is written with every batch's progress, and on SQLite an UPDATE rewrites the whole row: a file of up
to `IMPORT_MAX_BYTES` was written again with each batch (about a fifth of a 200,000-event import's time in the
bench). A job still holding its file (queued, or stopped half-way) keeps it, copied into the new row; a finished
job's file was already emptied. Going back copies the files back into the jobs.
"""

import django.db.models.deletion
from django.db import migrations, models


def files_to_rows(apps, schema_editor):
    ImportJob, ImportFile = apps.get_model("campaign", "ImportJob"), apps.get_model("campaign", "ImportFile")
    for job_id in ImportJob.objects.exclude(file=b"").values_list("pk", flat=True).iterator():
        data = ImportJob.objects.filter(pk=job_id).values_list("file", flat=True).get()
        ImportFile.objects.create(job_id=job_id, data=bytes(data))


def rows_to_files(apps, schema_editor):
    ImportJob, ImportFile = apps.get_model("campaign", "ImportJob"), apps.get_model("campaign", "ImportFile")
    for job_id in ImportFile.objects.values_list("pk", flat=True).iterator():
        data = ImportFile.objects.filter(pk=job_id).values_list("data", flat=True).get()
        ImportJob.objects.filter(pk=job_id).update(file=bytes(data))


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0017_command_read_with_key"),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportFile",
            fields=[
                (
                    "job",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="upload",
                        serialize=False,
                        to="campaign.importjob",
                    ),
                ),
                ("data", models.BinaryField()),
            ],
        ),
        migrations.RunPython(files_to_rows, rows_to_files),
        migrations.RemoveField(
            model_name="importjob",
            name="file",
        ),
    ]
