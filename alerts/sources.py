"""Where the other apps tell alerts what happened: the outbox's settled listing changes (its
`entry_settled` signal), the end of a sync run, and a provider event given up on. Each call
returns quietly: the source's own outcome is already stored, and an alert is extra."""

from __future__ import annotations

import logging

from accounts.models import Business, Reseller, SyncRun
from alerts import rules
from alerts.kinds import Kind
from alerts.models import Alert
from alerts.services import Finding, alerts_raise, page_path
from outbox.models import OutboxEntry

logger = logging.getLogger(__name__)


def listing_change_settled(*, tenant: Reseller, entry: OutboxEntry) -> list[Alert]:
    """A listing change the provider rejected, that failed after every attempt, or that is in
    doubt (a member must say whether it arrived)."""
    if entry.kind != OutboxEntry.Kind.LISTING_CREATE or entry.state not in (
            OutboxEntry.State.REJECTED, OutboxEntry.State.FAILED, OutboxEntry.State.IN_DOUBT):
        return []
    business = (Business.objects.filter(pk=entry.business_id).first()
                if entry.business_id else None)
    name = business.name if business is not None else "a location"
    what = f"“{entry.summary}”" if entry.summary else "a listing change"
    if entry.state == OutboxEntry.State.REJECTED:
        code = f" (code {entry.provider_code})" if entry.provider_code is not None else ""
        title = f"Listing change rejected for {name}"
        message = (f"The provider rejected {what} for {name}{code}: "
                   f"{entry.provider_message or 'no reason given'}. Correct it in the listing "
                   "editor and send it again.")
    elif entry.state == OutboxEntry.State.IN_DOUBT:
        title = f"Listing change in doubt for {name}"
        message = (f"{what[:1].upper()}{what[1:]} for {name} was sent, but the provider's answer "
                   "was lost and its state cannot tell whether the change arrived. Check the "
                   "listing at the provider, then say whether it arrived or send it again; "
                   "another change of this listing waits until then.")
    else:
        title = f"Listing change could not be sent for {name}"
        message = (f"{what[:1].upper()}{what[1:]} for {name} was not accepted after "
                   f"{entry.attempts} attempts: {entry.last_error or entry.provider_message}. "
                   "Retry it from the listing editor.")
    if entry.state == OutboxEntry.State.IN_DOUBT:
        link = page_path("change_resolve", tenant.slug, entry.pk)
    elif business is not None:
        link = page_path("listing_edit", tenant.slug, business.remote_id)
    else:
        link = page_path("business_list", tenant.slug)
    return alerts_raise(tenant=tenant, findings=[Finding(
        kind=Kind.LISTING_REJECTED, cause=f"change:{entry.pk}", title=title, message=message,
        link=link, business=business,
        data={"change": entry.pk, "state": entry.state, "provider_code": entry.provider_code})])


def _sync_failed(tenant: Reseller, run: SyncRun) -> Finding | None:
    if run.status != SyncRun.Status.FAILED:
        return None
    scope = run.scope
    subject = f"A sync of {scope.name}" if scope is not None else "A sync of the account"
    error = run.errors[-1] if run.errors else "no error was recorded"
    return Finding(kind=Kind.SYNC_FAILED, cause=f"run:{run.pk}", title=f"{subject} failed",
                   message=f"{subject} (started {run.created_at:%d %b %Y %H:%M}) stopped "
                           f"before it finished: {error}",
                   link=page_path("sync_run_detail", tenant.slug, run.pk), business=scope,
                   data={"run": run.pk})


def alerts_after_run(*, tenant: Reseller, run_id: int) -> None:
    """The end of a sync run: a failed run is told, and the rules are evaluated on what the run
    left. The run is over already: a failure here is logged, never raised into it."""
    try:
        run = SyncRun.objects.select_related("scope").get(pk=run_id)
        found = _sync_failed(tenant, run)
        alerts_raise(tenant=tenant, findings=[found] if found else [])
        rules.alerts_evaluate(tenant=tenant)
    except Exception:  # noqa: BLE001 - alerts must never fail a sync
        logger.exception("alerts: evaluation after sync run %s of %s failed", run_id,
                         tenant.slug)


def alert_provider_event_failed(*, tenant: Reseller, event) -> None:
    """A provider event the portal gave up on (`event` is the row, in its final state)."""
    if getattr(event, "state", "") != "failed":
        return
    try:
        business = (Business.objects.filter(pk=event.business_id).first()
                    if event.business_id else None)
        where = (f" for {business.name}" if business is not None else
                 f" for business number {event.business_remote_id}"
                 if event.business_remote_id else "")
        alerts_raise(tenant=tenant, findings=[Finding(
            kind=Kind.EVENT_FAILED, cause=f"event:{event.pk}",
            title=f"A provider event failed{where}",
            message=f"The portal could not act on the provider's {event.event_name} event"
                    f"{where}: {event.result or 'no reason given'}. Retry it from its page.",
            link=page_path("provider_event_detail", tenant.slug, event.pk), business=business,
            data={"event": event.pk, "event_name": event.event_name})])
    except Exception:  # noqa: BLE001 - the event's outcome is stored; an alert is extra
        logger.exception("alerts: the failure of event %s was not told", event.pk)
