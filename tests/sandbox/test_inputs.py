"""Input that no client should send still gets a 4xx with the provider's error body, never a
500: oversized ids, non-ASCII digits, NUL characters, deep nesting, over-long names."""

from __future__ import annotations

from sandbox.models import Listing
from tests.sandbox.conftest import LIVE_DB, assert_error, valid_listing

pytestmark = LIVE_DB


def test_numbers_out_of_range_or_not_ascii(api, seeded):
    account = seeded["account_number"]
    for pid in ("9" * 19, "١٢٣", "-5", "1e3", " "):
        assert_error(api.get("/v1/business/child/all", params={"pid": pid}), 400, 400)
    huge = 2**70
    response = api.post(
        f"/v1/review/report/count-by-rating/{account}", json={"businessNumbers": [huge]}
    )
    assert_error(response, 400, 400)
    response = api.post(
        "/v1/competitors/review/metrics",
        json={"competitorLocationIds": [str(huge)]},
        headers={"x-business-number": str(account)},
    )
    assert_error(response, 400, 400)
    survey = f"/v1/survey/ext/list/responses/{'9' * 30}"
    assert_error(api.post(survey, params={"businessNumber": account}, json={}), 400, 1315)


def test_nul_characters_are_refused(api, seeded, location):
    assert_error(api.get("/v1/subscriptions/unsubscribe/a%00b", params={"businessId": 1}), 400, 400)
    body = valid_listing("Nul\u0000Name")
    assert_error(api.post(f"/v1/listing/{location.number}/create", json=body), 400, 400)
    mapping = {"Region\u0000": "West"}
    path = f"/v1/business/business-hierarchy/location/update-mapping/{location.number}"
    assert_error(api.post(path, json=mapping), 400, 400)


def test_deeply_nested_json(api, location):
    deep = "[" * 100_000 + "]" * 100_000
    response = api.post(f"/v1/business/{location.number}/upload/media", data=deep)
    assert_error(response, 400, 400)


def test_business_name_at_most_1000_characters(api, location):
    assert api.post(f"/v1/listing/{location.number}/create", json=valid_listing("N" * 1000)).ok
    long_name = valid_listing("N" * 1001)
    assert_error(api.post(f"/v1/listing/{location.number}/create", json=long_name), 400, 400)
    assert Listing.objects.get(location=location).payload["businessInfo"]["name"] == "N" * 1000


def test_long_urls_are_stored(api, location, seeded):
    url = "https://cdn.example.com/" + "a" * 3000 + ".jpg"
    item = {"url": url, "mediaCategory": "EXTERIOR", "mediaFormat": "PHOTO"}
    response = api.post(f"/v1/business/{location.number}/upload/media", json={"media": [item]})
    assert response.status_code == 200
    hook = {"webhookUrl": "https://h.example.com/" + "b" * 3000, "eventName": "LISTING_UPDATED"}
    response = api.post(
        "/v1/subscriptions/subscribe", params={"businessId": seeded["account_number"]}, json=hook
    )
    assert response.status_code == 200
