"""The listing editor against the sandbox provider over HTTP: accepted, rejected and mapped to
the field, reconciled after an unknown outcome, failed and retried, categories fetched."""

import json

import pytest
from django.urls import reverse

from accounts.models import Business, Role
from listings.editor.outbox_handlers import ListingCreate
from listings.models import Category, ListingVersion
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from provider import Transient
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory
from tests.listings.test_editor_support import browser_data

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "listing-editor-test-partner-key"


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path
    # A lost answer is read back at once (the wait for a request still on its way is the
    # outbox's own test).
    settings.OUTBOX_IN_FLIGHT_SECONDS = 0


@pytest.fixture
def location(live_server):
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    remote = sandbox.Business.objects.get(number=seeded["location_numbers"][0])
    # Unfixed at the provider, so that the first create decides the business status.
    sandbox.Listing.objects.filter(location=remote).delete()
    return BusinessFactory(reseller=reseller, remote_id=remote.number, name=remote.name,
                           phone=remote.phone, address1=remote.address1, city=remote.city,
                           state=remote.state, zip=remote.zip, country_code=remote.country_code)


@pytest.fixture
def manager(client, location):
    membership = MembershipFactory(reseller=location.reseller, role=Role.MANAGER)
    client.force_login(membership.user)
    return client


def editor_url(location, *parts):
    return reverse("listing_edit", args=[location.reseller.slug, location.remote_id])


def send_all(location):
    with tenant_scope(location.reseller):
        for entry in OutboxEntry.objects.filter(state=OutboxEntry.State.PENDING):
            outbox.outbox_send(tenant=location.reseller, entry_id=entry.pk)


def post_form(client, location, action="send", **changes):
    """Submit the editor as the browser shows it, with `changes`; review first, then send."""
    page = client.get(editor_url(location))
    data = browser_data(page.context["editor"])
    data.update(changes)
    data["base"] = str(page.context["base"])
    data["action"] = action
    return client.post(editor_url(location), data)


def latest_version(location):
    return ListingVersion.unscoped.filter(business=location).order_by("-number").first()


def test_an_edited_listing_is_accepted_and_the_business_updated(manager, location):
    response = post_form(manager, location, **{
        "businessinfo-name": "Harbour Lights Cafe", "businessinfo-phone": "(206) 555-0142",
        "address-address1": "12 Pier Road", "status-businessStatus": "Open",
        "hours0-start_0": "08:00", "hours0-end_0": "16:00"})
    assert response.status_code == 302
    version = latest_version(location)
    assert version.state == "pending"

    send_all(location)
    version = ListingVersion.unscoped.get(pk=version.pk)
    assert version.state == "accepted" and version.accepted_at is not None
    business = Business.unscoped.get(pk=location.pk)
    assert (business.name, business.phone, business.address1) == (
        "Harbour Lights Cafe", "(206) 555-0142", "12 Pier Road")
    stored = sandbox.Listing.objects.get(location__number=location.remote_id).payload
    assert stored["additionalInfo"]["hoursOfOperations"] == [
        {"day": 0, "isOpen": 1, "workingHours": [{"startHour": 28800, "endHour": 57600}]}]
    page = manager.get(editor_url(location))
    assert "Accepted" in page.content.decode()
    # Now fixed: the status can no longer be chosen, and a later change is compared with v1.
    editor = page.context["editor"]
    assert editor.forms[2].fields["businessStatus"].disabled
    response = post_form(manager, location, action="review",
                         **{"businessinfo-phone": "(206) 555-0143"})
    assert [c.path for c in response.context["changes"]] == ["businessInfo.phone"]
    assert json.loads(response.context["payload_json"]) == {
        "businessInfo": {"name": "Harbour Lights Cafe", "phone": "(206) 555-0143"}}


def test_a_change_the_provider_refuses_is_shown_on_its_field(manager, location):
    with tenant_scope(location.reseller):
        post_form(manager, location, **{"status-businessStatus": "Open"})
        send_all(location)
        assert latest_version(location).state == "accepted"
        # Bypassing the form (which disables the field once fixed): the provider says 2511.
        from listings.editor.services import listing_submit

        listing_submit(tenant=location.reseller, actor=None, business=location, payload={
            "businessInfo": {"name": location.name},
            "additionalInfo": {"businessStatus": "Permanently Closed"}})
        send_all(location)
    version = latest_version(location)
    entry = version.outbox_entry
    assert (version.state, entry.provider_code) == ("rejected", 2511)
    assert entry.provider_message == "Cannot update business status when listing is already fixed."

    page = manager.get(editor_url(location))
    editor = page.context["editor"]
    status = editor.forms[2]
    notices = status.notices["businessStatus"]
    assert notices == [f"Rejected by the provider (code 2511): {entry.provider_message}"]
    html = page.content.decode()
    notice = html.index("Rejected by the provider (code 2511)")  # next to the status field
    assert html.index('id="id_status-businessStatus"') < notice < html.index(
        'id="id_status-reopenDate"')


def test_a_listing_fixed_elsewhere_is_refused_by_the_provider_not_the_form(manager, location):
    """The portal cannot know a listing was fixed outside it: the form allows a first status,
    the provider answers 2511, and the message lands on the status field."""
    with tenant_scope(location.reseller):
        from accounts.provider_access import provider_client

        with provider_client(tenant=location.reseller) as client:
            client.create_listing(location.remote_id, {
                "businessInfo": {"name": location.name},
                "additionalInfo": {"businessStatus": "Open"}})
    response = post_form(manager, location, **{"status-businessStatus": "Temporarily Closed",
                                                "status-reopenDate": "2099-01-05"})
    assert response.status_code == 302  # the form accepted it
    send_all(location)
    assert latest_version(location).outbox_entry.provider_code == 2511
    page = manager.get(editor_url(location))
    assert page.context["editor"].forms[2].notices["businessStatus"]
    assert page.context["editor"].forms[2]["businessStatus"].value() == "Temporarily Closed"
    assert "Rejected" in page.content.decode()


def test_an_unknown_outcome_is_reconciled_from_the_status_report(manager, location, monkeypatch):
    real_send = ListingCreate.send

    def send_then_lose_reply(self, client, entry):
        real_send(self, client, entry)
        raise Transient(None, "read timed out", None, operation="create_listing",
                        outcome_unknown=True)

    monkeypatch.setattr(ListingCreate, "send", send_then_lose_reply)
    post_form(manager, location, **{"businessinfo-name": "Renamed Place"})
    send_all(location)
    assert latest_version(location).state == "accepted"
    assert sandbox.ListingSubmission.objects.filter(
        location__number=location.remote_id, accepted=True).count() == 1


def test_a_create_that_never_arrived_is_not_taken_as_accepted(manager, location, monkeypatch):
    def lose_request(self, client, entry):
        raise Transient(None, "read timed out", None, operation="create_listing",
                        outcome_unknown=True)

    monkeypatch.setattr(ListingCreate, "send", lose_request)
    post_form(manager, location, **{"businessinfo-name": "Renamed Place"})
    send_all(location)
    version = latest_version(location)
    assert version.state == "pending" and version.outbox_entry.attempts == 1
    assert not sandbox.ListingSubmission.objects.filter(location__number=location.remote_id)


def test_a_failed_version_is_retried_by_a_manager(manager, location, settings, monkeypatch):
    """The provider cannot be reached at all: nothing left, so the version failed (never in
    doubt), and a manager sends it again."""
    import requests
    from urllib3.exceptions import MaxRetryError, NewConnectionError

    settings.OUTBOX_MAX_ATTEMPTS = 1
    post_form(manager, location, **{"businessinfo-name": "Renamed Place"})

    def refuse(self, method, url, **kwargs):
        raise requests.ConnectionError(MaxRetryError(None, url, NewConnectionError(
            None, "Connection refused")))

    with monkeypatch.context() as patch:
        patch.setattr(requests.Session, "request", refuse)
        send_all(location)
    version = latest_version(location)
    assert version.state == "failed"
    page = manager.get(editor_url(location))
    retry_url = reverse("listing_version_retry",
                        args=[location.reseller.slug, location.remote_id, version.number])
    assert retry_url in page.content.decode()

    assert manager.post(retry_url).status_code == 302
    assert latest_version(location).state == "pending"
    send_all(location)
    assert latest_version(location).state == "accepted"


def test_a_version_in_doubt_is_decided_by_a_manager(manager, location, settings):
    """The provider answers 500 to everything: the create may have arrived, so after its last
    attempt the version is in doubt, not failed; the editor links to the decision, and the
    manager sends it again once the provider is back."""
    settings.OUTBOX_MAX_ATTEMPTS = 1
    sandbox.PartnerAccount.objects.update(error_rate=1.0)
    post_form(manager, location, **{"businessinfo-name": "Renamed Place"})
    send_all(location)
    version = latest_version(location)
    assert version.state == "in_doubt"
    resolve_url = reverse("change_resolve",
                          args=[location.reseller.slug, version.outbox_entry_id])
    page = manager.get(editor_url(location)).content.decode()
    assert resolve_url in page and "In doubt" in page
    # Another change of the listing waits for the decision.
    refused = post_form(manager, location, **{"businessinfo-name": "Another Name"})
    assert "in doubt" in refused.content.decode()

    sandbox.PartnerAccount.objects.update(error_rate=0.0)
    assert manager.post(resolve_url, {"decision": "send_again"}).status_code == 302
    assert latest_version(location).state == "pending"
    send_all(location)
    assert latest_version(location).state == "accepted"
    assert sandbox.ListingSubmission.objects.filter(
        location__number=location.remote_id, accepted=True).count() == 1


def test_categories_are_fetched_on_demand_and_offered(manager, location):
    page = manager.get(editor_url(location))
    assert page.context["categories_missing"]
    # The fetch button belongs to the editor's own form: no second form posts elsewhere.
    html = page.content.decode()
    assert 'name="action" value="categories"' in html and 'id="categories-form"' not in html
    response = post_form(manager, location, action="categories")
    assert response.status_code == 200
    with tenant_scope(location.reseller):
        sources = set(Category.objects.filter(country_code=location.country_code)
                      .values_list("source", flat=True))
        assert sources == {"ENGINE", "PROFILE", "SOCIAL", "MAPS", "HEALTHCARE", "VENDOR"}
        maps_path = Category.objects.filter(source="MAPS").values_list("remote_id",
                                                                      flat=True).first()
    page = manager.get(editor_url(location))
    html = page.content.decode()
    assert not page.context["categories_missing"]
    assert 'id="categories-PROFILE"' in html and f'<option value="{maps_path}">' in html
    assert 'list="categories-PROFILE"' in html


def test_fetching_categories_keeps_what_was_typed_and_sends_nothing(manager, location):
    typed = {"businessinfo-mainBusinessDescription": "Wood-fired pizza since 1998, by the pier.",
             "businessinfo-phone": "555-01",  # half typed: not checked yet, not lost either
             "hours4-start_0": "18:00", "hours4-end_0": "02:00",
             "profilecategories-additionalCategories": ["Pizza Takeout", "Bar"]}
    response = post_form(manager, location, action="categories", **typed)
    assert response.status_code == 200
    html = response.content.decode()
    for value in ("Wood-fired pizza since 1998, by the pier.", 'value="555-01"',
                  'value="18:00"', 'value="02:00"', 'value="Pizza Takeout"', 'value="Bar"'):
        assert value in html, value
    assert "shaped (xxx) xxx-xxxx" not in html  # a fetch is not a review
    assert "Nothing was sent" in html and "categories for United States" in html
    assert response.context["open_section"] == "categories"
    assert 'id="section-categories" open' in html
    assert not response.context["categories_missing"]
    assert not ListingVersion.unscoped.filter(business=location).exists()
    assert not sandbox.ListingSubmission.objects.filter(location__number=location.remote_id)


def test_categories_of_the_country_chosen_in_the_form_are_fetched(manager, location):
    response = post_form(manager, location, action="categories",
                         **{"address-countryCode": "CA"})
    assert "categories for Canada" in response.content.decode()
    assert response.context["category_country"] == "CA"
    with tenant_scope(location.reseller):
        assert Category.objects.filter(country_code="CA").exists()
        assert not Category.objects.filter(country_code="US").exists()


def test_an_overnight_range_is_accepted_by_the_provider_and_reads_back_whole(manager, location):
    response = post_form(manager, location, **{
        "hours4-start_0": "18:00", "hours4-end_0": "02:00",  # Friday night
        "hours6-start_0": "20:00", "hours6-end_0": "01:30",  # Sunday night, into Monday
        "hours5-closed": "on"})
    assert response.status_code == 302, response.context and response.context["editor"].messages
    send_all(location)
    version = latest_version(location)
    assert version.state == "accepted", version.outbox_entry.provider_message
    stored = sandbox.Listing.objects.get(location__number=location.remote_id).payload
    assert stored["additionalInfo"]["hoursOfOperations"] == [
        {"day": 0, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 5400}]},
        {"day": 4, "isOpen": 1, "workingHours": [{"startHour": 64800, "endHour": 86400}]},
        {"day": 5, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 7200}]},
        {"day": 6, "isOpen": 1, "workingHours": [{"startHour": 72000, "endHour": 86400}]}]
    editor = manager.get(editor_url(location)).context["editor"]
    days = {form.day: form for form in editor.sections[2].day_forms}
    assert (days[4]["start_0"].value(), days[4]["end_0"].value()) == ("18:00", "02:00")
    assert (days[6]["start_0"].value(), days[6]["end_0"].value()) == ("20:00", "01:30")
    assert days[5]["closed"].value() and days[0]["closed"].value()
    assert days[5].row_count == 1 and not days[5]["start_0"].value()
    # Sent again unchanged, the form says nothing changed.
    response = post_form(manager, location, action="review")
    assert "Nothing changed" in response.content.decode()
