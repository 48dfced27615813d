"""Reads of provider events."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import uuid

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from accounts.models import Membership, Reseller
from events.models import EventReceiver, ProviderEvent

PROCESSING_STALE_SECONDS = 300
# Compared against when the endpoint is unknown, so that a wrong id costs the same time as a
# wrong password.
_NO_HASH = "0" * 64


def password_hash(password: str) -> str:
    """How a receiver's password is kept: the provider sends it on every delivery, so a fast
    hash of a long random secret (never a person's password) is enough."""
    return hashlib.sha256(password.encode()).hexdigest()


def event_receiver_get(*, tenant: Reseller) -> EventReceiver | None:
    return EventReceiver.objects.filter(reseller=tenant).first()


def event_receiver_authenticate(*, public_id: str, username: str,
                                password: str) -> EventReceiver | None:
    """The enabled receiver with this id whose credentials match, compared in constant time.

    This runs before any tenant is known (the provider calls in), so it reads across tenants
    by the receiver's unguessable id.
    """
    try:
        receiver = (EventReceiver.unscoped.select_related("reseller")
                    .filter(public_id=uuid.UUID(public_id), disabled_at__isnull=True).first())
    except ValueError:
        receiver = None
    expected_hash = receiver.password_hash if receiver else _NO_HASH
    expected_user = receiver.username if receiver else ""
    password_ok = hmac.compare_digest(password_hash(password).encode(), expected_hash.encode())
    user_ok = hmac.compare_digest(username.encode(), expected_user.encode())
    return receiver if (receiver and password_ok and user_ok) else None


def _visible_events(*, tenant: Reseller,
                    membership: Membership | None) -> QuerySet[ProviderEvent]:
    """The tenant's events; for a member limited to a subtree, only those of its businesses
    (an event about no known business is about the account, so it is not theirs)."""
    queryset = ProviderEvent.objects.filter(reseller=tenant)
    if membership is not None and membership.limited_to_id is not None:
        queryset = queryset.filter(
            business__tree_path__startswith=membership.limited_to.tree_path)
    return queryset


def provider_event_list(*, tenant: Reseller,
                        membership: Membership | None = None) -> QuerySet[ProviderEvent]:
    """Newest first; `ProviderEventFilterSet` narrows it."""
    return (_visible_events(tenant=tenant, membership=membership)
            .select_related("business").defer("body"))


def provider_event_get(*, tenant: Reseller, pk: int,
                       membership: Membership | None = None) -> ProviderEvent | None:
    return (_visible_events(tenant=tenant, membership=membership).filter(pk=pk)
            .select_related("business").first())


def provider_event_daily_counts(*, tenant: Reseller, membership: Membership | None = None,
                                days: int = 14) -> list[dict]:
    """Events received per day and name over the last `days` days, oldest first, zeros kept."""
    today = timezone.localdate()
    first = today - datetime.timedelta(days=days - 1)
    rows = (_visible_events(tenant=tenant, membership=membership)
            .filter(received_at__date__gte=first)
            .annotate(day=TruncDate("received_at")).values("day", "event_name")
            .annotate(n=Count("id")))
    counts: dict[datetime.date, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["day"], {})[row["event_name"]] = row["n"]
    return [{"day": first + datetime.timedelta(days=offset),
             "counts": counts.get(first + datetime.timedelta(days=offset), {})}
            for offset in range(days)]


def provider_events_due(*, limit: int = 500) -> list[tuple[int, int]]:
    """(reseller id, event id) of every event waiting to be processed, across tenants (for the
    sweep), including those left `processing` by a worker that died."""
    now = timezone.now()
    stale = now - datetime.timedelta(seconds=PROCESSING_STALE_SECONDS)
    return list(ProviderEvent.unscoped.filter(
        Q(state=ProviderEvent.State.RECEIVED, next_attempt_at__lte=now)
        | Q(state=ProviderEvent.State.PROCESSING, claimed_at__lt=stale)
    ).order_by("next_attempt_at").values_list("reseller_id", "pk")[:limit])
