"""Competitive ranking of one enterprise against its own competitors: picked on the page (an
enterprise by default, kept in the query string) and in the API, asked of the sandbox over
the report window, and checked against what the sandbox holds."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Business, Role
from accounts.tokens import api_token_create
from portal.tenancy import tenant_scope
from reviews_app.models import CompetitiveRanking
from reviews_app.services import report_window
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from sandbox.tree import subtree_locations
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

KEY = "ranking-enterprises-partner-key"


def page_url(reseller, query=""):
    return reverse("competitive_ranking", args=[reseller.slug]) + query


def api_url(reseller):
    return reverse("api_competitive_ranking", args=[reseller.slug])


def chart_labels(page):
    return re.findall(r'class="chart-label">([^<]*)</text>', page)


def expected_of(enterprise: sandbox.Business) -> dict:
    """What the provider's ranking of `enterprise` holds over the report window: its own
    locations' reviews, and the competitor brands the enterprise owns."""
    start, end = report_window()
    own = sandbox.Review.objects.filter(location__in=subtree_locations(enterprise),
                                        review_date__gte=start, review_date__lte=end)
    rated = own.filter(rating__gt=0)
    stars = sum(rated.values_list("rating", flat=True))
    brands = set(sandbox.CompetitorReview.objects.filter(
        competitor__brand__owner=enterprise, review_date__gte=start, review_date__lte=end)
        .values_list("competitor__brand__name", flat=True))
    return {"count": own.count(), "brands": brands,
            "rating": round(stars / rated.count(), 2) if rated.count() else 0}


@pytest.fixture
def world(live_server, settings, tmp_path, finish_live_requests):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_MAX_RETRIES = 0
    seeded = seed_partner(api_key=KEY, locations=12, seed=3, rate_limit=(1000, 1))
    reseller = ResellerFactory(name="Demo Agency", api_key=KEY,
                               account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    enterprises = list(sandbox.Business.objects.filter(number__in=seeded["enterprise_ids"])
                       .order_by("name"))
    for enterprise in enterprises:
        BusinessFactory(reseller=reseller, remote_id=enterprise.number, name=enterprise.name,
                        type=enterprise.type)
    location = BusinessFactory(reseller=reseller, remote_id=seeded["location_numbers"][-1],
                               name="A location")
    return {"reseller": reseller, "enterprises": enterprises, "location": location,
            "seeded": seeded}


def viewer_client(client, reseller):
    client.force_login(MembershipFactory(reseller=reseller, role=Role.VIEWER).user)
    return client


@pytest.mark.django_db(transaction=True)
def test_an_enterprise_is_ranked_by_default_against_its_own_competitors_only(client, world):
    reseller, enterprises = world["reseller"], world["enterprises"]
    client = viewer_client(client, reseller)
    first, other = enterprises[0], enterprises[1]
    response = client.get(page_url(reseller))
    assert response.status_code == 200
    page = response.content.decode()
    assert response.context["ranked_name"] == first.name
    assert f'<option value="{first.number}" selected>' in page
    expected = expected_of(first)
    assert expected["brands"], "the sandbox seeds competitors for every enterprise"
    rows = response.context["rows"]
    ranked = next(row for row in rows if row.is_ranked)
    assert (ranked.name, ranked.count) == (first.name, expected["count"])
    # The average leaves out the reviews without a rating (rating 0), as a star average must.
    assert ranked.rating == Decimal(str(expected["rating"]))
    assert {row.name for row in rows if not row.is_ranked} == expected["brands"]
    assert not expected["brands"] & expected_of(other)["brands"]
    assert set(chart_labels(page)) == {first.name, *expected["brands"]}
    assert "this brand" in page and "(you)" not in page

    # Another enterprise, chosen in the query string, which the measure form keeps.
    response = client.get(page_url(reseller, f"?business={other.number}&metric=count"))
    page = response.content.decode()
    assert response.context["ranked_name"] == other.name
    assert f'<option value="{other.number}" selected>' in page
    assert {row.name for row in response.context["rows"] if not row.is_ranked} == expected_of(
        other)["brands"]
    counts = [row.count for row in response.context["rows"]]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.django_db(transaction=True)
def test_the_whole_account_stays_one_choice_named_as_the_reseller(client, world):
    reseller = world["reseller"]
    client = viewer_client(client, reseller)
    account = f"?business={reseller.account_number}"
    page = client.get(page_url(reseller, account)).content.decode()
    assert "Demo Agency (whole account, all brands together)" in page
    assert "No ranking of the whole account yet" in page
    CompetitiveRanking.unscoped.create(
        reseller=reseller, remote_id=reseller.account_number, name="Northwind Digital",
        count=5, rating=Decimal("4.00"), competitors=[{"name": "Apex Dentist", "rating": 4.5}])
    page = client.get(page_url(reseller, account)).content.decode()
    assert chart_labels(page) == ["Apex Dentist", "Demo Agency"]
    assert "Northwind Digital" not in page


@pytest.mark.django_db(transaction=True)
def test_a_business_that_is_not_an_enterprise_is_a_field_error(client, world):
    reseller, location = world["reseller"], world["location"]
    client = viewer_client(client, reseller)
    response = client.get(page_url(reseller, f"?business={location.remote_id}"))
    assert response.status_code == 200
    assert "business" in response.context["form"].errors
    assert response.context["ranked_name"] == world["enterprises"][0].name


@pytest.mark.django_db(transaction=True)
def test_a_ranking_is_kept_a_few_minutes_and_a_failure_is_a_message(client, world):
    reseller, enterprises = world["reseller"], world["enterprises"]
    client = viewer_client(client, reseller)
    client.get(page_url(reseller))
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)
    page = client.get(page_url(reseller)).content.decode()
    assert "kept for a few minutes" in page and "<svg" in page
    response = client.get(page_url(reseller, f"?business={enterprises[1].number}"))
    page = response.content.decode()
    assert response.status_code == 200
    assert f"The ranking of {enterprises[1].name} could not be fetched." in page
    assert "<svg" not in page


@pytest.mark.django_db(transaction=True)
def test_the_api_ranks_an_enterprise_or_the_account(world):
    reseller, enterprises, location = world["reseller"], world["enterprises"], world["location"]
    membership = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=membership.user,
                                    name="t", role=Role.VIEWER)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    enterprise = enterprises[2]
    response = api.get(api_url(reseller), {"business_number": enterprise.number})
    assert response.status_code == 200, response.json()
    body = response.json()
    expected = expected_of(enterprise)
    assert (body["business_number"], body["account_number"], body["name"], body["count"]) == (
        enterprise.number, reseller.account_number, enterprise.name, expected["count"])
    assert {c["name"] for c in body["competitors"]} == expected["brands"]

    # Without a number: the account, as mirrored by the sync (none yet), named as the reseller.
    assert api.get(api_url(reseller)).status_code == 404
    CompetitiveRanking.unscoped.create(reseller=reseller, remote_id=reseller.account_number,
                                       name="Northwind Digital", count=3)
    body = api.get(api_url(reseller)).json()
    assert (body["business_number"], body["name"]) == (reseller.account_number, "Demo Agency")

    response = api.get(api_url(reseller), {"business_number": location.remote_id})
    assert response.status_code == 400
    assert "is a location" in response.json()["fields"]["business_number"][0]
    response = api.get(api_url(reseller), {"business_number": 123})
    assert "No business with number 123" in response.json()["fields"]["business_number"][0]
    response = api.get(api_url(reseller), {"business": enterprise.number})
    assert response.status_code == 400 and "business" in response.json()["fields"]
    assert Business.unscoped.filter(reseller=reseller).count() == len(enterprises) + 1
