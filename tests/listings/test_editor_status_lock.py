"""The business status and opening-soon date lock once the provider accepts a version (its rule
2511/2512): the editor warns before the first version is sent, near the field and in the review
step, and afterwards shows the value it is locked at, with the reason, instead of a dead
select saying "— not set —"."""

import re

import pytest
from django.urls import reverse

from accounts.models import Role
from listings.editor.services import listing_submit
from listings.models import ListingVersion
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, MembershipFactory
from tests.listings.test_editor_support import browser_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def location():
    return BusinessFactory(name="Blue Door Cafe", phone="(512) 555-0100", address1="1 Main St",
                           city="Austin", state="TX", zip="78701", country_code="US")


@pytest.fixture
def manager(client, location):
    client.force_login(MembershipFactory(reseller=location.reseller, role=Role.MANAGER).user)
    return client


def url(business):
    return reverse("listing_edit", args=[business.reseller.slug, business.remote_id])


def review(client, business, **changes):
    page = client.get(url(business))
    data = browser_data(page.context["editor"])
    data.update(changes, base=str(page.context["base"]), action="review")
    return client.post(url(business), data)


def accept(business, additional_info: dict | None = None):
    with tenant_scope(business.reseller):
        listing_submit(tenant=business.reseller, actor=None, business=business,
                       payload={"businessInfo": {"name": business.name},
                                **({"additionalInfo": additional_info} if additional_info
                                   else {})})
    ListingVersion.unscoped.filter(business=business).update(accepted_at="2026-01-01T00:00:00Z")


def status_field_html(html: str) -> str:
    start = html.index('id="id_status-businessStatus"')
    return html[html.rfind('<div class="field', 0, start):html.index("</div>", start)]


def test_before_the_first_version_the_field_warns_that_the_status_locks(manager, location):
    html = manager.get(url(location)).content.decode()
    field = status_field_html(html)
    assert "<select" in field
    assert "once the provider accepts a version of this listing, it keeps this status" in field


def test_the_review_of_a_first_version_says_what_it_fixes(manager, location):
    response = review(manager, location, **{"status-businessStatus": "Open"})
    html = response.content.decode()
    review_card = html[html.index('id="review"'):html.index('id="listing-form"')]
    assert "the business status stays Open" in review_card
    assert "refuses any later change" in review_card

    response = review(manager, location, **{"businessinfo-phone": "(512) 555-0199"})
    html = response.content.decode()
    review_card = html[html.index('id="review"'):html.index('id="listing-form"')]
    assert "sets no business status" in review_card
    assert "no status can be set later" in review_card


def test_the_review_of_a_later_version_has_no_such_warning(manager, location):
    accept(location, {"businessStatus": "Open"})
    response = review(manager, location, **{"businessinfo-phone": "(512) 555-0199"})
    assert response.context["changes"]
    assert response.context["first_version_notes"] == []
    assert "first version" not in response.content.decode()


def test_a_locked_status_is_shown_as_its_value_with_the_reason(manager, location):
    accept(location, {"businessStatus": "Temporarily Closed", "reopenDate": "01/05/2099"})
    html = manager.get(url(location)).content.decode()
    field = status_field_html(html)
    assert "<select" not in field and "not set" not in field
    assert re.search(r'class="locked-value"[^>]*>Temporarily Closed</p>', field)
    assert "refuses any change of the business status" in field
    # The opening-soon date, never sent, says so and why.
    start = html.index('id="id_status-openingSoonDate"')
    date_field = html[start:html.index("</div>", start)]
    assert ">Not set</p>" in date_field
    assert "None was sent before the provider accepted a version" in date_field


def test_a_status_never_sent_before_the_lock_says_it_cannot_be_set(manager, location):
    accept(location)
    field = status_field_html(manager.get(url(location)).content.decode())
    assert "— not set —" not in field and "<select" not in field
    assert ">Not set</p>" in field
    assert "refuses to set or change the business status" in field
