"""Celery tasks of the listings app: thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from accounts.models import Business, Reseller, User
from listings import services
from portal.retries import retry_delay
from portal.tenancy import tenant_task
from provider import RateLimited, Transient

REFRESH_MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, max_retries=REFRESH_MAX_RETRIES)
@tenant_task
def listing_status_refresh_task(self, *, reseller_id: int, business_id: int,
                                actor_id: int | None = None) -> None:
    """Fetch one location's status report; rate limits and outages are retried a few times."""
    tenant = Reseller.objects.get(pk=reseller_id)
    business = Business.objects.filter(reseller=tenant, pk=business_id).first()
    if business is None:
        return
    actor = User.objects.filter(pk=actor_id).first() if actor_id else None
    try:
        services.listing_status_refresh(tenant=tenant, actor=actor, business=business,
                               retry_later=self.request.retries < self.max_retries)
    except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
        countdown = retry_delay(self.request.retries, base=5, cap=120,
                                suggested=getattr(exc, "retry_after", None))
        raise self.retry(exc=exc, countdown=countdown) from exc
    except services.RefreshFailed:
        return  # recorded in the audit log, which the page shows
