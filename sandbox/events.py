"""Webhook events of the sandbox: publishing them to subscriptions and delivering them.

An event is published for every subscription of the partner, for that event, whose account is
the business or one of its ancestors. Each becomes an `EventDelivery` stored in the same
transaction as the change that caused it; once that commits, a task sends it. A delivery that
fails (no answer, or an answer other than 2xx) is tried again with a growing delay, up to
`MAX_ATTEMPTS`; `deliver_due` (run periodically) sends whatever is due, so deliveries survive a
lost task. The payload is the one chosen in parameters.md: `{eventName, businessId, timestamp,
data}`.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

import requests
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from portal.outbound import UnsafeURL, check_outbound_url
from sandbox.models import Business, BusinessAncestor, EventDelivery, Subscription

logger = logging.getLogger(__name__)

LISTING_UPDATED = "LISTING_UPDATED"
SURVEY_COMPLETED = "SURVEY_COMPLETED"

MAX_ATTEMPTS = 6
RETRY_BASE_SECONDS = 10
TIMEOUT_SECONDS = (3.05, 10)
USER_AGENT = "sandbox-webhooks/1"


def event_publish(*, business: Business, event_name: str, data: dict,
                  at: datetime.datetime | None = None) -> list[EventDelivery]:
    """Store one delivery per matching subscription; they are sent once the transaction commits."""
    at = at or timezone.now()
    ancestors = BusinessAncestor.objects.filter(descendant=business).values("ancestor_id")
    subscriptions = Subscription.objects.filter(
        partner_id=business.partner_id, event_name=event_name,
    ).filter(Q(account_id__in=ancestors) | Q(account_id=business.pk))
    payload = {
        "eventName": event_name,
        "businessId": business.number,
        "timestamp": at.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z"),
        "data": data,
    }
    now = timezone.now()
    deliveries = EventDelivery.objects.bulk_create([
        EventDelivery(partner_id=business.partner_id, subscription_id=s.subscription_id,
                      webhook_url=s.webhook_url, auth=s.auth, event_name=event_name,
                      business_number=business.number, payload=payload, next_attempt_at=now,
                      created_at=now)
        for s in subscriptions
    ])
    if deliveries:
        ids = [d.pk for d in deliveries if d.pk is not None]
        transaction.on_commit(lambda: _queue_delivery(ids))
    return deliveries


def _queue_delivery(ids: list[int]) -> None:
    from sandbox.tasks import sandbox_event_deliver_task

    if not ids:  # backends that do not return ids on bulk insert: the periodic run sends them
        return
    try:
        sandbox_event_deliver_task.delay(delivery_ids=ids)
    except Exception:  # noqa: BLE001 - no broker: `deliver_due` sends them on its next run
        logger.warning("sandbox: could not queue %d event deliveries", len(ids), exc_info=True)


def deliver(delivery_ids: Iterable[int], *, session: requests.Session | None = None) -> int:
    """Send these deliveries if they are still pending and due; returns how many arrived."""
    now = timezone.now()
    due = EventDelivery.objects.filter(pk__in=list(delivery_ids),
                                       state=EventDelivery.State.PENDING,
                                       next_attempt_at__lte=now).order_by("pk")
    return _send_all(due, session=session)


def deliver_due(*, limit: int = 500, session: requests.Session | None = None) -> int:
    """Send every pending delivery whose time has come (for the periodic job)."""
    due = EventDelivery.objects.filter(state=EventDelivery.State.PENDING,
                                       next_attempt_at__lte=timezone.now()
                                       ).order_by("next_attempt_at", "pk")[:limit]
    return _send_all(due, session=session)


def _send_all(deliveries, *, session: requests.Session | None) -> int:
    owned = session is None
    session = session or requests.Session()
    try:
        return sum(1 for delivery in list(deliveries) if _send(delivery, session))
    finally:
        if owned:
            session.close()


def _claim(delivery: EventDelivery) -> bool:
    """Push the next attempt into the future first, so that two senders never both send it."""
    backoff = datetime.timedelta(seconds=RETRY_BASE_SECONDS * 2 ** delivery.attempts)
    return bool(EventDelivery.objects.filter(
        pk=delivery.pk, state=EventDelivery.State.PENDING, attempts=delivery.attempts,
    ).update(attempts=delivery.attempts + 1, next_attempt_at=timezone.now() + backoff))


def _send(delivery: EventDelivery, session: requests.Session) -> bool:
    if not _claim(delivery):
        return False
    delivery.attempts += 1
    auth = delivery.auth or None
    status, error, permanent = None, "", False
    try:
        url = check_outbound_url(delivery.webhook_url)
        response = session.post(
            url, json=delivery.payload, timeout=TIMEOUT_SECONDS, allow_redirects=False,
            auth=(auth["username"], auth["password"]) if auth else None,
            headers={"User-Agent": USER_AGENT},
        )
        status = response.status_code
        response.close()
        if not 200 <= status < 300:
            error = f"HTTP {status}"
    except UnsafeURL as exc:
        error, permanent = str(exc), True
    except requests.RequestException as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    now = timezone.now()
    fields = {"last_status": status, "last_error": error}
    if not error:
        fields |= {"state": EventDelivery.State.DELIVERED, "delivered_at": now}
    elif permanent or delivery.attempts >= MAX_ATTEMPTS:
        fields |= {"state": EventDelivery.State.FAILED}
    EventDelivery.objects.filter(pk=delivery.pk).update(**fields)
    if error:
        # The host only: a URL may carry credentials in its query string.
        logger.info("sandbox: delivery %s of %s to %s failed (attempt %d): %s", delivery.pk,
                    delivery.event_name, urlsplit(delivery.webhook_url).hostname,
                    delivery.attempts, error)
    return not error

