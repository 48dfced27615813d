"""Figures of a reseller or an enterprise taken across the locations under it, asked of the
provider when its overview needs them.

The review count by rating answers for a whole subtree when it is asked with the container's
own id and no list of locations (interface.md, operation 7; the sync asks it so for the
account). The portal mirrors that only for the account, so an enterprise's overview asks on
demand, briefly cached like the reviews tab's counts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from accounts.models import Business, Reseller
from accounts.provider_access import provider_call

REVIEWS_ROLLUP_CACHE_SECONDS = 300
UNRATED = 0  # the provider's rating of a review that has none


@dataclass(frozen=True)
class ReviewsRollup:
    """Reviews of the locations under a business over the sync's period."""

    total: int
    rated: int
    average: Decimal | None  # over the rated reviews: one without a rating is not a 0-star one
    days: int
    fetched_at: dt.datetime
    from_cache: bool = False

    @property
    def unrated(self) -> int:
        return self.total - self.rated


def business_reviews_rollup_fetch(*, tenant: Reseller, business: Business) -> ReviewsRollup:
    """The review count and average of every location under `business`. Raises
    ProviderUnavailable, with a message for the user, when the provider cannot answer."""
    days = settings.SYNC_REPORT_LOOKBACK_DAYS
    key = f"reviews-rollup:{tenant.pk}:{business.remote_id}:{days}"
    cached = cache.get(key)
    if cached is not None:
        return ReviewsRollup(**cached, from_cache=True)
    today = timezone.localdate()
    with provider_call(tenant=tenant) as client:
        reply = client.review_count_by_rating(
            business.remote_id, business_numbers=[],
            from_date=today - dt.timedelta(days=days), to_date=today)
    rated, average = reply.rated_and_average
    total = max(reply.review_count or 0, rated + reply.count_by_rating.get(UNRATED, 0))
    figures = {"total": total, "rated": rated, "average": average, "days": days,
               "fetched_at": timezone.now()}
    cache.set(key, figures, REVIEWS_ROLLUP_CACHE_SECONDS)
    return ReviewsRollup(**figures)
