"""Celery tasks of provider events: thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from accounts.models import Reseller
from events import selectors, services
from portal.tenancy import tenant_task


@shared_task(acks_late=True, ignore_result=True)
@tenant_task
def provider_event_process_task(*, reseller_id: int, event_id: int) -> None:
    services.provider_event_process(tenant=Reseller.objects.get(pk=reseller_id), event_id=event_id)


@shared_task(ignore_result=True)
def provider_event_sweep_task() -> int:
    """Process events whose task was lost (broker down, worker killed) or whose retry is due."""
    due = selectors.provider_events_due()
    for reseller_id, event_id in due:
        provider_event_process_task.delay(reseller_id=reseller_id, event_id=event_id)
    return len(due)
