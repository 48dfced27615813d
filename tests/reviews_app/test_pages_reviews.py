"""The reviews tab of a business: review count by rating as a bar chart, asked of the provider
for a date range and sources, cached briefly, with a clear message when the provider fails."""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, Role
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

KEY = "reviews-pages-partner-key"


def url(business, slug=None):
    return reverse("business_reviews", args=[slug or business.reseller.slug,
                                             business.remote_id])


@pytest.fixture
def unreachable(settings, tmp_path):
    """A reseller whose provider does not answer (a closed local port)."""
    settings.PROVIDER_MAX_RETRIES = 0
    settings.DATA_DIR = tmp_path
    return ResellerFactory(provider_base_url="http://127.0.0.1:9/sandbox")


@pytest.mark.django_db
def test_the_default_range_is_the_last_twelve_months_and_all_sources(member_client,
                                                                    unreachable):
    client, _ = member_client(Role.VIEWER, reseller=unreachable)
    business = BusinessFactory(reseller=unreachable)
    response = client.get(url(business))
    assert response.status_code == 200
    form = response.context["form"]
    today = timezone.localdate()
    assert form.cleaned_data["date_to"] == today
    assert (today - form.cleaned_data["date_from"]).days in (364, 365)
    assert form.cleaned_data["sources"] == []
    page = response.content.decode()
    for alias in ("profile", "maps", "engine", "social", "provider", "directory"):
        assert f'value="{alias}"' in page


@pytest.mark.django_db
def test_a_provider_failure_is_a_clear_message_not_an_error_page(member_client, unreachable):
    client, _ = member_client(Role.VIEWER, reseller=unreachable)
    response = client.get(url(BusinessFactory(reseller=unreachable)))
    assert response.status_code == 200
    page = response.content.decode()
    assert "The review counts could not be fetched." in page
    assert "did not answer properly" in page
    assert "<svg" not in page


@pytest.mark.parametrize("query,field,message", [
    ("?date_from=2026-05-01&date_to=2026-04-01", "date_to", "on or after the start date"),
    ("?date_from=yesterday", "date_from", "Enter a valid date"),
    ("?date_from=", "date_from", "This field is required"),
    ("?sources=profile&sources=carrier-pigeon", "sources", "Select a valid choice"),
])
@pytest.mark.django_db
def test_invalid_filters_are_reported_on_their_field_and_nothing_is_asked(
        member_client, unreachable, query, field, message):
    client, _ = member_client(Role.VIEWER, reseller=unreachable)
    response = client.get(url(BusinessFactory(reseller=unreachable)) + query)
    form = response.context["form"]
    assert any(message in error for error in form.errors[field])
    assert "provider_error" not in response.context  # the provider was not asked


@pytest.mark.django_db
def test_another_tenants_member_and_business_get_404(member_client):
    foreign = BusinessFactory()
    client, membership = member_client(Role.OWNER)
    assert client.get(url(foreign)).status_code == 404
    assert client.get(url(foreign, slug=membership.reseller.slug)).status_code == 404


@pytest.mark.django_db
def test_a_subtree_member_sees_only_their_businesses(member_client, unreachable):
    root = BusinessFactory(reseller=unreachable, type=Business.Type.ENTERPRISE_LOCATION,
                           tree_path="/5/")
    mine = BusinessFactory(reseller=unreachable, tree_path="/5/6/")
    elsewhere = BusinessFactory(reseller=unreachable, tree_path="/7/8/")
    client, _ = member_client(Role.VIEWER, reseller=unreachable, limited_to=root)
    assert client.get(url(mine)).status_code == 200
    assert client.get(url(elsewhere)).status_code == 404


@pytest.mark.django_db
def test_a_viewer_cannot_post(member_client, unreachable):
    client, _ = member_client(Role.VIEWER, reseller=unreachable)
    business = BusinessFactory(reseller=unreachable)
    assert client.post(url(business)).status_code == 403
    assert 'method="post"' not in client.get(url(business)).content.decode().split(
        "</header>", 1)[1]


@pytest.mark.django_db
def test_the_page_makes_a_fixed_number_of_queries(member_client, unreachable):
    client, _ = member_client(Role.VIEWER, reseller=unreachable)
    business = BusinessFactory(reseller=unreachable)
    with CaptureQueriesContext(connection) as queries:
        client.get(url(business))
    assert len(queries) == 6  # with the bell's unread count


# -- against the sandbox ------------------------------------------------------------------------

def expected_counts(number, start, end, sources=()):
    reviews = sandbox.Review.objects.filter(location__number=number, review_date__gte=start,
                                            review_date__lte=end)
    if sources:
        reviews = reviews.filter(source__in=sources)
    return {rating: reviews.filter(rating=rating).count() for rating in range(6)}


def chart_values(page):
    """Rating -> count, read from the chart's accessible description."""
    label = re.search(r'<svg class="chart" role="img" aria-label="([^"]*)"', page).group(1)
    return {int(r): int(c) for r, c in re.findall(r"(\d) stars? (\d+)", label)}


@pytest.mark.django_db(transaction=True)
def test_the_chart_shows_the_sandboxs_counts_and_is_cached_briefly(
        live_server, client, settings, tmp_path, finish_live_requests):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_MAX_RETRIES = 0
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    number = max(seeded["location_numbers"],
                 key=lambda n: sandbox.Review.objects.filter(location__number=n).count())
    business = BusinessFactory(reseller=reseller, remote_id=number)
    client.force_login(MembershipFactory(reseller=reseller, role=Role.VIEWER).user)

    start, end = dt.date.today() - dt.timedelta(days=730), dt.date.today()
    query = f"?date_from={start}&date_to={end}"
    expected = expected_counts(number, start, end)
    assert sum(expected.values()) > 0
    page = client.get(url(business) + query).content.decode()
    assert chart_values(page) == {r: expected[r] for r in range(1, 6)}
    assert f'<span class="figure">{sum(expected.values())}</span>' in page

    only = ["profile", "maps"]
    expected_some = expected_counts(number, start, end, only)
    page = client.get(url(business) + query + "&sources=profile&sources=maps").content.decode()
    assert chart_values(page) == {r: expected_some[r] for r in range(1, 6)}
    assert "Business profile, Maps" in page

    # The same question again within minutes is answered from the cache: revoking the key
    # does not show, while a new question reaches the provider and reports the failure.
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)
    page = client.get(url(business) + query).content.decode()
    assert chart_values(page) == {r: expected[r] for r in range(1, 6)}
    assert "kept for a few minutes" in page
    page = client.get(url(business) + query + "&sources=social").content.decode()
    assert "The review counts could not be fetched." in page
    assert "API key" in page
