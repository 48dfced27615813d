"""The webhooks page: subscriptions, the subscribe form, unsubscribe with confirmation."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.credentials import decrypt
from accounts.models import AuditEvent, Role
from listings.models import Subscription
from listings.services import subscription_create, subscription_delete
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(1)



def list_url(reseller):
    return reverse("subscription_list", args=[reseller.slug])


def confirm_url(reseller, remote_id):
    return reverse("subscription_delete_confirm", args=[reseller.slug, remote_id])


def add_subscription(reseller, event="LISTING_UPDATED", url="https://hooks.example.com/x",
                     **extra):
    return Subscription.unscoped.create(reseller=reseller, remote_id=f"sub-{next(_ids)}",
                                        event_name=event, webhook_url=url, **extra)


def valid(**changes):
    data = {"webhook_url": "https://hooks.example.com/portal", "event_name": "SURVEY_COMPLETED",
            "emails": "ops@example.com\nteam@example.com", "auth_username": "",
            "auth_password": ""}
    data.update(changes)
    return data


@pytest.fixture
def manager(member_client):
    client, membership = member_client(Role.MANAGER)
    return client, membership.reseller


def test_a_member_sees_the_accounts_subscriptions_only(member_client):
    client, membership = member_client(Role.VIEWER)
    add_subscription(membership.reseller, emails=["ops@example.com"])
    add_subscription(membership.reseller, url="https://hooks.example.com/removed",
                     removed_at="2026-01-01T00:00:00Z")
    add_subscription(ResellerFactory(), url="https://hooks.example.com/theirs")
    page = client.get(list_url(membership.reseller)).content.decode()
    assert "https://hooks.example.com/x" in page and "ops@example.com" in page
    assert "removed" not in page and "theirs" not in page


def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    other = ResellerFactory()
    theirs = add_subscription(other)
    assert client.get(list_url(other)).status_code == 404
    assert client.get(confirm_url(other, theirs.remote_id)).status_code == 404


def test_another_tenants_subscription_id_gets_404(manager):
    client, reseller = manager
    theirs = add_subscription(ResellerFactory())
    assert client.get(confirm_url(reseller, theirs.remote_id)).status_code == 404
    assert client.post(confirm_url(reseller, theirs.remote_id)).status_code == 404
    assert client.get(confirm_url(reseller, "no-such-id")).status_code == 404
    assert not OutboxEntry.unscoped.exists()


def test_a_viewer_has_no_write_controls_and_cannot_post(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    subscription = add_subscription(reseller)
    page = client.get(list_url(reseller)).content.decode()
    assert "Subscribe a webhook" not in page and "Unsubscribe" not in page
    assert client.post(list_url(reseller), valid()).status_code == 403
    assert client.get(confirm_url(reseller, subscription.remote_id)).status_code == 403
    assert client.post(confirm_url(reseller, subscription.remote_id)).status_code == 403
    assert not OutboxEntry.unscoped.exists()


def test_a_subtree_member_is_refused(member_client):
    reseller = ResellerFactory()
    client, _ = member_client(Role.MANAGER, reseller=reseller,
                              limited_to=BusinessFactory(reseller=reseller))
    assert client.get(list_url(reseller)).status_code == 403
    assert client.post(list_url(reseller), valid()).status_code == 403


def test_subscribing_queues_the_subscription_with_the_password_encrypted(manager):
    client, reseller = manager
    response = client.post(list_url(reseller), valid(auth_username="portal",
                                                     auth_password="hunter2-secret"))
    assert response.status_code == 302
    entry = OutboxEntry.unscoped.get()
    assert entry.kind == OutboxEntry.Kind.SUBSCRIBE
    assert entry.payload["webhookUrl"] == "https://hooks.example.com/portal"
    assert entry.payload["emails"] == ["ops@example.com", "team@example.com"]
    assert entry.payload["auth"]["username"] == "portal"
    assert "hunter2-secret" not in str(entry.payload)
    assert decrypt(entry.payload["auth"]["password_encrypted"]) == "hunter2-secret"
    assert "hunter2" not in str(list(AuditEvent.unscoped.values()))
    page = client.get(list_url(reseller)).content.decode()
    assert "Subscribe https://hooks.example.com/portal to SURVEY_COMPLETED" in page
    assert "hunter2" not in page


@pytest.mark.parametrize("changes,field,message", [
    ({"webhook_url": ""}, "webhook_url", "This field is required."),
    ({"webhook_url": "http://hooks.example.com/x"}, "webhook_url", "must start with https://"),
    ({"webhook_url": "https://"}, "webhook_url", "valid https URL"),
    ({"webhook_url": "https://user:pw@hooks.example.com/"}, "webhook_url",
     "not in the URL"),
    ({"event_name": "PIZZA_DELIVERED"}, "event_name", "Select a valid choice"),
    ({"emails": "ops@example.com, not-an-email"}, "emails", "Not an email address: not-an"),
    ({"auth_username": "portal"}, "auth_password", "Give the password"),
    ({"auth_password": "secret"}, "auth_username", "Give the user name"),
])
def test_each_rule_is_reported_on_its_field_and_nothing_is_lost(manager, changes, field,
                                                               message):
    client, reseller = manager
    response = client.post(list_url(reseller), valid(**changes))
    assert response.status_code == 200
    form = response.context["form"]
    assert list(form.errors) == [field]
    assert any(message in error for error in form.errors[field])
    assert form["emails"].value() == valid(**changes)["emails"]
    assert not OutboxEntry.unscoped.exists()


def test_the_password_is_never_echoed_back_after_an_error(manager):
    client, reseller = manager
    response = client.post(list_url(reseller), valid(webhook_url="http://x.example",
                                                      auth_username="portal",
                                                      auth_password="hunter2-secret"))
    assert "hunter2-secret" not in response.content.decode()


def test_unsubscribe_asks_first_then_queues_one_removal(manager):
    client, reseller = manager
    subscription = add_subscription(reseller, event="CONTACT_CREATED")
    page = client.get(confirm_url(reseller, subscription.remote_id)).content.decode()
    assert "Unsubscribe this webhook?" in page and "CONTACT_CREATED" in page
    assert subscription.webhook_url in page

    assert client.post(confirm_url(reseller, subscription.remote_id)).status_code == 302
    client.post(confirm_url(reseller, subscription.remote_id))
    entry = OutboxEntry.unscoped.get()
    assert (entry.kind, entry.payload) == (OutboxEntry.Kind.UNSUBSCRIBE,
                                           {"subscriptionId": subscription.remote_id})
    # Still listed until the provider confirms, with its removal shown as pending.
    page = client.get(list_url(reseller)).content.decode()
    assert "Removal pending" in page


def test_the_services_store_what_the_handlers_send(scope):
    reseller = scope(ResellerFactory())
    entry = subscription_create(tenant=reseller, actor=None,
                                webhook_url="https://hooks.example.com/a",
                                event_name="LISTING_UPDATED")
    assert entry.payload == {"webhookUrl": "https://hooks.example.com/a",
                             "eventName": "LISTING_UPDATED", "emails": [], "auth": None}
    subscription = add_subscription(reseller)
    removal = subscription_delete(tenant=reseller, actor=None, subscription=subscription)
    assert removal.kind == OutboxEntry.Kind.UNSUBSCRIBE
    assert subscription_delete(tenant=reseller, actor=None, subscription=subscription) == removal


def test_the_query_count_does_not_grow_with_subscriptions(manager, scope):
    client, reseller = manager
    add_subscription(reseller)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(list_url(reseller)).status_code == 200
        return len(queries)

    few = count()
    scope(reseller)
    for index in range(20):
        subscription = add_subscription(reseller, url=f"https://hooks.example.com/{index}")
        subscription_delete(tenant=reseller, actor=None, subscription=subscription)
    assert count() == few == 7
