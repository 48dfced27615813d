"""The listing editor in a real browser against the live sandbox: what was typed survives a
fetch of the category lists, and at phone width (390 px) the page fits the window and its
sticky "Review changes" bar never covers the field being typed in."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Role
from sandbox import models as sandbox
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "listing-editor-browser-key-5521"
DESCRIPTION = "Wood-fired pizza by the pier since 1998; late kitchen on weekends."


@pytest.fixture
def manager(sandbox_reseller):
    reseller, seeded = sandbox_reseller(KEY, locations=2, seed=3)
    remote = sandbox.Business.objects.get(number=seeded["location_numbers"][0])
    location = BusinessFactory(reseller=reseller, remote_id=remote.number, name=remote.name,
                               phone=remote.phone, address1=remote.address1, city=remote.city,
                               state=remote.state, zip=remote.zip,
                               country_code=remote.country_code)
    membership = MembershipFactory(reseller=reseller, role=Role.MANAGER)
    return membership, location


def open_editor(page, live_server, membership, location):
    sign_in(page, live_server.url, membership)
    page.goto(f"{live_server.url}/t/{membership.reseller.slug}/businesses/"
              f"{location.remote_id}/listing/")


def test_typed_text_is_still_there_after_fetching_the_categories(live_server, page, manager):
    membership, location = manager
    open_editor(page, live_server, membership, location)
    page.get_by_label("Description", exact=True).first.fill(DESCRIPTION)
    page.locator("summary", has_text="Opening hours").click()
    page.get_by_label("Monday opens 1").fill("18:00")
    page.get_by_label("Monday closes 1").fill("02:00")
    page.locator("summary", has_text="Categories").click()
    page.get_by_label("Primary category").first.fill("Pizza Restaurant")

    page.get_by_role("button", name="Fetch the category lists for United States").click()

    expect(page.locator(".messages")).to_contain_text("categories for United States")
    expect(page.locator(".messages")).to_contain_text("Nothing was sent")
    expect(page.get_by_label("Description", exact=True).first).to_have_value(DESCRIPTION)
    expect(page.get_by_label("Monday opens 1")).to_have_value("18:00")
    expect(page.get_by_label("Monday closes 1")).to_have_value("02:00")
    expect(page.get_by_label("Primary category").first).to_have_value("Pizza Restaurant")
    assert page.locator("#categories-PROFILE option").count() > 0
    # The category section is open and in view, its lists offered.
    assert page.locator("#section-categories").get_attribute("open") is not None
    expect(page.get_by_role("button", name="Fetch the category lists again")).to_be_visible()

    # Enter in a field reviews the changes: it neither fetches again nor sends.
    page.get_by_label("Business name").press("Enter")
    review = page.locator("#review")
    expect(review).to_contain_text("Review changes")
    expect(review).to_contain_text(DESCRIPTION)
    expect(review).to_contain_text("Monday: 18:00–02:00 (next day); Tuesday: closed after 02:00")
    expect(review).to_contain_text("sets no business status")
    assert not sandbox.ListingSubmission.objects.filter(location__number=location.remote_id)


# Focus each field of the form in turn and report those that end up hidden
# under the sticky bar (or out of the window).
HIDDEN_WHEN_FOCUSED = """(selector) => {
  const bar = document.querySelector('.sticky-actions');
  const hidden = [];
  for (const field of document.querySelectorAll(selector)) {
    if (field.disabled || field.type === 'hidden' || !field.getClientRects().length) continue;
    field.focus();
    const box = field.getBoundingClientRect();
    const barTop = bar.getBoundingClientRect().top;
    if (box.bottom > barTop + 0.5 || box.top < 0) {
      hidden.push(`${field.name || field.id}: ${Math.round(box.top)}-${Math.round(box.bottom)}`
                  + ` under a bar at ${Math.round(barTop)}`);
    }
  }
  return hidden;
}"""


def test_the_editor_fits_a_phone_and_its_sticky_bar_hides_no_field(live_server, browser,
                                                                    manager):
    membership, location = manager
    with viewport_page(browser, 390, is_mobile=True, has_touch=True,
                       device_scale_factor=2) as page:
        open_editor(page, live_server, membership, location)
        assert_fits(page)

        for summary in page.locator(".listing-editor details.section > summary").all():
            if summary.evaluate("s => !s.parentElement.open"):
                summary.click()
        assert_fits(page, "every section open")

        # The last fields of the form, reached with the keyboard.
        last = page.get_by_label("Virtual care link")
        page.get_by_label("Support link").focus()
        page.keyboard.press("Tab")
        expect(last).to_be_focused()
        box, bar = last.bounding_box(), page.locator(".sticky-actions").bounding_box()
        assert box["y"] + box["height"] <= bar["y"], (box, bar)

        hidden = page.evaluate(HIDDEN_WHEN_FOCUSED, "#listing-form :is(input, select, textarea)")
        assert hidden == []
