"""What alerts do when the outbox settles a write: a rejected or failed listing change is told."""

from __future__ import annotations

import logging

from alerts.sources import listing_change_settled
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope

logger = logging.getLogger(__name__)


def outbox_entry_settled(sender, *, entry: OutboxEntry, **kwargs) -> None:
    if entry.kind != OutboxEntry.Kind.LISTING_CREATE:
        return
    try:
        with tenant_scope(entry.reseller):
            listing_change_settled(tenant=entry.reseller, entry=entry)
    except Exception:  # noqa: BLE001 - the change's outcome is stored; the alert is extra
        logger.exception("alerts: the outcome of change %s was not told", entry.pk)
