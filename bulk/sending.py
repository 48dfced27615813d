"""Sending a bulk change: in waves, through the outbox, paused when a wave goes wrong, and taken
back on request.

A change moves by steps (`bulk_change_advance`), each one transaction holding the change's row:
- a wave starts: each of its locations' changes is stored as a listing version and queued in the
  outbox (`listing_submit`, as a single edit is), in the same transaction as the items' states,
  so a worker killed mid-wave leaves the whole wave queued or none of it, and the outbox sends
  each row once;
- the items take the outcome of their outbox rows (accepted, refused, failed);
- once every change of the wave has its outcome, the wave is judged: a refusal or a failure
  pauses the change with the reason; with `wait_for_statuses`, the wave's locations have their
  directory statuses read again first, and more new "Action Required" sites than the change's
  threshold pause it too. A healthy wave lets the next one start.

A step runs when one of the change's outbox rows settles (the outbox's `entry_settled` signal;
no second step is queued while one is waiting to start) and from a periodic sweep, so a lost
message delays a wave and loses nothing.

Rollback sends, for each location the change reached, the fields it set as they stood in the
listing's previous accepted version, again as single edits through the outbox.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, OuterRef, Q, Subquery
from django.utils import timezone

from accounts.models import Membership, Reseller, User
from accounts.services import audit_record
from bulk import tasks
from bulk.models import BulkChange, BulkChangeItem
from listings import tasks as listing_tasks
from listings.editor.diff import listing_payload, merge
from listings.editor.schema import NOT_CLEARABLE
from listings.editor.selectors import listing_versions_last_accepted
from listings.editor.services import ListingBusy, ListingSubmission, listing_submit_many
from listings.models import ListingSite, ListingStatusReport, ListingVersion
from outbox.models import OutboxEntry

logger = logging.getLogger(__name__)

State = BulkChange.State
Item = BulkChangeItem.State
Rollback = BulkChangeItem.Rollback

ACTION_REQUIRED = "Action Required"
# The outcome of an outbox row, as the item records it.
OUTCOMES = {OutboxEntry.State.ACCEPTED: Item.ACCEPTED, OutboxEntry.State.REJECTED: Item.REJECTED,
            OutboxEntry.State.FAILED: Item.FAILED, OutboxEntry.State.IN_DOUBT: Item.IN_DOUBT}
ROLLBACK_OUTCOMES = {OutboxEntry.State.ACCEPTED: Rollback.ACCEPTED,
                     OutboxEntry.State.REJECTED: Rollback.REJECTED,
                     OutboxEntry.State.FAILED: Rollback.FAILED,
                     OutboxEntry.State.IN_DOUBT: Rollback.IN_DOUBT}

CHANGED_SINCE_DRY_RUN = ("The listing changed after the dry run (version {number} was "
                         "accepted), so this change was not sent: make a new bulk change for it.")
BUSY = "Another change of this listing was still being sent, so this one was not sent."
CANCELLED = "Cancelled before it was sent."
NO_EARLIER_VERSION = ("No earlier version of this listing was accepted through the portal, so "
                      "there is nothing to go back to.")
CHANGED_SINCE = ("The listing changed again after this bulk change (version {number}), so "
                 "rolling back would undo later work: change it in the listing editor instead.")
BUSY_ROLLBACK = ("Another change of this listing was being sent, so it was not rolled back: "
                 "change it in the listing editor once that change is answered.")
NOT_CLEARABLE_NOTE = ("The earlier version had no {label}, and the provider does not allow "
                      "clearing it: it keeps the bulk change's value.")


def _allowed(change: BulkChange, *states: str, doing: str) -> None:
    if change.state not in states:
        raise ValidationError(f"A bulk change that is {change.get_state_display().lower()} "
                              f"cannot be {doing}.", code="state")


def _queue_advance(change: BulkChange) -> None:
    reseller_id, change_id = change.reseller_id, change.pk

    def queue() -> None:
        try:
            tasks.bulk_change_advance_task.delay(reseller_id=reseller_id, change_id=change_id)
        except Exception:  # noqa: BLE001 - the broker is down: the sweep advances it later
            logger.warning("bulk change %s: could not queue its next step; the sweep will",
                           change_id, exc_info=True)

    transaction.on_commit(queue)


# An answer of the provider queues a step of its change unless a step queued earlier has not
# started yet: that one will see this answer too. Otherwise every answer queued a step, and the
# steps took turns at the change's row lock, each holding a worker the outbox could have sent
# with. The mark expires after a sweep's interval: a lost step delays the change no longer than
# the sweep would anyway.
STEP_WAITING_KEY = "bulk-change-step-waiting:{change_id}"


def bulk_change_step_mark(*, change_id: int) -> bool:
    """Mark a step of the change as waiting; False when one already was (queue nothing)."""
    try:
        return cache.add(STEP_WAITING_KEY.format(change_id=change_id), 1,
                         timeout=settings.OUTBOX_SWEEP_SECONDS)
    except Exception:  # noqa: BLE001 - without the cache, a step too many is harmless
        return True


def bulk_change_step_unmark(*, change_id: int) -> None:
    try:
        cache.delete(STEP_WAITING_KEY.format(change_id=change_id))
    except Exception:  # noqa: BLE001 - the mark expires on its own
        logger.warning("bulk change %s: could not clear its waiting step", change_id,
                       exc_info=True)


# -- what users do -------------------------------------------------------------------------------

def bulk_change_apply(*, tenant: Reseller, actor: User | None,
                      membership: Membership | None = None,
                      change: BulkChange) -> BulkChange:
    """Start sending a change whose dry run is done: its first wave goes out at once."""
    _allowed(change, State.DRY_RUN_DONE, doing="sent")
    if not change.counts.get("will_change"):
        raise ValidationError("The dry run found nothing to change: there is nothing to send.",
                              code="nothing_to_send")
    with transaction.atomic():
        change = BulkChange.objects.select_for_update().get(pk=change.pk, reseller=tenant)
        _allowed(change, State.DRY_RUN_DONE, doing="sent")
        change.state = State.APPLYING
        change.started_at = timezone.now()
        change.save(update_fields=["state", "started_at"])
        audit_record(tenant=tenant, actor=actor, action="bulk_change.applied", obj=change,
                     summary={"locations": change.counts.get("will_change"),
                              "waves": change.waves})
        _advance(change)
    return change


def bulk_change_pause(*, tenant: Reseller, actor: User | None,
                      change: BulkChange) -> BulkChange:
    """Stop starting waves; the changes already queued still reach the provider."""
    with transaction.atomic():
        change = BulkChange.objects.select_for_update().get(pk=change.pk, reseller=tenant)
        _allowed(change, State.APPLYING, doing="paused")
        who = str(actor) if actor is not None and actor.pk else ""
        _pause(change, f"Paused by {who}." if who else "Paused.")
        audit_record(tenant=tenant, actor=actor, action="bulk_change.paused", obj=change,
                     summary={"wave": change.current_wave})
    return change


def bulk_change_resume(*, tenant: Reseller, actor: User | None,
                       change: BulkChange) -> BulkChange:
    """Go on with the next wave, past the wave that paused the change if it was unhealthy."""
    with transaction.atomic():
        change = BulkChange.objects.select_for_update().get(pk=change.pk, reseller=tenant)
        _allowed(change, State.PAUSED, doing="resumed")
        change.state = State.APPLYING
        change.resumed_past_wave = change.current_wave
        change.paused_reason = ""
        change.save(update_fields=["state", "resumed_past_wave", "paused_reason"])
        audit_record(tenant=tenant, actor=actor, action="bulk_change.resumed", obj=change,
                     summary={"wave": change.current_wave})
        _advance(change)
    return change


def bulk_change_cancel(*, tenant: Reseller, actor: User | None,
                       change: BulkChange) -> BulkChange:
    """Send nothing more; the changes already queued still reach the provider (and can be
    rolled back)."""
    with transaction.atomic():
        change = BulkChange.objects.select_for_update().get(pk=change.pk, reseller=tenant)
        _allowed(change, State.DRY_RUN_DONE, State.APPLYING, State.PAUSED, doing="cancelled")
        skipped = change.items.filter(state=Item.WILL_CHANGE).update(state=Item.SKIPPED,
                                                                    note=CANCELLED)
        change.state = State.CANCELLED
        change.finished_at = timezone.now()
        change.save(update_fields=["state", "finished_at"])
        audit_record(tenant=tenant, actor=actor, action="bulk_change.cancelled", obj=change,
                     summary={"wave": change.current_wave, "not_sent": skipped})
    return change


def bulk_change_rollback(*, tenant: Reseller, actor: User | None,
                         change: BulkChange) -> BulkChange:
    """Send each location the change reached its previous accepted version of the fields the
    change set; a location with no earlier version, or changed again since, is left as it is
    and says why."""
    with transaction.atomic():
        change = BulkChange.objects.select_for_update().get(pk=change.pk, reseller=tenant)
        _allowed(change, State.DONE, State.PAUSED, State.CANCELLED, doing="rolled back")
        _settle(change)
        if change.items.filter(state=Item.QUEUED).exists():
            raise ValidationError("Some of its changes are still on their way to the provider: "
                                  "roll back once they have been answered.", code="busy")
        reached = list(change.items.filter(state=Item.ACCEPTED, rollback_state=Rollback.NONE)
                       .select_related("business", "listing_version", "change"))
        if not reached:
            raise ValidationError("No change of this bulk change was accepted by the provider: "
                                  "there is nothing to roll back.", code="nothing_to_roll_back")
        change.items.filter(state=Item.WILL_CHANGE).update(state=Item.SKIPPED, note=CANCELLED)
        change.state = State.ROLLING_BACK
        change.save(update_fields=["state"])
        queued = _send_back(tenant=tenant, actor=actor, change=change, items=reached)
        audit_record(tenant=tenant, actor=actor, action="bulk_change.rolled_back", obj=change,
                     summary={"locations": queued, "left_as_they_are": len(reached) - queued})
        _advance(change)
    return change


# -- its steps -----------------------------------------------------------------------------------

def bulk_change_advance(*, tenant: Reseller, change_id: int) -> BulkChange | None:
    """One step of a change being sent or rolled back (see the module's docstring)."""
    # From here on the step sees every answer already stored: a later one queues another step.
    bulk_change_step_unmark(change_id=change_id)
    with transaction.atomic():
        change = (BulkChange.objects.select_for_update()
                  .filter(pk=change_id, reseller=tenant).first())
        if change is not None:
            _advance(change)
    return change


def bulk_changes_to_advance(*, tenant: Reseller):
    """The changes a sweep should step: being sent or rolled back, or still waiting for the
    outcome of changes queued before a pause or a cancel."""
    return BulkChange.objects.filter(reseller=tenant).filter(
        Q(state__in=(State.APPLYING, State.ROLLING_BACK))
        | Q(state__in=(State.PAUSED, State.CANCELLED), items__state__in=(Item.QUEUED,
                                                                         Item.IN_DOUBT))
    ).distinct().values_list("pk", flat=True)


def bulk_changes_of_entry(entry: OutboxEntry) -> list[int]:
    """The changes whose step an outbox row's outcome may start."""
    return list(BulkChangeItem.objects.filter(reseller_id=entry.reseller_id).filter(
        Q(outbox_entry_id=entry.pk) | Q(rollback_version__outbox_entry_id=entry.pk))
        .values_list("change_id", flat=True).distinct())


def _advance(change: BulkChange) -> None:
    _settle(change)
    if change.state == State.APPLYING:
        # Each pass starts a wave or waits; waves whose locations were all skipped go by.
        for _ in range(settings.BULK_MAX_WAVES_PER_STEP):
            if not _step_waves(change):
                break
    elif change.state == State.ROLLING_BACK:
        if not change.items.filter(rollback_state=Rollback.QUEUED).exists():
            change.state = State.ROLLED_BACK
            change.finished_at = timezone.now()
            change.save(update_fields=["state", "finished_at"])
            audit_record(tenant=change.reseller, actor=None, action="bulk_change.finished",
                         obj=change, summary={"state": change.state})


def _outcome(**lookup):
    """The provider's message of an item's outbox row."""
    return Subquery(OutboxEntry.objects.filter(**lookup).values("provider_message")[:1])


def _settle(change: BulkChange) -> None:
    """Items take the outcome of their outbox rows: one statement per outcome. An item in
    doubt follows its row once a person decided (arrived, or sent again and answered)."""
    queued = change.items.filter(state__in=(Item.QUEUED, Item.IN_DOUBT))
    for entry_state, item_state in OUTCOMES.items():
        queued.filter(outbox_entry__state=entry_state).exclude(state=item_state).update(
            state=item_state, note=_outcome(pk=OuterRef("outbox_entry_id")))
    rolling = change.items.filter(rollback_state__in=(Rollback.QUEUED, Rollback.IN_DOUBT))
    for entry_state, rollback_state in ROLLBACK_OUTCOMES.items():
        settled = rolling.filter(rollback_version__outbox_entry__state=entry_state).exclude(
            rollback_state=rollback_state)
        if rollback_state == Rollback.ACCEPTED:
            settled.update(rollback_state=rollback_state, state=Item.ROLLED_BACK)
        else:
            settled.update(rollback_state=rollback_state,
                           note=_outcome(listing_version__pk=OuterRef("rollback_version_id")))


def _step_waves(change: BulkChange) -> bool:
    """Judge the current wave and start the next; True when a step was taken that may let
    another follow at once (a wave started with nothing to wait for)."""
    wave = change.current_wave
    if wave:
        items = change.items.filter(wave=wave)
        if items.filter(state=Item.QUEUED).exists():
            return False  # its changes are on their way
        if change.resumed_past_wave != wave and not _wave_healthy(change, items):
            return False
    if not change.items.filter(state=Item.WILL_CHANGE).exists():
        change.state = State.DONE
        change.finished_at = timezone.now()
        change.save(update_fields=["state", "finished_at"])
        audit_record(tenant=change.reseller, actor=None, action="bulk_change.finished",
                     obj=change, summary={"state": change.state, "waves": wave})
        return False
    return _start_wave(change, wave + 1)


def _wave_healthy(change: BulkChange, items) -> bool:
    """Whether the settled wave lets the next one start; pauses the change when it does not,
    and waits (False, unpaused) while its statuses are being read again."""
    counts = dict(items.values_list("state").annotate(n=Count("pk")).order_by())
    refused, failed = counts.get(Item.REJECTED, 0), counts.get(Item.FAILED, 0)
    doubtful = counts.get(Item.IN_DOUBT, 0)
    sent = sum(counts.get(state, 0)
               for state in (Item.ACCEPTED, Item.REJECTED, Item.FAILED, Item.IN_DOUBT))
    wave = change.current_wave
    if refused or failed or doubtful:
        parts = []
        if refused:
            parts.append(f"the provider refused {refused}")
        if failed:
            parts.append(f"{failed} could not be sent")
        if doubtful:
            parts.append(f"{doubtful} {'is' if doubtful == 1 else 'are'} in doubt (the "
                         "answer was lost: say for each whether it arrived)")
        _pause_unhealthy(change, f"Wave {wave} did not go well: of its {sent} changes, "
                       f"{' and '.join(parts)}. See the locations below; resume to go on "
                       "with the next wave anyway, or roll back.")
        return False
    if not change.wait_for_statuses or not counts.get(Item.ACCEPTED):
        return True
    accepted = items.filter(state=Item.ACCEPTED)
    now = timezone.now()
    if change.wave_accepted_at is None:
        change.wave_accepted_at = now
        change.save(update_fields=["wave_accepted_at"])
        _read_statuses_again(change, list(accepted.values_list("business_id", flat=True)))
        return False
    read_again = ListingStatusReport.objects.filter(
        reseller_id=change.reseller_id, business__in=accepted.values("business_id"),
        last_seen_at__gte=change.wave_accepted_at).count()
    waiting = counts[Item.ACCEPTED] - read_again
    if waiting:
        if now - change.wave_accepted_at > timedelta(seconds=settings.BULK_STATUS_WAIT_SECONDS):
            minutes = round(settings.BULK_STATUS_WAIT_SECONDS / 60)
            _pause_unhealthy(change, f"The directories' statuses of {waiting} location(s) of "
                                     f"wave {wave} could not be read again within {minutes} "
                                     "minutes. Resume to go on without them.")
        return False
    new_sites = _new_action_required(change, accepted)
    if new_sites > change.action_required_threshold:
        _pause_unhealthy(change, f"Wave {wave} left {new_sites} more directory site(s) needing "
                                 "action (\"Action Required\") than before it was sent; the "
                                 f"change pauses above {change.action_required_threshold}. See "
                                 "the locations below; resume to go on anyway, or roll back.")
        return False
    return True


def _action_required_by_business(reseller_id: int, business_ids) -> dict[int, int]:
    """Action Required sites per location, for the locations whose statuses were read (a
    location never read is missing: what it had before a wave is unknown, so nothing it has
    after can be called new)."""
    read = ListingStatusReport.objects.filter(reseller_id=reseller_id, business__in=business_ids)
    counts = dict.fromkeys(read.values_list("business_id", flat=True), 0)
    counts.update(ListingSite.objects.filter(reseller_id=reseller_id, business__in=business_ids,
                                             status=ACTION_REQUIRED, removed_at__isnull=True)
                  .values_list("business_id").annotate(n=Count("pk")).order_by())
    return counts


def _new_action_required(change: BulkChange, accepted) -> int:
    rows = [(business, before) for business, before in
            accepted.values_list("business_id", "action_required_before") if before is not None]
    now = _action_required_by_business(change.reseller_id, [business for business, _ in rows])
    return sum(max(0, now.get(business, 0) - before) for business, before in rows)


def _read_statuses_again(change: BulkChange, business_ids: list[int]) -> None:
    reseller_id = change.reseller_id

    def queue() -> None:
        for business_id in business_ids:
            try:
                listing_tasks.listing_status_refresh_task.delay(reseller_id=reseller_id,
                                                                business_id=business_id)
            except Exception:  # noqa: BLE001 - the periodic status refresh reads them too
                logger.warning("bulk change %s: could not queue a status refresh", change.pk,
                               exc_info=True)

    transaction.on_commit(queue)


def _wave_size(change: BulkChange, wave: int) -> int | None:
    """Locations in wave `wave` (from 1); the last size repeats; None: all that are left."""
    if not change.waves:
        return None
    return change.waves[min(wave, len(change.waves)) - 1]


def _start_wave(change: BulkChange, wave: int) -> bool:
    size = _wave_size(change, wave)
    waiting = change.items.filter(state=Item.WILL_CHANGE).select_related("business") \
        .order_by("position")
    items = list(waiting[:size] if size else waiting)
    accepted = listing_versions_last_accepted(
        tenant=change.reseller, business_ids=[item.business_id for item in items])
    before = _action_required_by_business(change.reseller_id,
                                          [item.business_id for item in items])
    labels = "; ".join(f"{section}.{name}" for section, fields in change.set.items()
                       for name in fields)
    sendable = []
    for item in items:
        item.wave = wave
        last = accepted.get(item.business_id)
        last_number = last.number if last else 0
        if last_number != item.base_number:
            item.state = Item.SKIPPED
            item.note = CHANGED_SINCE_DRY_RUN.format(number=last_number)
        else:
            sendable.append(item)
    stored = listing_submit_many(tenant=change.reseller, actor=change.created_by, submissions=[
        ListingSubmission(item.business, item.payload, f"Bulk change {change.pk}: {labels}")
        for item in sendable])
    queued: dict[int, ListingVersion] = {}  # item's pk -> its version
    for item, version in zip(sendable, stored, strict=True):
        if isinstance(version, ListingBusy):
            item.state, item.note = Item.SKIPPED, BUSY
        else:
            queued[item.pk] = version
    _store_wave(wave, items=items, queued=queued, before=before)
    change.current_wave = wave
    change.wave_started_at = timezone.now()
    change.wave_accepted_at = None
    change.save(update_fields=["current_wave", "wave_started_at", "wave_accepted_at"])
    # With nothing queued the wave is over at once, and the next may start.
    return not queued


def _store_wave(wave: int, *, items: list[BulkChangeItem], queued: dict[int, ListingVersion],
                before: dict[int, int]) -> None:
    """The wave's items, queued with their versions or skipped, in statements that do not grow
    with the wave: set-based updates. (`bulk_update` writes a CASE over every item for every
    field; building it took Django seconds for a wave of thousands, and nothing was sent
    meanwhile.)"""
    skipped = [item for item in items if item.pk not in queued]
    BulkChangeItem.objects.bulk_update(skipped, ["wave", "state", "note"])
    if not queued:
        return
    version = ListingVersion.objects.filter(
        pk__in=[version.pk for version in queued.values()], business_id=OuterRef("business_id"))
    BulkChangeItem.objects.filter(pk__in=list(queued)).update(
        wave=wave, state=Item.QUEUED, listing_version_id=Subquery(version.values("pk")[:1]),
        outbox_entry_id=Subquery(version.values("outbox_entry_id")[:1]))
    # Counts of sites: a few distinct values, whatever the number of locations.
    by_count: dict[int, list[int]] = {}
    for item in items:
        if item.pk in queued and before.get(item.business_id) is not None:
            by_count.setdefault(before[item.business_id], []).append(item.pk)
    for count, pks in by_count.items():
        BulkChangeItem.objects.filter(pk__in=pks).update(action_required_before=count)


def _pause(change: BulkChange, reason: str) -> None:
    change.state = State.PAUSED
    change.paused_reason = reason
    change.save(update_fields=["state", "paused_reason"])


def _pause_unhealthy(change: BulkChange, reason: str) -> None:
    _pause(change, reason)
    audit_record(tenant=change.reseller, actor=None, action="bulk_change.paused", obj=change,
                 summary={"wave": change.current_wave, "reason": reason[:500]})


# -- rollback ------------------------------------------------------------------------------------

def _empty_like(value: Any) -> Any:
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return ""


def _send_back(*, tenant: Reseller, actor: User | None, change: BulkChange,
               items: list[BulkChangeItem]) -> int:
    business_ids = [item.business_id for item in items]
    last = listing_versions_last_accepted(tenant=tenant, business_ids=business_ids)
    earlier = {(version.business_id, version.number): version.document for version in
               ListingVersion.objects.filter(
                   reseller=tenant, business__in=business_ids,
                   number__in={item.base_number for item in items if item.base_number})}
    going: list[tuple[BulkChangeItem, dict, list[str]]] = []
    for item in items:
        current = last.get(item.business_id)
        if not item.base_number:
            item.rollback_state, item.note = Rollback.IMPOSSIBLE, NO_EARLIER_VERSION
            continue
        if current is None or current.pk != item.listing_version_id:
            item.rollback_state = Rollback.IMPOSSIBLE
            item.note = CHANGED_SINCE.format(number=current.number if current else "?")
            continue
        previous = earlier.get((item.business_id, item.base_number)) or {}
        back: dict[str, dict] = {}
        notes = []
        for section, fields in item.fields_set.items():
            for name in fields:
                now_value = (current.document.get(section) or {}).get(name)
                old_value = (previous.get(section) or {}).get(name, _empty_like(now_value))
                if (section, name) in NOT_CLEARABLE and old_value in ("", [], {}, None):
                    notes.append(NOT_CLEARABLE_NOTE.format(label=f"{section}.{name}"))
                    continue
                back.setdefault(section, {})[name] = old_value
        payload = listing_payload(current.document, merge(current.document, back))
        # The name is always sent; anything else is the way back.
        if not any(name != "name" for fields in payload.values() for name in fields):
            item.rollback_state = Rollback.IMPOSSIBLE
            item.note = " ".join(notes) or "The listing already holds its earlier values."
            continue
        going.append((item, payload, notes))
    stored = listing_submit_many(tenant=tenant, actor=actor, submissions=[
        ListingSubmission(item.business, payload, f"Rollback of bulk change {change.pk}")
        for item, payload, _ in going])
    queued = 0
    for (item, _, notes), version in zip(going, stored, strict=True):
        if isinstance(version, ListingBusy):
            item.rollback_state, item.note = Rollback.IMPOSSIBLE, BUSY_ROLLBACK
            continue
        item.rollback_state, item.rollback_version = Rollback.QUEUED, version
        item.note = " ".join(notes)
        queued += 1
    BulkChangeItem.objects.bulk_update(items, ["rollback_state", "rollback_version", "note"])
    return queued
