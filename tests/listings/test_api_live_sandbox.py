"""The listings API against the sandbox provider over HTTP: a submission accepted, one rejected
with the provider's code shown when polling, categories fetched, AI search refreshed."""

import pytest
from django.urls import reverse

from accounts.models import Business, Role
from listings.models import Category
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "listings-api-test-partner-key"


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path


@pytest.fixture
def location(live_server):
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    remote = sandbox.Business.objects.get(number=seeded["location_numbers"][0])
    return remote, BusinessFactory(
        reseller=reseller, remote_id=remote.number, name=remote.name, phone=remote.phone,
        address1=remote.address1, city=remote.city, state=remote.state, zip=remote.zip,
        country_code=remote.country_code)


def url(name, business, *args):
    return reverse(name, args=[business.reseller.slug, *args])


def send(business, entry_id):
    with tenant_scope(business.reseller):
        return outbox.outbox_send(tenant=business.reseller, entry_id=entry_id)


def test_a_submission_is_accepted_by_the_provider(api_member, location):
    remote, business = location
    sandbox.Listing.objects.filter(location=remote).delete()  # unfixed at the provider
    client, _ = api_member(Role.MANAGER, reseller=business.reseller)
    payload = {"businessInfo": {"name": "Harbour Lights Cafe", "phone": "(206) 555-0142"},
               "additionalInfo": {"businessStatus": "Open", "hoursOfOperations": [
                   {"day": 0, "isOpen": 1,
                    "workingHours": [{"startHour": 28800, "endHour": 57600}]}]}}
    response = client.post(url("api_listing_submission_list", business, business.remote_id),
                           payload, format="json", HTTP_IDEMPOTENCY_KEY="submit-1")
    assert response.status_code == 202, response.json()
    submission = response.json()
    assert submission["state"] == "pending"
    replay = client.post(url("api_listing_submission_list", business, business.remote_id),
                         payload, format="json", HTTP_IDEMPOTENCY_KEY="submit-1")
    assert replay.status_code == 202 and replay.json()["number"] == submission["number"]

    send(business, submission["outbox_entry_id"])
    poll = client.get(url("api_listing_submission_detail", business, business.remote_id,
                          submission["number"])).json()
    assert poll["state"] == "accepted" and poll["accepted_at"]
    assert poll["provider_code"] is None and poll["field"] is None
    stored = sandbox.Listing.objects.get(location__number=business.remote_id).payload
    assert stored["businessInfo"]["name"] == "Harbour Lights Cafe"
    assert Business.unscoped.get(pk=business.pk).phone == "(206) 555-0142"
    listing = client.get(url("api_listing", business, business.remote_id)).json()
    assert listing["fixed"] is True
    assert listing["accepted"]["number"] == submission["number"]


def test_a_submission_rejected_by_the_provider_shows_its_code(api_member, location):
    remote, business = location
    client, _ = api_member(Role.MANAGER, reseller=business.reseller)
    from accounts.provider_access import provider_client

    with tenant_scope(business.reseller), provider_client(tenant=business.reseller) as provider:
        # Fixed outside the portal: the portal cannot know, the provider refuses (2511).
        provider.create_listing(business.remote_id, {
            "businessInfo": {"name": business.name},
            "additionalInfo": {"businessStatus": "Open"}})
    response = client.post(
        url("api_listing_submission_list", business, business.remote_id),
        {"businessInfo": {"name": business.name},
         "additionalInfo": {"businessStatus": "Temporarily Closed",
                            "reopenDate": "01/05/2099"}},
        format="json")
    assert response.status_code == 202, response.json()
    submission = response.json()
    send(business, submission["outbox_entry_id"])
    poll = client.get(url("api_listing_submission_detail", business, business.remote_id,
                          submission["number"])).json()
    assert poll["state"] == OutboxEntry.State.REJECTED
    assert poll["provider_code"] == 2511
    assert poll["provider_message"]
    assert poll["field"] == "additionalInfo.businessStatus"
    # Rejected, not open: the next change may be submitted.
    again = client.post(url("api_listing_submission_list", business, business.remote_id),
                        {"businessInfo": {"name": "Renamed Cafe"}}, format="json")
    assert again.status_code == 202


def test_manager_fetches_categories_and_refreshes_ai_search(api_member, location):
    _, business = location
    client, _ = api_member(Role.MANAGER, reseller=business.reseller)
    response = client.post(url("api_category_fetch", business, business.remote_id),
                           {"country": "US"}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["errors"] == {} and sum(response.json()["counts"].values()) > 0
    with tenant_scope(business.reseller):
        assert Category.objects.filter(reseller=business.reseller).exists()
    listed = client.get(url("api_category_list", business), {"country": "US"}).json()
    assert listed["count"] == sum(response.json()["counts"].values())

    response = client.post(url("api_ai_search_refresh", business))
    assert response.status_code == 200, response.json()
    assert response.json()["account_number"] == business.reseller.account_number
    assert client.get(url("api_ai_search", business)).status_code == 200


def test_ai_search_refresh_reports_the_providers_refusal(api_member, live_server):
    reseller = ResellerFactory(api_key="not-a-key-the-sandbox-knows",
                               provider_base_url=f"{live_server.url}/sandbox")
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    response = client.post(reverse("api_ai_search_refresh", args=[reseller.slug]))
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "provider_rejected" and "provider_code" in body
