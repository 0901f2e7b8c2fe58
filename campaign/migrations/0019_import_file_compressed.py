"""An import's kept file is stored compressed (zlib, `transfer.importing.FILE_COMPRESSION`): the files of unfinished
imports are compressed here, and going back stores them as they were."""

import zlib

from django.db import migrations

FILE_COMPRESSION = 1  # as transfer.importing's at the time of this migration


def compress(apps, schema_editor):
    ImportFile = apps.get_model("campaign", "ImportFile")
    for job_id in ImportFile.objects.values_list("pk", flat=True).iterator():
        data = ImportFile.objects.filter(pk=job_id).values_list("data", flat=True).get()
        ImportFile.objects.filter(pk=job_id).update(data=zlib.compress(bytes(data), FILE_COMPRESSION))


def decompress(apps, schema_editor):
    ImportFile = apps.get_model("campaign", "ImportFile")
    for job_id in ImportFile.objects.values_list("pk", flat=True).iterator():
        data = ImportFile.objects.filter(pk=job_id).values_list("data", flat=True).get()
        ImportFile.objects.filter(pk=job_id).update(data=zlib.decompress(bytes(data)))


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0018_import_file_of_its_own"),
    ]

    operations = [
        migrations.RunPython(compress, decompress),
    ]
