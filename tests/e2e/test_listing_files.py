"""Listings out and in as files, in a browser at phone width and on a laptop: export from the
businesses list, import the edited file, read its preview row by row (a change, an error next to
its column), and make it a bulk change."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Business, Role
from bulk.models import BulkChange
from listings.models import ListingVersion
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOURS = "additionalInfo.hoursOfOperations"
WEBSITE = "businessInfo.websiteUrl"


def brand(reseller):
    enterprise = BusinessFactory(reseller=reseller, remote_id=700, name="Harbor Bakeries",
                                 type=Business.Type.ENTERPRISE_LOCATION, tree_path="/700/")
    for number, name in ((701, "Harbor Bakery - Pier Street"), (702, "Harbor Bakery - Old Town")):
        location = BusinessFactory(reseller=reseller, remote_id=number, name=name,
                                   parent=enterprise, depth=1, tree_path=f"/700/{number}/",
                                   city="Seattle", state="WA", address1="1 Pier St",
                                   zip="98101", phone="(206) 555-0100")
        ListingVersion.unscoped.create(
            reseller=reseller, business=location, number=1, accepted_at=timezone.now(),
            document={"businessInfo": {"name": name, "phone": "(206) 555-0100",
                                       "websiteUrl": "https://harbor.example.com",
                                       "location": {"address1": "1 Pier St", "city": "Seattle",
                                                    "state": "WA", "zip": "98101",
                                                    "countryCode": "US"}},
                      "additionalInfo": {"hoursOfOperations": [
                          {"day": 0, "isOpen": 1,
                           "workingHours": [{"startHour": 25200, "endHour": 54000}]}]}})


def edited(content: bytes) -> bytes:
    rows = list(csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")))
    head = rows[0]
    rows[1][head.index(HOURS)] = "Mon 06:00-14:00; Sat 08:00-12:00; Sun closed"
    rows[2][head.index(WEBSITE)] = "harbor bakery old town"
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode("utf-8-sig")


@pytest.mark.parametrize("width", [390, 1280])
def test_export_edit_import_preview_and_create_the_bulk_change(live_server, browser, width,
                                                                tmp_path):
    membership = MembershipFactory(role=Role.MANAGER)
    reseller = membership.reseller
    brand(reseller)
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, membership)
        page.goto(f"{live_server.url}{reverse('business_list', args=[reseller.slug])}"
                  "?type=Business")
        page.get_by_text("Export listings").click()
        with page.expect_download() as download:
            page.get_by_role("link", name="CSV", exact=True).click()
        exported = tmp_path / "listings.csv"
        download.value.save_as(exported)
        file = tmp_path / "edited.csv"
        file.write_bytes(edited(exported.read_bytes()))
        assert_fits(page, "businesses list")

        page.get_by_role("link", name="Import listings").click()
        expect(page.get_by_role("heading", name="Import listings", exact=True)).to_be_visible()
        assert_fits(page, "import page")
        page.get_by_label("Listings file").set_input_files(str(file))
        page.get_by_role("button", name="Import and preview").click()

        expect(page.get_by_role("heading", name="Preview of edited.csv")).to_be_visible()
        expect(page.locator(".tile", has_text="Will change")).to_contain_text("1")
        expect(page.locator(".tile", has_text="With errors")).to_contain_text("1")
        rows = page.locator("table tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text("Monday: 06:00–14:00; Saturday: 08:00–12:00")
        expect(rows.nth(1)).to_contain_text(f"{WEBSITE}: Enter a full http:// or https://")
        assert_fits(page, "preview")

        page.get_by_label("Waves").fill("1")
        page.get_by_label("Leave out the rows with errors").check()
        page.get_by_role("button", name="Create the bulk change").click()
        change = BulkChange.unscoped.get(reseller=reseller)
        page.wait_for_url(f"**{reverse('bulk_change_detail', args=[reseller.slug, change.pk])}")
        assert change.source == BulkChange.Source.FILE and change.counts["will_change"] == 1
        assert_fits(page, "bulk change")


def test_a_file_of_ones_own_has_its_columns_named_at_phone_width(live_server, browser,
                                                                  tmp_path):
    membership = MembershipFactory(role=Role.OWNER)
    reseller = membership.reseller
    brand(reseller)
    file = tmp_path / "stores.csv"
    file.write_text("Store;Opening hours of the store;Internal notes\n"
                    "701;Mon 05:30-13:30;call the manager first\n")
    with viewport_page(browser, 390) as page:
        sign_in(page, live_server.url, membership)
        page.goto(f"{live_server.url}{reverse('listing_import_list', args=[reseller.slug])}")
        page.get_by_label("Listings file").set_input_files(str(file))
        page.get_by_role("button", name="Import and preview").click()
        expect(page.get_by_role("heading", name="Which field does each column fill?")) \
            .to_be_visible()
        assert_fits(page, "columns")
        page.get_by_label("Store", exact=True).select_option("business_number")
        page.get_by_label("Opening hours of the store").select_option(HOURS)
        page.get_by_role("button", name="Import and preview").click()
        expect(page.get_by_role("heading", name="Preview of stores.csv")).to_be_visible()
        expect(page.locator("table tbody tr")).to_contain_text("Monday: 05:30–13:30")
        assert_fits(page, "preview")
