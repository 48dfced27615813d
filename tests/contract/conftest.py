"""Contract tests: the real ``ProviderClient`` against the real sandbox, over real HTTP.

Nothing is mocked on either side: the client builds its requests (paths, parameter and header
names, bodies), the sandbox served by pytest-django's live server parses them, and the client
parses the replies into ``provider.types``. The ORM is used only to arrange state (seeding) and
to look at what the sandbox stored, so that every test checks both what the client returned and
what the sandbox did with the request.

Every test commits what it writes (the live server runs in another thread), so the sandbox's
tables are flushed after each test and each test seeds its own small partner account: seeding
8 locations takes ~60 ms, and a fixture cannot outlive the flush of a transactional test.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests
from django.db.models import Count
from django.utils import timezone

from provider import ProviderClient
from provider.types import CustomFieldSpec, MediaUpload
from sandbox.models import (
    Business,
    CustomField,
    HierarchyMapping,
    ListingSubmission,
    MediaItem,
    PartnerAccount,
    Question,
    RateLimitCounter,
    Subscription,
    Survey,
)
from sandbox.seeding import seed_partner

# The live server's writes must be visible to the test and the other way round: committed
# transactions, flushed after each test. Only the sandbox's tables are flushed (its endpoints
# use no other app's models), which makes the flush several times cheaper.
LIVE_DB = pytest.mark.django_db(transaction=True, available_apps=["sandbox"])

KEY = "contract-test-key-a"
OTHER_KEY = "contract-test-key-b"
LOCATIONS = 8
SEED = 9
# Seeded business numbers have 15 digits; an 18-digit number is valid input that exists nowhere.
UNKNOWN_NUMBER = 123_456_789_012_345_678


class OneConnectionPerRequest(requests.Session):
    """A ``requests.Session`` that opens a new connection for every request.

    Django's live server answers a kept-alive connection in two small writes that Nagle's
    algorithm and delayed ACKs hold back ~40 ms each time; a new connection per request avoids
    that (the sandbox's own tests do the same). Passed to ``ProviderClient(session=...)``, so
    the client's transport is unchanged. ``test_smoke.py`` covers the client's own pooled session.
    """

    def __init__(self) -> None:
        super().__init__()
        # The server closes its end after replying, so none of its threads waits for a next
        # request on a connection the client holds until garbage collection (an error's
        # traceback keeps the reply, and with it the socket, alive).
        self.headers["Connection"] = "close"

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        with requests.Session() as fresh:
            fresh.headers.update(self.headers)
            return fresh.request(*args, **kwargs)


@dataclasses.dataclass(frozen=True)
class Ids:
    """Numbers of the seeded partner that the tests address."""

    partner_id: int
    account: int  # the reseller's own business (x-business-number, businessId of the account)
    sub_reseller: int
    enterprise: int  # the enterprise with the most locations
    location: int  # an active location of that enterprise
    locations: tuple[int, ...]
    survey: int  # the survey with the most responses
    subscription: str

    def unknown(self) -> Ids:
        """The same request arguments, every business number replaced by an unknown one."""
        return dataclasses.replace(
            self,
            account=UNKNOWN_NUMBER,
            sub_reseller=UNKNOWN_NUMBER,
            enterprise=UNKNOWN_NUMBER,
            location=UNKNOWN_NUMBER,
            locations=(UNKNOWN_NUMBER,),
        )


def today() -> datetime.date:
    return timezone.localdate()


def wide_range() -> tuple[datetime.date, datetime.date]:
    """Covers everything the seeder writes (reviews of the last two years)."""
    return today() - datetime.timedelta(days=800), today()


def listing_body(
    name: str = "Contract Dental - Austin", *, additional_categories: list[str] | None = None
) -> dict[str, Any]:
    """A create-listing body valid in every rule of the sandbox."""
    nine, five = 9 * 3600, 17 * 3600
    return {
        "businessInfo": {
            "name": name,
            "phone": "(512) 555-0147",
            "websiteUrl": "https://www.contract-dental.example",
            "emailId": "hello@contract-dental.example",
            "location": {
                "address1": "100 Congress Avenue",
                "city": "Austin",
                "state": "TX",
                "zip": 78701,
                "countryCode": "US",
            },
        },
        "additionalInfo": {
            "businessStatus": "Open",
            "timezone": "America/Chicago",
            "hoursOfOperations": [
                {"day": day, "isOpen": 1, "workingHours": [{"startHour": nine, "endHour": five}]}
                for day in range(5)
            ],
        },
        "optOut": {"profileListingOptOut": False},
        "profileListing": {
            "primaryCategoryProfile": "Dentist",
            "additionalCategories": (
                ["Orthodontist"] if additional_categories is None else additional_categories
            ),
        },
    }


# -- every operation, called with valid arguments ------------------------------------------------

Operation = Callable[[ProviderClient, Ids], object]


def _window() -> dict[str, datetime.date]:
    start, end = wide_range()
    return {"from_date": start, "to_date": end}


def _span() -> dict[str, datetime.date]:
    start, end = wide_range()
    return {"start_date": start, "end_date": end}


OPERATIONS: dict[str, Operation] = {
    "create_listing": lambda c, ids: c.create_listing(ids.location, listing_body()),
    "competitor_review_metrics": lambda c, ids: c.competitor_review_metrics(
        ids.account, **_window()
    ),
    "survey_responses": lambda c, ids: c.survey_responses(
        ids.survey, business_number=ids.account, **_span()
    ),
    "add_media": lambda c, ids: c.add_media(
        ids.location, [MediaUpload("https://cdn.example.com/front.jpg", "EXTERIOR", "PHOTO")]
    ),
    "get_media": lambda c, ids: c.get_media(ids.location),
    "create_custom_field": lambda c, ids: c.create_custom_field(
        ids.account, CustomFieldSpec("Contract Field", "TEXT")
    ),
    "review_count_by_rating": lambda c, ids: c.review_count_by_rating(ids.account, **_window()),
    "competitive_ranking": lambda c, ids: c.competitive_ranking(ids.enterprise, **_span()),
    "update_hierarchy": lambda c, ids: c.update_hierarchy(ids.location, {"Region": "South"}),
    "get_qna": lambda c, ids: c.get_qna(ids.account),
    "delete_all_qna": lambda c, ids: c.delete_all_qna(ids.location),
    "location_status": lambda c, ids: c.location_status(ids.location),
    "category_list": lambda c, ids: c.category_list(
        ids.location, source_name="ENGINE", country_code="US"
    ),
    "ai_search_configuration": lambda c, ids: c.ai_search_configuration(ids.account),
    "child_businesses": lambda c, ids: c.child_businesses(ids.account),
    "subscribe": lambda c, ids: c.subscribe(
        ids.account,
        webhook_url="https://hooks.example.com/contract",
        emails=["ops@example.com"],
        event_name="LISTING_UPDATED",
    ),
    "unsubscribe": lambda c, ids: c.unsubscribe(ids.subscription, account_number=ids.account),
}


def stored_counts(partner_id: int) -> dict[str, int]:
    """Rows the writing operations add or remove, to check that a refused call changed nothing."""
    models = {
        "listing submissions": ListingSubmission,
        "media": MediaItem,
        "custom fields": CustomField,
        "hierarchy mappings": HierarchyMapping,
        "questions": Question,
        "subscriptions": Subscription,
    }
    return {
        name: model.objects.filter(partner_id=partner_id).count() for name, model in models.items()
    }


def requests_seen(partner_id: int) -> int:
    """Requests the sandbox counted for the partner (every request with a valid key counts)."""
    return sum(
        RateLimitCounter.objects.filter(partner_id=partner_id).values_list("hits", flat=True)
    )


def exhaust_rate_limit(partner_id: int) -> None:
    """Fill the partner's current and next fixed windows so that every request gets a 429."""
    partner = PartnerAccount.objects.get(pk=partner_id)
    window = partner.rate_limit_window_seconds
    current = int(time.time() // window)
    for index in (current, current + 1):
        RateLimitCounter.objects.update_or_create(
            partner=partner, window_index=index, defaults={"hits": partner.rate_limit_count}
        )


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture
def sandbox_url(live_server) -> str:
    return f"{live_server.url}/sandbox"


@pytest.fixture(params=["neutral", "provider"])
def dialect(request) -> str:
    """Every contract test runs twice: against an account that speaks the neutral names, and
    against one that speaks only the provider's own, with the client in the same dialect."""
    return request.param


@pytest.fixture
def seeded(transactional_db, dialect) -> dict[str, Any]:
    # status_step_seconds keeps the default (60 s): a create leaves its sites Submitted.
    return seed_partner(api_key=KEY, locations=LOCATIONS, seed=SEED, dialect=dialect)


@pytest.fixture
def ids(seeded) -> Ids:
    account = seeded["account_number"]
    enterprise = (
        Business.objects.filter(number__in=seeded["enterprise_ids"])
        .annotate(n=Count("children"))
        .order_by("-n", "number")
        .first()
    )
    location = (
        Business.objects.filter(parent=enterprise, status="active").order_by("number").first()
    )
    assert location is not None, "the seed must give the enterprise an active location"
    survey = (
        Survey.objects.filter(partner__account_number=account)
        .annotate(n=Count("responses"))
        .order_by("-n", "survey_id")
        .first()
    )
    assert survey.n >= 3, "the seed must give a survey several responses"
    return Ids(
        partner_id=PartnerAccount.objects.get(account_number=account).pk,
        account=account,
        sub_reseller=seeded["sub_reseller_ids"][0],
        enterprise=enterprise.number,
        location=location.number,
        locations=tuple(seeded["location_numbers"]),
        survey=survey.survey_id,
        subscription=seeded["subscription_ids"][0],
    )


@pytest.fixture
def make_client(sandbox_url, dialect) -> Callable[..., ProviderClient]:
    """``make_client(key=KEY, **options)``: a client of the sandbox, no retries by default."""
    made: list[ProviderClient] = []

    def make(key: str = KEY, **options: Any) -> ProviderClient:
        options.setdefault("max_retries", 0)
        options.setdefault("session", OneConnectionPerRequest())
        options.setdefault("timeout", (5, 30))
        options.setdefault("dialect", dialect)
        client = ProviderClient(sandbox_url, key, **options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(make_client, seeded) -> ProviderClient:
    return make_client()
