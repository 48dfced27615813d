"""Category list (operation 13)."""

from __future__ import annotations

from sandbox.catalog import CATEGORY_COUNTRIES, CATEGORY_SOURCES
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB


def categories(api, number, **params):
    return api.get(f"/v1/listing/{number}/category-list", params=params)


def test_every_source_and_country_has_categories(api, location):
    for source in CATEGORY_SOURCES:
        for country in ("US", "NZ", "UK"):
            response = categories(api, location.number, sourceName=source, countryCode=country)
            assert response.status_code == 200
            entries = response.json()
            assert entries
            for entry in entries:
                assert isinstance(entry["id"], str) and isinstance(entry["name"], str)
                assert ("primary" in entry) == (source == "VENDOR")


def test_catalogue_details(api, seeded, location):
    vendor = categories(api, location.number, sourceName="VENDOR", countryCode="CA").json()
    assert {entry["primary"] for entry in vendor} == {True, False}
    maps = categories(api, location.number, sourceName="MAPS", countryCode="US").json()
    assert all("." in entry["id"] for entry in maps)
    health = categories(api, location.number, sourceName="HEALTHCARE", countryCode="US").json()
    assert all(" > " in entry["name"] for entry in health)
    for country in CATEGORY_COUNTRIES:
        response = categories(api, location.number, sourceName="PROFILE", countryCode=country)
        assert response.status_code == 200 and response.json()
    # Any business of the account may ask, not only a location.
    response = categories(api, seeded["account_number"], sourceName="ENGINE", countryCode="FR")
    assert response.status_code == 200 and response.json()


def test_errors_are_http_400_with_body_code_400(api, location):
    for params, message in [
        ({"countryCode": "US"}, "Source name not found"),
        ({"sourceName": "engine", "countryCode": "US"}, "Invalid Source Name"),
        ({"sourceName": "YELLOW", "countryCode": "US"}, "Invalid Source Name"),
        ({"sourceName": "ENGINE"}, "Country code not found"),
        ({"sourceName": "ENGINE", "countryCode": "DE"}, "Invalid country code"),
    ]:
        body = assert_error(categories(api, location.number, **params), 400, 400)
        assert body["message"] == message
    response = categories(api, 555, sourceName="ENGINE", countryCode="US")
    assert_error(response, 404, 1011)
