"""Reads of bulk changes."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404

from accounts.models import Membership, Reseller
from bulk.models import BulkChange, BulkChangeItem


def bulk_change_list(*, tenant: Reseller,
                     membership: Membership | None = None) -> QuerySet[BulkChange]:
    """The bulk changes the member may see: a member limited to part of the tree sees those
    made within it, never one made over the whole account."""
    queryset = BulkChange.objects.filter(reseller=tenant).select_related("created_by")
    if membership is not None and membership.limited_to_id is not None:
        limit = membership.limited_to
        queryset = queryset.filter(Q(scope=limit)
                                   | Q(scope__tree_path__startswith=limit.tree_path))
    return queryset.order_by("-created_at", "-id")


def bulk_change_get(*, tenant: Reseller, membership: Membership | None, pk: int) -> BulkChange:
    found = bulk_change_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if found is None:
        raise Http404("No such bulk change.")
    return found


def bulk_change_item_list(*, tenant: Reseller, change: BulkChange) -> QuerySet[BulkChangeItem]:
    return BulkChangeItem.objects.filter(reseller=tenant, change=change).order_by("position")
