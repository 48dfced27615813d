"""Competitor review metrics (2), review count by rating (7) and competitive ranking (8)."""

from __future__ import annotations

import datetime

import pytest
from django.db.models import Count, Sum

from provider import NotFound, Rejected
from provider.types import CompetitiveRanking, CompetitorReviewMetric, ReviewCountByRating
from sandbox.models import (
    Business,
    CompetitorBrand,
    CompetitorLink,
    CompetitorReview,
    Review,
)

from .conftest import LIVE_DB, UNKNOWN_NUMBER, today, wide_range

pytestmark = LIVE_DB


def linked_groups(location_numbers) -> set[tuple[str, str]]:
    """(competitor location name, source) pairs with reviews, for competitors of the locations."""
    competitors = CompetitorLink.objects.filter(location__number__in=location_numbers).values(
        "competitor_id"
    )
    return set(
        CompetitorReview.objects.filter(competitor_id__in=competitors)
        .values_list("competitor__name", "source")
        .distinct()
    )


def test_competitor_metrics_of_the_account(client, ids):
    start, end = wide_range()
    metrics = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, page_size=500
    )
    assert metrics and all(isinstance(m, CompetitorReviewMetric) for m in metrics)
    assert {(m.competitor_location, m.source) for m in metrics} == linked_groups(ids.locations)
    groups = {
        (row["competitor__name"], row["source"]): row
        for row in CompetitorReview.objects.filter(partner_id=ids.partner_id)
        .values("competitor__name", "competitor__brand__name", "source")
        .annotate(n=Count("id"), stars=Sum("rating"))
    }
    linked: dict[str, set[int]] = {}
    for name, number in CompetitorLink.objects.filter(partner_id=ids.partner_id).values_list(
        "competitor__name", "location__number"
    ):
        linked.setdefault(name, set()).add(number)
    locations = {b.number: b for b in Business.objects.filter(number__in=ids.locations)}
    for metric in metrics:
        group = groups[(metric.competitor_location, metric.source)]
        assert metric.review_count == group["n"]
        assert metric.overall_rating == round(group["stars"] / group["n"], 2)
        assert metric.competitor_brand == group["competitor__brand__name"]
        refs = metric.business_locations
        assert {ref.business_number for ref in refs} == linked[metric.competitor_location]
        for ref in refs:
            location = locations[ref.business_number]
            assert (ref.business_id, ref.name, ref.phone) == (
                location.number,
                location.name,
                location.phone,
            )


def test_competitor_metrics_filters_reach_the_sandbox(client, ids):
    start, end = wide_range()
    location = ids.locations[0]
    only_one = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, business_numbers=[location], page_size=500
    )
    assert only_one
    assert {(m.competitor_location, m.source) for m in only_one} == linked_groups([location])
    assert all(
        [ref.business_number for ref in m.business_locations] == [location] for m in only_one
    )

    profile = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, sources=["profile"], page_size=500
    )
    assert profile and {m.source for m in profile} == {"profile"}

    brand = CompetitorBrand.objects.filter(owner__number=ids.enterprise).order_by("brand_id")[0]
    by_brand = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, brand_ids=[str(brand.brand_id)], page_size=500
    )
    assert by_brand and {m.competitor_brand for m in by_brand} == {brand.name}

    competitor = brand.locations.order_by("location_id")[0]
    by_competitor = client.competitor_review_metrics(
        ids.account,
        from_date=start,
        to_date=end,
        competitor_location_ids=[competitor.location_id],
        page_size=500,
    )
    assert by_competitor and {m.competitor_location for m in by_competitor} == {competitor.name}


def test_competitor_metrics_date_range_and_paging(client, ids):
    start, end = wide_range()
    everything = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, page_size=500
    )
    first = client.competitor_review_metrics(ids.account, from_date=start, to_date=end, page_size=5)
    second = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, start_index=5, page_size=5
    )
    assert [m.raw for m in first + second] == [m.raw for m in everything[:10]]
    newest_first = client.competitor_review_metrics(
        ids.account, from_date=start, to_date=end, page_size=500, sort_order=1
    )
    assert {m.raw["competitorLocation"] + m.raw["source"] for m in newest_first} == {
        m.raw["competitorLocation"] + m.raw["source"] for m in everything
    }
    assert [m.raw for m in newest_first] != [m.raw for m in everything]

    day = CompetitorReview.objects.order_by("review_date")[0].review_date
    one_day = client.competitor_review_metrics(
        ids.account, from_date=day, to_date=day, page_size=500
    )
    assert (
        sum(m.review_count for m in one_day)
        == CompetitorReview.objects.filter(
            review_date=day, competitor__competitorlink__location__number__in=ids.locations
        )
        .distinct()
        .count()
    )


def test_competitor_metrics_errors(client, ids):
    start, end = wide_range()
    with pytest.raises(Rejected) as too_many:
        client.competitor_review_metrics(
            ids.account, from_date=start, to_date=end, brand_ids=[1, 2, 3, 4, 5, 6]
        )
    assert (too_many.value.code, too_many.value.http_status) == (2466, 400)
    assert too_many.value.message == "Invalid input request"

    with pytest.raises(NotFound) as outside:
        client.competitor_review_metrics(
            ids.account, from_date=start, to_date=end, business_numbers=[UNKNOWN_NUMBER]
        )
    assert outside.value.code == 1011


def rating_counts(reviews) -> dict[int, int]:
    counts = dict(reviews.values_list("rating").annotate(n=Count("id")).order_by())
    return {rating: counts.get(rating, 0) for rating in range(6)}


def test_review_count_by_rating_of_the_account(client, ids):
    start, end = wide_range()
    result = client.review_count_by_rating(ids.account, from_date=start, to_date=end)
    reviews = Review.objects.filter(partner_id=ids.partner_id)
    assert isinstance(result, ReviewCountByRating)
    assert result.review_count == reviews.count() > 0
    assert result.count_by_rating == rating_counts(reviews)
    assert [entry["rating"] for entry in result.raw["countByRating"]] == list(range(6))

    # Filters: two locations, two sources (sent lower-case), the last year.
    end = today()
    start = end - datetime.timedelta(days=365)
    numbers = list(ids.locations[:2])
    result = client.review_count_by_rating(
        ids.account,
        from_date=start,
        to_date=end,
        business_numbers=numbers,
        source_aliases=["PROFILE", "Engine"],  # sent lower-case
    )
    reviews = Review.objects.filter(
        location__number__in=numbers,
        source__in=["profile", "engine"],
        review_date__gte=start,
        review_date__lte=end,
    )
    assert result.review_count == reviews.count()
    assert result.count_by_rating == rating_counts(reviews)


def sentiment(reviews) -> tuple[int, int, int]:
    ratings = list(reviews.values_list("rating", flat=True))
    return (
        sum(1 for r in ratings if r >= 4),
        sum(1 for r in ratings if r == 3),
        sum(1 for r in ratings if r <= 2),
    )


def test_competitive_ranking_of_an_enterprise(client, ids):
    start, end = wide_range()
    ranking = client.competitive_ranking(ids.enterprise, start_date=start, end_date=end)
    enterprise = Business.objects.get(number=ids.enterprise)
    own = Review.objects.filter(location__parent=enterprise)
    assert isinstance(ranking, CompetitiveRanking)
    assert ranking.name == enterprise.name
    assert ranking.count == own.count() > 0
    assert (ranking.positive_count, ranking.neutral_count, ranking.negative_count) == sentiment(own)
    assert ranking.positive_percent + ranking.neutral_percent + ranking.negative_percent == 100
    brands = CompetitorBrand.objects.filter(owner=enterprise)
    assert {c.name for c in ranking.competitors} == set(brands.values_list("name", flat=True))
    for competitor in ranking.competitors:
        theirs = CompetitorReview.objects.filter(competitor__brand__name=competitor.name)
        assert competitor.count == theirs.count()
        assert competitor.competitors == ()
    counts = [c.count for c in ranking.competitors]
    assert counts == sorted(counts, reverse=True)

    # Only the reviews of the given sites (numeric ids sent as strings).
    ranking = client.competitive_ranking(
        ids.enterprise, start_date=start, end_date=end, review_sites=[2, "226"]
    )
    own = Review.objects.filter(location__parent__number=ids.enterprise, site_id__in=[2, 226])
    assert ranking.count == own.count()
    assert (ranking.positive_count, ranking.neutral_count, ranking.negative_count) == sentiment(own)
