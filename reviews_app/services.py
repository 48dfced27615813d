"""Writes of the reviews app, and the reports the UI asks the provider for on demand (review
counts, a competitive ranking)."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
from collections import deque
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
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
from provider import MAX_WINDOW, ProviderClient, Rejected
from provider import types as provider_types
from provider.types import star_average
from reviews_app.mirroring import competitive_ranking_row, survey_responses_mirror
from reviews_app.models import CompetitiveRanking, Survey

__all__ = ["ProviderUnavailable", "RankingFetched", "ReviewCounts",
           "competitive_ranking_fetch", "review_count_by_rating_fetch", "survey_add",
           "survey_follow", "survey_responses_refresh", "survey_responses_refresh_many",
           "survey_unfollow"]

logger = logging.getLogger(__name__)

# Review counts change slowly; a short cache spares the provider (and its rate limit) the
# repeated requests of someone paging back and forth, and stays fresh enough to read.
REVIEW_COUNT_CACHE_SECONDS = 300
RANKING_CACHE_SECONDS = 600
# "Invalid survey": the survey does not exist or is not the account's (parameters.md).
UNKNOWN_SURVEY_CODE = 1315
SURVEY_PAGE_SIZE = 100  # the provider's largest page
# A survey's pages are written together up to this many responses (about 7 KB each): one
# statement for most surveys, and a bounded batch for a large one.
SURVEY_WRITE_ROWS = 500


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
                                                 start_date=start, end_date=end,
                                                 size=SURVEY_PAGE_SIZE, include_ticket_ids=True):
            survey_responses_mirror(tenant=tenant, survey=survey, page=page.responses,
                                    seen_at=timezone.now())
    except Rejected as exc:
        if exc.code != UNKNOWN_SURVEY_CODE:
            raise
        _survey_unknown(tenant=tenant, survey=survey)
        return
    _survey_known(survey)


def survey_responses_refresh_many(*, tenant: Reseller, client: ProviderClient,
                                  surveys: Sequence[Survey], business_number: int,
                                  start: dt.date, end: dt.date, threads: int) -> None:
    """Mirror the responses of several surveys over a period (the sync's window), `threads`
    pages in flight at once; the writes stay on the calling thread.

    One page at a time left the rate limit's allowance unused for as long as the step ran: each
    survey's first page is asked at once, and the number of responses it gives asks the rest
    together (a provider that gives no number is read page after page).
    """

    def fetch(survey: Survey, number: int) -> provider_types.SurveyResponsesPage:
        return client.survey_responses(survey.remote_id, business_number=business_number,
                                       start_date=start, end_date=end, page=number,
                                       size=SURVEY_PAGE_SIZE, include_ticket_ids=True)

    threads = max(1, threads)
    waiting: dict = {}
    # Pages not sent yet: a few more in flight than threads, so that a large survey's pages do
    # not pile up in memory faster than they are written.
    queued: deque[tuple[Survey, int]] = deque()
    asked: dict[int, int] = {}  # the last page asked, per survey
    unwritten: dict[int, list] = {survey.pk: [] for survey in surveys}

    with ThreadPoolExecutor(max_workers=threads) as pool:

        def ask(survey: Survey, number: int) -> None:
            asked[survey.pk] = number
            queued.append((survey, number))

        def send() -> None:
            while queued and len(waiting) < 2 * threads:
                survey, number = queued.popleft()
                waiting[pool.submit(fetch, survey, number)] = (survey, number)

        try:
            for survey in surveys:
                ask(survey, 0)
            send()
            while waiting:
                finished, _ = wait(waiting, return_when=FIRST_COMPLETED)
                for future in finished:
                    survey, number = waiting.pop(future)
                    try:
                        page = future.result()
                    except Rejected as exc:
                        if exc.code != UNKNOWN_SURVEY_CODE:
                            raise
                        _survey_unknown(tenant=tenant, survey=survey)
                        responses = ()
                    else:
                        if number == 0:
                            _survey_known(survey)
                        if number == asked[survey.pk]:
                            for later in _pages_after(page, number):
                                ask(survey, later)
                        send()
                        responses = page.responses
                    rows = unwritten[survey.pk]
                    rows.extend(responses)
                    more = any(other is survey
                               for other, _n in [*waiting.values(), *queued])
                    if rows and (len(rows) >= SURVEY_WRITE_ROWS or not more):
                        survey_responses_mirror(tenant=tenant, survey=survey, page=rows,
                                                seen_at=timezone.now())
                        unwritten[survey.pk] = []
                send()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _pages_after(page: provider_types.SurveyResponsesPage, number: int) -> list[int]:
    """The pages to ask after page `number`, within the provider's window."""
    if not page.responses or not page.has_next:
        return []
    last = number + 1
    if number == 0 and page.total_responses is not None:
        last = max(last, math.ceil(page.total_responses / SURVEY_PAGE_SIZE) - 1)
    within = [n for n in range(number + 1, last + 1) if (n + 1) * SURVEY_PAGE_SIZE <= MAX_WINDOW]
    if len(within) < last - number:
        logger.warning("survey responses: more than the %d-record window; stopped", MAX_WINDOW)
    return within


def _survey_unknown(*, tenant: Reseller, survey: Survey) -> None:
    # Not a failure of the sync: the survey is gone from the provider's account. The survey
    # page says so and offers to unfollow it; its mirrored responses stay.
    logger.info("reseller %s: the provider no longer knows survey %s", tenant.pk,
                survey.remote_id)
    if survey.unknown_since is None:
        survey.unknown_since = timezone.now()
        Survey.objects.filter(pk=survey.pk, unknown_since__isnull=True).update(
            unknown_since=survey.unknown_since)


def _survey_known(survey: Survey) -> None:
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
