"""The listing editor pages: tenancy, roles, review before send, nothing lost on errors."""

import pytest
from django.urls import reverse

from accounts.models import Business, Role
from listings.editor.services import listing_submit
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, MembershipFactory
from tests.listings.test_editor_support import browser_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def location():
    return BusinessFactory(name="Blue Door Cafe", phone="(512) 555-0100", address1="1 Main St",
                           city="Austin", state="TX", zip="78701")


def url(business, name="listing_edit", *extra):
    return reverse(name, args=[business.reseller.slug, business.remote_id, *extra])


def log_in(client, business, role=Role.MANAGER, **extra):
    membership = MembershipFactory(reseller=business.reseller, role=role, **extra)
    client.force_login(membership.user)
    return membership


def form_data(client, business, action="review", **changes):
    page = client.get(url(business))
    data = browser_data(page.context["editor"])
    data.update(changes, base=str(page.context["base"]), action=action)
    return data


def versions(business):
    return ListingVersion.unscoped.filter(business=business)


def test_a_member_sees_the_editor_prefilled_from_the_business(client, location):
    log_in(client, location, Role.VIEWER)
    response = client.get(url(location))
    assert response.status_code == 200
    html = response.content.decode()
    for value in ("Blue Door Cafe", "(512) 555-0100", "1 Main St", "78701"):
        assert f'value="{value}"' in html
    assert "No version yet" in html


def test_another_tenants_member_gets_404(client, location):
    other = BusinessFactory()
    log_in(client, other)
    assert client.get(url(location)).status_code == 404
    assert client.post(url(location), {"action": "review"}).status_code == 404


def test_another_tenants_business_is_404_under_my_reseller(client, location):
    membership = log_in(client, location)
    foreign = BusinessFactory()  # another reseller's business
    mine_slug_their_id = reverse("listing_edit", args=[membership.reseller.slug,
                                                       foreign.remote_id])
    assert client.get(mine_slug_their_id).status_code == 404
    assert client.post(mine_slug_their_id, {"action": "review"}).status_code == 404


def test_a_member_limited_to_another_subtree_gets_404(client, location):
    elsewhere = BusinessFactory(reseller=location.reseller)
    log_in(client, location, limited_to=elsewhere)
    assert client.get(url(location)).status_code == 404
    assert client.get(url(elsewhere)).status_code == 200


def test_a_viewer_reads_but_cannot_change(client, location):
    log_in(client, location, Role.VIEWER)
    page = client.get(url(location))
    html = page.content.decode()
    assert 'value="review"' not in html and "Send to provider" not in html
    assert all(field.disabled for form in page.context["editor"].forms
               for field in form.fields.values())
    assert "needs the manager role" in html
    data = browser_data(page.context["editor"])
    assert client.post(url(location), {**data, "action": "send"}).status_code == 403
    assert client.post(url(location), {**data, "action": "categories"}).status_code == 403
    assert not versions(location).exists()


def test_a_viewer_cannot_retry_a_failed_version(client, location):
    with tenant_scope(location.reseller):
        version = listing_submit(tenant=location.reseller, actor=None, business=location,
                                 payload={"businessInfo": {"name": "X"}})
    OutboxEntry.unscoped.filter(pk=version.outbox_entry_id).update(state="failed")
    log_in(client, location, Role.VIEWER)
    assert client.post(url(location, "listing_version_retry", 1)).status_code == 403
    assert OutboxEntry.unscoped.get(pk=version.outbox_entry_id).state == "failed"


def test_review_shows_the_changes_and_sends_nothing(client, location):
    log_in(client, location)
    response = client.post(url(location), form_data(client, location,
                                                    **{"businessinfo-phone": "(512) 555-0199",
                                                       "address-city": "Round Rock"}))
    assert response.status_code == 200
    changes = {c.path: (c.old, c.new) for c in response.context["changes"]}
    assert changes == {"businessInfo.phone": ("(512) 555-0100", "(512) 555-0199"),
                       "businessInfo.location.city": ("Austin", "Round Rock")}
    html = response.content.decode()
    assert "<del>(512) 555-0100</del>" in html and "<ins>(512) 555-0199</ins>" in html
    assert 'form="listing-form" name="action" value="send"' in html
    assert not versions(location).exists()


def test_send_stores_the_version_and_shows_it_pending(client, location):
    log_in(client, location)
    data = form_data(client, location, action="send", **{"businessinfo-phone": "(512) 555-0199"})
    response = client.post(url(location), data)
    assert response.status_code == 302 and response.url == url(location)
    version = versions(location).get()
    assert version.outbox_entry.state == OutboxEntry.State.PENDING
    assert version.payload["businessInfo"]["phone"] == "(512) 555-0199"
    page = client.get(url(location))
    html = page.content.decode()
    assert "Pending" in html and "queued" in html.lower()
    assert url(location, "listing_version_state", 1) in html  # the page follows it
    state = client.get(url(location, "listing_version_state", 1)).json()
    assert state == {"number": 1, "state": "pending", "code": None, "message": ""}
    # The form now starts from the submitted version.
    assert page.context["editor"].forms[0]["phone"].value() == "(512) 555-0199"


def test_nothing_changed_is_said_and_not_sent(client, location):
    log_in(client, location)
    response = client.post(url(location), form_data(client, location, action="send"))
    assert response.status_code == 200
    assert "Nothing changed" in response.content.decode()
    assert not versions(location).exists()


def test_a_second_change_waits_for_the_first(client, location):
    log_in(client, location)
    client.post(url(location), form_data(client, location, action="send",
                                         **{"businessinfo-phone": "(512) 555-0199"}))
    response = client.post(url(location), form_data(client, location, action="send",
                                                    **{"businessinfo-phone": "(512) 555-0198"}))
    assert response.status_code == 200
    assert "still being sent" in response.content.decode()
    assert versions(location).count() == 1


def test_a_listing_accepted_meanwhile_asks_for_a_new_review(client, location):
    log_in(client, location)
    data = form_data(client, location, action="send", **{"businessinfo-phone": "(512) 555-0199"})
    data["base"] = "7"  # reviewed against another accepted version
    response = client.post(url(location), data)
    assert response.status_code == 200
    assert "check the changes again" in response.content.decode()
    assert response.context["changes"]
    assert not versions(location).exists()


def test_an_invalid_form_keeps_every_value_entered(client, location):
    log_in(client, location)
    data = form_data(client, location, action="send", **{
        "businessinfo-phone": "555-01", "address-city": "Round Rock",
        "hours3-start_0": "09:15", "hours3-end_0": "17:45",
        "profilecategories-primaryCategoryProfile": "Cafe",
        "profilecategories-additionalCategories": ["Bakery", "Cafe"],
        "additionalinfo-languages": ["English", "Welsh"]})
    response = client.post(url(location), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "shaped (xxx) xxx-xxxx" in html
    assert "cannot also be an additional category" in html
    for value in ("555-01", "Round Rock", "09:15", "17:45", "Bakery", "Welsh"):
        assert f'value="{value}"' in html, value
    assert not versions(location).exists()


def test_an_older_version_can_be_opened_in_the_form(client, location):
    with tenant_scope(location.reseller):
        version = listing_submit(tenant=location.reseller, actor=None, business=location,
                                 payload={"businessInfo": {"name": "First Name"}})
        OutboxEntry.unscoped.filter(pk=version.outbox_entry_id).update(state="rejected",
                                                                       provider_code=2277,
                                                                       provider_message="dup")
        listing_submit(tenant=location.reseller, actor=None, business=location,
                       payload={"businessInfo": {"name": "Second Name"}})
    log_in(client, location)
    page = client.get(url(location) + "?version=1")
    editor = page.context["editor"]
    assert editor.forms[0]["name"].value() == "First Name"
    categories, _ = editor.locate("profileListing.additionalCategories")
    assert categories.notices["additionalCategories"] == [
        "Rejected by the provider (code 2277): dup"]
    assert client.get(url(location) + "?version=9").status_code == 404
    assert client.get(url(location)).context["editor"].forms[0]["name"].value() == "Second Name"


def test_a_provider_error_without_a_field_is_shown_above_the_form(client, location):
    with tenant_scope(location.reseller):
        version = listing_submit(tenant=location.reseller, actor=None, business=location,
                                 payload={"businessInfo": {"name": "X"}})
    OutboxEntry.unscoped.filter(pk=version.outbox_entry_id).update(
        state="rejected", provider_code=2515, provider_message="Listing is locked")
    log_in(client, location)
    page = client.get(url(location))
    assert page.context["editor"].messages == [
        "Rejected by the provider (code 2515): Listing is locked"]


def test_a_shape_error_lands_on_the_field_its_path_names(client, location):
    with tenant_scope(location.reseller):
        version = listing_submit(tenant=location.reseller, actor=None, business=location,
                                 payload={"businessInfo": {"name": "X", "phone": "x"}})
    OutboxEntry.unscoped.filter(pk=version.outbox_entry_id).update(
        state="rejected", provider_code=400,
        provider_message="businessInfo.phone must be shaped (xxx) xxx-xxxx")
    log_in(client, location)
    editor = client.get(url(location)).context["editor"]
    assert editor.forms[0].notices["phone"] == [
        "Rejected by the provider (code 400): businessInfo.phone must be shaped (xxx) xxx-xxxx"]


def test_a_business_that_is_not_a_location_has_no_editable_listing(client, location):
    location.type = Business.Type.RESELLER
    Business.unscoped.filter(pk=location.pk).update(type=Business.Type.RESELLER)
    log_in(client, location)
    page = client.get(url(location))
    # The editor does not apply to its type: a page says so (accounts.business_types).
    assert page.status_code == 200
    assert "Listings belong to a single location" in page.content.decode()
    response = client.post(url(location), {"action": "send"})
    assert response.status_code == 409
    assert not versions(location).exists()
