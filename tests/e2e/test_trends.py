"""The trends in a browser, on a laptop and at phone width: the dashboard's period-over-period
figures in words and its charts over a known history, and a business's trends card put in place
on its page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Business, Role
from history.models import AccountDay, BusinessDay
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def figures(day: dt.date, synced: int, need: int) -> dict:
    return {"day": day, "locations": 10, "reports": 10, "total_sites": 100, "synced": synced,
            "submitted": 100 - synced - need, "need_updates": need, "needs_action": need // 2,
            "reviews": 200 + synced, "rating_1": 10, "rating_2": 5, "rating_3": 15,
            "rating_4": 60, "rating_5": 100 + synced, "recorded_at": timezone.now()}


def known_history(reseller, shop) -> None:
    """Twenty weeks climbing from 50% to 88% synced, the last day today."""
    today = timezone.localdate()
    for week in range(20):
        day = today - dt.timedelta(days=7 * (19 - week))
        synced, need = 50 + 2 * week, 20 - week
        AccountDay.unscoped.create(reseller=reseller, **figures(day, synced, need))
        BusinessDay.unscoped.create(reseller=reseller, business=shop,
                                    **figures(day, synced, need))


@pytest.mark.parametrize("width", [1366, 390])
def test_the_dashboard_shows_how_the_figures_moved(live_server, browser, width):
    membership = MembershipFactory(role=Role.VIEWER)
    reseller = membership.reseller
    shop = BusinessFactory(reseller=reseller, name="Corner Bakery", remote_id=4401,
                           type=Business.Type.BUSINESS)
    known_history(reseller, shop)
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, membership)

        trends = page.locator("section.trends")
        expect(trends.get_by_role("heading", name="Trends")).to_be_visible()
        quarter = trends.locator("section.comparison", has_text="This quarter against last")
        synced = quarter.locator("[data-figure=synced_percent]")
        expect(synced).to_contain_text("Listing sites synced")
        expect(synced).to_contain_text("88%")
        expect(synced.locator(".change-delta")).to_contain_text("up")
        expect(synced.locator(".change-delta")).to_contain_text("better")
        needing = quarter.locator("[data-figure=sites_needing_action] .change-delta")
        expect(needing).to_contain_text("down")
        expect(needing).to_contain_text("better")

        charts = trends.locator("figure.trend")
        expect(charts).to_have_count(4)
        for caption in ("Reviews", "Average rating", "Listing sites synced",
                        "Sites needing action"):
            chart = trends.locator("figure.trend", has=page.locator(
                "figcaption", has_text=caption)).first
            expect(chart.locator("svg[role=img]")).to_be_visible()
            box = chart.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        line = trends.locator("[data-chart=synced_percent] svg")
        assert "50% (" in line.get_attribute("aria-label")
        assert_fits(page, "dashboard with trends")

        page.goto(f"{live_server.url}/t/{reseller.slug}/businesses/{shop.remote_id}/")
        card = page.locator("section.trends")
        # Put in place by history/trends.js once the page is shown.
        expect(card.locator("section.comparison").first).to_be_visible()
        expect(card.locator("figure.trend")).to_have_count(4)
        assert_fits(page, "business with trends")

        for path in ("trends/?interval=month",
                     f"businesses/{shop.remote_id}/trends/?interval=day"):
            page.goto(f"{live_server.url}/t/{reseller.slug}/{path}")
            expect(page.locator("figure.trend svg[role=img]").first).to_be_visible()
            assert_fits(page, path)
