"""The webhooks page: subscriptions, the subscribe form, unsubscribe with confirmation."""

import itertools

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.credentials import decrypt
from accounts.models import AuditEvent, Role
from listings.models import Subscription
from listings.services import subscription_create, subscription_delete, subscriptions_create
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
    data = {"webhook_url": "https://hooks.example.com/portal", "event_names": ["SURVEY_COMPLETED"],
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
    assert "Subscribe https://hooks.example.com/portal to “Survey completed”" in page
    assert "hunter2" not in page


@pytest.mark.parametrize("changes,field,message", [
    ({"webhook_url": ""}, "webhook_url", "This field is required."),
    ({"webhook_url": "http://hooks.example.com/x"}, "webhook_url", "must start with https://"),
    ({"webhook_url": "https://"}, "webhook_url", "valid https URL"),
    ({"webhook_url": "https://user:pw@hooks.example.com/"}, "webhook_url",
     "not in the URL"),
    ({"event_names": ["PIZZA_DELIVERED"]}, "event_names", "Select a valid choice"),
    ({"event_names": []}, "event_names", "Choose at least one event"),
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
    assert "Unsubscribe this webhook?" in page and "Contact created" in page
    assert "live updates" not in page  # an outside webhook
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
    assert count() == few == 8  # with the bell's unread count


# -- several events, no duplicates, the portal's own hook ---------------------------------------

def subscribe_entries():
    return list(OutboxEntry.unscoped.filter(kind=OutboxEntry.Kind.SUBSCRIBE).order_by("pk"))


def test_several_events_in_one_go_queue_one_subscription_each(manager):
    client, reseller = manager
    response = client.post(list_url(reseller), valid(
        event_names=["LISTING_UPDATED", "SURVEY_COMPLETED", "CONTACT_CREATED"],
        auth_username="portal", auth_password="hunter2-secret"), follow=True)
    entries = subscribe_entries()
    assert [entry.payload["eventName"] for entry in entries] == [
        "LISTING_UPDATED", "SURVEY_COMPLETED", "CONTACT_CREATED"]
    assert {entry.payload["webhookUrl"] for entry in entries} == {
        "https://hooks.example.com/portal"}
    assert all(decrypt(entry.payload["auth"]["password_encrypted"]) == "hunter2-secret"
               for entry in entries)
    page = response.content.decode()
    assert "3 subscriptions of https://hooks.example.com/portal are queued" in page
    assert "“Listing updated”, “Survey completed”, “Contact created”" in page


def test_the_form_offers_every_event_in_words(manager):
    client, reseller = manager
    page = client.get(list_url(reseller)).content.decode()
    assert page.count('name="event_names"') == 12
    assert "Appointment missed (no-show)" in page and "Contact activity" in page
    assert ">APPOINTMENT_NOSHOW<" not in page


def test_an_event_the_url_already_receives_is_refused_on_the_events_field(manager, scope):
    client, reseller = manager
    add_subscription(reseller, event="LISTING_UPDATED", url="https://hooks.example.com/portal")
    response = client.post(list_url(reseller), valid(
        event_names=["LISTING_UPDATED", "SURVEY_COMPLETED"]))
    assert response.status_code == 200
    form = response.context["form"]
    assert list(form.errors) == ["event_names"]
    [message] = form.errors["event_names"]
    assert "Already delivered to this URL: “Listing updated”" in message
    assert "A URL receives each event once" in message
    assert form["webhook_url"].value() == "https://hooks.example.com/portal"  # nothing lost
    assert form["emails"].value() == valid()["emails"]
    assert subscribe_entries() == []

    # Another URL may have it; so may this one for another event.
    assert client.post(list_url(reseller), valid(
        webhook_url="https://hooks.example.com/other",
        event_names=["LISTING_UPDATED"])).status_code == 302
    assert client.post(list_url(reseller), valid(
        event_names=["SURVEY_COMPLETED"])).status_code == 302
    # Now queued: asking again is refused too, before anything is sent.
    again = client.post(list_url(reseller), valid(event_names=["SURVEY_COMPLETED"]))
    assert "“Survey completed”" in again.context["form"].errors["event_names"][0]
    assert len(subscribe_entries()) == 2


def test_a_subscription_being_removed_can_be_made_again(manager, scope):
    client, reseller = manager
    old = add_subscription(reseller, event="SURVEY_COMPLETED",
                           url="https://hooks.example.com/portal")
    scope(reseller)
    subscription_delete(tenant=reseller, actor=None, subscription=old)
    assert client.post(list_url(reseller), valid()).status_code == 302
    assert len(subscribe_entries()) == 1


def test_the_service_refuses_duplicates_itself(scope):
    reseller = scope(ResellerFactory())
    add_subscription(reseller, event="LISTING_UPDATED", url="https://hooks.example.com/a")
    with pytest.raises(ValidationError) as refused:
        subscriptions_create(tenant=reseller, actor=None, webhook_url="https://hooks.example.com/a",
                             event_names=["SURVEY_COMPLETED", "LISTING_UPDATED"])
    assert list(refused.value.message_dict) == ["event_names"]
    assert subscribe_entries() == []


@pytest.fixture
def portal_hook(settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"
    path = reverse("provider_event_receive", args=["3f1c2a9e-0000-4000-8000-000000000001"])
    return f"https://portal.example.com{path}"


def test_unsubscribing_the_portals_own_hook_says_it_turns_live_updates_off(manager,
                                                                           portal_hook):
    client, reseller = manager
    hook = add_subscription(reseller, event="LISTING_UPDATED", url=portal_hook)
    listed = client.get(list_url(reseller)).content.decode()
    assert "Portal live updates" in listed

    page = client.get(confirm_url(reseller, hook.remote_id)).content.decode()
    assert "Turn off the portal's live updates for “Listing updated”?" in page
    assert "This is the portal's own live-update hook" in page
    assert "turns these live updates off" in page
    assert "only at its next sync" in page
    assert "Unsubscribe and turn live updates off" in page
    assert reverse("provider_event_list", args=[reseller.slug]) in page

    response = client.post(confirm_url(reseller, hook.remote_id), follow=True)
    assert "live updates for this event stop" in response.content.decode()


def test_an_outside_hook_with_another_path_is_not_the_portals(settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"
    assert not Subscription(webhook_url="https://portal.example.com/elsewhere/"
                            ).is_live_update_hook
    assert not Subscription(webhook_url="https://hooks.example.com/x").is_live_update_hook
