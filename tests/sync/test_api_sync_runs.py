import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role, SyncRun
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db



def list_url(membership):
    return reverse("api_sync_run_list", args=[membership.reseller.slug])


def detail_url(membership, pk):
    return reverse("api_sync_run_detail", args=[membership.reseller.slug, pk])


def runs(reseller):
    return SyncRun.unscoped.filter(reseller=reseller)


def test_anonymous_gets_401():
    reseller = ResellerFactory()
    assert APIClient().get(reverse("api_sync_run_list", args=[reseller.slug])).status_code == 401
    assert APIClient().post(reverse("api_sync_run_list", args=[reseller.slug])).status_code == 401


def test_viewer_lists_newest_first_with_pinned_queries(api_member,
                                                       django_assert_max_num_queries):
    client, membership = api_member(Role.VIEWER)
    first = SyncRun.unscoped.create(reseller=membership.reseller, created_by=membership.user)
    second = SyncRun.unscoped.create(reseller=membership.reseller, created_by=membership.user)
    SyncRun.unscoped.create(reseller=ResellerFactory())
    response = client.get(list_url(membership))
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == [second.pk, first.pk]
    for _ in range(15):
        SyncRun.unscoped.create(reseller=membership.reseller, created_by=membership.user,
                                scope=BusinessFactory(reseller=membership.reseller))
    with django_assert_max_num_queries(7):
        response = client.get(list_url(membership), {"limit": 500})
    assert response.json()["count"] == 17


def test_detail_shows_progress(api_member):
    client, membership = api_member(Role.VIEWER)
    run = SyncRun.unscoped.create(reseller=membership.reseller, status=SyncRun.Status.RUNNING,
                                  total=10, done=4, failed=1, counts={"media": 3},
                                  errors=["boom"], requests_made=12, rate_limited=2)
    body = client.get(detail_url(membership, run.pk)).json()
    assert body["percent"] == 50 and body["status"] == "running" and not body["finished"]
    assert (body["total"], body["done"], body["failed"]) == (10, 4, 1)
    assert body["counts"] == {"media": 3} and body["errors"] == ["boom"]
    assert (body["requests"], body["rate_limited"]) == (12, 2)
    assert {"started_at", "finished_at", "created_at"} <= set(body)


def test_other_tenants_run_is_404(api_member):
    client, membership = api_member()
    other = SyncRun.unscoped.create(reseller=ResellerFactory())
    assert client.get(detail_url(membership, other.pk)).status_code == 404
    response = client.get(reverse("api_sync_run_list", args=[other.reseller.slug]))
    assert response.status_code == 404
    assert client.post(reverse("api_sync_run_list", args=[other.reseller.slug]),
                       {}, format="json").status_code == 404
    assert runs(other.reseller).count() == 1


@pytest.mark.parametrize("role", [Role.MANAGER, Role.OWNER])
def test_managers_and_owners_start_a_run_with_202(api_member, role):
    client, membership = api_member(role)
    response = client.post(list_url(membership), {"resources": ["media", "qna"]}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["resources"] == ["media", "qna"]
    assert response["Location"].endswith(f"/sync-runs/{body['id']}/")
    everything = client.post(list_url(membership), format="json")  # overlaps: the same run
    assert everything.status_code == 200 and everything.json()["id"] == body["id"]
    assert runs(membership.reseller).count() == 1


def test_a_limited_member_syncs_their_subtree(api_member):
    root = BusinessFactory(type="Enterprise-Location")
    client, membership = api_member(reseller=root.reseller, limited_to=root)
    body = client.post(list_url(membership), {}, format="json").json()
    assert body["scope_number"] == root.remote_id


def test_viewer_and_read_only_token_get_403(api_member):
    for kwargs in ({"role": Role.VIEWER}, {"role": Role.OWNER, "token_role": Role.VIEWER}):
        client, membership = api_member(**kwargs)
        assert client.post(list_url(membership), {}, format="json").status_code == 403
        assert not runs(membership.reseller).exists()


def test_unknown_resources_get_field_errors(api_member):
    client, membership = api_member()
    response = client.post(list_url(membership), {"resources": ["bogus"]}, format="json")
    assert response.status_code == 400
    assert "resources[0]" in response.json()["fields"] or "resources" in str(response.json())
    assert not runs(membership.reseller).exists()


def test_idempotency_key_starts_one_run(api_member):
    client, membership = api_member()
    first = client.post(list_url(membership), {"resources": ["media"]}, format="json",
                        HTTP_IDEMPOTENCY_KEY="abc")
    SyncRun.unscoped.filter(pk=first.json()["id"]).update(status=SyncRun.Status.SUCCEEDED)
    again = client.post(list_url(membership), {"resources": ["media"]}, format="json",
                        HTTP_IDEMPOTENCY_KEY="abc")
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert runs(membership.reseller).count() == 1
    other = client.post(list_url(membership), {"resources": ["qna"]}, format="json",
                        HTTP_IDEMPOTENCY_KEY="abc")
    assert other.status_code == 400
    assert runs(membership.reseller).count() == 1
