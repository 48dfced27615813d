"""Tasks of the outbox: send one row, and sweep the rows whose send is due."""

from celery import shared_task

from accounts.models import Reseller
from outbox import services
from portal.tenancy import tenant_task


@shared_task(acks_late=True)
@tenant_task
def outbox_send_task(*, reseller_id: int, entry_id: int) -> None:
    # Claiming makes a redelivered or duplicated message harmless.
    services.outbox_send(tenant=Reseller.objects.get(pk=reseller_id), entry_id=entry_id)


@shared_task(acks_late=True)
def outbox_sweep_task() -> int:
    """Queue the sends that are due (lost tasks, backoff retries, dead workers), each as a
    task of its own; returns how many."""
    return services.outbox_sweep()
