"""Questions and answers keep the moment the provider gives them as text, so that they are shown
in date order (the provider's ids are not): filled here from the text already mirrored."""

import datetime

from django.db import migrations, models
from django.utils import timezone


def _moment(day, clock):
    # As listings.mirroring.qna_moment read the provider's text when this migration was
    # written; a migration keeps its own copy, so that later changes to the code leave it be.
    day = (day or "").strip()
    clock = " ".join((clock or "").upper().split())
    if not day:
        return None
    for text, pattern in ((f"{day} {clock}", "%b %d, %Y %I:%M %p"), (day, "%b %d, %Y")):
        try:
            naive = datetime.datetime.strptime(text, pattern)
        except ValueError:
            continue
        return timezone.make_aware(naive, timezone.get_default_timezone())
    return None


def fill_moments(apps, schema_editor):
    for model_name, field in (("Question", "asked_at"), ("Answer", "answered_at")):
        model = apps.get_model("listings", model_name)
        rows = model._base_manager.filter(**{f"{field}__isnull": True}).only(
            "pk", "updated_on", "time")
        batch = []
        for row in rows.iterator(chunk_size=2000):
            moment = _moment(row.updated_on, row.time)
            if moment is None:
                continue
            setattr(row, field, moment)
            batch.append(row)
            if len(batch) >= 2000:
                model._base_manager.bulk_update(batch, [field])
                batch = []
        if batch:
            model._base_manager.bulk_update(batch, [field])


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0005_alter_listingversion_outbox_entry'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='answer',
            options={'ordering': [models.F('answered_at').asc(nulls_last=True), 'remote_id']},
        ),
        migrations.AlterModelOptions(
            name='question',
            options={'ordering': [models.F('asked_at').desc(nulls_last=True), '-remote_id']},
        ),
        migrations.AddField(
            model_name='answer',
            name='answered_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='question',
            name='asked_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(fill_moments, migrations.RunPython.noop),
    ]
