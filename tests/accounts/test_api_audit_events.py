import datetime

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuditEvent, Role
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db



def url(membership):
    return reverse("api_audit_event_list", args=[membership.reseller.slug])


def event(reseller, action="sync.started", actor="a@example.com", days_ago=0):
    return AuditEvent.unscoped.create(
        reseller=reseller, action=action, actor_label=actor,
        created_at=timezone.now() - datetime.timedelta(days=days_ago), summary={"x": 1})


def test_anonymous_gets_401():
    assert APIClient().get(reverse("api_audit_event_list",
                                   args=[ResellerFactory().slug])).status_code == 401


@pytest.mark.parametrize("kwargs", [{"role": Role.VIEWER}, {"role": Role.MANAGER},
                                    {"role": Role.OWNER, "token_role": Role.MANAGER}])
def test_only_owners_read_the_audit_log(api_member, kwargs):
    client, membership = api_member(**kwargs)
    assert client.get(url(membership)).status_code == 403


def test_owner_lists_and_filters(api_member, django_assert_max_num_queries):
    client, membership = api_member(Role.OWNER)
    old = event(membership.reseller, action="hierarchy.update_requested", days_ago=10)
    new = event(membership.reseller, actor="boss@agency.com")
    event(ResellerFactory())
    ids = [e["id"] for e in client.get(url(membership)).json()["results"]]
    assert new.pk in ids and old.pk in ids and ids.index(new.pk) < ids.index(old.pk)
    assert AuditEvent.unscoped.exclude(reseller=membership.reseller).get().pk not in ids
    only = client.get(url(membership), {"action": "hierarchy.update_requested"}).json()
    assert [e["id"] for e in only["results"]] == [old.pk]
    by_actor = client.get(url(membership), {"actor": "BOSS@"}).json()
    assert [e["id"] for e in by_actor["results"]] == [new.pk]
    today = timezone.localdate()
    dated = client.get(url(membership), {"date_from": today - datetime.timedelta(days=11),
                                          "date_to": today - datetime.timedelta(days=9)}).json()
    assert [e["id"] for e in dated["results"]] == [old.pk]
    for _ in range(20):
        event(membership.reseller)
    with django_assert_max_num_queries(6):
        response = client.get(url(membership), {"limit": 500})
    assert response.json()["count"] >= 22


def test_bad_dates_get_field_errors(api_member):
    client, membership = api_member(Role.OWNER)
    response = client.get(url(membership), {"date_from": "2026-02-01", "date_to": "2026-01-01"})
    assert response.status_code == 400 and "date_to" in response.json()["fields"]
    response = client.get(url(membership), {"date_from": "yesterday"})
    assert response.status_code == 400 and "date_from" in response.json()["fields"]


def test_other_tenant_is_404(api_member):
    client, _ = api_member(Role.OWNER)
    other = ResellerFactory()
    assert client.get(reverse("api_audit_event_list", args=[other.slug])).status_code == 404
