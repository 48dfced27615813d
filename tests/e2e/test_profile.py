"""Your profile in a browser, at phone width and on a laptop: reached from the header, the zone
chosen from the list, and the pages' dates then in that zone."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import expect

from accounts.models import Role, SyncRun
from tests.accounts.ui_factories import SyncRunFactory
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [390, 1366])
def test_the_profile_sets_the_zone_the_pages_then_use(live_server, browser, settings, width):
    settings.TIME_ZONE = "UTC"
    membership = MembershipFactory(role=Role.VIEWER)
    SyncRunFactory(reseller=membership.reseller)
    SyncRun.unscoped.filter(reseller=membership.reseller).update(
        created_at=dt.datetime(2026, 11, 23, 18, 20, tzinfo=dt.UTC))
    with viewport_page(browser, width, 800) as page:
        sign_in(page, live_server.url, membership)

        page.get_by_role("navigation", name="Your account").get_by_role(
            "link", name="Your profile").click()
        expect(page.get_by_role("heading", name="Your profile")).to_be_visible()
        assert_fits(page, "profile")
        page.get_by_label("Full name").fill("Ada Lovelace")
        page.get_by_label("Time zone").select_option("Europe/Paris")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Your profile is saved.")).to_be_visible()
        expect(page.get_by_label("Full name")).to_have_value("Ada Lovelace")
        assert_fits(page, "profile saved")

        page.goto(f"{live_server.url}/t/{membership.reseller.slug}/sync/")
        expect(page.locator("time", has_text="Nov 23, 2026, 19:20 CET")).to_have_count(1)
