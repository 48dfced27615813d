"""The transactional outbox: every write to the provider is a stored row before it is sent.

`outbox_enqueue` is called inside the transaction that saves the user's change, so both commit
or neither does; the send task is queued on commit. `outbox_send` claims a row (so two workers
never send it twice), calls the kind's handler and records the outcome:

- accepted: the provider took it; the handler's `on_accepted` applies local effects;
- rejected: the provider refused it (its code and message are kept, shown next to the field);
- pending again: rate limited or failing; retried with backoff by the sweep;
- failed: still failing after `OUTBOX_MAX_ATTEMPTS`; kept, visible, and retryable by a user.

When a send's outcome is unknown (a timeout after the request left), the handler's `reconcile`
reads the provider's state back where the interface allows, instead of sending blindly again.
If the provider cannot tell yet (the request may still be in flight), the row is retried later
marked `in_doubt`, as is a row a dead worker left `sending`; an attempt on a row in doubt
reconciles first and sends only if the provider does not have the change.

A handler is a class with `send(client, entry) -> reply`, `on_accepted(entry, reply)` and
optionally `reconcile(client, entry) -> reply | None`, registered by kind with
`@outbox_handler(kind)` in the app that owns the write.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, NamedTuple, Protocol

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.credentials import CredentialError
from accounts.models import Business, Reseller, User
from accounts.provider_access import RETRYABLE, provider_client, provider_key_rejected
from accounts.services import audit_record, audit_record_many
from outbox import tasks
from outbox.models import OutboxEntry
from outbox.signals import entry_settled
from portal.outbound import UnsafeURL
from portal.retries import retry_delay
from provider import AuthError, ProviderClient, ProviderError, Transient

logger = logging.getLogger(__name__)

Kind = OutboxEntry.Kind
State = OutboxEntry.State

# Filled by the apps that own each kind of write (`outbox_handler`, imported from their
# AppConfig.ready()): the outbox knows no app above it.
HANDLERS: dict[str, type] = {}


class OutboxHandler(Protocol):
    def send(self, client: ProviderClient, entry: OutboxEntry) -> Any: ...

    def on_accepted(self, entry: OutboxEntry, reply: Any) -> None: ...


def outbox_handler(kind: str):
    """Class decorator: the handler of one kind of write."""

    def register(handler: type) -> type:
        if HANDLERS.get(kind, handler) is not handler:
            raise ImproperlyConfigured(f"Two outbox handlers for {kind!r}.")
        HANDLERS[kind] = handler
        return handler

    return register


def handler_for(kind: str) -> OutboxHandler:
    return HANDLERS[kind]()


class OutboxWrite(NamedTuple):
    """One write to queue: its body, the business it is about, and what it does, in words."""

    payload: dict
    business: Business | None = None
    summary: str = ""


def outbox_enqueue(*, tenant: Reseller, actor: User | None, kind: str, payload: dict,
                   business: Business | None = None, summary: str = "") -> OutboxEntry:
    """Store a write for the provider; it is sent once the surrounding transaction commits."""
    return outbox_enqueue_many(tenant=tenant, actor=actor, kind=kind,
                               writes=[OutboxWrite(payload, business, summary)])[0]


def outbox_enqueue_many(*, tenant: Reseller, actor: User | None, kind: str,
                        writes: list[OutboxWrite]) -> list[OutboxEntry]:
    """`outbox_enqueue` of many writes of one kind, in a number of statements that does not
    grow with them (a wave of a bulk change queues hundreds)."""
    if kind not in HANDLERS:
        raise ValueError(f"No outbox handler for {kind!r}.")
    entries = OutboxEntry.objects.bulk_create([
        OutboxEntry(reseller=tenant, kind=kind, payload=write.payload, business=write.business,
                    summary=write.summary[:255],
                    created_by=actor if actor is not None and actor.pk else None)
        for write in writes])
    audit_record_many(tenant=tenant, actor=actor, action=f"outbox.{kind}.queued",
                      objects=entries,
                      summaries=[{"summary": write.summary[:255],
                                  "business": getattr(write.business, "remote_id", None)}
                                 for write in writes])
    entry_ids = [entry.pk for entry in entries]
    transaction.on_commit(lambda: [_queue_send(tenant.pk, entry_id) for entry_id in entry_ids])
    return entries


def _queue_send(reseller_id: int, entry_id: int) -> None:

    try:
        tasks.outbox_send_task.delay(reseller_id=reseller_id, entry_id=entry_id)
    except Exception:  # noqa: BLE001 - the broker is down: the sweep sends the row later
        logger.warning("outbox %s: could not queue its send; the sweep will pick it up",
                       entry_id, exc_info=True)


def _claim(entry_id: int) -> bool:
    """Move a due row to `sending`; only one worker can win the claim.

    A row still `sending` after the stale delay was left by a worker that died mid-send: the
    provider may have its change, so it is claimed in doubt.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.OUTBOX_SENDING_STALE_SECONDS)
    rows = OutboxEntry.objects.filter(pk=entry_id)
    claim = {"state": State.SENDING, "claimed_at": now, "attempts": F("attempts") + 1}
    return bool(rows.filter(state=State.PENDING, next_attempt_at__lte=now).update(**claim)
                or rows.filter(state=State.SENDING, claimed_at__lt=stale).update(
                    **claim, in_doubt=True))


def outbox_send(*, tenant: Reseller, entry_id: int) -> OutboxEntry | None:
    """Send one row if it is due; returns it in its new state, or None if it was not due."""
    if not _claim(entry_id):
        return None
    entry = OutboxEntry.objects.select_related("business").get(pk=entry_id)
    handler = handler_for(entry.kind)
    try:
        client = provider_client(tenant=tenant)
    except (CredentialError, UnsafeURL) as exc:
        return _fail(entry, message=str(exc))
    with client:
        try:
            reply = _deliver(handler, client, entry)
        except RETRYABLE as exc:
            return _retry_later(entry, exc)
        except SoftTimeLimitExceeded:
            # The task ran out of time mid-send: the request may have reached the provider, so
            # the next attempt reads back first where the handler can.
            entry.in_doubt = hasattr(handler, "reconcile")
            return _retry_later(entry, Transient(
                None, "Sending took longer than a task may run; it is tried again.", None,
                outcome_unknown=True))
        except AuthError as exc:
            provider_key_rejected(tenant=tenant, code=exc.code)
            return _fail(entry, message=f"The provider rejected the API key (code {exc.code}).")
        except ProviderError as exc:
            entry.in_doubt = False  # the provider answered about this very change
            return _finish(entry, State.REJECTED, code=exc.code, message=exc.message)
    return _accept(entry, handler, reply)


def _deliver(handler: OutboxHandler, client: ProviderClient, entry: OutboxEntry) -> Any:
    """Send the row once: reconcile first when it is in doubt, and after an unknown outcome.

    Keeps `entry.in_doubt` (saved by whoever records the outcome) up to date: a reconcile that
    finds nothing, done an attempt later, clears it; a send with an unknown outcome sets it.
    """
    reconcile = getattr(handler, "reconcile", None)
    if entry.in_doubt and reconcile is not None:
        reply = reconcile(client, entry)
        if reply is not None:
            return reply
        entry.in_doubt = False
    try:
        return handler.send(client, entry)
    except Transient as exc:
        if not exc.outcome_unknown:
            raise
        # Handlers without `reconcile` are safe to send again; the others decide next time
        # if the provider cannot tell now (the request may still be on its way).
        entry.in_doubt = reconcile is not None
        if reconcile is None:
            raise
        reply = _reconcile(handler, client, entry, exc)
        if reply is None:
            raise
        return reply


def _reconcile(handler, client, entry: OutboxEntry, exc: Transient):
    try:
        return handler.reconcile(client, entry)
    except ProviderError:
        logger.info("outbox %s: reconciling after %s failed too", entry.pk, exc)
        return None


def _jsonable(reply: Any) -> Any:
    if reply is None:
        return None
    if isinstance(reply, list):
        return [_jsonable(item) for item in reply]
    raw = getattr(reply, "raw", reply)
    return dict(raw) if hasattr(raw, "items") else raw


def _accept(entry: OutboxEntry, handler: OutboxHandler, reply: Any) -> OutboxEntry:
    with transaction.atomic():
        entry.state = State.ACCEPTED
        entry.provider_reply = _jsonable(reply)
        entry.finished_at = timezone.now()
        entry.last_error = ""
        entry.in_doubt = False
        entry.save(update_fields=["state", "provider_reply", "finished_at", "last_error",
                                  "in_doubt", "updated_at"])
        handler.on_accepted(entry, reply)
        audit_record(tenant=entry.reseller, actor=None, action=f"outbox.{entry.kind}.accepted",
                     obj=entry, summary={"summary": entry.summary})
        _announce(entry)
    return entry


def _announce(entry: OutboxEntry) -> None:
    transaction.on_commit(lambda: entry_settled.send_robust(sender=OutboxEntry, entry=entry))


def _finish(entry: OutboxEntry, state: str, *, code: int | None, message: str) -> OutboxEntry:
    entry.state = state
    entry.provider_code = code
    entry.provider_message = message
    entry.finished_at = timezone.now()
    entry.save(update_fields=["state", "provider_code", "provider_message", "finished_at",
                              "in_doubt", "updated_at"])
    audit_record(tenant=entry.reseller, actor=None, action=f"outbox.{entry.kind}.{state}",
                 obj=entry, summary={"code": code, "message": message[:500]})
    _announce(entry)
    return entry


def _fail(entry: OutboxEntry, *, message: str) -> OutboxEntry:
    return _finish(entry, State.FAILED, code=None, message=message)


def _retry_later(entry: OutboxEntry, exc: ProviderError) -> OutboxEntry:
    if entry.attempts >= settings.OUTBOX_MAX_ATTEMPTS:
        return _finish(entry, State.FAILED, code=exc.code,
                       message=f"Gave up after {entry.attempts} attempts: {exc.message}")
    delay = retry_delay(entry.attempts - 1, base=settings.OUTBOX_RETRY_BASE_SECONDS, cap=3600,
                        suggested=exc.retry_after)
    entry.state = State.PENDING
    entry.next_attempt_at = timezone.now() + timedelta(seconds=delay)
    entry.last_error = str(exc)[:1000]
    entry.save(update_fields=["state", "next_attempt_at", "last_error", "in_doubt",
                              "updated_at"])
    return entry


def outbox_retry(*, tenant: Reseller, actor: User | None, entry: OutboxEntry) -> OutboxEntry:
    """A user sends a failed or rejected row again."""
    if entry.state not in (State.FAILED, State.REJECTED):
        raise ValueError("Only failed or rejected changes can be sent again.")
    with transaction.atomic():
        entry.state = State.PENDING
        entry.attempts = 0
        entry.next_attempt_at = timezone.now()
        entry.provider_code = None
        entry.provider_message = ""
        entry.finished_at = None
        entry.save()
        audit_record(tenant=tenant, actor=actor, action=f"outbox.{entry.kind}.retried",
                     obj=entry, summary={"summary": entry.summary})
        transaction.on_commit(lambda: _queue_send(tenant.pk, entry.pk))
    return entry


def outbox_due(*, tenant: Reseller):
    """Rows to send now: due pending rows, and rows a dead worker left `sending`."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.OUTBOX_SENDING_STALE_SECONDS)
    return OutboxEntry.objects.filter(reseller=tenant).filter(
        Q(state=State.PENDING, next_attempt_at__lte=now)
        | Q(state=State.SENDING, claimed_at__lt=stale)
    ).order_by("created_at")
