"""Each business keeps the synced share of its listing sites, so the list sorts by it on an
index instead of computing it across a join for every business."""

from django.db import migrations, models
from django.db.models import F, FloatField, OuterRef, Subquery, Value
from django.db.models.functions import Cast


def fill_synced_percent(apps, schema_editor):
    # As listings.mirroring.synced_percent_of_report computed it when this migration was
    # written; a migration keeps its own copy, so that later changes to the code leave it be.
    Business = apps.get_model("accounts", "Business")
    Report = apps.get_model("listings", "ListingStatusReport")
    Business.objects.update(synced_percent=Subquery(
        Report._base_manager.filter(business=OuterRef("pk"), total_sites__gt=0)
        .annotate(percent=Cast(F("synced_count"), FloatField()) * Value(100.0)
                  / Cast(F("total_sites"), FloatField()))
        .values("percent")[:1],
        output_field=FloatField()))


SORT_INDEXES = {"business_synced_asc_idx": "ASC NULLS LAST",
                "business_synced_desc_idx": "DESC NULLS LAST"}


def create_sort_indexes(apps, schema_editor):
    """The list sorted by synced % either way, missing values last, read in index order
    (PostgreSQL; SQLite cannot declare NULLS LAST in an index and sorts its few rows)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, order in SORT_INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON "accounts_business" '
            f'("reseller_id", "synced_percent" {order}, "id") WHERE "removed_at" IS NULL')


def drop_sort_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in SORT_INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_business_current_index_covers_filters'),
        ('listings', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='business',
            name='synced_percent',
            field=models.FloatField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill_synced_percent, migrations.RunPython.noop),
        migrations.RunPython(create_sort_indexes, drop_sort_indexes, elidable=False),
    ]
