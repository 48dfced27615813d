"""Each business keeps the synced share of its listing sites, so the list sorts by it on an
index instead of computing it across a join for every business."""

from django.db import migrations, models


def fill_synced_percent(apps, schema_editor):
    from listings.mirroring import synced_percent_of_report

    Business = apps.get_model("accounts", "Business")
    Business.objects.update(synced_percent=synced_percent_of_report(
        apps.get_model("listings", "ListingStatusReport")))


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
