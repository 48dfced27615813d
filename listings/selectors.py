"""Reads of the listings app: Q&A, custom fields, AI-search configuration, webhooks, and the
outbox rows that show what was sent for them."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, F, Prefetch, Q, QuerySet, Sum

from accounts.models import AuditEvent, Business, HierarchyMapping, Membership, Reseller
from accounts.selectors import business_list
from listings.models import (
    AiSearchConfiguration,
    Answer,
    CustomField,
    ListingSite,
    ListingStatusReport,
    Question,
    Subscription,
)
from outbox.models import OutboxEntry
from outbox.selectors import outbox_entry_list


def outbox_entry_get(*, tenant: Reseller, kinds: Iterable[str], pk: int) -> OutboxEntry | None:
    return outbox_entry_list(tenant=tenant, kinds=kinds).filter(pk=pk).first()


# -- Q&A ----------------------------------------------------------------------------------------

def question_list(*, tenant: Reseller, business: Business) -> QuerySet[Question]:
    """The business's questions (not removed), newest first, with their answers prefetched
    oldest first (a conversation reads down). Entries whose date could not be read come last,
    by id."""
    answers = (Answer.objects.filter(reseller=tenant, removed_at__isnull=True)
               .order_by(F("answered_at").asc(nulls_last=True), "remote_id"))
    return (
        Question.objects.filter(reseller=tenant, business=business, removed_at__isnull=True)
        .prefetch_related(Prefetch("answers", queryset=answers, to_attr="live_answers"))
        .order_by(F("asked_at").desc(nulls_last=True), "-remote_id")
    )


def qna_question_count(*, tenant: Reseller, business: Business) -> int:
    """How many mirrored questions a deletion of all Q&A of the business would delete: its own
    and, for a reseller or an enterprise, those of every location under it (the provider's
    deletion covers them too)."""
    return Question.objects.filter(reseller=tenant, removed_at__isnull=True).filter(
        business.subtree_q(prefix="business__")).count()


def qna_deletion_latest(*, tenant: Reseller, business: Business) -> OutboxEntry | None:
    return outbox_entry_list(tenant=tenant, kinds=[OutboxEntry.Kind.QNA_DELETE_ALL],
                             business=business).first()


# -- custom fields ------------------------------------------------------------------------------

def custom_field_list(*, tenant: Reseller) -> QuerySet[CustomField]:
    return CustomField.objects.filter(reseller=tenant, removed_at__isnull=True).order_by(
        "field_name", "remote_id")


def custom_field_name_taken(*, tenant: Reseller, field_name: str) -> bool:
    """Whether a mirrored field or a change still on its way already uses the name.

    The provider compares names ignoring case (5022); the portal does too, so that the user
    learns it in the form rather than from a rejection later.
    """
    wanted = field_name.strip().casefold()
    names = custom_field_list(tenant=tenant).values_list("field_name", flat=True)
    if any(name.strip().casefold() == wanted for name in names):
        return True
    open_entries = outbox_entry_list(tenant=tenant, kinds=[OutboxEntry.Kind.CUSTOM_FIELD_CREATE],
                                     states=OutboxEntry.OPEN_STATES)
    return any(str(payload.get("fieldName", "")).strip().casefold() == wanted
               for payload in open_entries.values_list("payload", flat=True))


# -- AI search ----------------------------------------------------------------------------------

def ai_search_configuration_get(*, tenant: Reseller) -> AiSearchConfiguration | None:
    return AiSearchConfiguration.objects.filter(
        reseller=tenant, remote_id=tenant.account_number, removed_at__isnull=True).first()


# -- webhooks -----------------------------------------------------------------------------------

def subscription_list(*, tenant: Reseller) -> QuerySet[Subscription]:
    return Subscription.objects.filter(reseller=tenant, removed_at__isnull=True).order_by(
        "event_name", "webhook_url", "remote_id")


def subscription_events_taken(*, tenant: Reseller, webhook_url: str) -> set[str]:
    """The events already delivered to `webhook_url`, or on their way to be: its current
    subscriptions (except those whose removal is queued) and the subscriptions queued for it."""
    removing = subscription_removals_open(tenant=tenant)
    taken = {subscription.event_name for subscription in
             subscription_list(tenant=tenant).filter(webhook_url=webhook_url)
             if subscription.remote_id not in removing}
    queued = outbox_entry_list(tenant=tenant, kinds=[OutboxEntry.Kind.SUBSCRIBE],
                               states=OutboxEntry.OPEN_STATES)
    taken.update(str(payload.get("eventName")) for payload in
                 queued.values_list("payload", flat=True)
                 if payload.get("webhookUrl") == webhook_url)
    return taken


def subscription_get(*, tenant: Reseller, remote_id: str) -> Subscription | None:
    return subscription_list(tenant=tenant).filter(remote_id=remote_id).first()


def subscription_removals_open(*, tenant: Reseller) -> set[str]:
    """Remote ids of subscriptions whose removal is queued but not yet sent."""
    entries = outbox_entry_list(tenant=tenant, kinds=[OutboxEntry.Kind.UNSUBSCRIBE],
                                states=OutboxEntry.OPEN_STATES)
    return {str(payload.get("subscriptionId")) for payload in
            entries.values_list("payload", flat=True)}


def listing_status_report_get(*, tenant, business):
    """The mirrored status report of a location, or None before its first sync."""
    return ListingStatusReport.objects.filter(reseller=tenant, business=business).first()


# -- one business's listing status, health and hierarchy ----------------------------------


def listing_site_list(*, tenant: Reseller, business: Business):
    return ListingSite.objects.filter(reseller=tenant, business=business,
                                      removed_at__isnull=True).order_by("site_name", "site_id")


HEALTH_FIELDS = {
    "synced": "synced_count", "submitted": "submitted_count",
    "need_updates": "need_updates_count", "opted_out": "opted_out_count",
    "not_connected": "not_connected_count", "total_sites": "total_sites",
}


def listing_health(*, locations: QuerySet[Business]) -> dict[str, int]:
    """Sums of the status reports of `locations`, one aggregate query: site counts per state,
    how many locations have a report and how many need action."""
    return _report_totals(ListingStatusReport.objects.filter(
        removed_at__isnull=True, business__in=locations.filter(type=Business.Type.BUSINESS)))


def listing_health_of_account(*, tenant: Reseller) -> dict[str, int]:
    """`listing_health` of every current location of the account, from the reports alone:
    a current report always belongs to a current location (a business's removal removes its
    report), so no join to 50,000 businesses is needed."""
    return _report_totals(ListingStatusReport.objects.filter(reseller=tenant,
                                                             removed_at__isnull=True))


def _report_totals(reports: QuerySet[ListingStatusReport]) -> dict[str, int]:
    # Counted on the business column (never null) rather than the primary key, which the
    # counts index does not carry: the whole aggregate then reads that index only.
    totals = reports.aggregate(
        **{key: Sum(column) for key, column in HEALTH_FIELDS.items()},
        reports=Count("business"), needs_action=Count("business", filter=Q(needs_action=True)),
    )
    return {key: value or 0 for key, value in totals.items()}


def business_children_summary(*, tenant: Reseller, membership: Membership | None,
                              business: Business, limit: int = 50) -> dict:
    """What is under a reseller or enterprise: locations by status, their listing health and
    the first direct children (three queries)."""
    under = (business_list(tenant=tenant, membership=membership)
             .filter(business.subtree_q()).exclude(pk=business.pk))
    by_status = dict(under.filter(type=Business.Type.BUSINESS).order_by().values_list("status")
                     .annotate(n=Count("pk")))
    # A child of a business the member sees is theirs to see too: no subtree filter, so the
    # children come from the (parent, name) index.
    children = list(business_list(tenant=tenant, membership=membership).filter(parent=business)
                    .select_related("status_report")
                    .defer("raw", "status_report__raw").order_by("name", "pk")[:limit + 1])
    return {
        "locations_by_status": by_status,
        "location_count": sum(by_status.values()),
        "health": listing_health(locations=under),
        "children": children[:limit],
        "more_children": len(children) > limit,
    }


def listing_refresh_latest(*, tenant: Reseller, business: Business) -> AuditEvent | None:
    """The latest refresh of the business's status report asked for, done or failed."""
    return (AuditEvent.objects.filter(reseller=tenant, object_type="accounts.business",
                                      object_id=str(business.pk),
                                      action__startswith="listing_status.refresh")
            .order_by("-created_at", "-id").first())


def hierarchy_level_list(*, tenant: Reseller, business: Business) -> QuerySet[HierarchyMapping]:
    """The location's levels in the order they were entered: the mirror writes a mapping's rows
    in that order (`accounts.services.hierarchy_mapping_replace`), so their ids keep it."""
    return HierarchyMapping.objects.filter(reseller=tenant, business=business).order_by("pk")


def hierarchy_requested_levels(entry: OutboxEntry) -> dict[str, str]:
    """The levels a hierarchy change asks for, in the order they were entered.

    The payload's `levels` object loses its order in a PostgreSQL JSON column, so the change
    also keeps the names in order (`order`); a change stored before that keeps its own.
    """
    levels = dict(entry.payload.get("levels") or {})
    order = [name for name in entry.payload.get("order") or [] if name in levels]
    return {**{name: levels[name] for name in order}, **levels}


def hierarchy_latest_update(*, tenant: Reseller, business: Business):
    """The latest hierarchy change sent (or being sent) to the provider for this business."""
    return (OutboxEntry.objects.filter(reseller=tenant, business=business,
                                       kind=OutboxEntry.Kind.HIERARCHY_UPDATE)
            .order_by("-created_at", "-id").first())
