import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Business, HierarchyMapping, Role
from listings.outbox_handlers import HierarchyUpdate
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory

pytestmark = pytest.mark.django_db



def url(membership, business):
    return reverse("api_business_hierarchy", args=[membership.reseller.slug, business.remote_id])


def outbox_count(reseller):
    return OutboxEntry.unscoped.filter(reseller=reseller).count()


def test_anonymous_gets_401():
    business = BusinessFactory()
    response = APIClient().get(reverse("api_business_hierarchy",
                                       args=[business.reseller.slug, business.remote_id]))
    assert response.status_code == 401


def test_viewer_reads_the_levels_and_the_latest_change(api_member):
    client, membership = api_member(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    HierarchyMapping.unscoped.create(reseller=business.reseller, business=business,
                                     level_name="Region", level_value="West")
    response = client.get(url(membership, business))
    assert response.status_code == 200
    body = response.json()
    assert body["levels"] == {"Region": "West"}
    assert body["latest_change"] is None and body["business_number"] == business.remote_id


@pytest.mark.parametrize("role", [Role.MANAGER, Role.OWNER])
def test_managers_and_owners_replace_the_mapping_with_202(api_member, role):
    client, membership = api_member(role)
    business = BusinessFactory(reseller=membership.reseller)
    response = client.put(url(membership, business),
                          {"levels": {"Region": " West ", "District": "Bay"}}, format="json")
    assert response.status_code == 202, response.json()
    change = response.json()
    assert change["kind"] == "hierarchy_update" and change["state"] == "pending"
    assert change["business_number"] == business.remote_id
    assert response["Location"].endswith(f"/changes/{change['id']}/")
    entry = OutboxEntry.unscoped.get(pk=change["id"])
    assert entry.payload == {"levels": {"Region": "West", "District": "Bay"},
                             "order": ["Region", "District"]}
    latest = client.get(url(membership, business)).json()
    assert latest["latest_change"]["id"] == change["id"]
    # In the order given, not sorted.
    assert list(latest["requested_levels"].items()) == [("Region", "West"), ("District", "Bay")]
    polled = client.get(reverse("api_change_detail", args=[membership.reseller.slug,
                                                            change["id"]]))
    assert polled.status_code == 200 and polled.json()["state"] == "pending"


def test_the_levels_read_back_in_the_order_they_were_given(api_member):
    client, membership = api_member(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    response = client.put(url(membership, business),
                          {"levels": {"Zone": "Z1", "Brand": "Burgers", "Area": "A9"}},
                          format="json")
    entry = OutboxEntry.unscoped.get(pk=response.json()["id"])
    with tenant_scope(membership.reseller):
        HierarchyUpdate().on_accepted(entry, None)
    body = client.get(url(membership, business)).json()
    assert list(body["levels"]) == ["Zone", "Brand", "Area"]
    assert list(body["requested_levels"]) == ["Zone", "Brand", "Area"]


def test_viewer_and_read_only_token_get_403_on_put(api_member):
    for kwargs in ({"role": Role.VIEWER}, {"role": Role.MANAGER, "token_role": Role.VIEWER}):
        client, membership = api_member(**kwargs)
        business = BusinessFactory(reseller=membership.reseller)
        response = client.put(url(membership, business), {"levels": {"A": "b"}}, format="json")
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
        assert outbox_count(membership.reseller) == 0


@pytest.mark.parametrize("levels, field", [
    ({"Region": ""}, "levels.Region"),
    ({"Region": "  "}, "levels.Region"),
    ({}, "levels"),
    ({"Region": "a", "region": "b"}, "levels.region"),
    ({"x" * 201: "a"}, "levels." + "x" * 201),
])
def test_invalid_levels_get_field_errors(api_member, levels, field):
    client, membership = api_member()
    business = BusinessFactory(reseller=membership.reseller)
    response = client.put(url(membership, business), {"levels": levels}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and field in body["fields"], body
    assert outbox_count(membership.reseller) == 0


def test_a_group_has_no_hierarchy_levels(api_member):
    client, membership = api_member()
    group = BusinessFactory(reseller=membership.reseller, type=Business.Type.ENTERPRISE_LOCATION)
    response = client.put(url(membership, group), {"levels": {"A": "b"}}, format="json")
    # Refused for its type before anything else (accounts.business_types).
    assert response.status_code == 409
    assert response.json()["code"] == "unsupported_business_type"
    assert outbox_count(membership.reseller) == 0


def test_other_tenants_are_404(api_member):
    client, membership = api_member()
    other = BusinessFactory()
    assert client.get(url(membership, other)).status_code == 404
    assert client.put(url(membership, other), {"levels": {"A": "b"}},
                      format="json").status_code == 404
    response = client.get(reverse("api_business_hierarchy",
                                  args=[other.reseller.slug, other.remote_id]))
    assert response.status_code == 404
    assert outbox_count(other.reseller) == 0


def test_idempotency_key_makes_one_change(api_member):
    client, membership = api_member()
    business = BusinessFactory(reseller=membership.reseller)
    body = {"levels": {"Region": "West"}}
    first = client.put(url(membership, business), body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = client.put(url(membership, business), body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 202
    assert first.json() == again.json()
    assert outbox_count(membership.reseller) == 1
    other = client.put(url(membership, business), {"levels": {"Region": "East"}},
                       format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert other.status_code == 400 and "Idempotency-Key" in other.json()["fields"]
    assert outbox_count(membership.reseller) == 1
