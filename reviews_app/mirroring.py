"""Writing fetched review reporting into the mirror."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from accounts.models import Reseller
from portal.mirror import mark_removed, upsert
from provider import types as provider_types
from reviews_app.models import (
    CompetitiveRanking,
    CompetitorMetric,
    ReviewCount,
    Survey,
    SurveyResponse,
)


def _decimal(value: float | None, places: int = 2) -> Decimal | None:
    return None if value is None else round(Decimal(str(value)), places)


def review_count_mirror(*, tenant: Reseller, remote_id: int,
                        counts: provider_types.ReviewCountByRating, seen_at: datetime) -> None:
    upsert(ReviewCount, [ReviewCount(
        reseller=tenant, remote_id=remote_id, review_count=counts.review_count or 0,
        average_rating=counts.rated_and_average[1],
        count_by_rating={str(r): c for r, c in sorted(counts.count_by_rating.items())},
        raw=dict(counts.raw), last_seen_at=seen_at, removed_at=None,
    )], unique_fields=["reseller", "remote_id"],
        update_fields=["review_count", "average_rating", "count_by_rating"])


def competitor_metric_key(metric: provider_types.CompetitorReviewMetric) -> str:
    """The provider gives no id: these fields together identify one metric row."""
    identity = [metric.competitor_brand, metric.competitor_location, metric.source,
                sorted(ref.business_number or 0 for ref in metric.business_locations)]
    return hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:40]


def competitor_metrics_mirror(*, tenant: Reseller,
                              page: Sequence[provider_types.CompetitorReviewMetric],
                              seen_at: datetime) -> None:
    rows = {}
    for metric in page:
        key = competitor_metric_key(metric)
        rows[key] = CompetitorMetric(
            reseller=tenant, remote_id=key,
            competitor_location=metric.competitor_location or "",
            competitor_brand=metric.competitor_brand or "", source=metric.source or "",
            overall_rating=_decimal(metric.overall_rating), review_count=metric.review_count or 0,
            business_locations=list(metric.raw.get("businessLocations") or []),
            raw=dict(metric.raw), last_seen_at=seen_at, removed_at=None,
        )
    upsert(CompetitorMetric, list(rows.values()), unique_fields=["reseller", "remote_id"],
           update_fields=["competitor_location", "competitor_brand", "source", "overall_rating",
                          "review_count", "business_locations"])


def competitor_metrics_mark_removed(*, tenant: Reseller, started_at: datetime) -> int:
    return mark_removed(CompetitorMetric.objects.filter(reseller=tenant), seen_at=started_at)


def competitive_ranking_row(*, tenant: Reseller, remote_id: int,
                            ranking: provider_types.CompetitiveRanking,
                            seen_at: datetime) -> CompetitiveRanking:
    """The row of one business's ranking (not saved)."""
    return CompetitiveRanking(
        reseller=tenant, remote_id=remote_id, name=ranking.name or "",
        count=ranking.count or 0, positive_count=ranking.positive_count or 0,
        neutral_count=ranking.neutral_count or 0, negative_count=ranking.negative_count or 0,
        rating=_decimal(ranking.rating), competitors=list(ranking.raw.get("competitors") or []),
        raw=dict(ranking.raw), last_seen_at=seen_at, removed_at=None,
    )


def competitive_ranking_mirror(*, tenant: Reseller, ranking: provider_types.CompetitiveRanking,
                               seen_at: datetime) -> None:
    upsert(CompetitiveRanking, [competitive_ranking_row(
        tenant=tenant, remote_id=tenant.account_number, ranking=ranking, seen_at=seen_at,
    )], unique_fields=["reseller", "remote_id"],
        update_fields=["name", "count", "positive_count", "neutral_count", "negative_count",
                       "rating", "competitors"])


def _date(text: str | None):
    if not text:
        return None
    try:
        return datetime.strptime(text.strip()[:10], "%m/%d/%Y").date()
    except ValueError:
        return None


def survey_responses_mirror(*, tenant: Reseller, survey: Survey,
                            page: Sequence[provider_types.SurveyResponse],
                            seen_at: datetime) -> None:
    rows = [
        SurveyResponse(
            reseller=tenant, survey=survey, remote_id=response.response_id,
            customer_id=response.customer_id, customer_name=response.customer_name or "",
            location_name=response.location_name or "",
            request_date=_date(response.request_date),
            response_date=_date(response.response_date), completed=bool(response.completed),
            ticketed=bool(response.ticketed), question_count=response.question_count or 0,
            overall_score=response.overall_score or "", locale=response.locale or "",
            answers=list(response.raw.get("answers") or []),
            ticket_ids=list(response.ticket_ids), raw=dict(response.raw),
            last_seen_at=seen_at, removed_at=None,
        )
        for response in page if response.response_id is not None
    ]
    upsert(SurveyResponse, rows, unique_fields=["reseller", "remote_id"],
           update_fields=["survey", "customer_id", "customer_name", "location_name",
                          "request_date", "response_date", "completed", "ticketed",
                          "question_count", "overall_score", "locale", "answers", "ticket_ids"])
    if survey.name == "" and page and page[0].survey_name:
        Survey.objects.filter(pk=survey.pk).update(name=page[0].survey_name)
        survey.name = page[0].survey_name  # named once, not again on every page
