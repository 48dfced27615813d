"""The media API: list with filters, add (validated, queued, idempotent), tenancy and roles."""


import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from media_app.models import MediaItem
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory

PHOTO = {"url": "https://images.example.com/storefront.jpg", "media_format": "PHOTO",
         "category": "EXTERIOR", "description": "Storefront"}


def url(business, slug=None):
    return reverse("api_business_media", args=[slug or business.reseller.slug,
                                               business.remote_id])


def add_item(business, n, category="EXTERIOR", media_format="PHOTO"):
    return MediaItem.unscoped.create(reseller=business.reseller, business=business,
                                     remote_id=f"m-{business.pk}-{n}", category=category,
                                     format=media_format, url=f"https://x.example/{n}.jpg")


@pytest.fixture
def manager(api_member):
    client, membership = api_member(Role.MANAGER)
    return client, BusinessFactory(reseller=membership.reseller)


@pytest.mark.django_db
def test_anonymous_gets_401():
    business = BusinessFactory()
    assert APIClient().get(url(business)).status_code == 401
    assert APIClient().post(url(business), PHOTO).status_code == 401


@pytest.mark.django_db
def test_list_filters_and_pins_queries(api_member, django_assert_num_queries):
    client, membership = api_member(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    add_item(business, 1, "INTERIOR")
    add_item(business, 2, "EXTERIOR", "VIDEO")
    add_item(BusinessFactory(reseller=membership.reseller), 3)
    body = client.get(url(business), {"category": "INTERIOR"}).json()
    assert [i["media_id"] for i in body["results"]] == [f"m-{business.pk}-1"]
    body = client.get(url(business), {"media_format": "VIDEO"}).json()
    assert [i["media_id"] for i in body["results"]] == [f"m-{business.pk}-2"]
    for n in range(4, 30):
        add_item(business, n)
    client.get(url(business))  # warm up the token's last-used bookkeeping
    with django_assert_num_queries(5):
        body = client.get(url(business), {"limit": 500}).json()
    assert body["count"] == 28


@pytest.mark.django_db
def test_a_bad_filter_is_a_field_error(manager):
    client, business = manager
    response = client.get(url(business), {"category": "BOGUS"})
    assert response.status_code == 400
    assert "category" in response.json()["fields"]


@pytest.mark.django_db
def test_other_tenants_member_and_business_get_404(api_member):
    client, membership = api_member(Role.MANAGER)
    other = BusinessFactory()
    assert client.get(url(other)).status_code == 404
    assert client.get(url(other, slug=membership.reseller.slug)).status_code == 404
    assert client.post(url(other, slug=membership.reseller.slug), PHOTO).status_code == 404
    assert not OutboxEntry.unscoped.exists()


@pytest.mark.django_db
def test_a_subtree_member_cannot_reach_other_businesses(api_member):
    root = BusinessFactory(tree_path="/1/")
    outside = BusinessFactory(reseller=root.reseller, tree_path="/3/")
    client, _ = api_member(Role.MANAGER, reseller=root.reseller, limited_to=root)
    assert client.get(url(root)).status_code == 200
    assert client.get(url(outside)).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "token_role"), [(Role.VIEWER, None),
                                                  (Role.MANAGER, Role.VIEWER)])
def test_viewers_and_read_only_tokens_cannot_add(api_member, role, token_role):
    client, membership = api_member(role, token_role=token_role)
    business = BusinessFactory(reseller=membership.reseller)
    assert client.get(url(business)).status_code == 200
    response = client.post(url(business), PHOTO)
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert not OutboxEntry.unscoped.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Role.MANAGER, Role.OWNER])
def test_a_manager_or_owner_adds_media_queued_in_the_outbox(api_member, role):
    client, membership = api_member(role)
    business = BusinessFactory(reseller=membership.reseller)
    response = client.post(url(business), PHOTO)
    assert response.status_code == 202, response.json()
    body = response.json()
    entry = OutboxEntry.unscoped.get()
    assert body["id"] == entry.pk and body["state"] == "pending"
    assert body["kind"] == "media_add" and body["business_number"] == business.remote_id
    assert entry.payload["mediaCategory"] == "EXTERIOR" and entry.created_by == membership.user


@pytest.mark.django_db
@pytest.mark.parametrize(("data", "field"), [
    ({**PHOTO, "url": "ftp://x.example/a.jpg"}, "url"),
    ({**PHOTO, "url": "https://x.example/a.gif"}, "url"),
    ({**PHOTO, "media_format": "VIDEO"}, "url"),
    ({**PHOTO, "media_format": "GIF"}, "media_format"),
    ({**PHOTO, "category": "ROOF"}, "category"),
    ({"media_format": "PHOTO", "category": "EXTERIOR"}, "url"),
])
def test_the_media_rules_answer_on_their_field(manager, data, field):
    client, business = manager
    response = client.post(url(business), data)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and field in body["fields"]
    assert not OutboxEntry.unscoped.exists()


@pytest.mark.django_db
def test_idempotency_key_queues_once(manager):
    client, business = manager
    first = client.post(url(business), PHOTO, HTTP_IDEMPOTENCY_KEY="abc-1")
    again = client.post(url(business), PHOTO, HTTP_IDEMPOTENCY_KEY="abc-1")
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert OutboxEntry.unscoped.count() == 1
    other = client.post(url(business), {**PHOTO, "description": "changed"},
                        HTTP_IDEMPOTENCY_KEY="abc-1")
    assert other.status_code == 400 and "Idempotency-Key" in other.json()["fields"]
    assert client.post(url(business), PHOTO).status_code == 202
    assert OutboxEntry.unscoped.count() == 2


@pytest.mark.django_db(transaction=True)
def test_an_added_photo_is_accepted_by_the_sandbox(live_server, api_member, fast_provider):
    key = "media-api-partner-key"
    seeded = seed_partner(api_key=key, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=key, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    business = BusinessFactory(reseller=reseller, remote_id=seeded["location_numbers"][0])
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    response = client.post(url(business), PHOTO, HTTP_IDEMPOTENCY_KEY="live-1")
    assert response.status_code == 202
    with tenant_scope(reseller):
        outbox.outbox_send(tenant=reseller, entry_id=response.json()["id"])
        entry = OutboxEntry.objects.get()
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO["url"]).count() == 1
    items = client.get(url(business)).json()["results"]
    assert [i["url"] for i in items] == [PHOTO["url"]]
