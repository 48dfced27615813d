"""Celery tasks of the report schedules: thin, they take ids and call `reports.schedules`."""

from __future__ import annotations

from celery import shared_task

from portal.tenancy import current_tenant, tenant_task
from reports import schedules


@shared_task(acks_late=True, ignore_result=True)
def report_schedules_due_task() -> int:
    """The beat, every REPORTS_DUE_SECONDS: claim the schedules whose time has come (their
    sends are queued after the commit), and queue again the reports a lost task left behind.
    Returns how many were queued."""
    claimed = schedules.schedules_due_claim()
    stale = schedules.sent_reports_stale()
    for row in stale:
        sent_report_send_task.delay(reseller_id=row.reseller_id, sent_report_id=row.pk)
    return len(claimed) + len(stale)


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=None)
@tenant_task
def sent_report_send_task(self, *, reseller_id: int, sent_report_id: int) -> str:
    """Render and email one report; on failure, again later with a growing delay, until
    REPORTS_MAX_ATTEMPTS attempts (the row counts them)."""
    try:
        return schedules.sent_report_send(tenant=current_tenant(),
                                          sent_report_id=sent_report_id)
    except schedules.SendFailed as failure:
        if failure.final:
            return "failed"
        raise self.retry(countdown=schedules.send_retry_delay(failure.attempts),
                         kwargs={"reseller_id": reseller_id,
                                 "sent_report_id": sent_report_id}) from None
