"""Reads of the outbox."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from accounts.models import Business, Reseller
from outbox.models import OutboxEntry


def outbox_entry_list(*, tenant: Reseller, kinds: Iterable[str],
                      business: Business | None = None,
                      states: Iterable[str] | None = None) -> QuerySet[OutboxEntry]:
    """Outbox rows of some kinds, newest first (optionally of one business, in some states)."""
    queryset = OutboxEntry.objects.filter(reseller=tenant, kind__in=list(kinds))
    if business is not None:
        queryset = queryset.filter(business=business)
    if states is not None:
        queryset = queryset.filter(state__in=list(states))
    return queryset.order_by("-created_at", "-id")
