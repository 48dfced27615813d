"""Writes of the reviews app, and the reports the UI asks the provider for on demand (review
counts, a competitive ranking)."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import Business, Reseller, User
from accounts.provider_access import provider_call
from accounts.services import audit_record
from portal.exceptions import ProviderUnavailable
from provider import ProviderClient, Rejected
from provider import types as provider_types
from provider.types import star_average
from reviews_app.mirroring import competitive_ranking_row, survey_responses_mirror
from reviews_app.models import CompetitiveRanking, Survey

__all__ = ["ProviderUnavailable", "RankingFetched", "ReviewCounts",
           "competitive_ranking_fetch", "review_count_by_rating_fetch", "survey_add",
           "survey_follow", "survey_unfollow"]

logger = logging.getLogger(__name__)

# Review counts change slowly; a short cache spares the provider (and its rate limit) the
# repeated requests of someone paging back and forth, and stays fresh enough to read.
REVIEW_COUNT_CACHE_SECONDS = 300
RANKING_CACHE_SECONDS = 600
# "Invalid survey": the survey does not exist or is not the account's (parameters.md).
UNKNOWN_SURVEY_CODE = 1315


def report_window() -> tuple[dt.date, dt.date]:
    """The period of the review reports asked on demand: the sync's, so that a ranking fetched
    for one enterprise compares with the account's mirrored one."""
    today = timezone.localdate()
    return today - dt.timedelta(days=settings.SYNC_REPORT_LOOKBACK_DAYS), today


def survey_responses_refresh(*, tenant: Reseller, client: ProviderClient, survey: Survey,
                             business_number: int, start: dt.date, end: dt.date) -> None:
    """Mirror a survey's responses of a period, every page (the sync's window, or the days
    around one event's response)."""
    try:
        for page in client.iter_survey_responses(survey.remote_id,
                                                 business_number=business_number,
                                                 start_date=start, end_date=end, size=100,
                                                 include_ticket_ids=True):
            survey_responses_mirror(tenant=tenant, survey=survey, page=page.responses,
                                    seen_at=timezone.now())
    except Rejected as exc:
        if exc.code != UNKNOWN_SURVEY_CODE:
            raise
        # Not a failure of the sync: the survey is gone from the provider's account. The
        # survey page says so and offers to unfollow it; its mirrored responses stay.
        logger.info("reseller %s: the provider no longer knows survey %s", tenant.pk,
                    survey.remote_id)
        if survey.unknown_since is None:
            survey.unknown_since = timezone.now()
            Survey.objects.filter(pk=survey.pk, unknown_since__isnull=True).update(
                unknown_since=survey.unknown_since)
        return
    if survey.unknown_since is not None:
        Survey.objects.filter(pk=survey.pk).update(unknown_since=None)
        survey.unknown_since = None


def survey_add(*, tenant: Reseller, actor: User | None, remote_id: int, name: str = "") -> Survey:
    """Name a survey whose responses the sync mirrors (the provider cannot list surveys),
    without asking the provider: for ids the provider itself gave (an event, the demo)."""
    survey, created = Survey.objects.get_or_create(reseller=tenant, remote_id=remote_id,
                                                   defaults={"name": name})
    if created:
        audit_record(tenant=tenant, actor=actor, action="survey.added", obj=survey,
                     summary={"remote_id": remote_id, "name": name})
    return survey


def survey_follow(*, tenant: Reseller, actor: User | None, remote_id: int,
                  name: str = "") -> Survey:
    """Follow a survey a person named by its id, once the provider has confirmed it is one of
    the account's.

    Raises ValidationError on `remote_id` when the survey is already followed or the provider
    says it has no such survey, and ProviderUnavailable when the provider cannot be asked;
    nothing is saved then. Without a name, the survey takes the one its latest response gives.
    """
    if Survey.objects.filter(reseller=tenant, remote_id=remote_id).exists():
        raise ValidationError({"remote_id": "This survey is already in the list."})
    start, end = report_window()
    try:
        with provider_call(tenant=tenant) as client:
            page = client.survey_responses(remote_id, business_number=tenant.account_number,
                                           start_date=start, end_date=end, page=0, size=1,
                                           sort_order="desc")
    except ProviderUnavailable as exc:
        if exc.code == UNKNOWN_SURVEY_CODE:
            raise ValidationError({"remote_id": f"No survey with id {remote_id} in your "
                                                "provider account."}) from exc
        raise
    if not name and page.responses and page.responses[0].survey_name:
        name = page.responses[0].survey_name[:255]
    return survey_add(tenant=tenant, actor=actor, remote_id=remote_id, name=name)


@transaction.atomic
def survey_unfollow(*, tenant: Reseller, actor: User | None, survey: Survey) -> int:
    """Stop following a survey: the portal forgets it and its mirrored responses (the survey
    itself stays in the provider's account). Returns how many responses went with it."""
    responses = survey.responses.count()
    audit_record(tenant=tenant, actor=actor, action="survey.removed", obj=survey,
                 summary={"remote_id": survey.remote_id, "name": survey.name,
                          "responses": responses})
    survey.delete()
    return responses


@dataclass(frozen=True)
class ReviewCounts:
    counts: dict[int, int]  # rating 0..5 -> number of reviews
    total: int
    fetched_at: dt.datetime
    from_cache: bool = False

    @property
    def average(self) -> Decimal | None:
        return star_average(self.counts)[1]

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


@dataclass(frozen=True)
class RankingFetched:
    ranking: CompetitiveRanking  # not saved: the mirror holds the account's, from the sync
    from_cache: bool = False


def _ranking_cache_key(tenant: Reseller, business: Business, start: dt.date,
                       end: dt.date) -> str:
    params = "|".join([str(tenant.pk), str(tenant.account_number), str(business.remote_id),
                       start.isoformat(), end.isoformat()])
    return "reviews:competitive-ranking:v1:" + hashlib.sha256(params.encode()).hexdigest()


def competitive_ranking_fetch(*, tenant: Reseller, business: Business) -> RankingFetched:
    """One business's competitive ranking (an enterprise against its own competitors) over
    the report window, asked of the provider and cached briefly.

    Raises ProviderUnavailable, with a message for the user, when the provider cannot answer;
    failures are not cached.
    """
    start, end = report_window()
    key = _ranking_cache_key(tenant, business, start, end)
    cached = cache.get(key)
    if cached is not None:
        reply = provider_types.CompetitiveRanking.from_json(cached["raw"])
        return RankingFetched(competitive_ranking_row(
            tenant=tenant, remote_id=business.remote_id, ranking=reply,
            seen_at=cached["fetched_at"]), from_cache=True)
    with provider_call(tenant=tenant) as client:
        reply = client.competitive_ranking(business.remote_id, start_date=start, end_date=end,
                                           review_sites=[])
    fetched_at = timezone.now()
    cache.set(key, {"raw": dict(reply.raw), "fetched_at": fetched_at}, RANKING_CACHE_SECONDS)
    return RankingFetched(competitive_ranking_row(tenant=tenant, remote_id=business.remote_id,
                                                  ranking=reply, seen_at=fetched_at))
