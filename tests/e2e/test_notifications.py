"""Alerts in a real browser: a sync the provider refuses (its key rejected) rings the bell with
two unread notifications; one opened from the bell lands on the page to act on and is read, the
bell counting one less; the list and the choices fit a phone."""

from __future__ import annotations

import pytest

from accounts.models import Role
from alerts.kinds import Kind
from alerts.models import Notification
from tests.e2e.conftest import assert_fits, sign_in, sync_inline, viewport_page
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_notification_opened_from_the_bell(browser, live_server, sandbox_reseller):
    reseller, _ = sandbox_reseller("notifications-e2e-key", locations=2, seed=4,
                                   api_key="a-key-the-provider-never-issued")
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    run = sync_inline(reseller)
    run.refresh_from_db()
    assert run.status == "failed"

    with viewport_page(browser, 1280, 860) as page:
        sign_in(page, live_server.url, owner)
        bell = page.get_by_role("link", name="Notifications, 2 unread")
        assert bell.inner_text().strip().endswith("2")
        bell.click()
        page.wait_for_url(f"**/t/{reseller.slug}/notifications/")
        page.get_by_role("link", name="The provider rejected the API key").click()

        # The connection settings, where an owner enters a new key; the bell counts one less.
        page.wait_for_url(f"**/t/{reseller.slug}/settings/")
        page.get_by_role("link", name="Notifications, 1 unread").wait_for()
        key = Notification.unscoped.get(membership=owner, kind=Kind.KEY_REJECTED)
        assert key.read_at is not None
        assert Notification.unscoped.get(membership=owner,
                                         kind=Kind.SYNC_FAILED).read_at is None

        page.get_by_role("link", name="Notifications, 1 unread").click()
        page.get_by_role("button", name="Mark all read").click()
        page.wait_for_url(f"**/t/{reseller.slug}/notifications/")
        assert page.locator("a.bell").get_attribute("aria-label") == "Notifications"
        assert "All read" in page.inner_text("main")

    with viewport_page(browser, 390, 844) as phone:
        sign_in(phone, live_server.url, owner)
        for path in ("notifications/", "notifications/preferences/", "alert-rules/"):
            phone.goto(f"{live_server.url}/t/{reseller.slug}/{path}")
            assert_fits(phone, path)
