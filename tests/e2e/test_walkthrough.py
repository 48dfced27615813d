"""A new user's day in the portal, in a real browser against the live sandbox.

Celery runs eagerly here, so a sync or an outbox send happens inside the request that queued it;
everything else is the real stack: the pages, the provider client, the sandbox over HTTP.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.models import Business, Role
from portal.tenancy import tenant_scope
from tests.e2e.conftest import sign_in, sync_inline
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "walkthrough-partner-key-7781"


@pytest.fixture
def owner(sandbox_reseller, eager_celery):
    # The sandbox knows KEY; the reseller starts with a key it has revoked, replaced on the page.
    reseller, _ = sandbox_reseller(KEY, locations=12, seed=5, name="Walkthrough Agency",
                                   api_key="an-old-revoked-key")
    return MembershipFactory(reseller=reseller, role=Role.OWNER)


def first_location(reseller) -> Business:
    with tenant_scope(reseller):
        return Business.objects.filter(type="Business").order_by("name").first()


def test_key_sync_filter_and_listing_edits(live_server, page, screenshot, owner):
    slug = owner.reseller.slug
    base = f"{live_server.url}/t/{slug}"
    sign_in(page, live_server.url, owner)

    # Enter the API key, then test the connection.
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("textbox", name="API key").fill(KEY)
    page.get_by_role("button", name="Save").click()
    page.get_by_role("button", name="Test connection").click()
    expect(page.locator(".messages")).to_contain_text("The provider accepted the key")
    assert KEY not in page.content()
    screenshot("settings-connection")

    # Start a sync and watch it finish.
    page.get_by_role("link", name="Sync").click()
    page.get_by_role("button", name="Start sync").click()
    expect(page.locator("body")).to_contain_text("100%")
    expect(page.locator("body")).to_contain_text(re.compile("Succeeded", re.I))
    screenshot("sync-run")

    page.get_by_role("link", name="Dashboard").click()
    expect(page.locator("svg.chart").first).to_be_visible()
    screenshot("dashboard")

    # Filter businesses by the city of one location.
    location = first_location(owner.reseller)
    page.goto(f"{base}/businesses/")
    page.get_by_label("City").fill(location.city)
    page.get_by_role("button", name="Apply").click()
    rows = page.locator("table tbody tr")
    expect(rows.first).to_be_visible()
    for index in range(rows.count()):
        expect(rows.nth(index)).to_contain_text(location.city)
    screenshot("businesses")

    page.goto(f"{base}/businesses/{location.remote_id}/")
    expect(page.locator("svg.chart").first).to_be_visible()
    screenshot("listing-status")

    # Edit the listing, review the change, send it: accepted.
    page.get_by_role("link", name="Listing editor", exact=True).click()
    page.get_by_label("Business name").fill("Walkthrough Bakery Downtown")
    page.get_by_role("button", name="Review changes").click()
    expect(page.locator("body")).to_contain_text("Walkthrough Bakery Downtown")
    page.get_by_role("button", name="Send to provider").first.click()
    expect(page.locator(".badge").filter(has_text="Accepted").first).to_be_visible()
    screenshot("listing-editor")
    location.refresh_from_db()
    assert location.name == "Walkthrough Bakery Downtown"

    # A change the provider refuses shows its message on the field it concerns: this other
    # listing was fixed at the provider before the portal knew it, so its status cannot change.
    with tenant_scope(owner.reseller):
        other = Business.objects.filter(type="Business").exclude(pk=location.pk).first()
    page.goto(f"{base}/businesses/{other.remote_id}/listing/")
    page.locator("summary", has_text="Business status").first.click()
    page.get_by_label("Business status").select_option("Temporarily Closed")
    page.get_by_role("button", name="Review changes").click()
    page.get_by_role("button", name="Send to provider").first.click()
    expect(page.locator(".badge").filter(has_text="Rejected").first).to_be_visible()
    status_field = page.locator(".field", has=page.get_by_label("Business status"))
    expect(status_field).to_contain_text("2511")
    screenshot("listing-rejected")


def test_media_qna_and_reviews(live_server, page, screenshot, owner):
    from sandbox.models import Question as SandboxQuestion

    reseller = owner.reseller
    reseller.set_api_key(KEY)
    reseller.save()
    sync_inline(reseller)
    with tenant_scope(reseller):
        location = (Business.objects.filter(type="Business", questions__isnull=False)
                    .distinct().order_by("name").first())
    base = f"{live_server.url}/t/{reseller.slug}/businesses/{location.remote_id}"
    sign_in(page, live_server.url, owner)

    # Add a photo: queued, sent, accepted, and in the gallery.
    page.goto(f"{base}/media/")
    add = page.locator("#add")
    add.get_by_label("URL").fill("https://images.example.com/walkthrough-front.jpg")
    add.get_by_label("Format").select_option("PHOTO")
    add.get_by_label("Category").select_option("EXTERIOR")
    add.get_by_label("Description").fill("The new storefront")
    add.get_by_role("button", name="Add media").click()
    expect(page.locator("img[src='https://images.example.com/walkthrough-front.jpg']")
           ).to_have_count(1)
    screenshot("media")

    # Delete all Q&A after a confirmation that names the business.
    page.goto(f"{base}/qna/")
    screenshot("qna")
    page.get_by_role("link", name=re.compile("Delete all Q&A")).click()
    confirm = page.get_by_role("button", name=f"Delete all Q&A of {location.name}")
    expect(confirm).to_be_visible()
    confirm.click()
    expect(page.locator("body")).to_contain_text(re.compile("accepted", re.I))
    assert not SandboxQuestion.objects.filter(location__number=location.remote_id).exists()

    # The review chart for a date range and sources.
    page.goto(f"{base}/reviews/")
    page.get_by_role("button", name="Show").click()
    chart = page.locator("figure.review-chart svg")
    expect(chart).to_be_visible()
    expect(chart).to_have_attribute("aria-label", re.compile(r"5 ★ \d+|5\D+\d+"))
    screenshot("reviews")
