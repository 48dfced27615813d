"""Submitting listing versions: stored and queued together, one at a time, retried when failed."""

import pytest
from django.db import transaction

from listings.editor import selectors
from listings.editor.outbox_handlers import ListingCreate, business_update_from_listing
from listings.editor.services import ListingBusy, listing_submit, listing_version_retry
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory, UserFactory

pytestmark = pytest.mark.django_db

BODY = {"businessInfo": {"name": "Blue Door Cafe", "phone": "(512) 555-0100"},
        "additionalInfo": {"businessStatus": "Open"}}


@pytest.fixture
def business(scope):
    location = BusinessFactory(name="Old Name", phone="(512) 555-0000", address1="9 Elm St",
                               country_name="United States")
    scope(location.reseller)
    return location


def submit(business, payload=BODY, actor=None):
    return listing_submit(tenant=business.reseller, actor=actor, business=business,
                          payload=payload, summary="Phone")


def test_a_submitted_version_is_stored_with_its_pending_outbox_row(business):
    user = UserFactory()
    version = submit(business, actor=user)
    entry = version.outbox_entry
    assert (version.number, version.state, version.created_by) == (1, "pending", user)
    assert (entry.kind, entry.state, entry.business) == (
        OutboxEntry.Kind.LISTING_CREATE, OutboxEntry.State.PENDING, business)
    assert entry.payload == BODY == version.payload
    assert version.document == BODY
    assert "Phone" in entry.summary


def test_the_version_and_its_outbox_row_commit_together(business):
    with pytest.raises(RuntimeError), transaction.atomic():
        submit(business)
        raise RuntimeError("the request fails after submitting")
    assert not ListingVersion.objects.exists()
    assert not OutboxEntry.objects.exists()


def test_one_change_at_a_time(business):
    submit(business)
    with pytest.raises(ListingBusy):
        submit(business)
    assert ListingVersion.objects.count() == 1


def test_a_version_builds_on_the_last_accepted_one(business):
    first = submit(business)
    OutboxEntry.objects.filter(pk=first.outbox_entry_id).update(state=OutboxEntry.State.ACCEPTED)
    ListingCreate().on_accepted(OutboxEntry.objects.get(pk=first.outbox_entry_id), None)
    second = submit(business, {"businessInfo": {"name": "Blue Door"},
                               "additionalInfo": {"keywords": "coffee"}})
    assert second.number == 2
    assert second.document == {"businessInfo": {"name": "Blue Door", "phone": "(512) 555-0100"},
                               "additionalInfo": {"businessStatus": "Open",
                                                  "keywords": "coffee"}}
    assert selectors.listing_version_last_accepted(tenant=business.reseller,
                                                   business=business) == first


def test_a_body_without_a_name_is_refused(business):
    with pytest.raises(ValueError):
        submit(business, {"additionalInfo": {"keywords": "x"}})


def test_accepting_marks_the_version_and_updates_the_business(business):
    version = submit(business, {"businessInfo": {
        "name": "Blue Door Cafe", "phone": "(512) 555-0199",
        "location": {"address1": "1 Main St", "city": "Dallas", "countryCode": "ca"}}})
    ListingCreate().on_accepted(version.outbox_entry, None)
    version.refresh_from_db()
    business.refresh_from_db()
    assert version.accepted_at is not None and version.state == "accepted"
    assert (business.name, business.phone, business.address1, business.city, business.zip,
            business.country_code, business.country_name) == (
        "Blue Door Cafe", "(512) 555-0199", "1 Main St", "Dallas", "", "CA", "Canada")


def test_a_body_without_address_leaves_the_address_alone(business):
    business_update_from_listing(business, {"businessInfo": {"name": "Renamed"}})
    business.refresh_from_db()
    assert (business.name, business.address1, business.phone) == (
        "Renamed", "9 Elm St", "(512) 555-0000")


def test_only_the_latest_failed_version_can_be_sent_again(business):
    first = submit(business)
    OutboxEntry.objects.filter(pk=first.outbox_entry_id).update(state=OutboxEntry.State.FAILED)
    first.refresh_from_db()
    second = submit(business)  # a failed version does not block a new one
    OutboxEntry.objects.filter(pk=second.outbox_entry_id).update(
        state=OutboxEntry.State.REJECTED)
    second.refresh_from_db()
    with pytest.raises(ValueError, match="latest"):
        listing_version_retry(tenant=business.reseller, actor=None, version=first)
    with pytest.raises(ValueError, match="failed"):
        listing_version_retry(tenant=business.reseller, actor=None, version=second)
    OutboxEntry.objects.filter(pk=second.outbox_entry_id).update(state=OutboxEntry.State.FAILED)
    second.refresh_from_db()
    listing_version_retry(tenant=business.reseller, actor=None, version=second)
    second.refresh_from_db()
    assert second.state == "pending"
