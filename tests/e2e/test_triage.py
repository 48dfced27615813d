"""The locations needing action, in a browser at phone width and on a laptop (issue 15): the
dashboard's figures say how much is to do, its rows rank by the work and tell two locations of
one name apart, and its links lead to the list filtered and sorted the same way."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Role
from tests.accounts.ui_factories import StatusReportFactory
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def location(reseller, name, *, status="Published", need=0, errors=(), **fields):
    business = BusinessFactory(reseller=reseller, name=name, city="Phoenix", state="AZ",
                               country_code="US", **fields)
    StatusReportFactory(business=business, location_status=status, total_sites=22,
                        need_updates_count=need, synced_count=22 - need, submitted_count=0,
                        opted_out_count=0, not_connected_count=0, errors=list(errors),
                        needs_action=need > 0 or bool(errors))
    return business


@pytest.mark.parametrize("width", [390, 1366])
def test_needs_action_is_a_triage_at_every_width(live_server, browser, width):
    membership = MembershipFactory(role=Role.VIEWER)
    reseller = membership.reseller
    location(reseller, "FlexFit Gyms - Phoenix", need=1, remote_id=8801,
             address1="12 Camelback Rd")
    location(reseller, "FlexFit Gyms - Phoenix", need=2, remote_id=8802,
             address1="900 Van Buren St")
    location(reseller, "Night Owl Diner", status="Scan State", need=15,
             errors=["Listings have not been published for this location yet"])
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, membership)

        section = page.locator("section", has=page.locator("#h-action"))
        rows = section.locator("tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.nth(0)).to_contain_text("Not published")  # the most work first
        expect(rows.nth(1)).to_contain_text("Business number 8802 · 900 Van Buren St")
        expect(rows.nth(2)).to_contain_text("1 of 22 sites needs action")
        for name in ("location not published", "with many sites to fix"):
            expect(page.locator(".tile", has_text=name)).to_be_visible()
        box = section.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        for link in section.locator("tbody a").all():
            link_box = link.bounding_box()
            assert link_box["x"] + link_box["width"] <= width, link.inner_text()
        assert_fits(page, "dashboard")

        page.locator(".tile", has_text="with a few sites to update").get_by_role(
            "link", name="2 with a few sites to update").click()
        expect(page.get_by_role("heading", name="Businesses")).to_be_visible()
        table = page.locator("table tbody tr")
        expect(table).to_have_count(2)
        expect(table.nth(0)).to_contain_text("2 of 22 sites need action")
        expect(table.nth(0)).to_contain_text("8802")
        expect(page.get_by_label("Work to do")).to_have_value("few_sites")
        assert_fits(page, "filtered list")
