"""Tasks of bulk changes: thin, they take ids and call one service."""

from celery import shared_task

from accounts.models import Reseller
from bulk import sending
from portal.tenancy import tenant_scope, tenant_task


@shared_task(acks_late=True)
@tenant_task
def bulk_change_advance_task(*, reseller_id: int, change_id: int) -> None:
    # A step holds the change's row and judges from stored states: a duplicate is harmless.
    sending.bulk_change_advance(tenant=Reseller.objects.get(pk=reseller_id), change_id=change_id)


@shared_task(acks_late=True)
def bulk_changes_sweep_task() -> int:
    """Step every change that is moving (lost messages, waves waiting for statuses)."""
    stepped = 0
    for reseller in Reseller.objects.exclude(status=Reseller.Status.SUSPENDED):
        with tenant_scope(reseller):
            for change_id in list(sending.bulk_changes_to_advance(tenant=reseller)):
                sending.bulk_change_advance(tenant=reseller, change_id=change_id)
                stepped += 1
    return stepped
