"""A change in doubt, as members meet it: its page, the two decisions (it arrived, send it
again) on the page and in the API, who may take them, and the bulk change it pauses."""

import pytest
from django.urls import reverse

from accounts.models import AuditEvent, Role
from bulk.models import BulkChange, BulkChangeItem
from bulk.sending import bulk_change_advance
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db

State = OutboxEntry.State
DOUBT = ("The provider may or may not have this change: its answer was lost, and its status "
         "report cannot tell.")


def in_doubt(reseller, business, kind=OutboxEntry.Kind.MEDIA_ADD):
    return OutboxEntry.unscoped.create(
        reseller=reseller, business=business, kind=kind, state=State.IN_DOUBT, in_doubt=True,
        summary="Photo of the storefront", provider_message=DOUBT, attempts=2,
        payload={"url": "https://images.example.com/front.jpg", "mediaCategory": "EXTERIOR",
                 "description": "", "mediaFormat": "PHOTO"})


@pytest.fixture
def manager(client):
    membership = MembershipFactory(role=Role.MANAGER)
    client.force_login(membership.user)
    return client, membership


def resolve_url(membership, entry, **query):
    url = reverse("change_resolve", args=[membership.reseller.slug, entry.pk])
    return url + (f"?next={query['next']}" if "next" in query else "")


def test_the_page_says_what_is_known_and_offers_both_ways_out(manager):
    client, membership = manager
    business = BusinessFactory(reseller=membership.reseller, name="Harbour Cafe")
    entry = in_doubt(membership.reseller, business)
    page = client.get(resolve_url(membership, entry))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Harbour Cafe" in text and DOUBT in text
    assert 'value="arrived"' in text and 'value="send_again"' in text
    assert "uploads the picture or video a second time" in text


def test_marking_it_arrived_accepts_it_with_who_said_so(manager):
    client, membership = manager
    business = BusinessFactory(reseller=membership.reseller)
    entry = in_doubt(membership.reseller, business)
    back = reverse("business_media", args=[membership.reseller.slug, business.remote_id])
    response = client.post(resolve_url(membership, entry),
                           {"decision": "arrived", "next": back})
    assert response.status_code == 302 and response["Location"] == back
    entry.refresh_from_db()
    assert entry.state == State.ACCEPTED and not entry.in_doubt
    assert membership.user.email in entry.provider_message
    assert AuditEvent.unscoped.filter(action="outbox.media_add.marked_arrived",
                                      actor=membership.user).exists()
    # Decided: a second decision changes nothing.
    client.post(resolve_url(membership, entry), {"decision": "arrived"})
    entry.refresh_from_db()
    assert entry.state == State.ACCEPTED
    assert AuditEvent.unscoped.filter(action="outbox.media_add.marked_arrived").count() == 1


def test_sending_it_again_queues_it_without_reading_back(manager, monkeypatch,
                                                         django_capture_on_commit_callbacks):
    from outbox import services

    queued = []
    monkeypatch.setattr(services, "_queue_send", lambda *args: queued.append(args))
    client, membership = manager
    entry = in_doubt(membership.reseller, BusinessFactory(reseller=membership.reseller))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(resolve_url(membership, entry), {"decision": "send_again"})
    entry.refresh_from_db()
    assert (entry.state, entry.in_doubt, entry.attempts) == (State.PENDING, False, 0)
    assert queued == [(membership.reseller.pk, entry.pk)]


def test_a_link_elsewhere_is_not_followed_back(manager):
    client, membership = manager
    entry = in_doubt(membership.reseller, BusinessFactory(reseller=membership.reseller))
    response = client.post(resolve_url(membership, entry),
                           {"decision": "arrived", "next": "https://evil.example.com/"})
    assert response["Location"].startswith("/t/")


def test_a_viewer_reads_but_does_not_decide(client):
    membership = MembershipFactory(role=Role.VIEWER)
    client.force_login(membership.user)
    entry = in_doubt(membership.reseller, BusinessFactory(reseller=membership.reseller))
    page = client.get(resolve_url(membership, entry)).content.decode()
    assert "A manager or owner decides" in page and 'value="arrived"' not in page
    assert client.post(resolve_url(membership, entry), {"decision": "arrived"}).status_code == 403
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == State.IN_DOUBT


def test_a_limited_member_decides_only_within_their_subtree(client):
    reseller = ResellerFactory()
    client_root = BusinessFactory(reseller=reseller, type="Enterprise-Location", tree_path="/1/")
    inside = BusinessFactory(reseller=reseller, parent=client_root, tree_path="/1/2/")
    outside = BusinessFactory(reseller=reseller, tree_path="/3/")
    membership = MembershipFactory(reseller=reseller, role=Role.MANAGER, limited_to=client_root)
    client.force_login(membership.user)
    assert client.get(resolve_url(membership, in_doubt(reseller, inside))).status_code == 200
    far = in_doubt(reseller, outside)
    assert client.get(resolve_url(membership, far)).status_code == 404
    assert client.post(resolve_url(membership, far), {"decision": "arrived"}).status_code == 404
    assert OutboxEntry.unscoped.get(pk=far.pk).state == State.IN_DOUBT
    account_wide = in_doubt(reseller, None, kind=OutboxEntry.Kind.CUSTOM_FIELD_CREATE)
    assert client.get(resolve_url(membership, account_wide)).status_code == 404


def test_the_api_lists_the_actions_and_marks_it_arrived(api_member):
    client, membership = api_member(Role.MANAGER)
    entry = in_doubt(membership.reseller, BusinessFactory(reseller=membership.reseller))
    detail = client.get(reverse("api_change_detail", args=[membership.reseller.slug, entry.pk]))
    body = detail.json()
    assert body["state"] == "in_doubt" and body["finished"]
    assert body["actions"] == ["retry", "arrived"]
    arrived = client.post(reverse("api_change_arrived",
                                  args=[membership.reseller.slug, entry.pk]))
    assert arrived.status_code == 200 and arrived.json()["state"] == "accepted"
    assert arrived.json()["actions"] == []
    again = client.post(reverse("api_change_arrived", args=[membership.reseller.slug, entry.pk]))
    assert again.status_code == 409


def test_a_viewers_token_cannot_mark_it_arrived(api_member):
    client, membership = api_member(Role.VIEWER)
    entry = in_doubt(membership.reseller, BusinessFactory(reseller=membership.reseller))
    response = client.post(reverse("api_change_arrived",
                                   args=[membership.reseller.slug, entry.pk]))
    assert response.status_code == 403


def test_a_wave_with_a_change_in_doubt_pauses_its_bulk_change_and_says_why():
    reseller = ResellerFactory()
    business = BusinessFactory(reseller=reseller)
    with tenant_scope(reseller):
        entry = in_doubt(reseller, business, kind=OutboxEntry.Kind.LISTING_CREATE)
        version = ListingVersion.objects.create(reseller=reseller, business=business, number=1,
                                                outbox_entry=entry,
                                                payload={"businessInfo": {"name": "X"}})
        change = BulkChange.objects.create(reseller=reseller, state=BulkChange.State.APPLYING,
                                           current_wave=1, waves=[1, 5], set={})
        BulkChangeItem.objects.create(reseller=reseller, change=change, business=business,
                                      business_number=business.remote_id, position=0, wave=1,
                                      state=BulkChangeItem.State.QUEUED, outbox_entry=entry,
                                      listing_version=version)
        BulkChangeItem.objects.create(reseller=reseller, change=change,
                                      business=BusinessFactory(reseller=reseller),
                                      business_number=1, position=1,
                                      state=BulkChangeItem.State.WILL_CHANGE)
        bulk_change_advance(tenant=reseller, change_id=change.pk)
        change.refresh_from_db()
        item = change.items.get(position=0)
    assert item.state == BulkChangeItem.State.IN_DOUBT
    assert change.state == BulkChange.State.PAUSED
    assert "1 is in doubt" in change.paused_reason
