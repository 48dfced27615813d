"""Celery tasks of the web UI's accounts pages: thin, they take ids and call one service.

The module is imported by `accounts.services`, so every worker registers these tasks.
"""

from __future__ import annotations

from celery import shared_task

from portal.tenancy import tenant_task

REFRESH_MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, max_retries=REFRESH_MAX_RETRIES)
@tenant_task
def listing_status_refresh_task(self, *, reseller_id: int, business_id: int,
                                actor_id: int | None = None) -> None:
    """Fetch one location's status report; rate limits and outages are retried a few times."""
    from accounts.models import Business, Reseller, User
    from accounts.services import RefreshFailed, listing_status_refresh
    from provider import RateLimited, Transient

    tenant = Reseller.objects.get(pk=reseller_id)
    business = Business.objects.filter(reseller=tenant, pk=business_id).first()
    if business is None:
        return
    actor = User.objects.filter(pk=actor_id).first() if actor_id else None
    try:
        listing_status_refresh(tenant=tenant, actor=actor, business=business,
                               retry_later=self.request.retries < self.max_retries)
    except (RateLimited, Transient) as exc:
        countdown = exc.retry_after or min(120, 5 * 2 ** self.request.retries)
        raise self.retry(exc=exc, countdown=countdown) from exc
    except RefreshFailed:
        return  # recorded in the audit log, which the page shows
