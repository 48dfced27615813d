"""The provider events pages: roles, tenants, filters, turning live updates on and off."""

import pytest
from django.urls import reverse

from accounts.models import AuditEvent, Role
from events.models import EventReceiver, ProviderEvent
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _public_url(settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"


def make_event(reseller, **fields):
    with tenant_scope(reseller):
        defaults = {"dedupe_key": f"k{ProviderEvent.unscoped.count()}",
                    "event_name": "LISTING_UPDATED", "body": "{}", "payload": {}}
        return ProviderEvent.objects.create(reseller=reseller, **{**defaults, **fields})


def test_the_list_shows_events_with_filters_and_a_chart(member_client,
                                                        django_assert_max_num_queries):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    with tenant_scope(reseller):
        business = BusinessFactory(reseller=reseller, name="Harbour Bakery")
    make_event(reseller, business=business, business_remote_id=business.remote_id,
               state="processed", result="Listing status refreshed")
    make_event(reseller, event_name="SURVEY_COMPLETED", state="failed", result="Boom")
    url = reverse("provider_event_list", args=[reseller.slug])
    with django_assert_max_num_queries(15):
        page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "Harbour Bakery" in html and "Boom" in html and "<svg" in html
    assert "Turn live updates on" not in html  # viewers cannot
    filtered = client.get(url, {"state": "failed"}).content.decode()
    assert "Boom" in filtered and "Harbour Bakery" not in filtered
    assert "Harbour Bakery" not in client.get(url, {"event_name": "SURVEY_COMPLETED"}
                                              ).content.decode()


def test_query_count_does_not_grow_with_events(member_client, django_assert_max_num_queries):
    client, membership = member_client(Role.MANAGER)
    for _ in range(60):
        with tenant_scope(membership.reseller):
            business = BusinessFactory(reseller=membership.reseller)
        make_event(membership.reseller, business=business)
    with django_assert_max_num_queries(15):
        assert client.get(reverse("provider_event_list",
                                  args=[membership.reseller.slug])).status_code == 200


def test_a_manager_turns_live_updates_on_and_off(member_client):
    client, membership = member_client(Role.MANAGER)
    reseller = membership.reseller
    url = reverse("provider_event_list", args=[reseller.slug])
    assert "Turn live updates on" in client.get(url).content.decode()

    response = client.post(reverse("event_receiver_enable", args=[reseller.slug]))
    assert response.status_code == 302
    subscribes = OutboxEntry.unscoped.filter(reseller=reseller, kind="subscribe")
    assert sorted(e.payload["eventName"] for e in subscribes) == ["LISTING_UPDATED",
                                                                  "SURVEY_COMPLETED"]
    receiver = EventReceiver.unscoped.get(reseller=reseller)
    assert {e.payload["webhookUrl"] for e in subscribes} == {
        f"https://portal.example.com/hooks/provider/{receiver.public_id}/"}
    assert AuditEvent.unscoped.filter(reseller=reseller,
                                      action="events.receiver_enabled").exists()
    html = client.get(url).content.decode()
    assert "Renew credentials" in html and str(receiver.public_id) in html

    off = reverse("event_receiver_disable", args=[reseller.slug])
    assert "Turn off live updates?" in client.get(off).content.decode()
    assert client.post(off).status_code == 302
    receiver.refresh_from_db()
    assert receiver.disabled_at is not None
    assert client.get(off).status_code == 404


def test_without_a_public_url_the_page_says_what_to_set(member_client, settings):
    settings.PORTAL_PUBLIC_URL = ""
    client, membership = member_client(Role.OWNER)
    slug = membership.reseller.slug
    assert "PORTAL_PUBLIC_URL" in client.get(reverse("provider_event_list",
                                                     args=[slug])).content.decode()
    response = client.post(reverse("event_receiver_enable", args=[slug]), follow=True)
    assert "Set PORTAL_PUBLIC_URL" in response.content.decode()
    assert not EventReceiver.unscoped.exists()


def test_viewers_cannot_change_anything(member_client):
    client, membership = member_client(Role.VIEWER)
    slug = membership.reseller.slug
    event = make_event(membership.reseller, state="failed")
    assert client.post(reverse("event_receiver_enable", args=[slug])).status_code == 403
    assert client.get(reverse("event_receiver_disable", args=[slug])).status_code == 403
    assert client.post(reverse("provider_event_detail", args=[slug, event.pk])
                       ).status_code == 403
    assert not OutboxEntry.unscoped.exists()


def test_another_tenants_event_is_a_404(member_client):
    client, membership = member_client(Role.OWNER)
    theirs = make_event(ResellerFactory(), result="their secret result")
    response = client.get(reverse("provider_event_detail",
                                  args=[membership.reseller.slug, theirs.pk]))
    assert response.status_code == 404
    listing = client.get(reverse("provider_event_list", args=[membership.reseller.slug]))
    assert "their secret result" not in listing.content.decode()


def limited_world(reseller):
    """A branch with a location under it, a location elsewhere, and an event of each."""
    with tenant_scope(reseller):
        branch = BusinessFactory(reseller=reseller, type="Enterprise-Location")
        inside = BusinessFactory(reseller=reseller, parent=branch,
                                 tree_path=f"{branch.tree_path}{branch.remote_id + 10**6}/")
        outside = BusinessFactory(reseller=reseller)
    mine = make_event(reseller, business=inside, business_remote_id=inside.remote_id,
                      result="inside the branch")
    theirs = make_event(reseller, business=outside, business_remote_id=outside.remote_id,
                        result="outside the branch")
    account = make_event(reseller, event_name="SURVEY_COMPLETED", result="about the account")
    return branch, mine, theirs, account


def test_a_member_limited_to_a_subtree_sees_only_its_events(member_client):
    reseller = ResellerFactory()
    branch, mine, theirs, account = limited_world(reseller)
    client, _ = member_client(Role.MANAGER, reseller=reseller, limited_to=branch)
    page = client.get(reverse("provider_event_list", args=[reseller.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "inside the branch" in html
    assert "outside the branch" not in html and "about the account" not in html
    # Live updates are the account's: neither their state nor their switch is shown.
    assert "Turn live updates on" not in html and "live-title" not in html
    for event in (theirs, account):
        detail = reverse("provider_event_detail", args=[reseller.slug, event.pk])
        assert client.get(detail).status_code == 404
    assert client.get(reverse("provider_event_detail",
                              args=[reseller.slug, mine.pk])).status_code == 200
    enable = reverse("event_receiver_enable", args=[reseller.slug])
    assert client.post(enable).status_code == 403
    assert not EventReceiver.unscoped.exists()


def test_a_failed_event_can_be_processed_again(member_client):
    client, membership = member_client(Role.MANAGER)
    event = make_event(membership.reseller, state="failed", attempts=5, result="Gave up",
                       body='{"eventName": "LISTING_UPDATED"}')
    url = reverse("provider_event_detail", args=[membership.reseller.slug, event.pk])
    html = client.get(url).content.decode()
    assert "Process again" in html
    assert "{&quot;eventName&quot;: &quot;LISTING_UPDATED&quot;}" in html
    client.post(url)
    event.refresh_from_db()
    assert (event.state, event.attempts, event.result) == ("received", 0, "")
    assert "Only a failed event" in client.post(url, follow=True).content.decode()
