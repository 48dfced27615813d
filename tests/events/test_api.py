"""The events API: the same filters as the page, tenants, roles, live updates on and off."""

import pytest
from rest_framework.test import APIClient

from accounts.models import Role
from events.models import EventReceiver
from outbox.models import OutboxEntry
from tests.events.test_pages import limited_world, make_event
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db


def url(reseller, path=""):
    return f"/api/v1/t/{reseller.slug}/{path}"


def test_list_filters_like_the_page_and_never_shows_another_tenant(api_member,
                                                                    django_assert_max_num_queries):
    client, membership = api_member(Role.VIEWER)
    reseller = membership.reseller
    make_event(reseller, state="processed", business_remote_id=11)
    make_event(reseller, event_name="SURVEY_COMPLETED", state="failed", business_remote_id=12)
    make_event(ResellerFactory(), result="not yours")
    with django_assert_max_num_queries(15):
        body = client.get(url(reseller, "events/")).json()
    assert body["count"] == 2 and "not yours" not in str(body)
    failed = client.get(url(reseller, "events/"), {"state": "failed"}).json()["results"]
    assert [e["business_remote_id"] for e in failed] == [12]
    by_business = client.get(url(reseller, "events/"), {"business": 11}).json()["results"]
    assert [e["state"] for e in by_business] == ["processed"]
    bad = client.get(url(reseller, "events/"), {"state": "bogus"})
    assert bad.status_code == 400 and "state" in bad.json()["fields"]


def test_another_tenants_event_is_a_404(api_member):
    client, membership = api_member(Role.OWNER)
    theirs = make_event(ResellerFactory())
    assert client.get(url(membership.reseller, f"events/{theirs.pk}/")).status_code == 404
    mine = make_event(membership.reseller, payload={"eventName": "LISTING_UPDATED"})
    detail = client.get(url(membership.reseller, f"events/{mine.pk}/")).json()
    assert detail["payload"] == {"eventName": "LISTING_UPDATED"}


def test_anonymous_gets_401():
    reseller = ResellerFactory()
    assert APIClient().get(url(reseller, "events/")).status_code == 401
    assert APIClient().post(url(reseller, "live-updates/")).status_code == 401


def test_live_updates_on_and_off(api_member, settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"
    client, membership = api_member(Role.MANAGER)
    reseller = membership.reseller
    assert client.get(url(reseller, "live-updates/")).status_code == 404
    on = client.post(url(reseller, "live-updates/"))
    assert on.status_code == 202 and on.json()["active"] is True
    receiver = EventReceiver.unscoped.get(reseller=reseller)
    assert on.json()["url"] == (f"https://portal.example.com/hooks/provider/"
                                f"{receiver.public_id}/")
    assert OutboxEntry.unscoped.filter(reseller=reseller, kind="subscribe").count() == 2
    assert "password" not in str(on.json())
    off = client.delete(url(reseller, "live-updates/"))
    assert off.status_code == 202 and off.json()["active"] is False


def test_without_a_public_url_turning_on_is_a_409(api_member, settings):
    settings.PORTAL_PUBLIC_URL = ""
    client, membership = api_member(Role.OWNER)
    response = client.post(url(membership.reseller, "live-updates/"))
    assert response.status_code == 409 and "PORTAL_PUBLIC_URL" in response.json()["message"]


def test_viewers_and_read_only_tokens_cannot_change_live_updates(api_member, settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"
    viewer, _ = api_member(Role.VIEWER)
    assert viewer.post(url(_.reseller, "live-updates/")).status_code == 403
    token, membership = api_member(Role.OWNER, token_role=Role.VIEWER)
    assert token.post(url(membership.reseller, "live-updates/")).status_code == 403
    assert not EventReceiver.unscoped.exists()


def test_members_limited_to_a_subtree_see_only_their_events(api_member):
    reseller = ResellerFactory()
    branch, mine, theirs, account = limited_world(reseller)
    client, _ = api_member(Role.MANAGER, reseller=reseller, limited_to=branch)
    listed = client.get(url(reseller, "events/"))
    assert listed.status_code == 200
    assert [row["id"] for row in listed.json()["results"]] == [mine.pk]
    assert client.get(url(reseller, f"events/{theirs.pk}/")).status_code == 404
    assert client.get(url(reseller, f"events/{account.pk}/")).status_code == 404
    # Live updates cover the whole account.
    assert client.get(url(reseller, "live-updates/")).status_code == 403
    assert client.post(url(reseller, "live-updates/")).status_code == 403
