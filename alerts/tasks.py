"""Celery tasks of alerts: thin, they take ids and call the services."""

from __future__ import annotations

from celery import shared_task

from accounts.models import Reseller
from alerts import rules, services
from portal.tenancy import current_tenant, tenant_task


def _reseller_ids() -> list[int]:
    return list(Reseller.objects.exclude(status=Reseller.Status.SUSPENDED)
                .values_list("pk", flat=True))


@shared_task(acks_late=True, ignore_result=True)
def alerts_hourly_task() -> int:
    """The schedule, every hour: each reseller's rules are evaluated (a day without a sync
    too), emails left unsent are sent, and members whose digest hour it is get their digest."""
    reseller_ids = _reseller_ids()
    for reseller_id in reseller_ids:
        alerts_reseller_task.delay(reseller_id=reseller_id)
    return len(reseller_ids)


@shared_task(acks_late=True, ignore_result=True)
@tenant_task
def alerts_reseller_task(*, reseller_id: int) -> None:
    tenant = current_tenant()
    rules.alerts_evaluate(tenant=tenant)
    services.notifications_email_now(tenant=tenant)
    services.notifications_digest_send(tenant=tenant)
