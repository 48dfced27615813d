"""A bulk change in a real browser against the live sandbox: locations ticked in the businesses
list, their Monday hours set with the listing editor's fields, the dry run, sending in two waves
watched on the change's page, and the rollback.

Celery runs eagerly: a change queued in the outbox is sent to the sandbox inside the request that
queued it, and its answer starts the change's next step there too. The periodic sweep, which
steps a wave waiting for its locations' directory statuses, is run here by the test, as the
worker's schedule would.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.models import Business, Role
from bulk.models import BulkChange, BulkChangeItem
from bulk.tasks import bulk_changes_sweep_task
from listings.editor.services import listing_submit
from listings.models import ListingVersion
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from tests.e2e.conftest import PHONE, assert_fits, sign_in, sync_inline
from tests.factories import MembershipFactory
from tests.live import join_live_server_requests

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "bulk-changes-browser-key-4417"
NINE_TO_FIVE = [{"day": 0, "isOpen": 1, "workingHours": [{"startHour": 9 * 3600,
                                                          "endHour": 17 * 3600}]}]
EIGHT_TO_SIX = [{"day": 0, "isOpen": 1, "workingHours": [{"startHour": 8 * 3600,
                                                          "endHour": 18 * 3600}]}]


@pytest.fixture
def agency(sandbox_reseller, eager_celery):
    """A synced sandbox account and a manager; of the first two locations by name, the first
    has a listing version the provider accepted (Monday 09:00–17:00), the second none yet."""
    reseller, _ = sandbox_reseller(KEY, locations=4, seed=11, name="Bulk Agency")
    sync_inline(reseller)
    with tenant_scope(reseller):
        first, second = Business.objects.filter(type=Business.Type.BUSINESS).order_by("name")[:2]
        version = listing_submit(tenant=reseller, actor=None, business=first, payload={
            "businessInfo": {"name": first.name},
            "additionalInfo": {"hoursOfOperations": NINE_TO_FIVE}})
        version.refresh_from_db()
        assert version.accepted_at is not None, "the sandbox did not accept the first version"
    yield MembershipFactory(reseller=reseller, role=Role.MANAGER), first, second
    join_live_server_requests()


def hold_polls(page) -> None:
    """The change's page polls its progress; each poll is answered inside a Playwright call of
    this thread (`route.fetch` waits for the portal's answer), so that none is in flight while
    this thread steps the change in the database the live server shares."""
    page.route(re.compile(r".*/bulk-changes/\d+/progress/$"),
               lambda route: route.fulfill(response=route.fetch()))


def submissions(business) -> int:
    return sandbox.ListingSubmission.objects.filter(location__number=business.remote_id,
                                                    accepted=True).count()


def sandbox_hours(business):
    return sandbox.Listing.objects.get(location__number=business.remote_id) \
        .payload["additionalInfo"]["hoursOfOperations"]


def test_choose_set_hours_dry_run_send_in_two_waves_and_roll_back(live_server, page, agency):
    manager, first, second = agency
    reseller = manager.reseller
    sign_in(page, live_server.url, manager)
    hold_polls(page)
    sent_before = (submissions(first), submissions(second))

    # Tick the two locations in the businesses list.
    page.get_by_role("link", name="Businesses").click()
    change_selected = page.get_by_role("button", name=re.compile("^Change the selected listings"))
    expect(change_selected).to_be_disabled()
    select_all = page.get_by_label("Select all on this page")
    select_all.check()
    expect(change_selected).to_have_text("Change the selected listings (4)")
    select_all.uncheck()
    expect(change_selected).to_be_disabled()
    page.get_by_label(f"Choose {first.name}", exact=True).check()
    page.get_by_label(f"Choose {second.name}", exact=True).check()
    expect(change_selected).to_have_text("Change the selected listings (2)")
    change_selected.click()
    expect(page.locator("#bulk-locations")).to_contain_text(
        f"2 locations: {first.name}, {second.name}.")

    # Set Monday's hours with the listing editor's own fields, one location per wave, each wave
    # waiting for its locations' directory statuses.
    page.locator(".bulk-parts summary", has_text="Opening hours").click()
    page.get_by_label("Opening hours", exact=True).check()
    page.get_by_role("button", name="Show the fields of the parts ticked").click()
    page.get_by_label("Monday opens 1").fill("08:00")
    page.get_by_label("Monday closes 1").fill("18:00")
    page.get_by_label("Waves").fill("1")
    page.get_by_label(re.compile("wait for the directories' statuses")).check()
    page.get_by_role("button", name="Dry run", exact=True).last.click()

    # The dry run: what it would do to each location, nothing sent.
    expect(page.locator(".messages")).to_contain_text("nothing was sent")
    expect(page.locator(".bulk-counts")).to_contain_text("2 will change")
    items = page.locator(".bulk-item")
    expect(items).to_have_count(2)
    expect(items.first.locator("table.diff")).to_contain_text("Monday: 09:00–17:00")
    expect(items.first.locator("table.diff")).to_contain_text("Monday: 08:00–18:00")
    assert (submissions(first), submissions(second)) == sent_before

    # Send: the first wave goes out and is accepted; the second waits for its statuses.
    page.get_by_role("button", name="Send to 2 locations in waves").click()
    progress = page.locator("[data-bulk-progress]")
    expect(progress.locator("[data-bulk-badge]")).to_have_text("Applying")
    expect(progress.locator('[data-bulk-field="current_wave"]')).to_have_text("1")
    expect(progress.locator('[data-bulk-field="waves_total"]')).to_have_text("2")
    expect(progress.locator('[data-bulk-field="accepted"]')).to_have_text("1")
    expect(progress.locator('progress[aria-label="Locations"]')).to_have_attribute("value", "50")
    expect(progress.locator('[data-bulk-field="note"]')).to_contain_text(
        "directory statuses are being read again")
    assert (submissions(first), submissions(second)) == (sent_before[0] + 1, sent_before[1])

    # The worker's sweep: the first wave's statuses were read again and it stayed healthy, so
    # the second starts; the page follows without a reload.
    bulk_changes_sweep_task()
    expect(progress.locator('[data-bulk-field="current_wave"]')).to_have_text("2")
    expect(progress.locator('[data-bulk-field="accepted"]')).to_have_text("2")
    expect(progress.locator('progress[aria-label="Locations"]')).to_have_attribute("value", "100")
    assert submissions(second) == sent_before[1] + 1
    bulk_changes_sweep_task()
    expect(page.locator("h1 .badge")).to_have_text("Done")
    assert sandbox_hours(first) == EIGHT_TO_SIX

    # Roll back, after a confirmation: the first location goes back to its earlier version; the
    # second had none, and says so.
    page.get_by_role("link", name="Roll back…").click()
    page.get_by_role("button", name="Roll back 2 locations").click()
    expect(page.locator("h1 .badge")).to_have_text("Rolled back")
    rolled = page.locator(f"#item-{first.remote_id}")
    expect(rolled).to_contain_text("Rollback: rolled back")
    kept = page.locator(f"#item-{second.remote_id}")
    expect(kept).to_contain_text("Rollback: nothing to go back to")
    expect(kept).to_contain_text("No earlier version of this listing was accepted")
    assert sandbox_hours(first) == NINE_TO_FIVE

    # The listing's history names the bulk change each version came from.
    change = BulkChange.unscoped.get(reseller=reseller)
    page.goto(f"{live_server.url}/t/{reseller.slug}/businesses/{first.remote_id}/listing/")
    history = page.locator("#history-title + .table-wrap")
    expect(history).to_contain_text(f"From bulk change #{change.pk}")
    expect(history).to_contain_text(f"Rollback of bulk change #{change.pk}")
    with tenant_scope(reseller):
        waves = dict(BulkChangeItem.objects.filter(change=change)
                     .values_list("business_number", "wave"))
        assert waves == {first.remote_id: 1, second.remote_id: 2}
        assert ListingVersion.objects.filter(business=first, accepted_at__isnull=False) \
            .count() == 3

    # At phone width, the new page with the editor's row-based fields fits the window.
    page.set_viewport_size(PHONE)
    parts = "&".join(f"parts={part}" for part in (
        "additionalInfo.hoursOfOperations", "additionalInfo.specialHours",
        "additionalInfo.moreHours", "profileListing.attributes", "mapsListing.mapsActionLinks",
        "profileListing.additionalCategories", "businessInfo.mainBusinessDescription"))
    page.goto(f"{live_server.url}/t/{reseller.slug}/bulk-changes/new/"
              f"?numbers={first.remote_id}&{parts}")
    expect(page.get_by_label("Monday opens 1")).to_be_visible()
    assert_fits(page, "new bulk change")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert_fits(page, "new bulk change, every group open")
