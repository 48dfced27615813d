"""Reads of the outbox."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from accounts.models import Business, Membership, Reseller
from accounts.selectors import business_list
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


def outbox_entry_visible(*, tenant: Reseller,
                         membership: Membership | None) -> QuerySet[OutboxEntry]:
    """The changes a member may see, newest first: all of them, or for a member limited to a
    subtree those about its businesses (changes about the whole account are not theirs)."""
    changes = outbox_entry_list(tenant=tenant, kinds=OutboxEntry.Kind.values)
    if membership is not None and membership.limited_to_id is not None:
        changes = changes.filter(business__in=business_list(
            tenant=tenant, membership=membership).values("pk"))
    return changes
