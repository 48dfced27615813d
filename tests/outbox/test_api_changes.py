import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import AuditEvent, Role
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


State = OutboxEntry.State


def change(reseller, business=None, state=State.PENDING, kind=OutboxEntry.Kind.HIERARCHY_UPDATE):
    return OutboxEntry.unscoped.create(reseller=reseller, business=business, kind=kind,
                                       state=state, summary="Hierarchy: A=b",
                                       payload={"levels": {"A": "b"}}, attempts=3,
                                       provider_code=2001 if state == State.REJECTED else None,
                                       provider_message="no" if state == State.REJECTED else "")


def url(name, membership, *args):
    return reverse(name, args=[membership.reseller.slug, *args])


def test_anonymous_gets_401():
    reseller = ResellerFactory()
    entry = change(reseller)
    assert APIClient().get(reverse("api_change_list", args=[reseller.slug])).status_code == 401
    assert APIClient().post(reverse("api_change_retry",
                                    args=[reseller.slug, entry.pk])).status_code == 401


def test_viewer_lists_and_reads_with_pinned_queries(api_member, django_assert_max_num_queries):
    client, membership = api_member(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    rejected = change(membership.reseller, business, state=State.REJECTED)
    change(ResellerFactory())
    body = client.get(url("api_change_list", membership)).json()
    assert [c["id"] for c in body["results"]] == [rejected.pk]
    detail = client.get(url("api_change_detail", membership, rejected.pk)).json()
    assert detail["provider_code"] == 2001 and detail["provider_message"] == "no"
    assert detail["business_number"] == business.remote_id and detail["attempts"] == 3
    assert detail["state"] == "rejected" and detail["finished"]
    for _ in range(15):
        change(membership.reseller, BusinessFactory(reseller=membership.reseller))
    with django_assert_max_num_queries(7):
        response = client.get(url("api_change_list", membership), {"limit": 500})
    assert response.json()["count"] == 16
    filtered = client.get(url("api_change_list", membership), {"state": "rejected"}).json()
    assert [c["id"] for c in filtered["results"]] == [rejected.pk]
    by_business = client.get(url("api_change_list", membership),
                             {"business_number": business.remote_id}).json()
    assert [c["id"] for c in by_business["results"]] == [rejected.pk]


def test_bad_filter_is_400(api_member):
    client, membership = api_member()
    response = client.get(url("api_change_list", membership), {"state": "bogus"})
    assert response.status_code == 400 and "state" in response.json()["fields"]


def test_a_limited_member_sees_their_subtree_only(api_member):
    root = BusinessFactory(tree_path="/1/", type="Enterprise-Location")
    inside = BusinessFactory(reseller=root.reseller, parent=root, tree_path="/1/2/")
    outside = BusinessFactory(reseller=root.reseller, tree_path="/3/")
    mine, theirs = change(root.reseller, inside), change(root.reseller, outside)
    client, membership = api_member(reseller=root.reseller, limited_to=root)
    ids = [c["id"] for c in client.get(url("api_change_list", membership)).json()["results"]]
    assert ids == [mine.pk]
    assert client.get(url("api_change_detail", membership, theirs.pk)).status_code == 404


def test_other_tenants_change_is_404(api_member):
    client, membership = api_member()
    other = change(ResellerFactory(), state=State.FAILED)
    assert client.get(url("api_change_detail", membership, other.pk)).status_code == 404
    assert client.post(url("api_change_retry", membership, other.pk)).status_code == 404
    assert client.get(reverse("api_change_list", args=[other.reseller.slug])).status_code == 404
    other.refresh_from_db()
    assert other.state == State.FAILED


@pytest.mark.parametrize("role", [Role.MANAGER, Role.OWNER])
@pytest.mark.parametrize("state", [State.FAILED, State.REJECTED])
def test_managers_retry_failed_and_rejected_changes(api_member, role, state):
    client, membership = api_member(role)
    entry = change(membership.reseller, BusinessFactory(reseller=membership.reseller),
                   state=state)
    response = client.post(url("api_change_retry", membership, entry.pk))
    assert response.status_code == 202
    assert response.json()["state"] == "pending" and response.json()["attempts"] == 0
    entry.refresh_from_db()
    assert entry.state == State.PENDING and entry.provider_code is None
    assert AuditEvent.unscoped.filter(reseller=membership.reseller,
                                      action="outbox.hierarchy_update.retried").exists()


@pytest.mark.parametrize("state", [State.PENDING, State.SENDING, State.ACCEPTED])
def test_open_or_accepted_changes_cannot_be_retried(api_member, state):
    client, membership = api_member()
    entry = change(membership.reseller, state=state)
    response = client.post(url("api_change_retry", membership, entry.pk))
    assert response.status_code == 409 and response.json()["code"] == "conflict"


def test_viewer_and_read_only_token_get_403_on_retry(api_member):
    for kwargs in ({"role": Role.VIEWER}, {"role": Role.MANAGER, "token_role": Role.VIEWER}):
        client, membership = api_member(**kwargs)
        entry = change(membership.reseller, state=State.FAILED)
        assert client.post(url("api_change_retry", membership, entry.pk)).status_code == 403
        entry.refresh_from_db()
        assert entry.state == State.FAILED
