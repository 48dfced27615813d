"""Fixtures of the sandbox tests: a live server, seeded partner accounts and an HTTP helper.

Every test talks to the sandbox over real HTTP (pytest-django's live server), as the portal's
client does; the ORM is only used to arrange state or to look at what the sandbox stored.
"""

from __future__ import annotations

import datetime

import pytest
import requests
from django.utils import timezone

from sandbox.models import Business, PartnerAccount
from sandbox.seeding import seed_partner

# Tests that talk to the live server commit what they write, so the database is flushed after
# each of them. Limiting the flush to the sandbox's tables (and skipping the post_migrate
# signal that would recreate every app's permissions) makes that several times cheaper; the
# sandbox's endpoints use no other app's models.
LIVE_DB = pytest.mark.django_db(transaction=True, available_apps=["sandbox"])

KEY_A = "sandbox-test-key-a"
KEY_B = "sandbox-test-key-b"
LOCATIONS = 20
_MISSING = object()


class Api:
    """requests against the sandbox base URL with a partner key in ``x-api-key``.

    One connection per request: on a kept-alive connection Django's test server answers in
    two small writes that Nagle's algorithm and delayed ACKs hold back ~40 ms each time.
    """

    def __init__(self, base_url: str, api_key: str | None) -> None:
        self.base_url = base_url
        self.api_key = api_key

    def request(self, method: str, path: str, *, key=_MISSING, headers=None, **kwargs):
        key = self.api_key if key is _MISSING else key
        sent = {} if key is None else {"x-api-key": key}
        sent.update(headers or {})
        return requests.request(method, self.base_url + path, headers=sent, timeout=30, **kwargs)

    def get(self, path: str, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs):
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.request("DELETE", path, **kwargs)


def assert_error(response, http_status: int, code: int) -> dict:
    assert response.status_code == http_status, response.text
    body = response.json()
    assert set(body) == {"code", "message"}, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return body


# The live server must read what a test wrote, so these fixtures use committed transactions
# (transactional_db) rather than a transaction rolled back at the end of the test.
@pytest.fixture
def sandbox_url(live_server, transactional_db) -> str:
    return f"{live_server.url}/sandbox"


@pytest.fixture
def seeded(transactional_db) -> dict:
    return seed_partner(api_key=KEY_A, locations=LOCATIONS, seed=11, status_step_seconds=0)


@pytest.fixture
def seeded_b(transactional_db) -> dict:
    return seed_partner(api_key=KEY_B, locations=5, seed=12)


@pytest.fixture
def api(sandbox_url, seeded) -> Api:
    return Api(sandbox_url, KEY_A)


@pytest.fixture
def partner(seeded) -> PartnerAccount:
    return PartnerAccount.objects.get(account_number=seeded["account_number"])


@pytest.fixture
def location(seeded) -> Business:
    """An active enterprise location (never an SMB under a reseller)."""
    return (
        Business.objects.filter(
            number__in=seeded["location_numbers"], status="active", parent__type__startswith="Ent"
        )
        .order_by("number")
        .first()
    )


@pytest.fixture
def enterprise(seeded) -> Business:
    return Business.objects.get(number=seeded["enterprise_ids"][0])


def us_date(day: datetime.date) -> str:
    return day.strftime("%m/%d/%Y")


def today() -> datetime.date:
    return timezone.localdate()


def valid_listing(name: str = "Harbor Dental - Austin") -> dict:
    """A create-listing body with every top-level object of the spec, valid in every rule."""
    nine, five = 9 * 3600, 17 * 3600
    return {
        "businessInfo": {
            "name": name,
            "phone": "(512) 555-0147",
            "websiteUrl": "https://www.harbordental.example",
            "emailId": "hello@harbordental.example",
            "isAddressHidden": False,
            "isServiceAreaProvider": False,
            "mainBusinessDescription": "Family dentistry.",
            "serviceAreas": [{"description": "Austin"}],
            "location": {
                "address1": "100 Congress Avenue",
                "address2": "Suite 200",
                "city": "Austin",
                "state": "TX",
                "zip": 78701,
                "countryCode": "US",
            },
        },
        "additionalInfo": {
            "establishedYear": "1998",
            "timezone": "America/Chicago",
            "languages": ["English", "Spanish"],
            "hoursOfOperations": [
                {"day": day, "isOpen": 1, "workingHours": [{"startHour": nine, "endHour": five}]}
                for day in range(5)
            ]
            + [{"day": 6, "isOpen": 0, "workingHours": []}],
            "wholeWeekOperating": 0,
            "businessStatus": "Open",
            "paymentTypes": ["Cash", "Credit Card"],
            "keywords": "dentist, austin",
        },
        "media": {"logoUrl": "https://cdn.example.com/logo.png"},
        "optOut": {"profileListingOptOut": False},
        "covidInfo": {"postDescription": "Open as usual"},
        "engineListing": {"primaryCategoryEngine": "Dentist", "engineCategories": ["Dentist"]},
        "internalListing": {"description": "", "category": "Dentist"},
        "socialListing": {"socialDescription": "Smiles", "categories": ["Dentist"]},
        "thirdPartyListing": {"thirdPartyCategory": "Dentist", "thirdPartySubCategories": []},
        "profileListing": {
            "primaryCategoryProfile": "Dentist",
            "additionalCategories": ["Orthodontist"],
        },
        "mapsListing": {"primaryCategory": "Health.Dentist", "additionalCategories": []},
        "socialProfileURLs": {"socialProfileUrl": "https://social.example.com/harbordental"},
        "healthcare": {"doctorCategories": ["Dentistry > General Dentistry"], "isProvider": True},
    }
