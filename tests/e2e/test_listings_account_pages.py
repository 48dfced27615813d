"""The custom fields and webhooks pages in a real browser, at phone width and at desktop width:
a date default picked in a date box, several events ticked in one go, nothing wider than the
window."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Role
from listings.models import Question
from outbox.models import OutboxEntry
from tests.e2e.conftest import PHONE, assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1366, "height": 900}


@pytest.fixture(params=[PHONE, DESKTOP], ids=["390px", "1366px"])
def screen(request, browser):
    with viewport_page(browser, **request.param) as page:
        yield page


@pytest.fixture
def manager(live_server):
    return MembershipFactory(reseller=ResellerFactory(), role=Role.MANAGER)


def test_a_date_default_is_picked_in_a_date_box(live_server, screen, manager):
    sign_in(screen, live_server.url, manager)
    screen.goto(f"{live_server.url}/t/{manager.reseller.slug}/custom-fields/")
    date_box = screen.locator("#id_default_date")
    text_box = screen.locator("#id_default_value")
    expect(date_box).to_be_hidden()  # a text field's default is text
    screen.get_by_label("Field name").fill("Renewal")
    screen.get_by_label("Type").select_option("DATE")
    expect(date_box).to_be_visible()
    expect(text_box).to_be_hidden()
    assert date_box.get_attribute("type") == "date"
    date_box.fill("2026-12-31")
    assert_fits(screen)
    screen.get_by_role("button", name="Create field").click()
    expect(screen.locator(".messages")).to_contain_text("Custom field “Renewal” is queued")
    entry = OutboxEntry.unscoped.get(kind=OutboxEntry.Kind.CUSTOM_FIELD_CREATE)
    assert entry.payload["defaultValue"] == "12/31/2026"
    assert_fits(screen)


def test_several_events_are_ticked_in_one_go(live_server, screen, manager):
    sign_in(screen, live_server.url, manager)
    screen.goto(f"{live_server.url}/t/{manager.reseller.slug}/webhooks/")
    screen.get_by_label("Webhook URL").fill("https://hooks.example.com/agency")
    screen.get_by_label("Listing updated").check()
    screen.get_by_label("Survey completed").check()
    assert_fits(screen)
    screen.get_by_role("button", name="Subscribe").click()
    expect(screen.locator(".messages")).to_contain_text("2 subscriptions of")
    events = [entry.payload["eventName"] for entry in
              OutboxEntry.unscoped.filter(kind=OutboxEntry.Kind.SUBSCRIBE).order_by("pk")]
    assert sorted(events) == ["LISTING_UPDATED", "SURVEY_COMPLETED"]

    # The same again is refused on the events, with what was typed kept.
    screen.get_by_label("Webhook URL").fill("https://hooks.example.com/agency")
    screen.get_by_label("Listing updated").check()
    screen.get_by_role("button", name="Subscribe").click()
    expect(screen.locator("#event-names .field-error")).to_contain_text(
        "Already delivered to this URL: “Listing updated”")
    expect(screen.get_by_label("Webhook URL")).to_have_value("https://hooks.example.com/agency")
    assert_fits(screen)


def test_qna_without_questions_offers_no_deletion(live_server, screen, manager):
    asked = BusinessFactory(reseller=manager.reseller, name="Asked Cafe")
    silent = BusinessFactory(reseller=manager.reseller, name="Quiet Cafe")
    Question.unscoped.create(reseller=manager.reseller, business=asked, remote_id=1,
                             question="Do you have parking?")
    sign_in(screen, live_server.url, manager)
    base = f"{live_server.url}/t/{manager.reseller.slug}/businesses"
    screen.goto(f"{base}/{silent.remote_id}/qna/")
    expect(screen.get_by_role("link", name="Delete all Q&A…")).to_have_count(0)
    screen.goto(f"{base}/{asked.remote_id}/qna/")
    expect(screen.get_by_role("link", name="Delete all Q&A…")).to_be_visible()
    assert_fits(screen)
