"""Create listing (operation 1): storing, the fixed state, every rule code, bad input."""

from __future__ import annotations

import copy
import datetime

from sandbox.models import Business, Listing, ListingSubmission
from tests.sandbox.conftest import LIVE_DB, assert_error, today, us_date, valid_listing

pytestmark = LIVE_DB


def create(api, number, body):
    return api.post(f"/v1/listing/{number}/create", json=body)


def test_success_is_200_with_an_empty_body(api, location):
    response = create(api, location.number, valid_listing())
    assert response.status_code == 200
    assert response.content == b""


def test_success_stores_the_listing_and_updates_the_business(api, location):
    create(api, location.number, valid_listing("Renamed Dental"))
    listing = Listing.objects.get(location=location)
    assert listing.fixed and listing.version >= 1
    assert listing.payload["businessInfo"]["name"] == "Renamed Dental"
    location.refresh_from_db()
    assert (location.name, location.city, location.zip) == ("Renamed Dental", "Austin", "78701")
    report = api.get("/v1/listing/status/location", params={"businessNumber": location.number})
    assert report.json()["businessName"] == "Renamed Dental"
    assert report.json()["locationStatus"] == "Published"


def test_partial_update_keeps_the_fields_it_leaves_out(api, location):
    create(api, location.number, valid_listing())
    assert create(api, location.number, {"businessInfo": {"name": "Only Name"}}).status_code == 200
    payload = Listing.objects.get(location=location).payload
    assert payload["businessInfo"]["name"] == "Only Name"
    assert payload["businessInfo"]["phone"] == "(512) 555-0147"
    assert payload["additionalInfo"]["businessStatus"] == "Open"


def test_every_request_is_kept_for_support(api, location):
    create(api, location.number, valid_listing())
    api.post(f"/v1/listing/{location.number}/create", data="{not json")
    bad = valid_listing()
    bad["additionalInfo"]["businessStatus"] = "Temporarily Closed"
    create(api, location.number, bad)
    kept = list(ListingSubmission.objects.filter(location=location).order_by("received_at", "id"))
    assert [(k.accepted, k.error_code) for k in kept] == [(True, None), (False, 400), (False, 2511)]
    assert kept[1].body == "{not json"


# -------------------------------------------------------------------------- rule table
def _food(category: str, **links: str) -> dict:
    body = valid_listing()
    body["profileListing"] = {"primaryCategoryProfile": category, **links}
    return body


def _with(section: str, **fields) -> dict:
    body = valid_listing()
    body.setdefault(section, {}).update(fields)
    return body


def _rule_cases() -> list[tuple[int, dict]]:
    yesterday = today() - datetime.timedelta(days=1)
    tomorrow = today() + datetime.timedelta(days=1)
    nine = [f"Category {i}" for i in range(10)]
    return [
        (2296, _food("Restaurant", foodDelivery="not a link")),
        (2297, _food("Restaurant", foodTakeout="ftp:/broken")),
        (2290, _food("Dentist", foodDelivery="https://order.example.com/harbor")),
        (
            2503,
            _with("mapsListing", primaryCategory="Food.Cafe", additionalCategories=["Food.Cafe"]),
        ),
        (2276, _with("profileListing", additionalCategories=nine)),
        (2277, _with("profileListing", additionalCategories=["Orthodontist", "orthodontist"])),
        (2278, _with("profileListing", additionalCategories=["Dentist"])),
        (2162, _with("additionalInfo", reopenDate=us_date(yesterday))),
        (2513, _with("additionalInfo", openedOnDate=us_date(tomorrow))),
        (2514, _with("additionalInfo", businessStatus="Opening Soon")),
    ]


def test_rule_codes(api, location):
    for code, body in _rule_cases():
        response = create(api, location.number, body)
        assert response.status_code == 400 and response.json()["code"] == code, (
            code,
            response.text,
        )
    assert not Listing.objects.filter(location=location, version__gt=1).exists()  # none accepted
    # The first failing rule in the table's order wins.
    body = _food("Dentist", foodDelivery="not a link")
    body["additionalInfo"]["businessStatus"] = "Opening Soon"  # 2514 too, later in the table
    assert_error(create(api, location.number, body), 400, 2296)


def test_fixed_listing_rejects_status_and_opening_soon_date_changes(api, location):
    Listing.objects.filter(location=location).delete()  # start from a location never published
    opening = us_date(today() + datetime.timedelta(days=30))
    first = _with("additionalInfo", businessStatus="Opening Soon", openingSoonDate=opening)
    assert create(api, location.number, first).status_code == 200

    changed_status = copy.deepcopy(first)
    changed_status["additionalInfo"]["businessStatus"] = "Open"
    assert_error(create(api, location.number, changed_status), 400, 2511)

    changed_date = copy.deepcopy(first)
    changed_date["additionalInfo"]["openingSoonDate"] = us_date(today() + datetime.timedelta(60))
    assert_error(create(api, location.number, changed_date), 400, 2512)

    # The same values again, and other fields, can still be updated.
    same = copy.deepcopy(first)
    same["businessInfo"]["name"] = "Still Opening Soon"
    assert create(api, location.number, same).status_code == 200


def test_a_listing_never_accepted_is_not_fixed(api, location):
    Listing.objects.filter(location=location).delete()
    rejected = _with("additionalInfo", businessStatus="Opening Soon")  # 2514
    assert_error(create(api, location.number, rejected), 400, 2514)
    changed = _with("additionalInfo", businessStatus="Temporarily Closed")
    assert create(api, location.number, changed).status_code == 200


# --------------------------------------------------------------------------- bad input
def test_bad_input_is_400_naming_the_field(api, location):
    path = f"/v1/listing/{location.number}/create"
    malformed = api.post(path, data="{", headers={"Content-Type": "application/json"})
    assert "Malformed JSON" in assert_error(malformed, 400, 400)["message"]
    assert_error(api.post(path), 400, 400)
    for body, field in [
        ([], ""),
        ({}, "businessInfo"),
        ({"businessInfo": {"name": 5}}, "businessInfo.name"),
        ({"businessInfo": {"name": "X", "phone": "5551234"}}, "businessInfo.phone"),
        ({"businessInfo": {"name": "X"}, "additionalInfo": {"wholeWeekOperating": "0"}}, "whole"),
    ]:
        assert field in assert_error(create(api, location.number, body), 400, 400)["message"]


def test_business_errors(api, seeded):
    assert_error(create(api, 123456789012345, valid_listing()), 404, 1011)
    assert_error(create(api, "abc", valid_listing()), 400, 400)
    for number in (seeded["account_number"], seeded["enterprise_ids"][0]):
        assert_error(create(api, number, valid_listing()), 400, 1043)
    assert not Listing.objects.filter(location__number=seeded["account_number"]).exists()


def test_seeded_published_listings_are_valid_bodies(seeded):
    from sandbox.listing_rules import validate_listing

    listings = Listing.objects.filter(location__number__in=seeded["location_numbers"])
    assert listings.exists()
    for listing in listings:
        validate_listing(listing.payload, previous=None, today=today())
    assert Business.objects.filter(number__in=seeded["location_numbers"]).count() == 20
