"""The transactional outbox: every write to the provider is a stored row before it is sent.

`outbox_enqueue` is called inside the transaction that saves the user's change, so both commit
or neither does; the send task is queued on commit. `outbox_send` claims a row (so two workers
never send it at once), calls the kind's handler and records the outcome:

- accepted: the provider took it; the handler's `on_accepted` applies local effects;
- rejected: the provider refused it (its code and message are kept, shown next to the field);
- pending again: rate limited or failing; retried with backoff by the sweep;
- failed: still failing after `OUTBOX_MAX_ATTEMPTS`; kept, visible, and retryable by a user;
- in doubt: a request left, its answer was lost, and the provider's state cannot tell whether
  it arrived; a person decides (`outbox_retry` sends it again, `outbox_mark_arrived` records
  that it arrived). Never shown as accepted.

Exactly once where it can be known. The moment each request of a write leaves (after any wait
for a rate-limit slot, just before its bytes are written) is stored durably
(`request_sent_at`), and cleared when the provider's answer proves it did nothing (a 429, a
refusal, a failure before sending). So a row a dead worker left behind is simply sent again if
its request never left, and is *in doubt* only if it may have. A row in doubt is reconciled
once the request can no longer be on its way (`OUTBOX_IN_FLIGHT_SECONDS` after it left): the
handler reads the provider's state and answers `Arrived(reply)`, `NOT_ARRIVED` or
`Undecided(reason)`, on evidence that tells this send apart from earlier ones; `Undecided`
puts the row in the in-doubt state for a person.

A sending worker gives a sign of life (`heartbeat_at`) when it claims a row and around each
request; a row whose worker stopped giving one for `OUTBOX_SENDING_STALE_SECONDS` is taken up
by another. The sweep queues every due row as a task of its own, a bounded number at a time,
so that a backlog drains at the provider's rate limit, not one row after another.

A handler is a class with `send(client, entry) -> reply`, `on_accepted(entry, reply)` (reply
None when a person marked the row as arrived), optionally `reconcile(client, entry)`, and
`repeatable = True` when sending twice does what sending once does (then a row in doubt is
sent again without reading back). It is registered by kind with `@outbox_handler(kind)` in the
app that owns the write.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.credentials import CredentialError
from accounts.models import Business, Reseller, User
from accounts.provider_access import RETRYABLE, provider_client, provider_key_rejected
from accounts.services import audit_record, audit_record_many
from outbox import tasks
from outbox.models import OutboxEntry
from outbox.signals import entry_settled
from portal.durable import seconds_ago, task_queue, with_reconnect
from portal.outbound import UnsafeURL
from portal.retries import retry_delay
from provider import AuthError, ProviderClient, ProviderError, Transient, WriteNotRecorded

logger = logging.getLogger(__name__)

Kind = OutboxEntry.Kind
State = OutboxEntry.State

# Filled by the apps that own each kind of write (`outbox_handler`, imported from their
# AppConfig.ready()): the outbox knows no app above it.
HANDLERS: dict[str, type] = {}


class OutboxHandler(Protocol):
    def send(self, client: ProviderClient, entry: OutboxEntry) -> Any: ...

    def on_accepted(self, entry: OutboxEntry, reply: Any) -> None: ...


# -- what reading the provider's state back concludes ----------------------------------------


class Arrived(NamedTuple):
    """The provider has this very change; `reply` stands for its lost answer."""

    reply: Any = None


class _NotArrived:
    def __repr__(self) -> str:
        return "NOT_ARRIVED"


NOT_ARRIVED = _NotArrived()  # the provider certainly does not have it: send it


class Undecided(NamedTuple):
    """The provider's state cannot tell; `reason` says why, to the person who decides."""

    reason: str


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


# -- queueing ---------------------------------------------------------------------------------


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
    now = timezone.now()
    entries = OutboxEntry.objects.bulk_create([
        OutboxEntry(reseller=tenant, kind=kind, payload=write.payload, business=write.business,
                    summary=write.summary[:255], next_attempt_at=now, queued_at=now,
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
    queued = task_queue(
        lambda: tasks.outbox_send_task.delay(reseller_id=reseller_id, entry_id=entry_id),
        what=f"outbox {entry_id}")
    if not queued:
        # Due for the next sweep at once, rather than once a lost task is presumed.
        OutboxEntry.unscoped.filter(pk=entry_id).update(queued_at=None)


# -- claiming -----------------------------------------------------------------------------------


def _stale_heartbeat(now: datetime) -> Q:
    """Rows being sent whose worker has given no sign of life for the stale delay."""
    stale = seconds_ago(settings.OUTBOX_SENDING_STALE_SECONDS, now=now)
    return Q(state=State.SENDING) & (Q(heartbeat_at__lt=stale)
                                     | Q(heartbeat_at__isnull=True, claimed_at__lt=stale))


def _claim(entry_id: int) -> datetime | None:
    """Move a due row to `sending`; only one worker can win the claim. Returns the claim's
    moment (the token the outcome is written under), or None.

    A row still `sending` without a sign of life was left by a worker that died: if its
    request may have left (`request_sent_at`), it is claimed in doubt, else sent as if new.
    """
    now = timezone.now()
    rows = OutboxEntry.objects.filter(pk=entry_id)
    claim = {"state": State.SENDING, "claimed_at": now, "heartbeat_at": now,
             "request_sent_at": None, "attempts": F("attempts") + 1}
    if rows.filter(state=State.PENDING, next_attempt_at__lte=now).update(**claim):
        return now
    left = Q(request_sent_at__isnull=False)
    if rows.filter(_stale_heartbeat(now)).update(
            **claim, in_doubt=Case(When(left, then=Value(True)), default=F("in_doubt")),
            doubt_since=Case(When(left, then=Coalesce("doubt_since", "request_sent_at")),
                             default=F("doubt_since"))):
        return now
    return None


class _SendRecorder:
    """Records, durably and at once, when a request of the row leaves and what its answer
    says of its effect (`provider.WriteObserver`); each is also the worker's sign of life."""

    def __init__(self, entry: OutboxEntry) -> None:
        self.entry = entry

    def _ours(self):
        return OutboxEntry.objects.filter(pk=self.entry.pk, state=State.SENDING,
                                          claimed_at=self.entry.claimed_at)

    def leaving(self, operation: str) -> None:
        # Outside any transaction (a task), so it commits before a byte leaves. If it cannot
        # be stored, or the row is another worker's now, the request is not sent.
        now = timezone.now()
        if not self._ours().update(request_sent_at=now, heartbeat_at=now):
            raise _ClaimLost(f"outbox {self.entry.pk} is no longer this worker's to send")
        self.entry.request_sent_at = now

    def answered(self, operation: str, *, taken: bool | None) -> None:
        now = timezone.now()
        fields: dict[str, Any] = {"heartbeat_at": now}
        if taken is False:
            fields["request_sent_at"] = None  # the provider did nothing with it
            self.entry.request_sent_at = None
        try:
            self._ours().update(**fields)
        except DatabaseError:
            # Only a sign of life, and a clue the outcome's own write repeats.
            logger.warning("outbox %s: could not note the provider's answer", self.entry.pk)


class _ClaimLost(Exception):
    pass


# -- sending ------------------------------------------------------------------------------------


def outbox_send(*, tenant: Reseller, entry_id: int) -> OutboxEntry | None:
    """Send one row if it is due; returns it in its new state, or None if it was not due."""
    claimed_at = _claim(entry_id)
    if claimed_at is None:
        return None
    entry = OutboxEntry.objects.select_related("business").get(pk=entry_id)
    handler = handler_for(entry.kind)
    try:
        client = provider_client(tenant=tenant)
    except (CredentialError, UnsafeURL) as exc:
        return _fail(entry, message=str(exc))
    with client:
        if entry.in_doubt:
            verdict = _read_back(handler, client, entry)
            if verdict is None:
                return entry  # too early, or the provider could not be read: later
            if isinstance(verdict, Arrived):
                return _accept(entry, handler, verdict.reply)
            if isinstance(verdict, Undecided):
                return _put_in_doubt(entry, verdict.reason)
            entry.in_doubt, entry.doubt_since = False, None  # not there: send it
        try:
            with client.observe_writes(_SendRecorder(entry)):
                reply = handler.send(client, entry)
        except WriteNotRecorded as exc:
            if isinstance(exc.__cause__, _ClaimLost):
                logger.info("outbox %s: claimed by another worker meanwhile", entry.pk)
                return entry
            # The database did not take the mark: nothing was sent; the row goes stale and is
            # sent again, as a row whose request never left.
            raise
        except RETRYABLE as exc:
            if getattr(exc, "outcome_unknown", False):
                return _after_unknown_outcome(handler, client, entry, exc)
            return _retry_later(entry, exc)
        except SoftTimeLimitExceeded:
            # The task ran out of time mid-send: if the request left, it may have arrived.
            if entry.request_sent_at is not None:
                _note_doubt(entry)
            return _retry_later(entry, Transient(
                None, "Sending took longer than a task may run; it is tried again.", None,
                outcome_unknown=entry.in_doubt))
        except AuthError as exc:
            provider_key_rejected(tenant=tenant, code=exc.code)
            return _fail(entry, message=f"The provider rejected the API key (code {exc.code}).")
        except ProviderError as exc:
            entry.in_doubt, entry.doubt_since = False, None  # it answered about this change
            return _finish(entry, State.REJECTED, code=exc.code, message=exc.message)
    return _accept(entry, handler, reply)


def _note_doubt(entry: OutboxEntry) -> None:
    """A request of the row may have reached the provider unseen."""
    entry.in_doubt = True
    entry.doubt_since = entry.doubt_since or entry.request_sent_at or timezone.now()


def _after_unknown_outcome(handler, client: ProviderClient, entry: OutboxEntry,
                           exc: ProviderError) -> OutboxEntry:
    """A request left and no answer came back (a timeout, a dropped connection, a 5xx)."""
    if not _reconciles(handler):
        return _retry_later(entry, exc)  # sending again is harmless: it is retried as usual
    _note_doubt(entry)
    verdict = _read_back(handler, client, entry, failure=exc)
    if isinstance(verdict, Arrived):
        return _accept(entry, handler, verdict.reply)
    if isinstance(verdict, Undecided):
        return _put_in_doubt(entry, verdict.reason)
    if verdict is NOT_ARRIVED:
        entry.in_doubt, entry.doubt_since = False, None
        return _retry_later(entry, exc)
    return entry


def _reconciles(handler) -> bool:
    """Whether a row of this kind must be read back (or decided) before it is sent again."""
    return not getattr(handler, "repeatable", False)


def _read_back(handler, client: ProviderClient, entry: OutboxEntry, *,
               failure: ProviderError | None = None):
    """Read the provider's state back for a row in doubt: a verdict, or None when that must
    wait (the row is put back as pending, still in doubt, for the moment it can be read)."""
    if not _reconciles(handler):
        return NOT_ARRIVED
    reconcile = getattr(handler, "reconcile", None)
    if reconcile is None:
        return Undecided("The provider offers no way to read this kind of change back.")
    # (A row put in doubt before the moment was kept can be read back at once.)
    since = entry.doubt_since or timezone.now() - timedelta(
        seconds=settings.OUTBOX_IN_FLIGHT_SECONDS)
    ready_at = since + timedelta(seconds=settings.OUTBOX_IN_FLIGHT_SECONDS)
    if timezone.now() < ready_at:
        # The request may still be on its way: its absence would prove nothing yet.
        _release(entry, next_attempt_at=ready_at,
                 error=str(failure) if failure else "Waiting to read the provider's state back.")
        return None
    try:
        return reconcile(client, entry)
    except RETRYABLE as exc:
        _retry_later(entry, exc)
        return None
    except ProviderError as exc:
        return Undecided(f"Reading the provider's state back failed: {exc.message}")


def _jsonable(reply: Any) -> Any:
    if reply is None:
        return None
    if isinstance(reply, list):
        return [_jsonable(item) for item in reply]
    raw = getattr(reply, "raw", reply)
    return dict(raw) if hasattr(raw, "items") else raw


# -- recording outcomes -------------------------------------------------------------------------


def _locked_if_ours(entry: OutboxEntry, *, settles_as: str | None = None) -> bool:
    """Lock the row (inside the caller's transaction) and say whether this worker may record
    its outcome: its claim still holds, or the outcome is an acceptance, which a worker that
    lost its claim still knows better than a row left unsettled."""
    current = (OutboxEntry.objects.select_for_update().filter(pk=entry.pk)
               .values_list("state", "claimed_at").first())
    if current is None:
        return False
    state, claimed_at = current
    if state == State.SENDING and claimed_at == entry.claimed_at:
        return True
    if settles_as == State.ACCEPTED and state in OutboxEntry.UNSETTLED_STATES:
        return True
    logger.info("outbox %s: its claim was lost; the outcome %s is left to the other worker",
                entry.pk, settles_as or "(retry later)")
    return False


def _recorded(record):
    """An outcome's write, repeated after a lost database connection: the outcome is known,
    and losing it would leave the row to be read back as if it were in doubt."""

    def recording(entry: OutboxEntry, *args, **kwargs) -> OutboxEntry:
        return with_reconnect(lambda: record(entry, *args, **kwargs), what=f"outbox {entry.pk}")

    return recording


@_recorded
def _accept(entry: OutboxEntry, handler: OutboxHandler, reply: Any, *,
            actor: User | None = None, message: str = "") -> OutboxEntry:
    with transaction.atomic():
        if actor is None and not _locked_if_ours(entry, settles_as=State.ACCEPTED):
            return entry
        entry.state = State.ACCEPTED
        entry.provider_reply = _jsonable(reply)
        entry.provider_message = message
        entry.finished_at = timezone.now()
        entry.last_error = ""
        entry.in_doubt = False
        entry.save(update_fields=["state", "provider_reply", "provider_message", "finished_at",
                                  "last_error", "in_doubt", "updated_at"])
        handler.on_accepted(entry, reply)
        if actor is None:
            audit_record(tenant=entry.reseller, actor=None,
                         action=f"outbox.{entry.kind}.accepted", obj=entry,
                         summary={"summary": entry.summary})
        else:
            audit_record(tenant=entry.reseller, actor=actor,
                         action=f"outbox.{entry.kind}.marked_arrived", obj=entry,
                         summary={"summary": entry.summary})
        _announce(entry)
    return entry


def _announce(entry: OutboxEntry) -> None:
    transaction.on_commit(lambda: entry_settled.send_robust(sender=OutboxEntry, entry=entry))


@_recorded
def _finish(entry: OutboxEntry, state: str, *, code: int | None, message: str) -> OutboxEntry:
    with transaction.atomic():
        if not _locked_if_ours(entry, settles_as=state):
            return entry
        entry.state = state
        entry.provider_code = code
        entry.provider_message = message
        entry.finished_at = timezone.now()
        entry.save(update_fields=["state", "provider_code", "provider_message", "finished_at",
                                  "in_doubt", "doubt_since", "updated_at"])
        audit_record(tenant=entry.reseller, actor=None, action=f"outbox.{entry.kind}.{state}",
                     obj=entry, summary={"code": code, "message": message[:500]})
        _announce(entry)
    return entry


def _fail(entry: OutboxEntry, *, message: str) -> OutboxEntry:
    return _finish(entry, State.FAILED, code=None, message=message)


def _put_in_doubt(entry: OutboxEntry, reason: str) -> OutboxEntry:
    """Settle the row as in doubt: a person decides whether it arrived."""
    entry.in_doubt = True
    return _finish(entry, State.IN_DOUBT, code=None,
                   message=f"The provider may or may not have this change: its answer was lost, "
                           f"and {reason[0].lower()}{reason[1:]}")


@_recorded
def _release(entry: OutboxEntry, *, next_attempt_at: datetime, error: str) -> OutboxEntry:
    """Put the row back as pending, to be claimed again at `next_attempt_at`."""
    with transaction.atomic():
        if not _locked_if_ours(entry):
            return entry
        entry.state = State.PENDING
        entry.next_attempt_at = next_attempt_at
        entry.last_error = error[:1000]
        entry.save(update_fields=["state", "next_attempt_at", "last_error", "in_doubt",
                                  "doubt_since", "updated_at"])
    return entry


def _retry_later(entry: OutboxEntry, exc: ProviderError) -> OutboxEntry:
    if entry.attempts >= settings.OUTBOX_MAX_ATTEMPTS:
        if entry.in_doubt and _reconciles(handler_for(entry.kind)):
            # Giving up must not forget that an earlier request may have arrived.
            return _put_in_doubt(entry, f"It could not be read back after {entry.attempts} "
                                        f"attempts: {exc.message}")
        return _finish(entry, State.FAILED, code=exc.code,
                       message=f"Gave up after {entry.attempts} attempts: {exc.message}")
    delay = retry_delay(entry.attempts - 1, base=settings.OUTBOX_RETRY_BASE_SECONDS, cap=3600,
                        suggested=exc.retry_after)
    if entry.in_doubt and entry.doubt_since is not None:
        # Not read back before the request can no longer be on its way.
        in_flight_until = entry.doubt_since + timedelta(seconds=settings.OUTBOX_IN_FLIGHT_SECONDS)
        delay = max(delay, (in_flight_until - timezone.now()).total_seconds())
    return _release(entry, next_attempt_at=timezone.now() + timedelta(seconds=delay),
                    error=str(exc))


# -- a person's decisions -------------------------------------------------------------------------


def outbox_retry(*, tenant: Reseller, actor: User | None, entry: OutboxEntry) -> OutboxEntry:
    """A user sends a failed, rejected or in-doubt row again (in doubt: without reading the
    provider's state back, as the user decided)."""
    if entry.state not in OutboxEntry.RETRYABLE_STATES:
        raise ValueError("Only failed, rejected or in-doubt changes can be sent again.")
    was = entry.state
    with transaction.atomic():
        entry.state = State.PENDING
        entry.attempts = 0
        entry.next_attempt_at = timezone.now()
        entry.queued_at = timezone.now()
        entry.provider_code = None
        entry.provider_message = ""
        entry.finished_at = None
        entry.in_doubt = False
        entry.doubt_since = None
        entry.request_sent_at = None
        entry.save()
        audit_record(tenant=tenant, actor=actor, action=f"outbox.{entry.kind}.retried",
                     obj=entry, summary={"summary": entry.summary, "was": was})
        transaction.on_commit(lambda: _queue_send(tenant.pk, entry.pk))
    return entry


def outbox_mark_arrived(*, tenant: Reseller, actor: User, entry: OutboxEntry) -> OutboxEntry:
    """A user who checked at the provider says an in-doubt change arrived: it is accepted as
    such, with who said so (its local effects follow, without the provider's lost reply)."""
    with transaction.atomic():
        state = (OutboxEntry.objects.select_for_update().filter(pk=entry.pk)
                 .values_list("state", flat=True).first())
        if state != State.IN_DOUBT:
            raise ValueError("Only a change in doubt can be marked as arrived.")
        return _accept(entry, handler_for(entry.kind), None, actor=actor,
                       message=f"Marked as arrived by {actor}: the provider's answer was lost.")


# -- the sweep ------------------------------------------------------------------------------------


def outbox_due(*, tenant: Reseller | None = None, now: datetime | None = None):
    """Rows to send now: due pending rows, and rows whose sending worker stopped giving signs
    of life (of one reseller, or of every reseller but the suspended ones)."""
    now = now or timezone.now()
    rows = OutboxEntry.unscoped.all() if tenant is None else OutboxEntry.objects.filter(
        reseller=tenant)
    return rows.filter(Q(state=State.PENDING, next_attempt_at__lte=now) | _stale_heartbeat(now)
                       ).exclude(reseller__status=Reseller.Status.SUSPENDED
                                 ).order_by("next_attempt_at", "pk")


def outbox_sweep(*, limit: int | None = None) -> int:
    """Queue a send task for each row due whose task is not already waiting, at most `limit`
    (OUTBOX_SWEEP_BATCH) at a time: the workers then send them side by side, at the provider's
    rate limit, not one after another. Returns how many were queued.

    A row's task is taken as waiting if it was queued since the row came due (or since its
    sending worker's last sign of life) and less than OUTBOX_REQUEUE_SECONDS ago; past that it
    is presumed lost (a broker restarted without its messages) and queued again: a second
    message is harmless, the claim lets one through."""
    limit = limit or settings.OUTBOX_SWEEP_BATCH
    now = timezone.now()
    lost = seconds_ago(settings.OUTBOX_REQUEUE_SECONDS, now=now)
    waiting = Q(queued_at__gte=lost) & (
        Q(state=State.PENDING, queued_at__gte=F("next_attempt_at"))
        | Q(state=State.SENDING, queued_at__gte=Coalesce("heartbeat_at", "claimed_at")))
    due = list(outbox_due(now=now).exclude(waiting).values_list("pk", "reseller_id")[:limit])
    if not due:
        return 0
    OutboxEntry.unscoped.filter(pk__in=[pk for pk, _ in due]).update(queued_at=now)
    for queued, (entry_id, reseller_id) in enumerate(due):
        if not task_queue(lambda e=entry_id, r=reseller_id: tasks.outbox_send_task.delay(
                reseller_id=r, entry_id=e), what=f"outbox sweep ({len(due)} due)"):
            # The broker is down: the rest wait for the next sweep, due at once.
            OutboxEntry.unscoped.filter(pk__in=[pk for pk, _ in due[queued:]]).update(
                queued_at=None)
            return queued
    return len(due)
