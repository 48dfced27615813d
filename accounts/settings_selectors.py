"""Reads behind the sync and settings pages. Every lookup by id stays inside the tenant, so
another tenant's run, member or business answers 404 exactly like a missing one."""

from __future__ import annotations

import datetime

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import AuditEvent, Business, Membership, Reseller
from accounts.selectors import business_list

LIMIT_SUGGESTIONS = 500


def member_list(*, tenant: Reseller, membership: Membership | None = None
                ) -> QuerySet[Membership]:
    """The members the acting `membership` may see and manage: everyone for a member without a
    limit (or support staff, None); for a limited owner, the members limited to their own
    subtree, themselves included, and nobody who sees more than they do."""
    queryset = Membership.objects.filter(reseller=tenant)
    if membership is not None and membership.limited_to_id is not None:
        queryset = queryset.filter(
            limited_to__tree_path__startswith=membership.limited_to.tree_path)
    return queryset.select_related("user", "limited_to").order_by("user__email")


def member_get(*, tenant: Reseller, pk: int, membership: Membership | None = None
               ) -> Membership:
    membership = member_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if membership is None:
        raise Http404("No such member.")
    return membership


def limit_business_get(*, tenant: Reseller, membership: Membership | None,
                       remote_id: int) -> Business | None:
    """The business a member may be limited to: one of this tenant's live businesses that the
    acting member can see; None when there is no such business."""
    return business_list(tenant=tenant, membership=membership).filter(remote_id=remote_id).first()


def limit_suggestions(*, tenant: Reseller, membership: Membership | None) -> QuerySet[Business]:
    """Groups (resellers and enterprises) offered as subtree limits; locations can still be
    typed by id."""
    return (business_list(tenant=tenant, membership=membership)
            .exclude(type=Business.Type.BUSINESS)
            .only("remote_id", "name", "type")
            .order_by("name")[:LIMIT_SUGGESTIONS])


def audit_action_choices(*, tenant: Reseller) -> list[str]:
    return list(AuditEvent.objects.filter(reseller=tenant).order_by("action")
                .values_list("action", flat=True).distinct())


def audit_business_names(*, tenant: Reseller, events) -> dict[str, str]:
    """"Name (business number)" of the businesses the events are about, by the id the events
    keep (the row's, which means nothing to a person), in one query."""
    ids = {event.object_id for event in events
           if event.object_type == "accounts.business" and event.object_id.isdigit()}
    if not ids:
        return {}
    return {str(pk): f"{name} ({remote_id})" for pk, name, remote_id in
            Business.objects.filter(reseller=tenant, pk__in=ids)
            .values_list("pk", "name", "remote_id")}


def audit_event_search(
    *,
    tenant: Reseller,
    action: str = "",
    actor: str = "",
    date_from: datetime.date | None = None,
    date_to: datetime.date | None = None,
) -> QuerySet[AuditEvent]:
    """The tenant's audit log, newest first, filtered. `actor` matches part of the actor's
    email (kept on the event, so deleted users are still found)."""
    events = AuditEvent.objects.filter(reseller=tenant)
    if action:
        events = events.filter(action=action)
    if actor:
        events = events.filter(actor_label__icontains=actor.strip())
    if date_from:
        events = events.filter(created_at__date__gte=date_from)
    if date_to:
        events = events.filter(created_at__date__lte=date_to)
    return events.order_by("-created_at", "-id")
