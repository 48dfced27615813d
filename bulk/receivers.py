"""What bulk changes do when a write they queued is answered: take their next step."""

from __future__ import annotations

import logging

from bulk import tasks
from bulk.sending import bulk_change_step_mark, bulk_change_step_unmark, bulk_changes_of_entry
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope

logger = logging.getLogger(__name__)


def outbox_entry_settled(sender, *, entry: OutboxEntry, **kwargs) -> None:
    if entry.kind != OutboxEntry.Kind.LISTING_CREATE:
        return
    with tenant_scope(entry.reseller):
        change_ids = bulk_changes_of_entry(entry)
    for change_id in change_ids:
        if not bulk_change_step_mark(change_id=change_id):
            continue  # a step queued earlier has not started: it will see this answer
        try:
            tasks.bulk_change_advance_task.delay(reseller_id=entry.reseller_id,
                                                 change_id=change_id)
        except Exception:  # noqa: BLE001 - the broker is down: the sweep steps it later
            bulk_change_step_unmark(change_id=change_id)
            logger.warning("bulk change %s: could not queue its next step", change_id,
                           exc_info=True)
