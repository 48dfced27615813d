"""Trigram indexes for the businesses list's search (PostgreSQL only).

The search is `icontains` on name, alias and city, which Django writes on PostgreSQL as
`UPPER(column) LIKE UPPER('%term%')`: no b-tree can answer a match in the middle of a value, so
at 50,000 businesses every search read the whole table. GIN trigram indexes on exactly those
expressions let PostgreSQL combine the three (BitmapOr). SQLite has no such index and keeps
scanning, which is fine at the sizes it is used for.

pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
"""

from django.db import migrations

SEARCHED = ("name", "alias", "city")


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for column in SEARCHED:
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "business_{column}_trgm_idx" ON "accounts_business" '
            f'USING gin ((UPPER("{column}"::text)) gin_trgm_ops)')


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in SEARCHED:
        schema_editor.execute(f'DROP INDEX IF EXISTS "business_{column}_trgm_idx"')


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_list_page_indexes"),
    ]

    operations = [
        migrations.RunPython(create, drop, elidable=False),
    ]
