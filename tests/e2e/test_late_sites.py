"""The late-sites list in a browser, on a laptop and at phone width: the sites of a synced
sandbox account held past their directory's usual delay, most late first, sorted and filtered,
and each row's card at phone width."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Role
from history.delays import DEFAULT_DELAYS, sites_due_refresh
from listings.models import ListingSite
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.status import change_site_status
from tests.e2e.conftest import assert_fits, sign_in, sync_inline, viewport_page
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "late-sites-partner-key-4471"


def held_back(reseller, days: int) -> list[ListingSite]:
    """The sites waiting on their directory, made to have held their status for `days` (as if
    the sync that saw them change had run that long ago)."""
    with tenant_scope(reseller):
        sites = list(ListingSite.objects.filter(status__in=["Submitted", "In Progress"])
                     .select_related("business").order_by("business__remote_id", "site_id"))
        ListingSite.objects.filter(pk__in=[s.pk for s in sites]).update(
            status_since=timezone.now() - dt.timedelta(days=days), previous_status="Synced")
        sites_due_refresh(tenant=reseller)  # written below the mirror: their due moments
    return sites


@pytest.mark.parametrize("width", [1366, 390])
def test_the_late_sites_list(live_server, browser, sandbox_reseller, width):
    reseller, seeded = sandbox_reseller(KEY, locations=6, seed=7)
    # Two locations' Search Engine site waits on the directory, as the provider reports it.
    sandbox.SiteStatus.objects.update(next_change_at=None)  # nothing else moves meanwhile
    for number in seeded["location_numbers"][:2]:
        site = sandbox.SiteStatus.objects.get(location__number=number, site_id=226)
        assert change_site_status(site, "In Progress", errors=[], at=timezone.now())
    sync_inline(reseller)
    with tenant_scope(reseller):
        ListingSite.objects.update(status_since=timezone.now())  # nothing late yet
        sites_due_refresh(tenant=reseller)
    waiting = held_back(reseller, 60)
    assert waiting, "the sandbox's seed gave no site waiting on its directory"
    member = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, member)
        page.get_by_role("navigation", name="Main").get_by_role(
            "link", name="Late sites").click()
        page.wait_for_url("**/late-sites/")
        table = page.locator("table.late-sites")
        rows = table.locator("tbody tr")
        expect(rows).to_have_count(len(waiting))
        first = rows.first
        expect(first).to_contain_text("Waiting on")
        # The location's number and address, and the delay's source, on lines of their own.
        for second_line in first.locator(".alias").all():
            assert second_line.evaluate("e => getComputedStyle(e).display") == "block"
        # Most late first: held as long as the others, its directory is the quickest.
        quickest = min(waiting, key=lambda s: (DEFAULT_DELAYS[s.site_id].days, s.site_name))
        expect(first).to_contain_text(quickest.site_name)
        assert_fits(page, "late sites")
        if width == 390:
            # A card: each value says which column it is.
            cell = first.locator("td").nth(1)
            expect(cell).to_have_attribute("data-label", "Site")
            box = first.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width

        # Sorted by location, then back, with the header saying so.
        page.locator("thead").get_by_role("link", name="Location").click()
        expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Location")
        names = sorted(s.business.name for s in waiting)
        expect(rows.first).to_contain_text(names[0])
        page.locator("thead").get_by_role("link", name="Location").click()
        expect(page.locator("th[aria-sort=descending]")).to_contain_text("Location")
        expect(rows.first).to_contain_text(names[-1])

        # Filtered to one location by its number; then to a status none holds late.
        page.get_by_label("Location").fill(str(waiting[0].business.remote_id))
        page.get_by_role("button", name="Filter").click()
        expect(rows.first).to_contain_text(waiting[0].business.name)
        page.get_by_label("Status").select_option("action_required")
        page.get_by_role("button", name="Filter").click()
        expect(page.get_by_text("No site is late among these filters.")).to_be_visible()
        assert_fits(page, "late sites filtered")

        # The site moves on (the next sync sees it Synced): it leaves the list.
        with tenant_scope(reseller):
            ListingSite.objects.filter(pk=waiting[0].pk).update(
                status="Synced", status_since=timezone.now(), previous_status="Submitted")
            sites_due_refresh(tenant=reseller)
        page.goto(f"{live_server.url}/t/{reseller.slug}/late-sites/")
        expect(rows).to_have_count(len(waiting) - 1)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_directory_delays_page(live_server, browser, width):
    owner = MembershipFactory(role=Role.OWNER)
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, owner)
        page.goto(f"{live_server.url}/t/{owner.reseller.slug}/settings/directory-delays/")
        row = page.locator("table.directory-delays tbody tr", has_text="Search Engine")
        expect(row).to_contain_text("Portal default")
        assert_fits(page, "directory delays")
        row.get_by_label("From Submitted").fill("9")
        row.get_by_role("button", name="Save").click()
        expect(page.locator(".messages")).to_contain_text("Search Engine: 9 days")
        row = page.locator("table.directory-delays tbody tr", has_text="Search Engine")
        expect(row).to_contain_text("Your setting")
        assert_fits(page, "directory delays saved")
