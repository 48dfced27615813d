"""Create listing (1), location status report (12) and category list (13)."""

from __future__ import annotations

import json
import re

import pytest

from provider import Rejected
from provider.types import Category, ChildBusiness, LocationStatusReport
from sandbox.catalog import SITES
from sandbox.models import Business, Listing, ListingSubmission, SiteStatus
from sandbox.models import Category as StoredCategory

from .conftest import LIVE_DB, listing_body, stored_counts

pytestmark = LIVE_DB

PERCENT = re.compile(r"^\d{1,3}\.\d{2}%$")


def check_counts(report: LocationStatusReport) -> None:
    statuses = [site.status for site in report.sites]
    assert report.total_sites == len(report.sites) == len(SITES)
    assert report.synced_count == statuses.count("Synced")
    assert report.submitted_count == statuses.count("Submitted") + statuses.count("In Progress")
    assert report.need_updates_count == statuses.count("Action Required")
    assert report.opted_out_count == statuses.count("Opted out")
    assert report.not_connected_count == statuses.count("Connect")
    counts = (
        report.synced_count,
        report.submitted_count,
        report.need_updates_count,
        report.opted_out_count,
        report.not_connected_count,
    )
    assert sum(counts) == report.total_sites
    percentages = (
        report.synced_percentage,
        report.submitted_percentage,
        report.need_updates_percentage,
        report.opted_out_percentage,
        report.not_connected_percentage,
    )
    for count, text in zip(counts, percentages, strict=True):
        assert PERCENT.match(text), text
        assert text == f"{count * 100 / report.total_sites:.2f}%"


def test_create_listing_publishes_and_puts_the_sites_on_their_way(client, ids, dialect):
    location = Business.objects.get(number=ids.location)
    name = "Zahnarztpraxis Müller – Round Rock"  # non-ASCII survives both ways
    body = listing_body(name)

    assert client.create_listing(ids.location, body) is None

    stored = Listing.objects.get(location=location)
    assert stored.fixed and stored.version >= 1
    assert stored.payload["businessInfo"]["name"] == name
    assert stored.payload["profileListing"] == body["profileListing"]
    submission = ListingSubmission.objects.filter(location=location).first()
    assert submission.accepted and submission.error_code is None
    sent = json.loads(submission.body)
    if dialect == "neutral":
        assert sent == body  # the body arrived as the client built it
    else:  # in the provider's own names, and in none of the neutral ones
        assert sent["gmbListing"] == {"primaryCategoryGmb": "Dentist",
                                      "additionalCategories": ["Orthodontist"]}
        assert sent["optOut"] == {"gmbProfileOptOut": False}
        assert "profileListing" not in sent

    report = client.location_status(ids.location)
    assert isinstance(report, LocationStatusReport)
    assert report.business_name == name
    assert report.location_status == "Published"
    assert report.activation_status == "active"
    assert report.errors == ()
    check_counts(report)
    statuses = {site.status for site in report.sites}
    assert statuses <= {"Submitted", "In Progress", "Connect", "Opted out"}
    assert report.submitted_count >= len(SITES) - 2  # only the two connectable sites may lag
    by_site = {site.site_id: site.status for site in report.sites}
    assert by_site == dict(
        SiteStatus.objects.filter(location=location).values_list("site_id", "status")
    )

    # The business itself was updated: the child list shows the new name and phone.
    children = client.child_businesses(ids.enterprise)
    entry = next(child for child in children if child.id == ids.location)
    assert isinstance(entry, ChildBusiness)
    assert (entry.name, entry.phone) == (name, "(512) 555-0147")
    assert entry.address["city"] == "Austin" and entry.address["zip"] == "78701"


def test_a_listing_rule_violation_is_rejected_with_its_code_and_message(client, ids):
    location = Business.objects.get(number=ids.location)
    name_before = location.name
    body = listing_body(additional_categories=[f"Category {n}" for n in range(10)])

    with pytest.raises(Rejected) as caught:
        client.create_listing(ids.location, body)

    error = caught.value
    assert (error.code, error.http_status, error.operation) == (2276, 400, "create_listing")
    assert error.message == "Please add upto 9 GBP additional categories only."  # the provider's
    assert error.outcome_unknown is False
    submission = ListingSubmission.objects.get(location=location)
    assert (submission.accepted, submission.error_code) == (False, 2276)
    assert submission.error_message == error.message
    location.refresh_from_db()
    assert location.name == name_before


def test_a_fixed_listing_refuses_a_business_status_change(client, ids):
    client.create_listing(ids.location, listing_body())
    changed = listing_body()
    changed["additionalInfo"]["businessStatus"] = "Temporarily Closed"

    with pytest.raises(Rejected) as caught:
        client.create_listing(ids.location, changed)

    assert caught.value.code == 2511
    stored = Listing.objects.get(location__number=ids.location)
    assert stored.payload["additionalInfo"]["businessStatus"] == "Open"


def test_create_listing_needs_a_location(client, ids):
    before = stored_counts(ids.partner_id)
    for number in (ids.account, ids.enterprise):
        with pytest.raises(Rejected) as caught:
            client.create_listing(number, listing_body())
        assert (caught.value.code, caught.value.http_status) == (1043, 400)
    assert stored_counts(ids.partner_id) == before


def test_the_status_report_reflects_the_stored_sites(client, ids):
    for number in ids.locations[:3]:
        location = Business.objects.get(number=number)
        report = client.location_status(number)
        assert report.business_name == location.name
        assert report.activation_status == location.status
        check_counts(report)
        stored = dict(SiteStatus.objects.filter(location=location).values_list("site_id", "status"))
        for site in report.sites:
            assert site.status == stored.get(site.site_id, "Connect")
            assert site.site_name and isinstance(site.site_id, int)
            if site.status == "Synced":
                assert site.url and str(number) in site.url
        published = Listing.objects.filter(location=location, fixed=True).exists()
        if location.status == "inactive":
            assert report.location_status == "Disabled"
        else:
            assert report.location_status == ("Published" if published else "Scan State")
        assert bool(report.errors) == (report.location_status != "Published")
        assert re.match(r"^\d\d/\d\d/\d{4} \d\d:\d\d:\d\d$", report.last_updated)


def test_the_status_report_of_a_reseller_or_enterprise_is_rejected(client, ids):
    for number in (ids.account, ids.sub_reseller, ids.enterprise):
        with pytest.raises(Rejected) as caught:
            client.location_status(number)
        assert (caught.value.code, caught.value.http_status) == (1043, 400)


def test_category_list_returns_the_catalogue(client, ids):
    for source, country in (("ENGINE", "US"), ("VENDOR", "NZ")):
        categories = client.category_list(ids.location, source_name=source, country_code=country)
        stored = StoredCategory.objects.filter(source=source, country_code=country)
        assert categories and all(isinstance(c, Category) for c in categories)
        assert {(c.id, c.name) for c in categories} == set(
            stored.values_list("category_id", "name")
        )
        if source == "VENDOR":
            primary = dict(stored.values_list("category_id", "primary"))
            assert all(c.primary is primary[c.id] for c in categories)
        else:
            assert all(c.primary is None and "primary" not in c.raw for c in categories)
    # Any business of the account may ask, not only a location.
    assert client.category_list(ids.account, source_name="MAPS", country_code="CA")


def test_category_list_input_errors_are_rejected(client, ids):
    for source, country, message in (
        ("YELLOW", "US", "Invalid Source Name"),
        ("engine", "US", "Invalid Source Name"),  # case-sensitive
        ("ENGINE", "DE", "Invalid country code"),
    ):
        with pytest.raises(Rejected) as caught:
            client.category_list(ids.location, source_name=source, country_code=country)
        error = caught.value
        assert (error.code, error.http_status, error.message) == (400, 400, message)
