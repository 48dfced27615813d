"""Reads of bulk changes."""

from __future__ import annotations

from django.db.models import Case, Count, F, Q, QuerySet, Value, When
from django.http import Http404

from accounts.models import Membership, Reseller
from bulk.models import BulkChange, BulkChangeItem
from outbox.models import OutboxEntry


def bulk_change_list(*, tenant: Reseller,
                     membership: Membership | None = None) -> QuerySet[BulkChange]:
    """The bulk changes the member may see: a member limited to part of the tree sees those
    made within it, never one made over the whole account."""
    queryset = BulkChange.objects.filter(reseller=tenant).select_related("created_by")
    if membership is not None and membership.limited_to_id is not None:
        limit = membership.limited_to
        queryset = queryset.filter(Q(scope=limit)
                                   | Q(scope__tree_path__startswith=limit.tree_path))
    return queryset.order_by("-created_at", "-id")


def bulk_change_get(*, tenant: Reseller, membership: Membership | None, pk: int) -> BulkChange:
    found = bulk_change_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if found is None:
        raise Http404("No such bulk change.")
    return found


def bulk_change_item_list(*, tenant: Reseller, change: BulkChange) -> QuerySet[BulkChangeItem]:
    return BulkChangeItem.objects.filter(reseller=tenant, change=change).order_by("position")


def _waves_needed(sizes: list[int], locations: int) -> int:
    """Waves that send `locations` in `sizes` (the last repeating; none: one wave)."""
    if locations <= 0:
        return 0
    if not sizes:
        return 1
    waves = 0
    for size in sizes[:-1]:
        if locations <= 0:
            return waves
        locations -= size
        waves += 1
    return waves + max(0, -(-locations // sizes[-1]))


# The outbox's answers that settle an item, under the item's names for them.
ANSWERS = (OutboxEntry.State.ACCEPTED, OutboxEntry.State.REJECTED, OutboxEntry.State.FAILED,
           OutboxEntry.State.IN_DOUBT)


def bulk_change_progress(*, change: BulkChange) -> dict:
    """Where sending (or taking back) stands, from one query over the items.

    A queued item counts as its outbox row's answer as soon as the provider has given it: the
    change's next step writes that answer onto the item, but during a large wave that step waits
    behind the wave's sends, and the bar would stand still meanwhile."""
    by_state: dict[str, int] = {}
    rollback: dict[str, int] = {}
    Item = BulkChangeItem.State
    answered = Case(*(When(state=Item.QUEUED, outbox_entry__state=answer, then=Value(answer))
                      for answer in ANSWERS), default=F("state"))
    rows = (BulkChangeItem.objects.filter(reseller_id=change.reseller_id, change=change)
            .annotate(shown=answered)
            .values_list("shown", "rollback_state").annotate(n=Count("pk")).order_by())
    for state, rollback_state, n in rows:
        by_state[state] = by_state.get(state, 0) + n
        if rollback_state:
            rollback[rollback_state] = rollback.get(rollback_state, 0) + n
    sendable = change.counts.get("will_change", 0)
    skipped = by_state.get(BulkChangeItem.State.SKIPPED, 0)
    # Rolled back items were accepted first.
    accepted = by_state.get(BulkChangeItem.State.ACCEPTED, 0) \
        + by_state.get(BulkChangeItem.State.ROLLED_BACK, 0)
    settled = accepted + skipped + sum(by_state.get(state, 0) for state in (
        BulkChangeItem.State.REJECTED, BulkChangeItem.State.FAILED,
        BulkChangeItem.State.IN_DOUBT))
    return {
        "waves_total": change.current_wave + _waves_needed(
            change.waves[change.current_wave:] or change.waves[-1:],
            by_state.get(BulkChangeItem.State.WILL_CHANGE, 0)),
        "current_wave": change.current_wave,
        "locations": sendable,
        "waiting": by_state.get(BulkChangeItem.State.WILL_CHANGE, 0),
        "queued": by_state.get(BulkChangeItem.State.QUEUED, 0),
        "accepted": accepted,
        "rejected": by_state.get(BulkChangeItem.State.REJECTED, 0),
        "failed": by_state.get(BulkChangeItem.State.FAILED, 0),
        "in_doubt": by_state.get(BulkChangeItem.State.IN_DOUBT, 0),
        "skipped": skipped,
        "rolled_back": by_state.get(BulkChangeItem.State.ROLLED_BACK, 0),
        "percent": round(100 * settled / sendable) if sendable else 0,
        "rollback": rollback,
        "paused_reason": change.paused_reason,
    }


def bulk_change_actions(change: BulkChange, progress: dict | None = None) -> list[str]:
    """What the change's state lets a member do next, in the order pages show them."""
    State = BulkChange.State
    progress = progress if progress is not None else bulk_change_progress(change=change)
    actions = {
        State.DRY_RUN_DONE: ["apply", "cancel"] if progress["locations"] else ["cancel"],
        State.APPLYING: ["pause", "cancel"],
        State.PAUSED: ["resume", "cancel", "rollback"],
        State.DONE: ["rollback"],
        State.CANCELLED: ["rollback"],
    }.get(change.state, [])
    if "rollback" in actions and (not progress["accepted"] or progress["queued"]
                                  or progress["rollback"]):
        actions.remove("rollback")
    return actions
