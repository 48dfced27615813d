"""The portal against a sandbox account that speaks only the provider's own names: a sync, a
listing edit, a category fetch, a media upload and a custom field, end to end over HTTP, with
the portal's rows in the neutral names and the wire in the provider's."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from accounts.models import Business, SyncRun, WireDialect
from listings.editor.categories import categories_fetch
from listings.editor.services import listing_submit
from listings.models import Category
from listings.services import custom_field_create
from media_app.services import media_add
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.contract.conftest import listing_body
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "provider-dialect-partner-key-0616"


@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


@pytest.fixture(params=[WireDialect.PROVIDER, WireDialect.NEUTRAL])
def dialect(request):
    return request.param


@pytest.fixture
def reseller(live_server, dialect):
    seeded = seed_partner(api_key=KEY, locations=6, seed=4, rate_limit=(1000, 1),
                          dialect=dialect)
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox", wire_dialect=dialect)


def delivered(reseller, entry):
    with tenant_scope(reseller):
        outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    return OutboxEntry.unscoped.get(pk=entry.pk)


def test_the_same_work_succeeds_in_either_dialect(reseller, dialect):
    out = io.StringIO()
    call_command("sync", reseller.slug, "--json", stdout=out, stderr=io.StringIO())
    assert json.loads(out.getvalue().strip().splitlines()[-1])["status"] == "succeeded"
    with tenant_scope(reseller):
        assert SyncRun.objects.get().status == SyncRun.Status.SUCCEEDED
        location = Business.objects.filter(type=Business.Type.BUSINESS).order_by("pk").first()

        fetched = categories_fetch(tenant=reseller, business=location, country_code="US",
                                   sources=("PROFILE", "ENGINE"))
        assert not fetched.errors, fetched.errors
        assert Category.objects.filter(source="PROFILE").exists()  # stored in neutral names

        body = listing_body(location.name)
        body["profileListing"]["profileDescription"] = "Family dentistry since 1990."
        body["engineListing"] = {"engineDescription": "Dentist in town."}
        version = listing_submit(tenant=reseller, actor=None, business=location, payload=body)
        media = media_add(tenant=reseller, actor=None, business=location,
                          url="https://cdn.example.com/front.jpg", category="EXTERIOR",
                          description="Front", media_format="PHOTO")
        field = custom_field_create(tenant=reseller, actor=None, field_name="Parking",
                                    type="TEXT")
    for entry in (version.outbox_entry, media, field):
        entry = delivered(reseller, entry)
        assert entry.state == OutboxEntry.State.ACCEPTED, (entry.kind, entry.provider_message)

    submission = sandbox.ListingSubmission.objects.get(location__number=location.remote_id)
    sent = json.loads(submission.body)
    if dialect == WireDialect.PROVIDER:
        assert sent["gmbListing"]["googleDescription"] == "Family dentistry since 1990."
        assert sent["gmbListing"]["primaryCategoryGmb"] == "Dentist"
        assert sent["bingListing"] == {"bingDescription": "Dentist in town."}
    else:
        assert "profileListing" in sent and "engineListing" in sent
    stored = sandbox.Listing.objects.get(location__number=location.remote_id).payload
    assert stored["profileListing"]["profileDescription"] == "Family dentistry since 1990."


def test_neutral_names_do_not_reach_an_account_that_speaks_the_providers(live_server):
    """A reseller left on the neutral names against the real provider's names: the change is
    refused with the field the provider does not know, not silently dropped."""
    seeded = seed_partner(api_key=KEY, locations=2, seed=4, rate_limit=(1000, 1),
                          dialect="provider")
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    location_number = seeded["location_numbers"][0]
    location = BusinessFactory(reseller=reseller, remote_id=location_number,
                               name="Dialect check")
    with tenant_scope(reseller):
        version = listing_submit(tenant=reseller, actor=None, business=location,
                                 payload=listing_body(location.name))
    entry = delivered(reseller, version.outbox_entry)
    assert entry.state == OutboxEntry.State.REJECTED
    assert "profileListing" in entry.provider_message
