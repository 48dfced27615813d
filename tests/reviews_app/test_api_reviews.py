"""The reviews API: review counts (live), competitor metrics, competitive ranking, surveys and
their responses; tenancy, roles, query counts, validation and idempotency."""

import datetime as dt
import itertools
from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from reviews_app.models import CompetitiveRanking, Survey, SurveyResponse
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory
from tests.reviews_app.test_pages_competitors import add_metric
from tests.reviews_app.test_pages_reviews import expected_counts
from tests.reviews_app.test_pages_surveys import EVERY_TYPE, add_response, add_survey

_ids = itertools.count(50_000)
ACCOUNT_WIDE = ["api_competitor_metrics", "api_competitive_ranking", "api_surveys"]


def url(name, reseller, *args):
    return reverse(name, args=[reseller.slug, *args])


def add_ranking(reseller, **extra):
    return CompetitiveRanking.unscoped.create(
        reseller=reseller, remote_id=reseller.account_number, name="Harbor Cafe", count=10,
        positive_count=7, neutral_count=2, negative_count=1, rating=Decimal("4.10"),
        competitors=[{"name": "Bean Co", "rating": 3.9}], **extra)


@pytest.fixture
def viewer(api_member):
    client, membership = api_member(Role.VIEWER)
    return client, membership.reseller


# -- every endpoint: anonymous, other tenant, subtree member -------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("name", ACCOUNT_WIDE)
def test_anonymous_gets_401_and_other_tenants_member_404(api_member, name):
    reseller = ResellerFactory()
    assert APIClient().get(url(name, reseller)).status_code == 401
    client, _ = api_member(Role.OWNER)
    response = client.get(url(name, reseller))
    assert response.status_code == 404 and response.json()["code"] == "not_found"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ACCOUNT_WIDE)
def test_a_subtree_member_is_refused_account_wide_data(api_member, name):
    root = BusinessFactory(tree_path="/1/")
    client, _ = api_member(Role.MANAGER, reseller=root.reseller, limited_to=root)
    assert client.get(url(name, root.reseller)).status_code == 403


# -- review counts -------------------------------------------------------------------------------

@pytest.fixture
def unreachable(settings, tmp_path):
    settings.PROVIDER_MAX_RETRIES = 0
    settings.DATA_DIR = tmp_path
    return ResellerFactory(provider_base_url="http://127.0.0.1:9/sandbox")


@pytest.mark.django_db
def test_review_counts_tenancy_and_validation(api_member, unreachable):
    business = BusinessFactory(reseller=unreachable)
    counts = url("api_review_counts", unreachable, business.remote_id)
    assert APIClient().get(counts).status_code == 401
    client, membership = api_member(Role.VIEWER)
    assert client.get(counts).status_code == 404
    own = BusinessFactory(reseller=membership.reseller)
    assert client.get(url("api_review_counts", membership.reseller,
                          business.remote_id)).status_code == 404
    counts = url("api_review_counts", membership.reseller, own.remote_id)
    response = client.get(counts, {"date_from": "2026-05-01", "date_to": "2026-06-01",
                                   "sources": "moon"})
    assert response.status_code == 400
    assert any(name.startswith("sources") for name in response.json()["fields"])
    response = client.get(counts, {"date_from": "2026-05-01", "date_to": "2026-01-01"})
    assert response.status_code == 400 and "date_to" in response.json()["fields"]
    response = client.get(counts, {"date_from": "not-a-date"})
    assert response.status_code == 400 and "date_from" in response.json()["fields"]


@pytest.mark.django_db
def test_review_counts_refuse_parameters_they_do_not_take_naming_them(api_member, unreachable):
    """The reply names the period `date_from`/`date_to`, and so does the query: the former
    `from`/`to` (and any misspelt parameter) are a 400, never silently ignored."""
    client, _ = api_member(Role.VIEWER, reseller=unreachable)
    counts = url("api_review_counts", unreachable, BusinessFactory(reseller=unreachable).remote_id)
    response = client.get(counts, {"from": "2026-01-01", "to": "2026-02-01"})
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert fields["from"] == ["Unknown parameter: this operation takes date_from instead."]
    assert fields["to"] == ["Unknown parameter: this operation takes date_to instead."]
    response = client.get(counts, {"date_form": "2026-01-01"})
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "date_form": ["Unknown parameter: this operation does not take it."]}
    # Valid parameters get as far as the provider (unreachable here).
    assert client.get(counts, {"date_from": "2026-01-01", "format": "json"}).status_code == 503


@pytest.mark.django_db
def test_an_unavailable_provider_is_a_503_in_the_error_shape(api_member, unreachable):
    client, _ = api_member(Role.VIEWER, reseller=unreachable)
    business = BusinessFactory(reseller=unreachable)
    response = client.get(url("api_review_counts", unreachable, business.remote_id))
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "provider_unavailable" and body["message"]


@pytest.mark.django_db(transaction=True)
def test_review_counts_come_live_from_the_sandbox(live_server, api_member, settings, tmp_path,
                                                  finish_live_requests):
    from sandbox import models as sandbox

    settings.DATA_DIR = tmp_path
    settings.PROVIDER_MAX_RETRIES = 0
    key = "reviews-api-partner-key"
    seeded = seed_partner(api_key=key, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=key, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    number = max(seeded["location_numbers"],
                 key=lambda n: sandbox.Review.objects.filter(location__number=n).count())
    business = BusinessFactory(reseller=reseller, remote_id=number)
    client, _ = api_member(Role.VIEWER, reseller=reseller)
    start, end = dt.date.today() - dt.timedelta(days=730), dt.date.today()
    expected = expected_counts(number, start, end)
    response = client.get(url("api_review_counts", reseller, number),
                          {"date_from": start, "date_to": end})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert {int(r): c for r, c in body["counts"].items() if int(r) > 0} == {
        r: expected[r] for r in range(1, 6)}
    assert body["business_number"] == business.remote_id and body["from_cache"] is False
    # The period asked is the period counted and answered, under the same names.
    assert (body["date_from"], body["date_to"]) == (start.isoformat(), end.isoformat())
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)
    response = client.get(url("api_review_counts", reseller, number),
                          {"date_from": start, "date_to": end, "sources": "social"})
    assert response.status_code in (503, 422)
    assert set(response.json()) >= {"code", "message", "fields"}


# -- competitor metrics -------------------------------------------------------------------------

@pytest.fixture
def metrics(viewer):
    client, reseller = viewer
    add_metric(reseller, "Bean Co", "Bean Co Main St", "profile", "4.20", 10)
    add_metric(reseller, "Bean Co", "Bean Co Harbor", "maps", "3.10", 40)
    add_metric(reseller, "Roast Ltd", "Roast Ltd Station", "profile", "4.90", 25)
    add_metric(reseller, "Gone", "Gone", "profile", "1.00", 1, removed_at="2026-01-01T00:00Z")
    add_metric(ResellerFactory(), "Their Brand", "Elsewhere", "profile", "2.00", 2)
    return client, reseller


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "expected"), [
    ({}, ["Bean Co Harbor", "Bean Co Main St", "Roast Ltd Station"]),
    ({"brand": "Roast Ltd"}, ["Roast Ltd Station"]),
    ({"source": "maps"}, ["Bean Co Harbor"]),
    ({"search": "main"}, ["Bean Co Main St"]),
    ({"ordering": "-reviews"}, ["Bean Co Harbor", "Roast Ltd Station", "Bean Co Main St"]),
    ({"ordering": "-rating"}, ["Roast Ltd Station", "Bean Co Main St", "Bean Co Harbor"]),
])
def test_competitor_metrics_filter_and_sort(metrics, query, expected):
    client, reseller = metrics
    body = client.get(url("api_competitor_metrics", reseller), query).json()
    assert [m["competitor_location"] for m in body["results"]] == expected


@pytest.mark.django_db
def test_an_unknown_ordering_is_a_field_error(metrics):
    client, reseller = metrics
    response = client.get(url("api_competitor_metrics", reseller), {"ordering": "id; drop"})
    assert response.status_code == 400 and "ordering" in response.json()["fields"]


@pytest.mark.django_db
def test_competitor_metrics_query_count_is_pinned(metrics, django_assert_num_queries):
    client, reseller = metrics
    for n in range(30):
        add_metric(reseller, f"Brand {n}", f"Place {n}")
    client.get(url("api_competitor_metrics", reseller))
    with django_assert_num_queries(4):
        body = client.get(url("api_competitor_metrics", reseller), {"limit": 500}).json()
    assert body["count"] == 33


@pytest.mark.django_db
def test_viewers_cannot_post_to_reads(metrics):
    client, reseller = metrics
    assert client.post(url("api_competitor_metrics", reseller), {}).status_code == 403


# -- competitive ranking ------------------------------------------------------------------------

@pytest.mark.django_db
def test_the_competitive_ranking_or_404(viewer):
    client, reseller = viewer
    response = client.get(url("api_competitive_ranking", reseller))
    assert response.status_code == 404
    add_ranking(ResellerFactory())
    assert client.get(url("api_competitive_ranking", reseller)).status_code == 404
    add_ranking(reseller)
    body = client.get(url("api_competitive_ranking", reseller)).json()
    assert body["account_number"] == reseller.account_number and body["rating"] == "4.10"
    assert body["business_number"] == reseller.account_number
    assert body["name"] == reseller.name  # the reseller's name, not the provider's record


# -- surveys ------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_surveys_list_with_a_pinned_query_count(viewer, django_assert_num_queries):
    client, reseller = viewer
    for n in range(12):
        add_survey(reseller, name=f"Survey {n:02}")
    add_survey(ResellerFactory())
    client.get(url("api_surveys", reseller))
    with django_assert_num_queries(4):
        body = client.get(url("api_surveys", reseller)).json()
    assert body["count"] == 12 and body["results"][0]["name"] == "Survey 00"


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "token_role"), [(Role.VIEWER, None),
                                                  (Role.MANAGER, Role.VIEWER)])
def test_viewers_and_read_only_tokens_cannot_add_surveys(api_member, role, token_role):
    client, membership = api_member(role, token_role=token_role)
    response = client.post(url("api_surveys", membership.reseller), {"survey_id": 5})
    assert response.status_code == 403
    assert not Survey.unscoped.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("data", "field"), [
    ({}, "survey_id"), ({"survey_id": 0}, "survey_id"), ({"survey_id": "x"}, "survey_id"),
    ({"survey_id": 9, "name": "n" * 300}, "name"), ({"survey_id": 123}, "survey_id"),
])
def test_adding_a_survey_reports_errors_on_the_field(api_member, data, field):
    client, membership = api_member(Role.MANAGER)
    Survey.unscoped.create(reseller=membership.reseller, remote_id=123)
    response = client.post(url("api_surveys", membership.reseller), data)
    assert response.status_code == 400
    assert field in response.json()["fields"]


@pytest.mark.django_db
def test_survey_responses_filter_paginate_and_stay_in_the_tenant(
        viewer, django_assert_num_queries):
    client, reseller = viewer
    survey = add_survey(reseller)
    early = add_response(survey, day=dt.date(2026, 1, 5))
    late = add_response(survey, day=dt.date(2026, 3, 5))
    theirs = add_survey(ResellerFactory())
    listing = url("api_survey_responses", reseller, survey.remote_id)
    body = client.get(listing).json()
    assert [r["response_id"] for r in body["results"]] == [late.remote_id, early.remote_id]
    body = client.get(listing, {"date_from": "2026-02-01"}).json()
    assert [r["response_id"] for r in body["results"]] == [late.remote_id]
    body = client.get(listing, {"date_to": "2026-02-01"}).json()
    assert [r["response_id"] for r in body["results"]] == [early.remote_id]
    response = client.get(listing, {"date_from": "2026-05-01", "date_to": "2026-01-01"})
    assert response.status_code == 400 and "date_to" in response.json()["fields"]
    assert client.get(url("api_survey_responses", reseller,
                          theirs.remote_id)).status_code == 404
    for _ in range(20):
        add_response(survey)
    with django_assert_num_queries(5):
        body = client.get(listing, {"limit": 500}).json()
    assert body["count"] == 22
    assert client.get(listing, {"limit": 5, "offset": 5}).json()["results"].__len__() == 5


@pytest.mark.django_db
def test_one_survey_response_with_all_answers(viewer):
    client, reseller = viewer
    survey = add_survey(reseller)
    response = add_response(survey, raw={"customParam": {"visit": "42"}})
    theirs = add_response(add_survey(ResellerFactory()))
    body = client.get(url("api_survey_response_detail", reseller, response.remote_id)).json()
    assert body["answers"] == EVERY_TYPE and body["survey_id"] == survey.remote_id
    assert body["extra_params"] == {"visit": "42"}
    assert client.get(url("api_survey_response_detail", reseller,
                          theirs.remote_id)).status_code == 404
    assert client.get(url("api_survey_response_detail", reseller, 1)).status_code == 404
    assert APIClient().get(url("api_survey_response_detail", reseller,
                               response.remote_id)).status_code == 401
    assert SurveyResponse.unscoped.count() == 2
