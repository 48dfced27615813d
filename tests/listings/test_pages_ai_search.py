"""The AI-search configuration page: the mirrored configuration and a refresh from the provider."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from listings.models import AiSearchConfiguration
from tests.factories import BusinessFactory, ResellerFactory


def url(reseller):
    return reverse("ai_search", args=[reseller.slug])


def add_configuration(reseller, **extra):
    values = {"frequency": "Monthly", "quota": 250, "billing_type": "CREDIT_SYSTEM",
              "themes": [{"theme": "Coffee near me", "prompts": ["best latte downtown",
                                                                 "quiet cafe to work"]},
                         {"theme": "Brunch", "prompts": []}]}
    values.update(extra)
    return AiSearchConfiguration.unscoped.create(reseller=reseller,
                                                 remote_id=reseller.account_number, **values)


@pytest.mark.django_db
def test_a_member_sees_frequency_quota_billing_themes_and_prompts(member_client):
    client, membership = member_client(Role.VIEWER)
    add_configuration(membership.reseller)
    add_configuration(ResellerFactory(), frequency="Weekly")
    page = client.get(url(membership.reseller)).content.decode()
    for text in ("Every month", "250", "Paid with credits", "Coffee near me", "best latte downtown",
                 "quiet cafe to work", "Brunch", "No prompts."):
        assert text in page
    assert "Weekly" not in page


@pytest.mark.django_db
def test_before_any_fetch_the_page_says_so(member_client):
    client, membership = member_client(Role.MANAGER)
    page = client.get(url(membership.reseller)).content.decode()
    assert "has not been fetched yet" in page and "Refresh from the provider" in page


@pytest.mark.django_db
def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    other = ResellerFactory()
    assert client.get(url(other)).status_code == 404
    assert client.post(url(other)).status_code == 404


@pytest.mark.django_db
def test_a_viewer_has_no_refresh_and_cannot_post(member_client):
    client, membership = member_client(Role.VIEWER)
    add_configuration(membership.reseller)
    page = client.get(url(membership.reseller)).content.decode()
    assert "Refresh from the provider" not in page
    assert client.post(url(membership.reseller)).status_code == 403


@pytest.mark.django_db
def test_a_subtree_member_is_refused(member_client):
    reseller = ResellerFactory()
    client, _ = member_client(Role.VIEWER, reseller=reseller,
                              limited_to=BusinessFactory(reseller=reseller))
    assert client.get(url(reseller)).status_code == 403


@pytest.mark.django_db
def test_an_unreachable_provider_gives_a_clear_message(member_client, settings, tmp_path):
    settings.PROVIDER_MAX_RETRIES = 0
    settings.DATA_DIR = tmp_path
    reseller = ResellerFactory(provider_base_url="http://127.0.0.1:9/sandbox")
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    response = client.post(url(reseller), follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Could not refresh the configuration." in page
    assert "did not answer properly" in page
    assert not AiSearchConfiguration.unscoped.exists()


@pytest.mark.django_db
def test_the_query_count_is_fixed(member_client):
    client, membership = member_client(Role.VIEWER)
    add_configuration(membership.reseller)
    with CaptureQueriesContext(connection) as queries:
        client.get(url(membership.reseller))
    assert len(queries) == 6  # with the bell's unread count
