"""The businesses list's search matches every word of a search in the name, alias, city,
state or postal code: `search_text` gains the state and the postal code.

PostgreSQL cannot change the expression of a generated column, so the column is dropped and
added again (one rewrite of the table, as in 0007), with the two indexes that read it: the
list's narrow search index and, on PostgreSQL, the trigram index.
"""

import django.db.models.functions.text
from django.db import migrations, models

TRIGRAM_INDEX = "business_search_trgm_idx"


def drop_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'DROP INDEX IF EXISTS "{TRIGRAM_INDEX}"')


def create_trigram_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{TRIGRAM_INDEX}" ON "accounts_business" '
            'USING gin ("search_text" gin_trgm_ops)')


def search_text(*columns):
    parts = []
    for column in columns:
        parts += [column, models.Value("\n")]
    return models.GeneratedField(
        db_persist=True, output_field=models.TextField(),
        expression=django.db.models.functions.text.Upper(
            django.db.models.functions.text.Concat(*parts[:-1],
                                                   output_field=models.TextField())))


SEARCH_INDEX = models.Index(condition=models.Q(("removed_at__isnull", True)),
                            fields=["reseller", "name", "id"], include=("search_text",),
                            name="business_search_idx")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0009_user_time_zone"),
    ]

    operations = [
        migrations.RunPython(drop_trigram_index, create_trigram_index, elidable=False),
        migrations.RemoveIndex(model_name="business", name="business_search_idx"),
        migrations.RemoveField(model_name="business", name="search_text"),
        migrations.AddField(model_name="business", name="search_text",
                            field=search_text("name", "alias", "city", "state", "zip")),
        migrations.AddIndex(model_name="business", index=SEARCH_INDEX),
        migrations.RunPython(create_trigram_index, drop_trigram_index, elidable=False),
    ]
