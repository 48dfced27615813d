"""Celery tasks of the history: thin, they take ids and call the services."""

from __future__ import annotations

from celery import shared_task

from history import ageing, services
from portal.tenancy import current_tenant, tenant_task


@shared_task(acks_late=True, ignore_result=True)
def history_daily_task() -> int:
    """The schedule, late each day: every reseller's day gets its row (a day without a sync
    too), then what is older than the retention goes."""
    reseller_ids = services.history_reseller_ids()
    for reseller_id in reseller_ids:
        history_day_task.delay(reseller_id=reseller_id)
    return len(reseller_ids)


@shared_task(acks_late=True, ignore_result=True)
@tenant_task
def history_day_task(*, reseller_id: int) -> None:
    tenant = current_tenant()
    services.history_day_record(tenant=tenant)
    services.history_prune(tenant=tenant)
    ageing.ageing_refresh(tenant=tenant)
