"""Reads of sync runs."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import Membership, Reseller, SyncRun


def sync_run_list(*, tenant: Reseller, membership: Membership | None = None
                  ) -> QuerySet[SyncRun]:
    """Newest first, with who started each run (one query per page, whatever the rows).

    A member limited to a subtree sees only the runs limited to that subtree (theirs and those
    of the members who share their client), never a run of the whole account."""
    queryset = SyncRun.objects.filter(reseller=tenant)
    if membership is not None and membership.limited_to_id is not None:
        queryset = queryset.filter(scope__tree_path__startswith=membership.limited_to.tree_path)
    return queryset.select_related("created_by", "scope").order_by("-created_at", "-id")


def sync_run_get(*, tenant: Reseller, pk: int, membership: Membership | None = None) -> SyncRun:
    run = sync_run_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if run is None:
        raise Http404("No such sync run.")
    return run
