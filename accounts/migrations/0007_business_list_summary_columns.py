"""The businesses list filters, counts and searches from indexes alone at 50,000 businesses.

- `needs_action`: each business keeps whether its status report needs action, beside its
  synced %, and the list's indexes carry it, so "needs action" (under a brand or not) is
  counted without a join.
- `search_text`: name, alias and city in capitals, kept by the database. The search compares
  its term with this one column (about 4x cheaper per row than upper-casing three columns), from
  a narrow index in the list's order; one trigram index on it replaces the three of migration
  0004 (PostgreSQL).
- A narrow partial index counts the list filtered by type, status and country, and serves
  the dashboard's and the tree's groupings; the subtree index carries what a brand's totals
  and lists read.
- A container's current children in name order come from their own index, however far down
  the alphabet they sit.
"""

import django.db.models.functions.text
from django.db import migrations, models
from django.db.models import BooleanField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

OLD_TRIGRAM_INDEXES = ("business_name_trgm_idx", "business_alias_trgm_idx",
                       "business_city_trgm_idx")


def fill_needs_action(apps, schema_editor):
    # As listings.mirroring.needs_action_of_report computed it when this migration was written.
    Business = apps.get_model("accounts", "Business")
    Report = apps.get_model("listings", "ListingStatusReport")
    Business.objects.update(needs_action=Coalesce(
        Subquery(Report._base_manager.filter(business=OuterRef("pk"))
                 .values("needs_action")[:1], output_field=BooleanField()),
        Value(False)))


def use_search_text_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in OLD_TRIGRAM_INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')
    schema_editor.execute(
        'CREATE INDEX IF NOT EXISTS "business_search_trgm_idx" ON "accounts_business" '
        'USING gin ("search_text" gin_trgm_ops)')


def use_column_trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute('DROP INDEX IF EXISTS "business_search_trgm_idx"')
    for name in OLD_TRIGRAM_INDEXES:
        column = name.removeprefix("business_").removesuffix("_trgm_idx")
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON "accounts_business" '
            f'USING gin ((UPPER("{column}"::text)) gin_trgm_ops)')


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_business_synced_percent'),
        ('listings', '0004_status_report_index_covers_listing_status'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='business',
            name='accounts_bu_reselle_210d4c_idx',
        ),
        migrations.RemoveIndex(
            model_name='business',
            name='business_subtree_idx',
        ),
        migrations.RemoveIndex(
            model_name='business',
            name='business_current_idx',
        ),
        migrations.RemoveIndex(
            model_name='business',
            name='business_children_idx',
        ),
        migrations.AddField(
            model_name='business',
            name='needs_action',
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(fill_needs_action, migrations.RunPython.noop),
        migrations.AddField(
            model_name='business',
            name='search_text',
            field=models.GeneratedField(db_persist=True, expression=django.db.models.functions.text.Upper(django.db.models.functions.text.Concat('name', models.Value('\n'), 'alias', models.Value('\n'), 'city', output_field=models.TextField())), output_field=models.TextField()),
        ),
        migrations.AddIndex(
            model_name='business',
            index=models.Index(condition=models.Q(('removed_at__isnull', True)), fields=['reseller', 'type', 'country_code', 'status'], include=('needs_action', 'parent', 'id'), name='business_filter_idx'),
        ),
        migrations.AddIndex(
            model_name='business',
            index=models.Index(fields=['reseller', 'tree_path'], include=('removed_at', 'type', 'status', 'needs_action', 'id'), name='business_subtree_idx', opclasses=['int8_ops', 'varchar_pattern_ops']),
        ),
        migrations.AddIndex(
            model_name='business',
            index=models.Index(condition=models.Q(('removed_at__isnull', True)), fields=['reseller', 'name', 'id'], include=('type', 'status', 'country_code', 'city', 'tree_path', 'parent', 'needs_action'), name='business_current_idx'),
        ),
        migrations.AddIndex(
            model_name='business',
            index=models.Index(condition=models.Q(('removed_at__isnull', True)), fields=['reseller', 'parent', 'name', 'id'], name='business_children_idx'),
        ),
        migrations.AddIndex(
            model_name='business',
            index=models.Index(condition=models.Q(('removed_at__isnull', True)), fields=['reseller', 'name', 'id'], include=('search_text',), name='business_search_idx'),
        ),
        migrations.RunPython(use_search_text_trigram_index, use_column_trigram_indexes,
                             elidable=False),
    ]
