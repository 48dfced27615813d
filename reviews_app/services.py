"""Writes of the reviews app, and the review counts the UI asks the provider for on demand."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.cache import cache
from django.utils import timezone

from accounts.models import Business, Reseller, User
from accounts.provider_access import provider_call
from accounts.services import audit_record
from portal.exceptions import ProviderUnavailable
from provider import ProviderClient
from reviews_app.mirroring import survey_responses_mirror
from reviews_app.models import Survey

__all__ = ["ProviderUnavailable", "ReviewCounts", "review_count_by_rating_fetch", "survey_add"]

# Review counts change slowly; a short cache spares the provider (and its rate limit) the
# repeated requests of someone paging back and forth, and stays fresh enough to read.
REVIEW_COUNT_CACHE_SECONDS = 300


def survey_responses_refresh(*, tenant: Reseller, client: ProviderClient, survey: Survey,
                             business_number: int, start: dt.date, end: dt.date) -> None:
    """Mirror a survey's responses of a period, every page (the sync's window, or the days
    around one event's response)."""
    for page in client.iter_survey_responses(survey.remote_id, business_number=business_number,
                                             start_date=start, end_date=end, size=100,
                                             include_ticket_ids=True):
        survey_responses_mirror(tenant=tenant, survey=survey, page=page.responses,
                                seen_at=timezone.now())


def survey_add(*, tenant: Reseller, actor: User | None, remote_id: int, name: str = "") -> Survey:
    """Name a survey whose responses the sync mirrors (the provider cannot list surveys)."""
    survey, created = Survey.objects.get_or_create(reseller=tenant, remote_id=remote_id,
                                                   defaults={"name": name})
    if created:
        audit_record(tenant=tenant, actor=actor, action="survey.added", obj=survey,
                     summary={"remote_id": remote_id, "name": name})
    return survey


@dataclass(frozen=True)
class ReviewCounts:
    counts: dict[int, int]  # rating 0..5 -> number of reviews
    total: int
    fetched_at: dt.datetime
    from_cache: bool = False

    @property
    def average(self) -> float | None:
        rated = {r: c for r, c in self.counts.items() if r > 0}
        number = sum(rated.values())
        return round(sum(r * c for r, c in rated.items()) / number, 2) if number else None

    @property
    def unrated(self) -> int:
        return self.counts.get(0, 0)


def _cache_key(tenant: Reseller, business: Business, from_date: dt.date, to_date: dt.date,
               sources: Sequence[str]) -> str:
    params = "|".join([str(tenant.pk), str(tenant.account_number), str(business.remote_id),
                       from_date.isoformat(), to_date.isoformat(), ",".join(sorted(sources))])
    return "reviews:count-by-rating:v1:" + hashlib.sha256(params.encode()).hexdigest()


def review_count_by_rating_fetch(*, tenant: Reseller, business: Business, from_date: dt.date,
                                 to_date: dt.date, sources: Sequence[str] = ()) -> ReviewCounts:
    """A business's review count by rating over the dates and sources (all when none given).

    Asked of the provider on demand and cached briefly per tenant, business and parameters.
    Raises ProviderUnavailable, with a message for the user, when the provider cannot answer;
    failures are not cached.
    """
    sources = sorted({source.lower() for source in sources})
    key = _cache_key(tenant, business, from_date, to_date, sources)
    cached = cache.get(key)
    if cached is not None:
        return ReviewCounts(counts=cached["counts"], total=cached["total"],
                            fetched_at=cached["fetched_at"], from_cache=True)
    with provider_call(tenant=tenant) as client:
        reply = client.review_count_by_rating(
            tenant.account_number, business_numbers=[business.remote_id],
            source_aliases=sources, from_date=from_date, to_date=to_date)
    counts = {rating: reply.count_by_rating.get(rating, 0) for rating in range(6)}
    total = reply.review_count if reply.review_count is not None else sum(counts.values())
    fetched_at = timezone.now()
    cache.set(key, {"counts": counts, "total": total, "fetched_at": fetched_at},
              REVIEW_COUNT_CACHE_SECONDS)
    return ReviewCounts(counts=counts, total=total, fetched_at=fetched_at)
