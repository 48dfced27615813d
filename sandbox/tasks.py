"""Celery tasks of the embedded sandbox: delivering webhook events, and moving time along."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, ignore_result=True)
def sandbox_event_deliver_task(*, delivery_ids: list[int]) -> int:
    from sandbox.events import deliver

    return deliver(delivery_ids)


@shared_task(ignore_result=True)
def sandbox_tick_task() -> dict:
    """Apply due listing-status steps (publishing their events) and send due deliveries, so
    that events flow even when nobody reads a status report."""
    from sandbox.events import deliver_due
    from sandbox.status import advance_due_sites

    return {"sites_moved": advance_due_sites(), "delivered": deliver_due()}
