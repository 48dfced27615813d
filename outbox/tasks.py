"""Tasks of the outbox: send one row, and sweep the rows whose send task was lost."""

from celery import shared_task

from accounts.models import Reseller
from outbox import services
from portal.tenancy import tenant_scope, tenant_task


@shared_task(acks_late=True)
@tenant_task
def outbox_send_task(*, reseller_id: int, entry_id: int) -> None:
    # Claiming makes a redelivered or duplicated message harmless.
    services.outbox_send(tenant=Reseller.objects.get(pk=reseller_id), entry_id=entry_id)


@shared_task(acks_late=True)
def outbox_sweep_task() -> int:
    """Send what is due for every reseller (lost tasks, backoff retries, dead workers)."""
    sent = 0
    for reseller in Reseller.objects.exclude(status=Reseller.Status.SUSPENDED):
        with tenant_scope(reseller):
            for entry_id in services.outbox_due(tenant=reseller).values_list("pk", flat=True):
                if services.outbox_send(tenant=reseller, entry_id=entry_id) is not None:
                    sent += 1
    return sent
