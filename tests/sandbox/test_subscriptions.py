"""Subscribe and unsubscribe (operation 16)."""

from __future__ import annotations

from sandbox.models import Subscription
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB

HOOK = {
    "webhookUrl": "https://portal.example.com/hooks/provider",
    "emails": ["ops@portal.example.com"],
    "eventName": "LISTING_UPDATED",
    "auth": {"username": "u", "password": "p"},
}


def subscribe(api, account, body):
    return api.post("/v1/subscriptions/subscribe", params={"businessId": account}, json=body)


def unsubscribe(api, account, subscription_id):
    return api.get(
        f"/v1/subscriptions/unsubscribe/{subscription_id}", params={"businessId": account}
    )


def test_subscribe_then_unsubscribe(api, seeded):
    account = seeded["account_number"]
    response = subscribe(api, account, HOOK)
    assert response.status_code == 200
    subscription_id = response.json()["id"]
    assert isinstance(subscription_id, str) and response.json()["message"]
    assert Subscription.objects.filter(subscription_id=subscription_id).exists()
    removed = unsubscribe(api, account, subscription_id)
    assert removed.status_code == 200 and set(removed.json()) == {"message"}
    assert not Subscription.objects.filter(subscription_id=subscription_id).exists()
    assert_error(unsubscribe(api, account, subscription_id), 500, 1005)


def test_seeded_subscriptions_can_be_removed(api, seeded):
    assert len(seeded["subscription_ids"]) >= 2
    for subscription_id in seeded["subscription_ids"]:
        assert unsubscribe(api, seeded["account_number"], subscription_id).status_code == 200


def test_unknown_subscription_is_http_500_code_1005(api, seeded, seeded_b):
    account = seeded["account_number"]
    assert_error(unsubscribe(api, account, "no-such-id"), 500, 1005)
    # Another key's subscription is unknown to this one.
    assert_error(unsubscribe(api, account, seeded_b["subscription_ids"][0]), 500, 1005)


def test_subscribe_bad_input_and_unknown_business(api, seeded):
    for body in [
        {**HOOK, "eventName": "EVERYTHING"},
        {**HOOK, "webhookUrl": "mailto:ops@example.com"},
        {**HOOK, "emails": ["not-an-email"]},
        {**HOOK, "auth": "u:p"},
        {key: value for key, value in HOOK.items() if key != "eventName"},
    ]:
        assert_error(subscribe(api, seeded["account_number"], body), 400, 400)
    assert_error(subscribe(api, 5, HOOK), 404, 1011)
    assert_error(unsubscribe(api, 5, "x"), 404, 1011)
    assert_error(api.get("/v1/subscriptions/unsubscribe/x"), 400, 400)
