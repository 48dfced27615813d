"""An enterprise in a real browser, at phone width and at 1366 px, against the live sandbox:
its overview fills in the reviews of its locations, offers only the tabs that apply to it, and
a location-only page says what applies instead; the list's search takes "City, ST"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Role
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import MembershipFactory
from tests.live import mirror_enterprise

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "enterprise-pages-partner-key"
WIDTHS = [390, 1366]


@pytest.fixture
def arranged(sandbox_reseller):
    reseller, seeded = sandbox_reseller(KEY, locations=20, seed=3)
    ent, locations, _ = mirror_enterprise(reseller, seeded)
    return MembershipFactory(reseller=reseller, role=Role.MANAGER), ent, locations


@pytest.mark.parametrize("width", WIDTHS)
def test_an_enterprises_pages(live_server, browser, arranged, width):
    membership, ent, locations = arranged
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, membership)
        base = f"{live_server.url}/t/{membership.reseller.slug}"

        page.goto(f"{base}/businesses/{ent.remote_id}/")
        tabs = page.get_by_role("navigation", name="Business")
        expect(tabs.get_by_role("link")).to_have_text(["Overview", "Q&A"])
        card = page.locator("section[data-rollup-src]")
        expect(card).to_contain_text("average rating")  # filled in by rollup.js
        expect(card).to_contain_text(f"All locations under {ent.name}")
        assert_fits(page, "overview")

        page.goto(f"{base}/businesses/{ent.remote_id}/media/")
        expect(page.locator("main")).to_contain_text(
            "Photos and videos belong to a single location")
        page.get_by_role("link", name=f"Its {len(locations)} locations").click()
        expect(page.locator("table")).to_contain_text(locations[0].name)
        assert_fits(page, "the media page's way to the locations")

        # "City, ST" finds the location, the comma typed as people write it.
        search = page.get_by_role("searchbox", name="Search")
        search.fill(f"{locations[0].city}, {locations[0].state}")
        search.press("Enter")
        expect(page.locator("table")).to_contain_text(locations[0].name)
        assert_fits(page, "search by city and state")
