"""The provider's own words and codes become words for people on the pages (issue 15): the
listing status prompt written for the provider's API ("update them with create listing") and
the AI-search codes (CREDIT_SYSTEM). The sandbox keeps the provider's text; the portal
translates it. Against the embedded sandbox over HTTP."""

import html

import pytest
from django.urls import reverse

from accounts.models import Role
from listings.models import ListingStatusReport
from listings.services import listing_status_refresh
from listings.views import provider_code_label
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory

KEY = "provider-words-partner-key"


@pytest.fixture
def seeded(live_server, fast_provider):
    result = seed_partner(api_key=KEY, locations=10, seed=3, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=result["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    return reseller, result


def mirrored_location(reseller, *, published: bool):
    """A location of the sandbox, published or never published, mirrored by a refresh."""
    numbers = {listing.location.number for listing in
               sandbox.Listing.objects.filter(fixed=True).select_related("location")}
    location = (sandbox.Business.objects.filter(type=sandbox.BusinessType.BUSINESS)
                .exclude(status=sandbox.BusinessStatus.INACTIVE)
                .filter(**({"number__in": numbers} if published else {}))
                .exclude(**({} if published else {"number__in": numbers}))
                .order_by("number").first())
    assert location is not None
    business = BusinessFactory(reseller=reseller, remote_id=location.number,
                               name=location.name)
    with tenant_scope(reseller):
        listing_status_refresh(tenant=reseller, actor=None, business=business)
        report = ListingStatusReport.objects.get(business=business)
    return business, report


def detail_page(client, business):
    response = client.get(reverse("business_detail",
                                  args=[business.reseller.slug, business.remote_id]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@pytest.mark.django_db(transaction=True)
def test_a_published_location_says_to_change_it_in_the_listing_editor(seeded, member_client):
    reseller, _ = seeded
    business, report = mirrored_location(reseller, published=True)
    # The provider's text is mirrored as it came (the sandbox stays faithful) ...
    assert report.publish_listings == "Listings are published; update them with create listing"
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    page = detail_page(client, business)
    # ... and the page says what to do in the portal instead.
    assert "create listing" not in page
    assert "change this location in the listing editor" in page
    assert reverse("listing_edit", args=[reseller.slug, business.remote_id]) in page


@pytest.mark.django_db(transaction=True)
def test_a_location_never_published_says_how_to_publish_it(seeded, member_client):
    reseller, _ = seeded
    business, report = mirrored_location(reseller, published=False)
    assert report.location_status == "Scan State"
    assert report.publish_listings.startswith("Publish your listings to push")
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    page = detail_page(client, business)
    assert "Publish your listings to push" not in page
    assert (f"Not published yet: send this location's listing from the listing editor to "
            f"publish it on its {report.total_sites} sites.") in page
    assert '<span class="badge bad">Not published</span>' in page  # its work to do


@pytest.mark.django_db(transaction=True)
def test_the_ai_search_page_shows_words_not_the_providers_codes(seeded, member_client):
    reseller, _ = seeded
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    url = reverse("ai_search", args=[reseller.slug])
    page = client.post(url, follow=True).content.decode()
    assert "The configuration was refreshed from the provider." in page
    assert "CREDIT_SYSTEM" not in page
    assert "Paid with credits from the account&#x27;s balance" in page
    assert "Every month" in page or "Every week" in page


@pytest.mark.parametrize(("code", "words"), [
    ("CREDIT_SYSTEM", "Paid with credits from the account's balance"),
    ("PAY_PER_PROMPT", "Pay per prompt"),     # a code the portal does not know yet
    ("Monthly", "Every month"),
    ("", ""),
])
def test_a_provider_code_always_reads_as_words(code, words):
    from listings.views import AI_SEARCH_BILLING_LABELS, AI_SEARCH_FREQUENCY_LABELS

    labels = {**AI_SEARCH_BILLING_LABELS, **AI_SEARCH_FREQUENCY_LABELS}
    assert provider_code_label(code, labels) == words
