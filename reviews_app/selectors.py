"""Reads of the reviews app: competitor metrics, competitive ranking, surveys and responses."""

from __future__ import annotations

import datetime as dt

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from accounts.models import Business, Reseller
from reviews_app.models import CompetitiveRanking, CompetitorMetric, Survey, SurveyResponse

# The sort orders a user may choose (the only values that reach `order_by`), each with a
# tie-breaker so that pages are stable.
COMPETITOR_SORTS = {
    "brand": ("competitor_brand", "competitor_location", "source", "id"),
    "-brand": ("-competitor_brand", "competitor_location", "source", "id"),
    "rating": ("overall_rating", "competitor_brand", "id"),
    "-rating": ("-overall_rating", "competitor_brand", "id"),
    "reviews": ("review_count", "competitor_brand", "id"),
    "-reviews": ("-review_count", "competitor_brand", "id"),
}
DEFAULT_COMPETITOR_SORT = "brand"


def competitor_metric_list(*, tenant: Reseller, brand: str = "", source: str = "",
                           search: str = "", sort: str = "") -> QuerySet[CompetitorMetric]:
    queryset = CompetitorMetric.objects.filter(reseller=tenant, removed_at__isnull=True)
    if brand:
        queryset = queryset.filter(competitor_brand=brand)
    if source:
        queryset = queryset.filter(source=source)
    if search:
        queryset = queryset.filter(Q(competitor_location__icontains=search)
                                   | Q(competitor_brand__icontains=search))
    order = COMPETITOR_SORTS.get(sort) or COMPETITOR_SORTS[DEFAULT_COMPETITOR_SORT]
    return queryset.order_by(*order)


def competitor_metric_brands(*, tenant: Reseller) -> list[str]:
    return list(CompetitorMetric.objects.filter(reseller=tenant, removed_at__isnull=True)
                .order_by("competitor_brand").values_list("competitor_brand", flat=True)
                .distinct())


def competitor_metric_sources(*, tenant: Reseller) -> list[str]:
    return list(CompetitorMetric.objects.filter(reseller=tenant, removed_at__isnull=True)
                .order_by("source").values_list("source", flat=True).distinct())


def competitive_ranking_get(*, tenant: Reseller) -> CompetitiveRanking | None:
    return CompetitiveRanking.objects.filter(reseller=tenant, remote_id=tenant.account_number,
                                             removed_at__isnull=True).first()


# The businesses the provider ranks against their own competitors: an enterprise owns its
# competitor brands, while the account (or a sub-reseller) would put all its trades together.
RANKED_TYPES = (Business.Type.ENTERPRISE_LOCATION, Business.Type.ENTERPRISE_PRODUCT)


def ranking_enterprise_list(*, tenant: Reseller) -> QuerySet[Business]:
    """The enterprises a ranking can be asked for, by name."""
    return (Business.objects.filter(reseller=tenant, type__in=RANKED_TYPES,
                                    removed_at__isnull=True)
            .order_by("name", "remote_id").only("remote_id", "name", "type"))


def business_kind_get(*, tenant: Reseller, remote_id: int) -> Business | None:
    """A business of the account by number, whatever its type (to say why it has no ranking)."""
    return (Business.objects.filter(reseller=tenant, remote_id=remote_id, removed_at__isnull=True)
            .only("remote_id", "name", "type").first())


def survey_list(*, tenant: Reseller) -> QuerySet[Survey]:
    """By name; a survey without one ("Survey 123") after the named ones."""
    unnamed_last = Case(When(name="", then=Value(1)), default=Value(0),
                        output_field=IntegerField())
    return Survey.objects.filter(reseller=tenant).order_by(unnamed_last, "name", "remote_id")


def survey_get(*, tenant: Reseller, remote_id: int) -> Survey | None:
    return survey_list(tenant=tenant).filter(remote_id=remote_id).first()


def survey_response_list(*, tenant: Reseller, survey: Survey,
                         date_from: dt.date | None = None,
                         date_to: dt.date | None = None) -> QuerySet[SurveyResponse]:
    """Responses of one survey (not removed), newest first, answered within the dates."""
    queryset = SurveyResponse.objects.filter(reseller=tenant, survey=survey,
                                             removed_at__isnull=True)
    if date_from:
        queryset = queryset.filter(response_date__gte=date_from)
    if date_to:
        queryset = queryset.filter(response_date__lte=date_to)
    return queryset.defer("answers", "raw").order_by("-response_date", "-remote_id")


def survey_response_count(*, tenant: Reseller, survey: Survey) -> int:
    return SurveyResponse.objects.filter(reseller=tenant, survey=survey).count()


def survey_response_get(*, tenant: Reseller, remote_id: int) -> SurveyResponse | None:
    return (SurveyResponse.objects.filter(reseller=tenant, remote_id=remote_id,
                                          removed_at__isnull=True)
            .select_related("survey").first())
