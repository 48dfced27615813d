"""Writes of provider events: the portal subscribing itself, recording deliveries, and acting on
them.

The portal subscribes its own endpoint (through the outbox, like any subscription) for the
events it acts on. A delivery is stored raw and answered at once; a task then refreshes what the
event says changed. Each distinct delivery is processed once: duplicates are only counted, and
processing claims the row first, like the outbox does.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import math
import re
import secrets

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.credentials import CredentialError
from accounts.models import Business, Reseller, User
from accounts.provider_access import (
    RETRYABLE,
    provider_client,
    provider_error_message,
    provider_key_rejected,
)
from accounts.services import audit_record
from alerts.sources import alert_provider_event_failed
from events import tasks
from events.models import EventReceiver, ProviderEvent
from events.selectors import PROCESSING_STALE_SECONDS, password_hash
from listings.models import Subscription
from listings.services import (
    RefreshFailed,
    listing_status_refresh,
    subscription_create,
    subscription_delete,
)
from portal.outbound import UnsafeURL
from portal.retries import retry_delay
from provider import AuthError, ProviderError
from reviews_app.services import survey_add, survey_responses_refresh

logger = logging.getLogger(__name__)

LISTING_UPDATED = "LISTING_UPDATED"
SURVEY_COMPLETED = "SURVEY_COMPLETED"
RECEIVER_EVENTS = (LISTING_UPDATED, SURVEY_COMPLETED)
RETRY_BASE_SECONDS = 30
RETRY_MAX_SECONDS = 3600

State = ProviderEvent.State


class ReceiverUnavailable(Exception):
    """The portal cannot receive events here; the message says what to set."""


class InvalidEvent(ValueError):
    """A delivery that is not an event; the message names the field and the rule."""


def event_receiver_url(receiver: EventReceiver) -> str:
    path = reverse("provider_event_receive", kwargs={"public_id": receiver.public_id})
    return f"{settings.PORTAL_PUBLIC_URL}{path}"


def _portal_subscriptions(*, tenant: Reseller, receiver: EventReceiver):

    return Subscription.objects.filter(reseller=tenant, removed_at__isnull=True,
                                       webhook_url=event_receiver_url(receiver))


@transaction.atomic
def event_receiver_enable(*, tenant: Reseller, actor: User | None) -> EventReceiver:
    """Subscribe the portal's endpoint for RECEIVER_EVENTS with fresh credentials.

    Called again, it rotates the password: the previous subscriptions of the endpoint are
    removed and new ones made, so deliveries never carry a password the portal no longer
    accepts for long.
    """

    if not settings.PORTAL_PUBLIC_URL:
        raise ReceiverUnavailable("Set PORTAL_PUBLIC_URL to the address at which the provider "
                                  "can reach this portal; it is needed to receive events.")
    password = secrets.token_urlsafe(32)
    receiver, created = EventReceiver.objects.get_or_create(
        reseller=tenant,
        defaults={"username": f"portal-{secrets.token_hex(6)}",
                  "password_hash": password_hash(password), "events": list(RECEIVER_EVENTS)})
    if not created:
        for subscription in _portal_subscriptions(tenant=tenant, receiver=receiver):
            subscription_delete(tenant=tenant, actor=actor, subscription=subscription)
        receiver.password_hash = password_hash(password)
        receiver.events = list(RECEIVER_EVENTS)
        receiver.disabled_at = None
        receiver.save(update_fields=["password_hash", "events", "disabled_at", "updated_at"])
    url = event_receiver_url(receiver)
    for event_name in RECEIVER_EVENTS:
        subscription_create(tenant=tenant, actor=actor, webhook_url=url, event_name=event_name,
                            auth_username=receiver.username, auth_password=password)
    audit_record(tenant=tenant, actor=actor,
                 action="events.receiver_enabled" if created else "events.receiver_rotated",
                 obj=receiver, summary={"events": list(RECEIVER_EVENTS)})
    return receiver


@transaction.atomic
def event_receiver_disable(*, tenant: Reseller, actor: User | None,
                           receiver: EventReceiver) -> EventReceiver:
    """Unsubscribe the portal's endpoint; deliveries still on their way are refused (401)."""

    for subscription in _portal_subscriptions(tenant=tenant, receiver=receiver):
        subscription_delete(tenant=tenant, actor=actor, subscription=subscription)
    receiver.disabled_at = timezone.now()
    # A password nobody holds: old deliveries can no longer authenticate.
    receiver.password_hash = password_hash(secrets.token_urlsafe(32))
    receiver.save(update_fields=["disabled_at", "password_hash", "updated_at"])
    audit_record(tenant=tenant, actor=actor, action="events.receiver_disabled", obj=receiver)
    return receiver


# -- receiving ----------------------------------------------------------------------------------

# The payload is stored in a JSON column (JSONB on PostgreSQL) and the body in a text column, and
# the payload is hashed as UTF-8: whatever one of those refuses must be refused here, as a 400,
# before it reaches them as a 500.
MAX_NESTING_DEPTH = 64  # far beyond any real event; json.loads itself dies near 1000 levels
_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1
# A JSON string (an unterminated one runs to the end, so that each byte is scanned once) or a
# bracket: enough to measure the nesting before json.loads recurses into it.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\[\s\S]?[^"\\]*)*(?:"|\Z)|[\[\]{}]')
# NUL is refused by PostgreSQL's text and JSONB; a lone surrogate is no character at all.
_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def _nesting_depth_exceeds(text: str, limit: int) -> bool:
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def _bounded_int(text: str) -> int:
    # Checked on the digits first: Python refuses to convert over 4300 of them (ValueError).
    if len(text.lstrip("-")) > 19 or not _BIGINT_MIN <= int(text) <= _BIGINT_MAX:
        shown = text if len(text) <= 30 else f"{text[:20]}... ({len(text)} characters)"
        raise InvalidEvent(f"Every integer must fit in 64 bits (signed); {shown} does not.")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidEvent(f"Every number must be finite; {text[:30]} is not.")
    return value


def _refuse_constant(name: str) -> None:
    raise InvalidEvent(f"{name} is not JSON: every number must be finite.")


def _check_characters(payload: object) -> None:
    pending = [payload]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and (found := _UNSTORABLE_CHARACTER.search(value)):
            if found.group() == "\x00":
                raise InvalidEvent("The body contains a NUL character (\\u0000), which cannot "
                                   "be stored.")
            raise InvalidEvent(f"The body contains a lone surrogate (\\u{ord(found.group()):04x}),"
                               " which is not a character.")


def _decode(body: bytes) -> object:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEvent(f"The body must be a JSON object in UTF-8; byte {exc.start} is not "
                           f"UTF-8 ({exc.reason}).") from exc
    if "\x00" in text:
        raise InvalidEvent("The body contains a NUL character, which cannot be stored.")
    if _nesting_depth_exceeds(text, MAX_NESTING_DEPTH):
        raise InvalidEvent(f"The body is nested more than {MAX_NESTING_DEPTH} levels deep.")
    try:
        payload = json.loads(text, parse_int=_bounded_int, parse_float=_finite_float,
                             parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidEvent(f"The body is not valid JSON ({exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}); it must be a JSON object.") from exc
    _check_characters(payload)
    return payload


def _parse_timestamp(value: str) -> datetime.datetime | None:
    try:
        parsed = parse_datetime(value)
        # Stored in UTC: an offset that moves the date out of Python's range is refused here.
        if parsed is not None and parsed.tzinfo is not None:
            parsed.astimezone(datetime.UTC)
    except (ValueError, OverflowError):
        return None
    return parsed


def _parse(body: bytes) -> dict:
    payload = _decode(body)
    if not isinstance(payload, dict):
        raise InvalidEvent("The body must be a JSON object.")
    name = payload.get("eventName")
    if not isinstance(name, str) or not name or len(name) > 64:
        raise InvalidEvent("eventName must be a non-empty string of at most 64 characters.")
    business_id = payload.get("businessId")
    if business_id is not None and (isinstance(business_id, bool)
                                    or not isinstance(business_id, int)):
        raise InvalidEvent("businessId must be an integer.")
    timestamp = payload.get("timestamp")
    if timestamp is not None and (not isinstance(timestamp, str)
                                  or _parse_timestamp(timestamp) is None):
        raise InvalidEvent("timestamp must be an ISO 8601 date and time.")
    if not isinstance(payload.get("data", {}), dict):
        raise InvalidEvent("data must be an object.")
    return payload


def provider_event_record(*, receiver: EventReceiver, body: bytes) -> tuple[ProviderEvent, bool]:
    """Store a delivery for the receiver's reseller; returns the event and whether it is new.

    Raises InvalidEvent for a body that is not an event. A delivery seen before only bumps
    the count of deliveries of the stored event.
    """
    payload = _parse(body)
    tenant = receiver.reseller
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = hashlib.sha256(canonical.encode()).hexdigest()
    now = timezone.now()
    business_id = payload.get("businessId")
    occurred = _parse_timestamp(payload["timestamp"]) if payload.get("timestamp") else None
    try:
        with transaction.atomic():
            event = ProviderEvent.objects.create(
                reseller=tenant, dedupe_key=key, event_name=payload["eventName"],
                business_remote_id=business_id,
                business=Business.objects.filter(reseller=tenant, remote_id=business_id).first()
                if business_id is not None else None,
                occurred_at=occurred, body=body.decode("utf-8"), payload=payload,
                received_at=now, last_received_at=now)
            transaction.on_commit(lambda: _queue_processing(tenant.pk, event.pk))
    except IntegrityError:
        ProviderEvent.objects.filter(reseller=tenant, dedupe_key=key).update(
            deliveries=F("deliveries") + 1, last_received_at=now)
        return ProviderEvent.objects.get(reseller=tenant, dedupe_key=key), False
    return event, True


def _queue_processing(reseller_id: int, event_id: int) -> None:
    try:
        tasks.provider_event_process_task.delay(reseller_id=reseller_id, event_id=event_id)
    except Exception:  # noqa: BLE001 - the broker is down: the sweep processes the event later
        logger.warning("provider event %s: could not queue its processing; the sweep will",
                       event_id, exc_info=True)


# -- acting on events ---------------------------------------------------------------------------

def _claim(event_id: int) -> bool:
    now = timezone.now()
    stale = now - datetime.timedelta(seconds=PROCESSING_STALE_SECONDS)
    return bool(ProviderEvent.objects.filter(pk=event_id).filter(
        Q(state=State.RECEIVED, next_attempt_at__lte=now)
        | Q(state=State.PROCESSING, claimed_at__lt=stale)
    ).update(state=State.PROCESSING, claimed_at=now, attempts=F("attempts") + 1))


def _finish(event: ProviderEvent, state: str, result: str) -> None:
    ProviderEvent.objects.filter(pk=event.pk).update(
        state=state, result=result[:500], processed_at=timezone.now(), claimed_at=None)


class _TryLater(Exception):
    pass


def provider_event_process(*, tenant: Reseller, event_id: int) -> ProviderEvent | None:
    """Act on one event if it is due and nobody else is; returns it in its new state."""
    if not _claim(event_id):
        return None
    event = ProviderEvent.objects.get(pk=event_id)
    try:
        state, result = _act(tenant=tenant, event=event)
    except _TryLater as exc:
        if event.attempts >= settings.PROVIDER_EVENT_MAX_ATTEMPTS:
            _finish(event, State.FAILED, f"Gave up after {event.attempts} attempts: {exc}")
        else:
            delay = retry_delay(event.attempts - 1, base=RETRY_BASE_SECONDS, cap=RETRY_MAX_SECONDS)
            ProviderEvent.objects.filter(pk=event.pk).update(
                state=State.RECEIVED, claimed_at=None, result=str(exc)[:500],
                next_attempt_at=timezone.now() + datetime.timedelta(seconds=delay))
    else:
        _finish(event, state, result)
    event.refresh_from_db()
    alert_provider_event_failed(tenant=tenant, event=event)
    return event


def _act(*, tenant: Reseller, event: ProviderEvent) -> tuple[str, str]:
    if event.event_name == LISTING_UPDATED:
        return _listing_updated(tenant=tenant, event=event)
    if event.event_name == SURVEY_COMPLETED:
        return _survey_completed(tenant=tenant, event=event)
    return State.IGNORED, f"The portal does not act on {event.event_name} events."


def _listing_updated(*, tenant: Reseller, event: ProviderEvent) -> tuple[str, str]:

    business = Business.objects.filter(reseller=tenant,
                                       remote_id=event.business_remote_id).first()
    if business is None or not business.is_location:
        return State.IGNORED, (f"Location {event.business_remote_id} is not mirrored yet; the "
                               f"next sync brings it.")
    try:
        report = listing_status_refresh(tenant=tenant, actor=None, business=business,
                                        retry_later=True, source="event")
    except RETRYABLE as exc:
        raise _TryLater(str(exc)) from exc
    except RefreshFailed as exc:
        return State.FAILED, str(exc)
    if event.business_id is None:
        ProviderEvent.objects.filter(pk=event.pk).update(business=business)
    return State.PROCESSED, (f"Listing status refreshed: {report.location_status or 'unknown'}, "
                             f"{report.synced_count} of {report.total_sites} sites synced.")


def _survey_completed(*, tenant: Reseller, event: ProviderEvent) -> tuple[str, str]:

    data = event.payload.get("data") or {}
    survey_id, response_id = data.get("surveyId"), data.get("responseId")
    if not isinstance(survey_id, int) or isinstance(survey_id, bool):
        return State.IGNORED, "The event names no survey."
    survey = survey_add(tenant=tenant, actor=None, remote_id=survey_id)
    day = (event.occurred_at or event.received_at).date()
    try:
        with provider_client(tenant=tenant) as client:
            survey_responses_refresh(tenant=tenant, client=client, survey=survey,
                                     business_number=tenant.account_number,
                                     start=day - datetime.timedelta(days=1),
                                     end=day + datetime.timedelta(days=1))
    except RETRYABLE as exc:
        raise _TryLater(str(exc)) from exc
    except (ProviderError, CredentialError, UnsafeURL) as exc:
        if isinstance(exc, AuthError):
            provider_key_rejected(tenant=tenant, code=exc.code)
        return State.FAILED, provider_error_message(exc)
    return State.PROCESSED, f"Responses of survey {survey_id} refreshed (response {response_id})."


@transaction.atomic
def provider_event_retry(*, tenant: Reseller, actor: User | None,
                         event: ProviderEvent) -> ProviderEvent:
    """Process a failed event again, from now."""
    if event.state != State.FAILED:
        raise ValueError("Only a failed event can be retried.")
    ProviderEvent.objects.filter(pk=event.pk).update(
        state=State.RECEIVED, attempts=0, next_attempt_at=timezone.now(), result="")
    audit_record(tenant=tenant, actor=actor, action="events.retried", obj=event,
                 summary={"event": event.event_name, "business": event.business_remote_id})
    transaction.on_commit(lambda: _queue_processing(tenant.pk, event.pk))
    event.refresh_from_db()
    return event
