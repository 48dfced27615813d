"""A change in doubt in the browser, at laptop and phone width: the listing editor says so and
links to the page that asks whether it arrived; recording it as arrived accepts it."""

from __future__ import annotations

import pytest

from accounts.models import Role
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.e2e.conftest import PHONE, assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

DOUBT = ("The provider may or may not have this change: its answer was lost, and its status "
         "report cannot tell: the location changed at the provider since the request left.")


@pytest.mark.parametrize("width", [1366, PHONE["width"]])
def test_a_member_records_a_change_in_doubt_as_arrived(browser, live_server, width):
    membership = MembershipFactory(role=Role.MANAGER)
    reseller = membership.reseller
    business = BusinessFactory(reseller=reseller, name="Harbour Lights Cafe")
    with tenant_scope(reseller):
        entry = OutboxEntry.objects.create(
            reseller=reseller, business=business, kind=OutboxEntry.Kind.LISTING_CREATE,
            state=OutboxEntry.State.IN_DOUBT, in_doubt=True, provider_message=DOUBT,
            summary="Harbour Lights Cafe: Listing version 1",
            payload={"businessInfo": {"name": "Harbour Lights Cafe"}})
        ListingVersion.objects.create(reseller=reseller, business=business, number=1,
                                      outbox_entry=entry, document=entry.payload,
                                      payload=entry.payload)
    with viewport_page(browser, width) as page:
        sign_in(page, live_server.url, membership)
        page.goto(f"{live_server.url}/t/{reseller.slug}/businesses/{business.remote_id}/listing/")
        assert page.get_by_text("In doubt").first.is_visible()
        page.get_by_role("link", name="Did version 1 arrive?").click()
        arrived = page.get_by_role("button", name="It arrived: record it as accepted")
        again = page.get_by_role("button", name="It did not arrive: send it again")
        assert arrived.is_visible() and again.is_visible()
        assert page.get_by_text("publishes the listing a second time").is_visible()
        assert_fits(page, f"the decision page at {width} px")
        page.screenshot(path=f"/tmp/change-in-doubt-{width}.png", full_page=True)
        arrived.click()
        page.wait_for_url(f"**/businesses/{business.remote_id}/listing/")
        assert page.get_by_text("is recorded as arrived").is_visible()
        assert_fits(page, f"the listing editor at {width} px")
    entry.refresh_from_db()
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert ListingVersion.unscoped.get(outbox_entry=entry).accepted_at is not None
