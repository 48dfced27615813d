import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from tests.factories import BusinessFactory

pytestmark = pytest.mark.django_db


def url(name, membership, *args):
    return reverse(name, args=[membership.reseller.slug, *args])


def test_anonymous_gets_401_with_the_error_shape():
    business = BusinessFactory()
    response = APIClient().get(reverse("api_business_list", args=[business.reseller.slug]))
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert set(response.json()) >= {"code", "message", "fields"}
    assert response["WWW-Authenticate"] == "Bearer"


def test_an_unknown_token_is_refused():
    business = BusinessFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer rpt_not-a-real-token")
    response = client.get(reverse("api_business_list", args=[business.reseller.slug]))
    assert response.status_code == 401


def test_member_lists_and_filters_businesses(api_member, django_assert_max_num_queries):
    client, membership = api_member(Role.VIEWER)
    BusinessFactory(reseller=membership.reseller, city="Austin", name="A")
    BusinessFactory(reseller=membership.reseller, city="Boston", name="B")
    response = client.get(url("api_business_list", membership), {"city": "boston"})
    assert response.status_code == 200
    assert [b["name"] for b in response.json()["results"]] == ["B"]
    for _ in range(20):
        BusinessFactory(reseller=membership.reseller)
    with django_assert_max_num_queries(8):
        response = client.get(url("api_business_list", membership), {"limit": 500})
    assert response.json()["count"] == 22


def test_bad_filters_get_field_errors(api_member):
    client, membership = api_member()
    response = client.get(url("api_business_list", membership), {"status": "bogus"})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and "status" in body["fields"]


def test_another_tenants_business_and_reseller_are_404(api_member):
    client, membership = api_member()
    other = BusinessFactory()
    assert client.get(url("api_business_detail", membership, other.remote_id)).status_code == 404
    response = client.get(reverse("api_business_list", args=[other.reseller.slug]))
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_token_works_only_for_its_own_reseller(api_member):
    from tests.factories import MembershipFactory

    client, membership = api_member()
    second = MembershipFactory(user=membership.user)  # a member of two resellers
    BusinessFactory(reseller=second.reseller)
    response = client.get(reverse("api_business_list", args=[second.reseller.slug]))
    assert response.status_code == 404


def test_subtree_member_sees_only_the_subtree(api_member):
    root = BusinessFactory(tree_path="/1/", type="Enterprise-Location")
    inside = BusinessFactory(reseller=root.reseller, parent=root, tree_path="/1/2/")
    outside = BusinessFactory(reseller=root.reseller, tree_path="/3/")
    client, membership = api_member(reseller=root.reseller, limited_to=root)
    names = {b["name"] for b in client.get(url("api_business_list", membership)).json()["results"]}
    assert names == {root.name, inside.name}
    assert client.get(url("api_business_detail", membership,
                          outside.remote_id)).status_code == 404
    children = client.get(url("api_business_children", membership, root.remote_id)).json()
    assert [c["business_number"] for c in children["results"]] == [inside.remote_id]


def test_a_removed_member_token_stops_working(api_member):
    client, membership = api_member()
    membership.delete()
    assert client.get(url("api_business_list", membership)).status_code == 404


def test_list_sorts_by_synced_percent_and_pages_by_offset(api_member):
    from tests.accounts.ui_factories import StatusReportFactory

    client, membership = api_member(Role.VIEWER)
    synced = {"Low": 1, "High": 9, "Middle": 5, "Zero": 0}
    for name, count in synced.items():
        business = BusinessFactory(reseller=membership.reseller, name=name)
        StatusReportFactory(business=business, total_sites=10, synced_count=count)
    BusinessFactory(reseller=membership.reseller, name="No report")
    response = client.get(url("api_business_list", membership), {"sort": "-synced"})
    assert response.status_code == 200
    assert [b["name"] for b in response.json()["results"]] == [
        "High", "Middle", "Low", "Zero", "No report"]
    # A page is cut from the sorted ids, then its rows are fetched: same order, same count.
    page = client.get(url("api_business_list", membership),
                      {"sort": "synced", "offset": 1, "limit": 2}).json()
    assert page["count"] == 5
    assert [b["name"] for b in page["results"]] == ["Low", "Middle"]
