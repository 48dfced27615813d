"""Reads of the listings app: Q&A, custom fields, AI-search configuration, webhooks, and the
outbox rows that show what was sent for them."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Prefetch, QuerySet

from accounts.models import Business, Reseller
from listings.models import (
    AiSearchConfiguration,
    Answer,
    CustomField,
    ListingStatusReport,
    Question,
    Subscription,
)
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


def outbox_entry_get(*, tenant: Reseller, kinds: Iterable[str], pk: int) -> OutboxEntry | None:
    return outbox_entry_list(tenant=tenant, kinds=kinds).filter(pk=pk).first()


# -- Q&A ----------------------------------------------------------------------------------------

def question_list(*, tenant: Reseller, business: Business) -> QuerySet[Question]:
    """The business's questions (not removed), newest first, with their answers prefetched."""
    answers = Answer.objects.filter(reseller=tenant, removed_at__isnull=True).order_by("remote_id")
    return (
        Question.objects.filter(reseller=tenant, business=business, removed_at__isnull=True)
        .prefetch_related(Prefetch("answers", queryset=answers, to_attr="live_answers"))
        .order_by("-remote_id")
    )


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
