"""The provider-event endpoint: who gets in, what is refused with which status, what is
stored."""

import base64
import json

import pytest
from django.test import Client
from django.urls import reverse

from events.models import ProviderEvent
from events.services import RECEIVER_EVENTS, password_hash
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-random-password-for-tests-0123456789"
EVENT = {"eventName": "LISTING_UPDATED", "businessId": 7_000_000_123,
         "timestamp": "2026-11-21T10:00:00Z", "data": {"sites": []}}


@pytest.fixture
def receiver():
    from events.models import EventReceiver

    reseller = ResellerFactory()
    with tenant_scope(reseller):
        return EventReceiver.objects.create(reseller=reseller, username="portal-abc",
                                            password_hash=password_hash(PASSWORD),
                                            events=list(RECEIVER_EVENTS))


def basic(username, password):
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def deliver(receiver, body, *, auth=None, client=None, public_id=None, **extra):
    client = client or Client(enforce_csrf_checks=True)
    url = reverse("provider_event_receive", args=[public_id or receiver.public_id])
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json",
                       HTTP_AUTHORIZATION=auth or basic(receiver.username, PASSWORD), **extra)


def test_a_new_event_is_stored_raw_and_answered_202_without_a_csrf_token(receiver):
    raw = json.dumps(EVENT, indent=1)
    response = deliver(receiver, raw)
    assert response.status_code == 202 and response.json()["duplicate"] is False
    event = ProviderEvent.unscoped.get()
    assert event.reseller_id == receiver.reseller_id
    assert event.body == raw and event.payload == EVENT
    assert (event.event_name, event.business_remote_id, event.state) == (
        "LISTING_UPDATED", 7_000_000_123, "received")
    assert event.occurred_at.isoformat() == "2026-11-21T10:00:00+00:00"


def test_the_event_is_linked_to_the_mirrored_business(receiver):
    with tenant_scope(receiver.reseller):
        business = BusinessFactory(reseller=receiver.reseller, remote_id=EVENT["businessId"])
    deliver(receiver, EVENT)
    assert ProviderEvent.unscoped.get().business_id == business.pk


def test_the_same_delivery_again_is_counted_not_stored(receiver):
    assert deliver(receiver, EVENT).status_code == 202
    # The same event with its keys in another order and other spacing is the same event.
    reordered = json.dumps(dict(reversed(list(EVENT.items()))), separators=(",", ":"))
    again = deliver(receiver, reordered)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    event = ProviderEvent.unscoped.get()
    assert event.deliveries == 2
    assert deliver(receiver, {**EVENT, "timestamp": "2026-11-21T10:00:01Z"}).status_code == 202
    assert ProviderEvent.unscoped.count() == 2


@pytest.mark.parametrize("auth", [
    "", "Bearer abc", "Basic !!!notbase64", basic("portal-abc", "wrong"),
    basic("someone-else", PASSWORD), basic("portal-abc", PASSWORD + "x"),
])
def test_wrong_or_missing_credentials_get_401(receiver, auth):
    client = Client()
    url = reverse("provider_event_receive", args=[receiver.public_id])
    headers = {"HTTP_AUTHORIZATION": auth} if auth else {}
    response = client.post(url, data=json.dumps(EVENT), content_type="application/json",
                           **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic ")
    assert not ProviderEvent.unscoped.exists()


@pytest.mark.parametrize("public_id", ["00000000-0000-0000-0000-000000000000", "not-a-uuid"])
def test_an_unknown_endpoint_gets_401_like_wrong_credentials(receiver, public_id):
    assert deliver(receiver, EVENT, public_id=public_id).status_code == 401


def test_a_disabled_receiver_refuses_deliveries(receiver):
    from django.utils import timezone

    type(receiver).unscoped.filter(pk=receiver.pk).update(disabled_at=timezone.now())
    assert deliver(receiver, EVENT).status_code == 401


@pytest.mark.parametrize(("body", "message"), [
    ("{not json", "JSON object"),
    ("[1, 2]", "JSON object"),
    (b"\xff\xfe", "JSON object"),
    ({"businessId": 1}, "eventName"),
    ({"eventName": ""}, "eventName"),
    ({"eventName": "X" * 65}, "eventName"),
    ({"eventName": "LISTING_UPDATED", "businessId": "12"}, "businessId"),
    ({"eventName": "LISTING_UPDATED", "businessId": True}, "businessId"),
    ({"eventName": "LISTING_UPDATED", "timestamp": "yesterday"}, "timestamp"),
    ({"eventName": "LISTING_UPDATED", "data": [1]}, "data"),
])
def test_a_body_that_is_not_an_event_gets_400_naming_the_field(receiver, body, message):
    response = deliver(receiver, body)
    assert response.status_code == 400
    assert message in response.json()["message"]
    assert not ProviderEvent.unscoped.exists()


def test_an_oversized_body_gets_413_unread(receiver, settings):
    settings.PROVIDER_EVENT_MAX_BODY_BYTES = 1024
    response = deliver(receiver, {**EVENT, "data": {"padding": "x" * 2000}})
    assert response.status_code == 413 and "1024 bytes" in response.json()["message"]
    assert not ProviderEvent.unscoped.exists()


def test_only_post_is_allowed(receiver):
    url = reverse("provider_event_receive", args=[receiver.public_id])
    assert Client().get(url).status_code == 405


def test_events_of_one_reseller_never_reach_another(receiver):
    from events.models import EventReceiver

    other = ResellerFactory()
    with tenant_scope(other):
        EventReceiver.objects.create(reseller=other, username="portal-other",
                                     password_hash=password_hash("other-password"))
    # The other reseller's credentials on this reseller's endpoint do not get in.
    assert deliver(receiver, EVENT, auth=basic("portal-other", "other-password")
                   ).status_code == 401
    deliver(receiver, EVENT)
    assert list(ProviderEvent.unscoped.values_list("reseller_id", flat=True)) == [
        receiver.reseller_id]
