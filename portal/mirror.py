"""Bulk writes shared by every mirror: one upsert per page, one update for what went away."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import models

MIRROR_FIELDS = ["raw", "last_seen_at", "removed_at"]
# Rows per statement: a sync chunk's listing sites (22 per location) fit in one. SQLite's
# parameter limit lowers it by itself; PostgreSQL binds on the client, so has none.
BATCH_SIZE = 10_000


def upsert(model: type[models.Model], rows: Sequence[models.Model], *,
           unique_fields: list[str], update_fields: list[str]) -> None:
    """Insert the rows or update the ones that exist, restoring any that were removed.

    Every row must carry `last_seen_at` and `removed_at=None`; the queries grow with the number
    of batches, not of rows.
    """
    if rows:
        model.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=unique_fields,
            update_fields=[*update_fields, *MIRROR_FIELDS], batch_size=BATCH_SIZE,
        )


def mark_removed(queryset: models.QuerySet, *, seen_at: datetime) -> int:
    """Stamp `removed_at` on the rows of `queryset` that the latest fetch did not return."""
    return queryset.filter(removed_at__isnull=True, last_seen_at__lt=seen_at).update(
        removed_at=seen_at)
