"""Review count by rating (7), competitive ranking (8), competitor review metrics (2)."""

from __future__ import annotations

import datetime

from sandbox.models import Business, CompetitorLocation, Review
from sandbox.tree import subtree_locations
from sandbox.views.reviews import split_percentages
from tests.sandbox.conftest import LIVE_DB, assert_error, today, us_date

pytestmark = LIVE_DB


# ------------------------------------------------------------------------ count by rating
def count_by_rating(api, business_id, body):
    return api.post(f"/v1/review/report/count-by-rating/{business_id}", json=body)


def test_counts_match_the_stored_reviews(api, seeded, enterprise):
    body = count_by_rating(api, seeded["account_number"], {}).json()
    assert [entry["rating"] for entry in body["countByRating"]] == [0, 1, 2, 3, 4, 5]
    assert body["reviewCount"] == sum(entry["count"] for entry in body["countByRating"])
    assert (
        body["reviewCount"]
        == Review.objects.filter(location__number__in=seeded["location_numbers"]).count()
    )
    under = count_by_rating(api, enterprise.number, {}).json()["reviewCount"]
    assert under == Review.objects.filter(location__in=subtree_locations(enterprise)).count()


def test_filters_by_location_source_and_dates(api, seeded):
    location = Business.objects.filter(number__in=seeded["location_numbers"]).order_by("number")[0]
    start = today() - datetime.timedelta(days=200)
    request = {
        "businessNumbers": [location.number],
        "sourceAlias": ["profile", "engine"],
        "fromDate": us_date(start),
        "toDate": us_date(today()),
    }
    body = count_by_rating(api, seeded["account_number"], request).json()
    expected = Review.objects.filter(
        location=location, source__in=["profile", "engine"], review_date__gte=start
    )
    assert body["reviewCount"] == expected.count()
    for entry in body["countByRating"]:
        assert entry["count"] == expected.filter(rating=entry["rating"]).count()


def test_count_by_rating_errors(api, seeded, seeded_b):
    account = seeded["account_number"]
    assert_error(count_by_rating(api, 77, {}), 404, 1011)
    foreign = seeded_b["location_numbers"][0]
    assert_error(count_by_rating(api, account, {"businessNumbers": [foreign]}), 404, 1011)
    assert_error(count_by_rating(api, account, {"businessNumbers": ["1"]}), 400, 400)
    assert_error(count_by_rating(api, account, {"fromDate": "2024-01-01"}), 400, 400)
    assert_error(count_by_rating(api, account, {"sourceAlias": "profile"}), 400, 400)
    bad = api.post(f"/v1/review/report/count-by-rating/{account}", data="[1,")
    assert_error(bad, 400, 400)


# ---------------------------------------------------------------------------- ranking
def ranking(api, business_id, body):
    return api.post("/v2/competitive/ranking", params={"businessId": business_id}, json=body)


def check_entry(entry: dict) -> None:
    counts = entry["positiveCount"], entry["neutralCount"], entry["negativeCount"]
    assert sum(counts) == entry["count"]
    percents = entry["positivePercent"], entry["neutralPercent"], entry["negativePercent"]
    assert sum(percents) == (100 if entry["count"] else 0)
    assert all(isinstance(value, int) for value in (*counts, *percents))
    assert isinstance(entry["name"], str) and isinstance(entry["rating"], int | float)


def test_ranking_counts_add_up(api, enterprise):
    body = ranking(api, enterprise.number, {}).json()
    check_entry(body)
    assert body["name"] == enterprise.name
    assert (
        body["count"] == Review.objects.filter(location__in=subtree_locations(enterprise)).count()
    )
    assert body["competitors"]
    for competitor in body["competitors"]:
        check_entry(competitor)
        assert "competitors" not in competitor


def test_ranking_filters_by_sites_and_dates(api, enterprise):
    start = today() - datetime.timedelta(days=90)
    request = {"startDate": us_date(start), "endDate": us_date(today()), "reviewSites": ["2"]}
    body = ranking(api, enterprise.number, request).json()
    expected = Review.objects.filter(
        location__in=subtree_locations(enterprise), site_id=2, review_date__gte=start
    )
    assert body["count"] == expected.count()
    assert body["positiveCount"] == expected.filter(rating__gte=4).count()


def test_ranking_errors(api, enterprise):
    assert_error(ranking(api, 1, {}), 404, 1011)
    assert_error(api.post("/v2/competitive/ranking", json={}), 400, 400)
    assert_error(ranking(api, enterprise.number, {"reviewSites": [2]}), 400, 400)
    assert_error(ranking(api, enterprise.number, {"startDate": "13/45/2024"}), 400, 400)


def test_split_percentages_always_adds_up():
    assert split_percentages([1, 1, 1]) == [34, 33, 33]
    assert split_percentages([2, 1, 0]) == [67, 33, 0]
    assert split_percentages([0, 0, 0]) == [0, 0, 0]
    assert sum(split_percentages([7, 13, 29])) == 100


# ------------------------------------------------------------------ competitor metrics
def metrics(api, account, body=None, **params):
    return api.post(
        "/v1/competitors/review/metrics",
        params=params,
        json=body if body is not None else {},
        headers={"x-business-number": str(account)},
    )


def test_metric_shape(api, enterprise):
    items = metrics(api, enterprise.number).json()
    assert 0 < len(items) <= 25
    for item in items:
        assert set(item) == {
            "businessLocations",
            "competitorLocation",
            "competitorBrand",
            "source",
            "overallRating",
            "reviewCount",
        }
        assert item["reviewCount"] > 0 and 0 <= item["overallRating"] <= 5
        for location in item["businessLocations"]:
            assert location["businessId"] == location["businessNumber"]
            assert {"name", "phone"} <= set(location)


def test_metric_pagination_and_sort_order(api, seeded):
    account = seeded["account_number"]
    everything = metrics(api, account, pageSize=1000).json()
    assert len(everything) > 25
    assert metrics(api, account).json() == everything[:25]
    assert metrics(api, account, startIndex=5, pageSize=7).json() == everything[5:12]
    assert metrics(api, account, startIndex=len(everything), pageSize=10).json() == []
    descending = metrics(api, account, pageSize=1000, sortOrder=1).json()
    assert len(descending) == len(everything)
    assert {str(item) for item in descending} == {str(item) for item in everything}


def test_metric_filters(api, enterprise):
    brand = CompetitorLocation.objects.filter(brand__owner=enterprise).first().brand
    items = metrics(api, enterprise.number, {"brandIds": [brand.brand_id]}, pageSize=100).json()
    assert items and {item["competitorBrand"] for item in items} == {brand.name}
    items = metrics(api, enterprise.number, {"sources": ["profile"]}, pageSize=100).json()
    assert {item["source"] for item in items} <= {"profile"}
    competitor = brand.locations.first()
    items = metrics(
        api, enterprise.number, {"competitorLocationIds": [str(competitor.location_id)]}
    ).json()
    assert {item["competitorLocation"] for item in items} == {competitor.name}


def test_metric_limits_and_bad_input(api, seeded, enterprise):
    number = enterprise.number
    assert metrics(api, number, startIndex=99000, pageSize=1000).status_code == 200
    assert_error(metrics(api, number, startIndex=99000, pageSize=1001), 400, 1164)
    assert_error(metrics(api, number, startIndex=-1), 400, 1164)
    assert_error(metrics(api, number, pageSize=0), 400, 1164)
    assert metrics(api, number, {"brandIds": [1, 2, 3, 4, 5]}).status_code == 200
    assert_error(metrics(api, number, {"brandIds": [1, 2, 3, 4, 5, 6]}), 400, 2466)
    for body, params in [
        ({"businessNumbers": "1"}, {}),
        ({"fromDate": "yesterday"}, {}),
        ({"brandIds": [True]}, {}),
        ({}, {"sortOrder": 2}),
        ({}, {"pageSize": "ten"}),
    ]:
        assert_error(metrics(api, number, body, **params), 400, 400)
    assert_error(api.post("/v1/competitors/review/metrics", json={}), 400, 400)
    assert_error(metrics(api, 31337), 404, 1011)
    assert_error(metrics(api, seeded["account_number"], {"businessNumbers": [31337]}), 404, 1011)
