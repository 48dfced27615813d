"""Reads of the accounts app."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import AuditEvent, Business, Membership, Reseller, User


def membership_for_entry(*, user: User, slug: str) -> Membership:
    """The user's membership of the reseller named in the URL, or 404.

    This runs before any scope exists (it decides the scope), so it reads across tenants on
    purpose; a non-member gets the same 404 as a reseller that does not exist.
    """
    if not user.is_authenticated:
        raise Http404("No such reseller.")
    membership = (
        Membership.unscoped.select_related("reseller", "limited_to")
        .filter(user=user, reseller__slug=slug)
        .exclude(reseller__status=Reseller.Status.SUSPENDED)
        .first()
    )
    if membership is None:
        raise Http404("No such reseller.")
    return membership


def membership_list_for_user(*, user: User) -> QuerySet[Membership]:
    """Every reseller the user may switch to (the switcher crosses tenants by design)."""
    return (
        Membership.unscoped.select_related("reseller")
        .filter(user=user)
        .exclude(reseller__status=Reseller.Status.SUSPENDED)
        .order_by("reseller__name")
    )


def business_list(*, tenant: Reseller, membership: Membership | None = None) -> QuerySet[Business]:
    """Businesses of the tenant that the member may see (their subtree when limited)."""
    queryset = Business.objects.filter(reseller=tenant, removed_at__isnull=True)
    if membership is not None and membership.limited_to_id is not None:
        queryset = queryset.filter(membership.limited_to.subtree_q())
    return queryset


def business_get(*, tenant: Reseller, membership: Membership | None, remote_id: int) -> Business:
    business = business_list(tenant=tenant, membership=membership).filter(remote_id=remote_id)
    found = business.first()
    if found is None:
        raise Http404("No such business.")
    return found


def membership_list(*, tenant: Reseller) -> QuerySet[Membership]:
    return Membership.objects.filter(reseller=tenant).select_related("user", "limited_to")


def audit_event_list(*, tenant: Reseller) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(reseller=tenant).select_related("actor")
